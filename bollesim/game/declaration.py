"""What the layers above the engine may know of a game, in one declaration (the anchors:
pgx's `Env`, OpenSpiel's `Game`, TAG's forward model with its per-game metric columns).

Runner, run folders, sweeps, statistics, reports, compare, sensitivity, the search and
the what-if page read the game's names from here: its result, its policies' package, its
baseline policy and its headline question (the trigger families the trigger charts
sweep). None of them names a game's columns, policies or places.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from bollesim.game.result import Result

Ruleset = Any
"""A game's ruleset, of the type its rules module's load_ruleset returns."""


@dataclass(frozen=True)
class Trigger:
    """A policy family of the headline question: its parameter `param` sets when the
    player first acts. values(rules): the settings to sweep on a ruleset; None: every
    whole number of the parameter's declared range."""

    policy: str
    param: str
    values: Callable[[object], range] | None = None

    def settings(self, policy, rules) -> list[float]:
        """The settings to sweep for the policy (game.policy.Policy) on a ruleset."""
        if self.values is not None:
            return [float(v) for v in self.values(rules)]
        p = next(p for p in policy.parameters if p.name == self.param)
        return [float(v) for v in range(int(p.low), int(p.high) + 1)]


@dataclass(frozen=True)
class Game:
    """A game as the layers above its engine see it.

    name: short id; title: how reports name it; result: its result declaration;
    policies: the package its policies are modules of; baseline: the policy comparisons
    start from (the historical play, say); scripted: the policy family compiled into the
    fast engine, whose presets are points of it ("" for none); triggers: the headline question's families;
    opening: where the what-if page opens without --from, {"policy", "params", "note"}
    (the setting a showcase finds best, say, rather than the policies' defaults);
    engine: the module whose play_chunk(rules, policy, params, seed, first_game, engine)
    plays games into result rows; rules: the module whose load_ruleset() gives a ruleset.
    """

    name: str
    title: str
    result: Result
    policies: str
    baseline: str
    scripted: str
    triggers: tuple[Trigger, ...]
    opening: dict
    engine: str
    rules: str

    def load_ruleset(self, *args, **kwargs) -> Ruleset:
        """The game's ruleset: its rules module's load_ruleset(*args, **kwargs)."""
        return importlib.import_module(self.rules).load_ruleset(*args, **kwargs)

    def play_chunk(self, rules: Ruleset, policy, params, seed: int, first_game: int, engine: str):
        """Result rows of games first_game .. first_game + len(params) - 1 (its engine)."""
        return importlib.import_module(self.engine).play_chunk(rules, policy, params, seed, first_game, engine)

    def policy_module(self, name: str):
        """The module of the policy `name` in the game's policies package."""
        return importlib.import_module(f"{self.policies}.{name}")

    def trigger(self, policy: str | None) -> Trigger | None:
        return next((t for t in self.triggers if t.policy == policy), None)


GAMES = {"bollebank": "bollesim.bollebank.game"}
"""Every game this installation plays: name -> the module whose GAME declares it."""

DEFAULT = "bollebank"


@cache
def declared(name: str = DEFAULT) -> Game:
    """The declaration of the game `name` (imported when first asked for)."""
    return importlib.import_module(GAMES[name]).GAME
