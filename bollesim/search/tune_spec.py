"""A tune spec (experiments/tune_*.toml): what a designer asks of the rules, which keys
the search may change, and the games it may play.

    name = "tune_operational_half"        # default out folder: results/<name>
    description = "..."
    seed = 11                             # the search plays games (seed, 0..)
    holdout_seed = 12                     # certification plays (holdout_seed, 0..), never searched
    budget = 400000                       # every game it plays, the certification included
    trial_games = 6000                    # games of a change never dropped
    holdout_games = 20000                 # certification games per proposal and player
    max_keys = 2                          # the most keys one change may change
    proposals = 3                         # changes certified and reported at most
    candidates = 60                       # changes the sampler may suggest per set of keys
    ruleset / partial / overrides / readings   # the rules a change starts from (spec.ruleset_of)

    [players.best]                        # a named player: a policy and its parameters,
    policy = "plan"                       # or a point of a best-points file:
    params = { ... }                      # point = { file = "best_points.toml", objective = "operational victory" }

    [[targets]]                           # one or more; each an outcome rate of a player
    outcome = "operational"               # (a declared outcome) ...
    player = "best"                       # a named player or any policy (its defaults)
    equals = 0.50                         # with tolerance, or at_most / at_least
    tolerance = 0.02
    # gap = ["apprentice", "historical"]  # instead of player: the first's rate minus the second's

    [keys]                                # the keys the search may change (tune_space.py)
    "tracks.tank_to_hit" = true           # over its declared range,
    "game.deadline_start" = [16, 20]      # a sub-range,
    "tracks.atgm_to_hit" = true           # a list: shifted as a whole,
    "tracks.hmg_to_hit[0]" = true         # one entry of a list
    [groups]                              # named groups: shifted together, one key
    "hit numbers" = ["tracks.atgm_to_hit", "tracks.hmg_to_hit"]

Errors are one line, `FILE: KEY: problem`.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from bollesim.batch.limits import DEFAULT_SEED
from bollesim.batch.source import RulesetSource
from bollesim.batch.spec import Spec, read_spec, ruleset_of, spec_name
from bollesim.errors import UsageError
from bollesim.game.declaration import Game, Ruleset
from bollesim.game.policy import Policy, load_policy
from bollesim.search.tune_space import Knob, knobs_of

SPEC_KEYS = ("name", "description", "seed", "holdout_seed", "budget", "trial_games",
             "holdout_games", "max_keys", "proposals", "candidates", "ruleset", "partial",
             "overrides", "readings", "players", "targets", "keys", "groups")
TARGET_KEYS = ("outcome", "player", "gap", "equals", "tolerance", "at_most", "at_least")
PLAYER_KEYS = ("policy", "params", "point", "label")
COUNTS = {"budget": (400_000, (1, 10**13)), "trial_games": (6_000, (500, 10**9)),
          "holdout_games": (20_000, (100, 10**10)), "max_keys": (2, (1, 4)),
          "proposals": (3, (1, 20)), "candidates": (60, (1, 10_000))}
"""Each count a spec may set: (default, (lowest, highest))."""


@dataclass(frozen=True)
class Player:
    """A player a target names: its label, policy and parameters."""

    name: str
    label: str
    policy: Policy
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Target:
    """An outcome's rate for a player (or the gap between two players' rates, the first
    minus the second) within [low, high]: `= v +- tol` is [v - tol, v + tol], `<= v`
    [-inf, v], `>= v` [v, inf]."""

    outcome: str
    players: tuple[str, ...]  # one, or two for a gap
    low: float
    high: float
    text: str  # as the report says it: "operational victory for best = 50% ± 2"

    @property
    def is_gap(self) -> bool:
        return len(self.players) == 2

    def margin(self, value: float) -> float:
        """How far inside the band a value is (negative: outside), in rate units."""
        return min(value - self.low, self.high - value)


@dataclass(frozen=True)
class Tune:
    """A validated tune spec of a game."""

    name: str
    game: Game
    description: str
    seed: int
    holdout_seed: int
    budget: int
    trial_games: int
    holdout_games: int
    max_keys: int
    proposals: int
    candidates: int
    players: dict[str, Player]
    targets: tuple[Target, ...]
    knobs: tuple[Knob, ...]
    rules: Ruleset = field(repr=False)
    ruleset_source: RulesetSource = field(default_factory=RulesetSource)
    path: Path | None = None
    spec: dict = field(default_factory=dict, repr=False)

    @property
    def certification_games(self) -> int:
        """The most games certification plays: the shipped rules and every proposal, each
        player on holdout_games."""
        return (self.proposals + 1) * len(self.players) * self.holdout_games

    @property
    def search_games(self) -> int:
        return self.budget - self.certification_games


def load_tune(path: str | Path, game: Game, budget: int | None = None) -> Tune:
    """Read and check a tune spec of the game (`budget` given over the spec's)."""
    path = Path(path)
    s = Spec(path, game)
    data = read_spec(path)
    return tune_of(s, data, spec_name(s, data, path), path, budget)


def tune_of(s: Spec, data: dict, name: str, path: Path | None = None,
            budget: int | None = None) -> Tune:
    """Check a spec's table (as read from a file, or as the what-if page builds it: `s`
    says how a problem is told) and make its Tune."""
    s.known(data, SPEC_KEYS)
    description = s.text(data, "description", "", limit="description") or ""
    seed = s.whole(data, "seed", "seed", default=DEFAULT_SEED)
    holdout_seed = s.whole(data, "holdout_seed", "seed", default=(seed + 1) % 2**63)
    if holdout_seed == seed:
        s.fail("holdout_seed", "must differ from seed: certification never plays the search's games")
    counts = {}
    for key, (default, (low, high)) in COUNTS.items():
        value = budget if key == "budget" and budget is not None else data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            s.fail(key, f"expected a whole number from {low:,} to {high:,}, got {value!r}")
        counts[key] = value
    rules, source = ruleset_of(s, data)
    players = _players(s, data.get("players", {}), path)
    targets = _targets(s, data.get("targets"), players)
    used = {p for t in targets for p in t.players}
    players = {k: v for k, v in players.items() if k in used}
    knobs = knobs_of(s, rules, data.get("keys", {}), data.get("groups", {}))
    tune = Tune(name, s.game, description, seed, holdout_seed, players=players, targets=targets,
                knobs=knobs, rules=rules, ruleset_source=source, path=path, spec=data, **counts)
    if tune.search_games < 4 * tune.trial_games * len(players):
        s.fail("budget", f"{tune.budget:,} games leave {max(tune.search_games, 0):,} to search "
                         f"after certification ((proposals + 1) x players x holdout_games = "
                         f"{tune.certification_games:,}): give at least "
                         f"{tune.certification_games + 4 * tune.trial_games * len(players):,}")
    return tune


def _players(s: Spec, table, path: Path) -> dict[str, Player]:
    if not isinstance(table, dict):
        s.fail("players", "expected a table of named players: [players.NAME] policy = ...")
    out = {}
    for pname, raw in table.items():
        key = f"players.{pname}"
        if not isinstance(raw, dict):
            s.fail(key, "expected a table with policy and params, or point")
        s.known(raw, PLAYER_KEYS, key + ".")
        if "point" in raw:
            raw = {**_point(s, raw["point"], key + ".point", path), **raw}
        out[pname] = _player(s, pname, raw, key)
    return out


def _point(s: Spec, raw, key: str, path: Path) -> dict:
    """A [[best]] entry of a best-points file (experiments/best_points.toml) by its objective."""
    if not isinstance(raw, dict) or not {"file", "objective"} <= set(raw):
        s.fail(key, 'expected { file = "best_points.toml", objective = "OBJECTIVE" } (an '
                    "objective that file names)")
    file = s.file(raw, "file")
    try:
        points = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        s.fail(key, f"cannot read {file}: {exc}")
    found = [p for p in points.get("best", []) if p.get("objective") == raw["objective"]]
    if not found:
        known = ", ".join(repr(p.get("objective")) for p in points.get("best", []))
        s.fail(key, f"{file} has no [[best]] with objective {raw['objective']!r} (objectives: {known})")
    return {k: found[0][k] for k in ("policy", "params", "label") if k in found[0]}


def _player(s: Spec, pname: str, raw: dict, key: str) -> Player:
    if not isinstance(raw.get("policy"), str):
        s.fail(key + ".policy", "missing: name a policy (see `bollesim policies`)")
    try:
        policy = load_policy(raw["policy"], s.game)
    except UsageError as exc:
        s.fail(key + ".policy", str(exc))
    params = raw.get("params", {})
    if not isinstance(params, dict):
        s.fail(key + ".params", "expected a table of parameter = value")
    try:
        policy.param_vector(params)
    except UsageError as exc:
        s.fail(key + ".params", str(exc))
    label = s.text(raw, "label", pname) or pname
    return Player(pname, label, policy, dict(params))


def _targets(s: Spec, raw, players: dict[str, Player]) -> tuple[Target, ...]:
    if not isinstance(raw, list) or not raw or not all(isinstance(t, dict) for t in raw):
        s.fail("targets", "missing: give one or more [[targets]] tables "
                          '(outcome = "...", player = "...", equals/at_most/at_least = ...)')
    return tuple(_target(s, t, f"targets[{i}]", players) for i, t in enumerate(raw))


def _target(s: Spec, t: dict, key: str, players: dict[str, Player]) -> Target:
    result = s.game.result
    s.known(t, TARGET_KEYS, key + ".")
    outcome = t.get("outcome")
    if outcome not in result.outcome_names:
        s.fail(key + ".outcome", f"expected an outcome ({', '.join(result.outcome_names)}), got {outcome!r}")
    if ("player" in t) == ("gap" in t):
        s.fail(key, 'give either player = "NAME" or gap = ["FIRST", "SECOND"]')
    names = [t["player"]] if "player" in t else t["gap"]
    if not isinstance(names, list) or len(names) != (1 if "player" in t else 2):
        s.fail(key + ".gap", 'expected two players, e.g. ["apprentice", "historical"]')
    for n in names:
        if not isinstance(n, str):
            s.fail(key, f"expected a player's name, got {n!r}")
        if n not in players:
            try:
                players[n] = Player(n, n, load_policy(n, s.game))
            except UsageError as exc:
                s.fail(key, f"{n!r} is neither a [players] entry nor a policy: {exc}")
    bounds = [k for k in ("equals", "at_most", "at_least") if k in t]
    if len(bounds) != 1:
        s.fail(key, "give one of equals (with tolerance), at_most, at_least")
    low_rate = -1.0 if len(names) == 2 else 0.0
    value = s.number(t[bounds[0]], f"{key}.{bounds[0]}")
    if not low_rate <= value <= 1:
        s.fail(f"{key}.{bounds[0]}", f"expected a rate from {low_rate:g} to 1, got {value:g}")
    if bounds[0] == "equals":
        tol = s.number(t.get("tolerance", 0.0), key + ".tolerance")
        if not 0 < tol < 0.5:
            s.fail(key + ".tolerance", f"expected a rate above 0 and below 0.5, got {tol:g}")
        low, high, sign = value - tol, value + tol, f"= {100 * value:g}% ± {100 * tol:g}"
    elif "tolerance" in t:
        s.fail(key + ".tolerance", "only with equals")
    elif bounds[0] == "at_most":
        low, high, sign = -1.0, value, f"≤ {100 * value:g}%"
    else:
        low, high, sign = value, 1.0, f"≥ {100 * value:g}%"
    what = result.labels.get(outcome, outcome)
    who = (f"for {players[names[0]].label}" if len(names) == 1 else
           f"gap {players[names[0]].label} minus {players[names[1]].label}")
    return Target(outcome, tuple(names), low, high, f"{what} {who} {sign}")


