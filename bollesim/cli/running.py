"""A batch command while it plays: its progress bar, the signals that stop it as Ctrl-C
does (its finished chunks are saved), what it says when interrupted or resumed, and the
Dask cluster of --cluster."""

from __future__ import annotations

import shlex
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import typer

from bollesim.errors import UsageError
from bollesim.terminal import printable


def progress_bar(label: str):
    """A rich progress bar over games (quiet when stderr is not a terminal)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    return Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=not console.is_terminal,
        transient=False,
    )


class Signalled(KeyboardInterrupt):
    """SIGTERM or SIGHUP, stopping a run the way Ctrl-C does."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """While a batch plays, SIGTERM and SIGHUP stop it as Ctrl-C does: its finished chunks
    are saved and the command says how to resume."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Signalled(signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_mode(resume: bool, restart: bool, replace: bool = False) -> str:
    """The run folder's mode (batch/options.py MODES) the flags ask for."""
    given = [f for f, on in (("--resume", resume), ("--restart", restart), ("--replace", replace)) if on]
    if len(given) > 1:
        raise UsageError(f"{' and '.join(given)}: give one (--resume continues an interrupted run, "
                         "--restart discards it, --replace replaces whatever run OUT holds)")
    return "resume" if resume else "restart" if restart else "replace" if replace else "new"


def say_interrupted(folder: Path, exc: KeyboardInterrupt) -> NoReturn:
    """Say what an interrupted run saved and how to continue it; exit 128 + the signal."""
    from bollesim.batch.partial import interrupted_run

    waiting = interrupted_run(folder)
    saved = f"{waiting.saved:,} of {waiting.planned:,} games are saved" if waiting else "no game was saved"
    args = [a for a in sys.argv[1:] if a not in ("--resume", "--restart")]
    if Path(sys.argv[0]).name in ("bollesim", "__main__.py"):
        how = "continue with: " + shlex.join(["bollesim", *args, "--resume"])
    else:
        how = "continue with the same command and --resume"
    typer.echo(printable(f"interrupted: {saved} ({folder}); {how}"), err=True)
    signum = getattr(exc, "signum", signal.SIGINT)
    raise typer.Exit(128 + signum)


def say_search_stopped(folder: Path, exc: KeyboardInterrupt) -> NoReturn:
    """Say, in one line, that a stopped policy search wrote nothing and is run again whole
    (it keeps no chunks to resume); exit 128 + the signal."""
    typer.echo(printable(f"interrupted: the search stopped before its end; {folder} is as it was "
                         "(a search keeps no partial result): run the same command again"),
               err=True)
    raise typer.Exit(128 + getattr(exc, "signum", signal.SIGINT))


@contextmanager
def dask_cluster(address: str | None, workers: int | None, threads: int | None):
    """The Dask cluster of --cluster, or None (play on this machine)."""
    if address is None:
        if workers is not None:
            raise UsageError("--workers sizes a Dask cluster: give --cluster local too")
        yield None
        return
    from bollesim.batch.cluster import Cluster

    with Cluster(address, workers, threads) as cluster:
        yield cluster


@contextmanager
def playing_games(label: str, cluster: str | None = None, workers: int | None = None,
                  threads: int | None = None, total: int | None = None):
    """What a command holds while it plays games: SIGTERM and SIGHUP stop it as Ctrl-C
    does (stop_on_signals), the Dask cluster of --cluster if one is asked for, and a
    progress bar over the games. Yields (the cluster or None, progress(done, total))."""
    with (
        stop_on_signals(),
        dask_cluster(cluster, workers, threads) as dask,
        progress_bar(label) as bar,
    ):
        task = bar.add_task("games", total=total)
        yield dask, lambda done, total: bar.update(task, completed=done, total=total)


def say_resumed(folder: Path, outcome) -> None:
    """A line on stderr when --resume found the run complete, or continued one."""
    if outcome.already_complete:
        typer.echo(printable(f"nothing to resume: {folder} holds this run, complete"), err=True)
    elif outcome.saved_before:
        typer.echo(f"resumed: {outcome.saved_before:,} games were saved already", err=True)
