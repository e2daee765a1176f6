"""The command line (`bollesim`, typer): one module per command group, the options they
share, what they print; cli/app.py registers them all (cli/wiring.py says how).

The commands' modules read the game's declaration when imported, so a bad $BOLLESIM_GAME
is reported here, before any of them: one `error:` line and exit code 2 for every
command, `--version` included."""

from bollesim.errors import UsageError
from bollesim.game.declaration import declared

try:
    declared()
except UsageError as exc:
    import sys

    from bollesim.terminal import printable

    sys.stderr.write(f"error: {printable(exc)}\n")
    raise SystemExit(2) from None
