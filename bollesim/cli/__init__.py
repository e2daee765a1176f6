"""The command line (`bollesim`, typer): one module per command group, the options they
share, what they print; cli/app.py registers them all (cli/wiring.py says how).

The commands' modules meet the environment when imported (numba's settings), so what in
it stops every command, `--version` included, is reported here, before any of them: one
`error:` line and exit code 2 (the game is no part of the environment: `--game NAME`
chooses it, cli/chosen.py). Ctrl-C while they are imported stops with one line too
(bollesim.stop_while_starting; wiring.py hands Ctrl-C back to the commands)."""

import os
import sys

from bollesim.terminal import printable


def environment_problem() -> str | None:
    """What in the environment no command can run with, or None."""
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
