"""The command line (`bollesim`, typer): one module per command group, the options they
share, what they print; cli/app.py registers them all (cli/wiring.py says how).

The commands' modules meet the environment when imported (the game's declaration, numba's
settings), so what in it stops every command, `--version` included, is reported here,
before any of them: one `error:` line and exit code 2. Ctrl-C while they are imported
stops with one line too (bollesim.stop_while_starting; wiring.py hands Ctrl-C back to
the commands)."""

import os
import sys

from bollesim import as_program
from bollesim.errors import UsageError
from bollesim.game.registry import CHOICE, declared
from bollesim.terminal import printable


def chosen_game(argv: list[str]) -> str | None:
    """The game `bollesim --game NAME COMMAND ...` names (before the command), else None.
    It is set as $BOLLESIM_GAME before any command's module reads the declaration."""
    if len(argv) > 1 and argv[1].startswith("--game="):
        return argv[1].partition("=")[2]
    if len(argv) > 1 and argv[1] == "--game":
        return argv[2] if len(argv) > 2 else ""
    return None


def environment_problem() -> str | None:
    """What in the environment no command can run with, or None."""
    game = chosen_game(sys.argv) if as_program() else None
    if game is not None:
        if not game or game.startswith("-"):
            return "--game needs a game's name, e.g. --game balkan-wars"
        os.environ[CHOICE] = game
    try:
        os.getcwd()
    except FileNotFoundError:
        return "the current folder no longer exists (deleted?): cd to a folder that exists"
    threads = whole(os.environ.get("NUMBA_NUM_THREADS", "1"))
    if not threads or threads < 1:
        return (f"NUMBA_NUM_THREADS={os.environ['NUMBA_NUM_THREADS']}: give a whole number of "
                "threads from 1 (or unset it to use every core)")
    if whole(os.environ.get("NUMBA_DISABLE_JIT", "0")) != 0:
        return (f"NUMBA_DISABLE_JIT={os.environ['NUMBA_DISABLE_JIT']}: both engines play "
                "numba's compiled code: unset it (or set it to 0)")
    try:
        declared()
    except UsageError as exc:
        return str(exc)
    return None


def whole(text: str) -> int | None:
    """The whole number `text` spells, as numba reads its settings; else None."""
    try:
        return int(text)
    except ValueError:
        return None


if problem := environment_problem():
    sys.stderr.write(f"error: {printable(problem)}\n")
    raise SystemExit(2)
