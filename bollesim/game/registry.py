"""The games this installation plays, by name: `load_game(NAME)` is the `Game`
(bollesim.game.declaration) that every tool takes as a value, as OpenSpiel's
`pyspiel.load_game("kuhn_poker")` and pgx's `pgx.make("backgammon")` are.

A name is looked up among registrations only, never imported as given: the games built
in (BUILT_IN) and those other packages register under the entry-point group GROUP, one
line of their pyproject.toml (tests/bollesim_pig-0.dist-info registers the test game so):

    [project.entry-points."bollesim.games"]
    mygame = "mygame.game"      # a module whose GAME declares the game named "mygame"

An unknown name is a UsageError that names the known ones.
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib.metadata import entry_points

from bollesim.errors import UsageError
from bollesim.game.declaration import RULEBOOK, Game, Ruleset
from bollesim.terminal import shown

BUILT_IN = {"bollebank": "bollesim.bollebank.game", "balkan-wars": "bollesim.balkan.game"}
"""The games of this package: name -> the module whose GAME declares it."""
DEFAULT_GAME = "bollebank"
"""The game played where none is named (the command line's --game, simulate's game)."""
GROUP = "bollesim.games"
"""The entry-point group a game outside this package registers under."""


def registered() -> dict[str, str]:
    """Every registered game: name -> "module" (whose GAME declares it) or
    "module:attribute"; the built-in games first, then the entry points of GROUP (which
    cannot take a built-in name)."""
    found = dict(BUILT_IN)
    for point in entry_points(group=GROUP):
        found.setdefault(point.name, point.value)
    return found


def load_game(game: str | Game) -> Game:
    """The game registered as `game` (a Game is returned as it is), imported on first
    use and then kept; an unregistered name raises UsageError, before anything is imported."""
    if isinstance(game, Game):
        return game
    if not isinstance(game, str):
        raise TypeError(f"a game is a registered name or a Game, not {type(game).__name__}")
    return _load(game)


def command_line(game: Game, command: str) -> str:
    """`bollesim COMMAND` as the game's player types it: with `--game NAME` first unless the
    game is the default one (the saved patch's, a replay's hints)."""
    chooser = "" if game.name == DEFAULT_GAME else f"--game {game.name} "
    return f"bollesim {chooser}{command}"


@cache
def _load(name: str) -> Game:
    target = BUILT_IN.get(name) or registered().get(name)
    if target is None:
        raise UsageError(f"unknown game {shown(name)} (known: {', '.join(registered())})")
    module, _, attribute = target.partition(":")
    game = getattr(importlib.import_module(module.strip()), attribute.strip() or "GAME")
    if not isinstance(game, Game) or game.name != name:
        raise TypeError(f"game {name!r} is registered as {target}, which does not declare "
                        f"a Game named {name!r}")
    missing = [n for n in RULEBOOK if not hasattr(game.rulebook, n)]
    if missing:
        raise TypeError(f"game {name!r}: its rules module {game.rules} lacks {missing[0]}")
    return game



def load_ruleset(*args, game: str | Game = DEFAULT_GAME, **kwargs) -> Ruleset:
    """The ruleset of the game `game` (bollesim.load_ruleset): the shipped one, or a file,
    a partial, `KEY=VALUE` overrides and readings as its rulebook's load_ruleset takes them."""
    return load_game(game).load_ruleset(*args, **kwargs)
