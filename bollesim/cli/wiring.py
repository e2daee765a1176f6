"""The `bollesim` command line's wiring: the typer app and its `rules` group, `--version`,
the global `--game NAME` (resolved once, cli/chosen.py), and the registration of a command
with the shared error handling, which turns a `RulesetError` or a
`bollesim.errors.UsageError` into one line `error: ...` on stderr and exit code 2 (no
traceback). A command is a function in a module of cli/ (one per command group),
registered with `@command(group)`; it gets `--help` from its docstring and `epilog`
(templates of the chosen game's words, chosen.help_words), and the chosen game as a value
in its parameter `game` (or `chosen`):

    @command(app, epilog=examples("bollesim policies"))
    def policies(game: Game) -> None:
        \"\"\"List $title's policies and their parameters.\"\"\"
        from bollesim.game.policy import available_policies  # heavy imports inside
        ...
        raise UsageError("unknown policy 'x' (known: ...)")  # -> exit 2

`fail(message)` reports directly; `with user_errors(): ...` gives the same handling to
code outside a command. cli/app.py imports every command module, so `app` has them all.
"""

from __future__ import annotations

import errno
import functools
import inspect
import os
import re
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, NoReturn

import typer
from typer.core import _click as click  # typer's own click (pyproject.toml)

from bollesim import stop_while_starting
from bollesim.cli.chosen import GameCommand, GameGroup, choose, chosen_game
from bollesim.errors import RulesetError, UsageError
from bollesim.game.registry import DEFAULT_GAME
from bollesim.terminal import printable

EXIT_USAGE = 2  # exit code of every reported error (same as typer's own usage errors)
ORDER = ("rules", "policies", "play", "run", "sweep", "optimise", "report", "sensitivity",
         "compare", "headroom", "bench", "serve")
"""The commands in the order `bollesim --help` lists them (any other after them)."""


class _InOrder(GameGroup):
    """The command line's group: lists its commands in ORDER, whichever module registered
    them first, and reports click's usage errors (an unknown option or command, a value
    that is not a number, a missing argument) as every other error, one `error:` line."""

    def list_commands(self, ctx) -> list[str]:
        rank = {name: i for i, name in enumerate(ORDER)}
        return sorted(self.commands, key=lambda name: rank.get(name, len(ORDER)))

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        for stream in (sys.stdout, sys.stderr):  # a path or text the terminal cannot show
            if hasattr(stream, "reconfigure"):
                stream.reconfigure(errors="backslashreplace")
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click.exceptions.NoArgsIsHelpError as exc:  # `bollesim rules`: its help
            exc.show()
            sys.exit(EXIT_USAGE)
        except click.ClickException as exc:
            line = " ".join(printable(exc.format_message()).split()) or "unknown error"
            typer.echo(f"error: {line}", err=True)
            sys.exit(EXIT_USAGE)
        except typer.Abort:
            typer.echo("Aborted!", err=True)
            sys.exit(1)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            _drop_stdout()
            where = f"{exc.filename}: " if exc.filename else ""
            typer.echo(printable(f"error: {where}cannot write: {os.strerror(exc.errno)}"), err=True)
            sys.exit(EXIT_USAGE)
        sys.exit(code if isinstance(code, int) else 0)


