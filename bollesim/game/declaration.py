"""What the layers above the engine may know of a game, in one declaration (the anchors:
pgx's `Env`, OpenSpiel's `Game`, TAG's forward model with its per-game metric columns).

Runner, run folders, sweeps, statistics, reports, compare, sensitivity, the search and
the what-if page read the game's names from here: its result, its policies' package, its
baseline policy and its headline question (the trigger families the trigger charts
sweep). None of them names a game's columns, policies or places.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bollesim.game.result import Result

Ruleset = Any
"""A game's ruleset, of the type its rulebook's load_ruleset returns: it has `name`,
`digest` (ruleset_digest of `data`), `data` (the merged TOML, recorded in manifests) and
`readings` ({reading id: the variant its values match})."""

def ruleset_digest(data: dict) -> str:
    """A ruleset's digest: the SHA-256 of its data as canonical JSON (sorted keys)."""
    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(canonical).hexdigest()


RULEBOOK = (
    "load_ruleset",  # (path=None, overrides=None, partial=None, readings=None) -> Ruleset
    "build",  # (data, source) -> Ruleset, or RulesetError
    "locate",  # (data, "table.key", source) -> (holding dict, last name, declaration)
    "set_value",  # (data, key, value, source) -> a copy of data with the key set
    "READINGS",  # {id: bollesim.game.readings.Reading}
    "apply_readings",  # (data, {id: variant}, source) -> data with the variants' values
    "reading_keys",  # (reading) -> the key paths its variants set
    "ids_hint",  # (unknown id) -> "did you mean ...? (readings: ...)"
    "parse_choices",  # (["ID=VARIANT", ...], source) -> {id: variant}
    "DEFAULT_PATH",  # the shipped ruleset's file (a Path), load_ruleset's default
)
"""What a game's rules module (Game.rules) provides to the layers above its engine; a
bad ruleset raises bollesim.errors.RulesetError."""


@dataclass(frozen=True)
class Trigger:
    """A policy family of the headline question: its parameter `param` sets when the
    player first acts. values(rules): the settings to sweep on a ruleset; None: every
    whole number of the parameter's declared range. strong: the parameter of the game's
    strong player (Game.strong) that imposes the same trigger, with the same values
    ("" for none): the question asked of a player who plays well."""

    policy: str
    param: str
    values: Callable[[object], range] | None = None
    strong: str = ""

    @property
    def id(self) -> str:
        """policy.param, as the what-if page names the family."""
        return f"{self.policy}.{self.param}"

    def settings(self, policy, rules) -> list[float]:
        """The settings to sweep for the policy (game.policy.Policy) on a ruleset."""
        if self.values is not None:
            return [float(v) for v in self.values(rules)]
        p = next(p for p in policy.parameters if p.name == self.param)
        return [float(v) for v in range(int(p.low), int(p.high) + 1)]


@dataclass(frozen=True, eq=False)
class Game:
    """A game as the layers above its engine see it: a value every tool takes (registry.
    load_game(NAME) gives it), equal only to itself, so it keys caches.

    name: short id; title: how reports name it; result: its result declaration;
    policies: the package its policies are modules of; baseline: the policy comparisons
    start from (the historical play, say); scripted: the policy family compiled into the
    fast engine, whose presets are points of it ("" for none); triggers: the headline question's families;
    opening: where the what-if page opens without --from, {"policy", "params", "note"}
    (the setting a showcase finds best, say, rather than the policies' defaults);
    engine: the module whose play_chunk(rules, policy, params, seed, first_game, engine)
    plays games into result rows; rules: the module with the names of RULEBOOK.
    form: the module whose form_model() the what-if page draws its ruleset form from and
    whose edit_units() are the key paths an edit may name (serve/edits.py); odds: the
    module whose exact_odds(rules) gives the page a ruleset's exact odds ("" for none);
    narration: the module whose narrated_game(rules, policy, params, seed, game_index,
    engine) gives one game's account, a list of lines, and its result row, and whose
    game_document(rules, policy, params, seed, game_index) gives it as data ("" for none);
    show: the module whose show_tables(console, rules) and show_readings(console, rules)
    print a ruleset for `rules show` ("" for none).
    space: the module declaring the scripted family's search space: knobs(), the parameters
    every preset shares, and SEEDED_KNOBS, those a search seeds each preset at every value
    of ("" for a game without a scripted family); strong: the strong player, a policy fast
    enough for every tool, that the tools put beside the one asked about ("" for none).
    readings_page: the docs page that tells the game's readings, as reports cite it.
    experiment: the experiment spec of its headline question's sweep (what the command
    line's help sweeps in its examples; "" for none).
    positions: the module of its decision points (bollesim/game/positions.py; "" for
    none); headroom: the module whose HEADROOM (bollesim/strong/headroom.py) declares its
    headroom report's ladder and bounds ("" for none).
    find_keys: the keys the what-if page's "find a change" panel may change unless asked
    otherwise (a tune spec's [keys] syntax, each over its declared range; docs/tune.md).
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
    form: str
    odds: str = ""
    narration: str = ""
    space: str = ""
    strong: str = ""
    show: str = ""
    readings_page: str = "docs/readings.md"
    find_keys: tuple[str, ...] = ()
    experiment: str = ""
    positions: str = ""
    headroom: str = ""

    @property
    def rulebook(self):
        """The game's rules module: the names of RULEBOOK."""
        return importlib.import_module(self.rules)

    @property
    def form_module(self):
        return importlib.import_module(self.form)

    @property
    def space_module(self):
        return importlib.import_module(self.space)

    @property
    def positions_module(self):
        """The game's decision points (the names of game/positions.py's POSITIONS)."""
        if not self.positions:
            from bollesim.errors import UsageError

            raise UsageError(f"{self.title} declares no decision points: it cannot be played "
                             "by a lookahead player, nor learned, bounded or stepped")
        return importlib.import_module(self.positions)

    def exact_odds(self, rules: Ruleset) -> dict | None:
        """The ruleset's exact odds for the what-if page, or None for a game without them."""
        return importlib.import_module(self.odds).exact_odds(rules) if self.odds else None

    def narrated_game(self, rules: Ruleset, policy, params, seed: int, game_index: int,
                      engine: str) -> tuple[list[str], dict]:
        """One game told turn by turn, and its result row (the game's narration)."""
        return self._narration().narrated_game(rules, policy, params, seed, game_index, engine)

    def game_document(self, rules: Ruleset, policy, params, seed: int, game_index: int) -> dict:
        """One game as data, a JSON document: its decisions, events, narration and result."""
        return self._narration().game_document(rules, policy, params, seed, game_index)

    def _narration(self):
        if not self.narration:
            from bollesim.errors import UsageError

            raise UsageError(f"{self.title} has no narration: its games cannot be told turn by turn")
        return importlib.import_module(self.narration)

    def load_ruleset(self, *args, **kwargs) -> Ruleset:
        """The game's ruleset: its rulebook's load_ruleset(*args, **kwargs)."""
        return self.rulebook.load_ruleset(*args, **kwargs)

    def play_chunk(self, rules: Ruleset, policy, params, seed: int, first_game: int, engine: str):
        """Result rows of games first_game .. first_game + len(params) - 1 (its engine)."""
        return importlib.import_module(self.engine).play_chunk(rules, policy, params, seed, first_game, engine)

    def policy_module(self, name: str):
        """The module of the policy `name` in the game's policies package."""
        return importlib.import_module(f"{self.policies}.{name}")

    def trigger(self, policy: str | None) -> Trigger | None:
        return next((t for t in self.triggers if t.policy == policy), None)
