"""A batch command while it plays: its progress bar, the signals that stop it as Ctrl-C
does (its finished chunks are saved), what it says when interrupted or resumed, and the
Dask cluster of --cluster."""

from __future__ import annotations

import re
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

QUIET = "bollesim.quiet"
"""The command line's context meta key of the global --quiet (cli/wiring.py)."""


def quiet() -> bool:
    """Whether the command running was given the global --quiet."""
    from typer._click.globals import get_current_context  # typer's own click (cli/chosen.py)

    ctx = get_current_context(silent=True)
    return bool(ctx is not None and ctx.find_root().meta.get(QUIET))


def progress_bar(label: str):
    """Progress over a command's work: a rich progress bar on a terminal, else lines
    (PlainProgress, as pip and cargo print into a pipe or a CI log); nothing with --quiet."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    if not console.is_terminal and not quiet():
        return PlainProgress(label)
    return Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=not console.is_terminal or quiet(),
        transient=False,
    )


_DURATION = r"(\d+s|\d+m \d\ds|\d+h \d\dm)"  # duration()'s forms
_COUNTED = r"[\d,]+( of [\d,]+ \(\d+%\))?"  # PlainProgress.counted()'s
PROGRESS_LINE = re.compile(rf"(?!error: |interrupted: |note: )[^\n]+: (started|working, {_DURATION} so "
                           rf"far|done(, {_COUNTED})? in {_DURATION}|{_COUNTED} after {_DURATION})")
"""The form of every progress line (PlainProgress, working): anything else on stderr is a
command's own word (an `error:` line, a note)."""


def duration(seconds: float) -> str:
    """A duration as people say it: 8s, 2m 05s, 1h 03m."""
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


class PlainProgress:
    """Progress off a terminal: a line on stderr when the work is under way (at its first
    progress, so that a refusal before it comes alone), a line at most every `interval`
    seconds while it goes (done of total, the time so far), and one when it ends. The
    progress bar's interface as the commands use it (add_task, update, advance)."""

    INTERVAL = 30.0

    def __init__(self, label: str, interval: float | None = None):
        import time

        self.label, self.clock = printable(label), time.monotonic
        self.interval = self.INTERVAL if interval is None else interval
        self.done, self.total, self.said = 0, None, 0.0
        self.start = self.clock()

    def __enter__(self) -> PlainProgress:
        self.start = self.said = self.clock()
        self.begun = False
        return self

    def __exit__(self, kind, exc, tb) -> None:
        if kind is None and self.begun:
            self.say(f"done{self.counted()} in {duration(self.clock() - self.start)}")

    def say(self, what: str) -> None:
        typer.echo(f"{self.label}: {what}", err=True)

    def counted(self) -> str:
        if self.total:
            return f", {self.done:,} of {self.total:,} ({100 * self.done / self.total:.0f}%)"
        return f", {self.done:,}" if self.done else ""

    def add_task(self, description: str = "", total: float | None = None) -> int:
        self.total = int(total) if total else None
        return 0

    def update(self, task: int, advance: float | None = None, completed: float | None = None,
               total: float | None = None) -> None:
        if total is not None:
            self.total = int(total)
        self.done = int(completed) if completed is not None else self.done + int(advance or 0)
        if not self.begun:  # the first word once the work is under way: checks come first
            self.begun = True
            self.say("started")
        now = self.clock()
        if now - self.said >= self.interval:
            self.said = now
            self.say(f"{self.counted().lstrip(', ')} after {duration(now - self.start)}")

    def advance(self, task: int, advance: float = 1) -> None:
        self.update(task, advance=advance)


@contextmanager
def working(label: str, interval: float | None = None) -> Iterator[None]:
    """A long command without counts (a report): off a terminal and without --quiet, a line
    when it starts, one every `interval` seconds (PlainProgress.INTERVAL) while it works,
    one when it is done; nothing on a terminal, where its result follows at once."""
    import time

    if sys.stderr.isatty() or quiet():
        yield
        return
    stop = threading.Event()
    started = time.monotonic()
    bar = PlainProgress(label, interval)

    def beat():
        while not stop.wait(bar.interval):
            bar.say(f"working, {duration(time.monotonic() - started)} so far")

    bar.say("started")
    beating = threading.Thread(target=beat, daemon=True)
    beating.start()
    try:
        yield
    finally:
        stop.set()
        beating.join()
    bar.say(f"done in {duration(time.monotonic() - started)}")


class Signalled(KeyboardInterrupt):
    """SIGTERM or SIGHUP, stopping a run the way Ctrl-C does."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """While a batch plays, SIGTERM and SIGHUP stop it as Ctrl-C does: its finished chunks
    are saved and the command says how to resume. A signal the command was started with
    ignored stays ignored (`nohup` ignores SIGHUP so that a job outlives its terminal)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Signalled(signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)
                if signal.getsignal(sig) is not signal.SIG_IGN}
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