def _drop_stdout() -> None:
    """Send what stdout still holds to /dev/null: a full device would refuse it again at
    exit, with a second message."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture)
        return
    os.dup2(os.open(os.devnull, os.O_WRONLY), fd)


app = typer.Typer(
    cls=_InOrder,
    name="bollesim",
    help="Monte Carlo strategy analysis of a wargame: $title (--game NAME for another).",
    epilog="Examples: bollesim ${chooser}play -P $baseline --seed 7 · bollesim ${chooser}run -P "
    "$baseline -n 1000000 · bollesim ${chooser}sweep $experiment · bollesim report $results",
    no_args_is_help=True,
)


rules_app = typer.Typer(
    cls=GameGroup,
    help="Validate and inspect rulesets of $title (its shipped $rules_file or a designer's copy).",
    epilog="Example: bollesim ${chooser}rules show --reconstructed",
    no_args_is_help=True,
)
app.add_typer(rules_app, name="rules")


def _print_version(value: bool) -> None:
    if value:
        from bollesim import __version__

        typer.echo(f"bollesim {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
    game: Annotated[
        str,
        typer.Option(
            "--game", metavar="NAME", callback=choose, is_eager=True,
            help="The game to play, before the command: one of $games, e.g. `bollesim --game "
            "$name run -P $baseline -n 10000`. A command on a run folder (report, compare, "
            "cells, play --from, serve --from) plays the folder's game."
        ),
    ] = DEFAULT_GAME,
) -> None:
    """Monte Carlo strategy analysis for a solitaire wargame (`bollesim --help` names it).

    Shell completion: bollesim --install-completion (bash, zsh, fish, PowerShell)."""


def fail(message: str) -> NoReturn:
    """Print `error: <message>` as one line on stderr and exit with code 2."""
    line = " ".join(printable(message).splitlines()).strip() or "unknown error"
    typer.echo(f"error: {line}", err=True)
    raise typer.Exit(EXIT_USAGE)


@contextmanager
def user_errors() -> Iterator[None]:
    """Report a RulesetError or UsageError raised inside the block with `fail`, and a path
    the system refuses as too long wherever it is met (inputs.check_path checks them
    before any work where it can)."""
    try:
        yield
    except (RulesetError, UsageError) as exc:
        fail(str(exc))
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise
        fail(f"{exc.filename}: a path too long for the system (a name of at most 255 bytes, "
             "4,096 in all)")


HANDED = {"game": lambda chosen: chosen.game, "chosen": lambda chosen: chosen}
"""The parameters a command may take the command line's game by: `game` (the Game
chosen) or `chosen` (a chosen.Chosen, for a command that reads a run folder's game)."""


def command(group: typer.Typer, name: str | None = None, **kwargs) -> Callable:
    """Register a function as a command of `group`, with the shared error handling and
    the chosen game handed to its parameter `game` or `chosen` (HANDED; not options).

    `kwargs` go to `typer.Typer.command` (e.g. `epilog="Example: ..."`). The help is the
    docstring with each paragraph on one line, for the terminal to wrap at its width, its
    $words filled in with the chosen game's (chosen.help_words)."""

    def register(fn: Callable) -> Callable:
        signature = inspect.signature(fn, eval_str=True)
        handed = [p for p in signature.parameters if p in HANDED]

        @functools.wraps(fn)
        def wrapper(*args, **kw):
            if signal.getsignal(signal.SIGINT) is stop_while_starting:
                signal.signal(signal.SIGINT, signal.default_int_handler)  # the command's own
            try:
                with user_errors():
                    kw.update({p: HANDED[p](chosen_game()) for p in handed})
                    return fn(*args, **kw)
            except KeyboardInterrupt as exc:  # before the command's own handling, or none
                typer.echo("interrupted", err=True)
                raise typer.Exit(128 + getattr(exc, "signum", signal.SIGINT)) from None

        wrapper.__signature__ = signature.replace(
            parameters=[p for p in signature.parameters.values() if p.name not in HANDED])
        group.command(name, cls=GameCommand, **{"help": reflowed(fn.__doc__ or ""), **kwargs})(wrapper)
        return fn

    return register


def reflowed(text: str) -> str:
    """Paragraphs (split at blank lines) each joined into one line: `--help` then breaks
    lines where the terminal ends, not where the source's lines did."""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip())


def examples(*lines: str) -> str:
    """An epilog listing example command lines, one per line in `--help`: templates of the
    chosen game's words (chosen.help_words), each `bollesim` followed by `--game NAME`
    when the game is not the default one."""
    return "Examples:\n\n" + "\n\n".join(
        "  " + line.replace("bollesim ", "bollesim ${chooser}", 1) for line in lines)
