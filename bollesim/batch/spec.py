"""Experiments: a TOML spec of policy cells, played on common random numbers into one dataset.

A spec (experiments/*.toml) names the ruleset and the cells to play:

    name = "first_fire"                   # default out folder: results/<name>
    description = "When to give the first Fire order"
    seed = 1                              # game g of every cell is seeded from (seed, g)
    games = 10000                         # games per cell
    ruleset = "my_rules.toml"             # optional, relative to the spec's folder
    partial = "tweak.toml"                # optional partial TOML merged over it
    overrides = ["roe.fire_allowed=10"]   # optional KEY=VALUE, as `--set`
    readings = { "I-AIR" = "ceil" }       # optional ID = VARIANT, as `--reading`
    precision = 0.01                      # optional: add games until every half-width <= 0.01
    max_games = 200000                    # optional cap on games per cell (with precision)

    [[grid]]                              # one or more; each makes one cell per combination
    policy = "fire_at_roe"
    params = { k = [8, 12, 16, 25], stop_at_tanks = 3 }   # a list is swept, a number is fixed
    rules = { "tracks.tank_to_hit" = [7, 8] }              # optional: ruleset keys, as --set
    readings = { "I-DEADLINE" = ["18", "16"] }             # optional: reading variants

The experiment's ruleset is the file, then the partial, the overrides and the readings
(as load_ruleset applies them). A grid's `rules` and `readings` are axes like `params`:
each key (a ruleset key path of docs/ruleset.md, `map.positions[K2].fp` included; nested
tables read as dotted keys) or reading id (docs/readings.md) maps to one value or a list of
values, one cell each; to sweep a key whose value is itself a list, give a list of lists.
A cell plays the experiment's ruleset with its rule values set and then its readings
switched on; cells with the same values share one Ruleset.

The cells are the Cartesian product of each grid's lists, params first, then rules, then
readings, each in file order (the first list slowest), grids in file order, numbered from
0. Every cell plays the same game indices 0..N-1, hence the same seeds (common random
numbers, docs/architecture.md §3), whatever its ruleset, so two cells can be compared game
by game.

`session.sweep` and `session.run_cells` write a run folder (runfolder.py): OUT/games.parquet (one row per
game of every cell: `cell`, the union of the cells' parameter columns, null where a policy
has no such parameter; with rule axes also `ruleset`, what the cell changes as
`tracks.tank_to_hit=8 I-DEADLINE=16` ("" for nothing), and `ruleset_hash`, the SHA-256 of
the ruleset it played) and OUT/manifest.json (the cells, each with the rules, readings and
ruleset hash it plays if it changes them; the spec; and the experiment's ruleset data, so
that any game can be replayed exactly with `replay_from_run`). An interrupted sweep
continues with mode="resume" (`--resume`); a cell's ruleset hash is part of what a resumed
sweep must match.

Every count a spec or the command line may set has a range (limits.LIMITS); a value outside
it is a one-line error naming the key.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bollesim.batch.limits import DEFAULT_SEED, LIMITS, NAME, check_precision
from bollesim.batch.source import RulesetSource
from bollesim.errors import RulesetError, UsageError
from bollesim.game.declaration import Game, Ruleset
from bollesim.game.policy import Policy, load_policy
from bollesim.game.registry import DEFAULT_GAME, load_game
from bollesim.terminal import shown

SPEC_KEYS = (
    "name",
    "description",
    "seed",
    "games",
    "ruleset",
    "partial",
    "overrides",
    "readings",
    "precision",
    "max_games",
    "grid",
)


GRID_KEYS = ("policy", "params", "rules", "readings")


@dataclass(frozen=True)
class Cell:
    """One combination of a policy, its parameter values and, on a grid with rule axes,
    what the cell changes in the experiment's ruleset: `rule_values` (key path -> value, as
    `--set`) then `readings` (id -> variant, as `--reading`), and the `ruleset` they make
    (None: the experiment's ruleset, unchanged)."""

    cell: int
    policy: Policy
    params: np.ndarray  # float64 in PARAMETERS order: one vector, or one row per game
    rule_values: dict = field(default_factory=dict)
    readings: dict = field(default_factory=dict)
    ruleset: Ruleset | None = field(default=None, repr=False, compare=False)

    @property
    def changes_rules(self) -> bool:
        return bool(self.rule_values or self.readings)

    def ruleset_text(self) -> str:
        """What the cell changes in the experiment's ruleset, one line ("" for nothing):
        `tracks.tank_to_hit=8 I-AIR=ceil`; the rows' `ruleset` column."""
        return ruleset_text(self.rule_values, self.readings)

    @property
    def per_game(self) -> bool:
        return self.params.ndim == 2

    def chunk_params(self, a: int, b: int) -> np.ndarray:
        """The parameter rows of games a..b-1 (a read-only view when every game shares them)."""
        if self.per_game:
            return self.params[a:b]
        return np.broadcast_to(self.params, (b - a, len(self.params)))

    def param_dict(self) -> dict[str, float]:
        return {p.name: float(v) for p, v in zip(self.policy.parameters, self.params, strict=True)}

    def describe(self) -> dict:
        """The manifest's record of the cell: {cell, policy, params}, and for a cell that
        changes the ruleset its `rules`, `readings` and `ruleset_hash`."""
        params = PER_GAME if self.per_game else self.param_dict()
        return {"cell": self.cell, "policy": self.policy.name, "params": params,
                **self._ruleset_record()}

    def key(self) -> dict:
        """What makes the cell's rows: its policy, parameters (a hash when per game) and
        ruleset."""
        if not self.per_game:
            return {"policy": self.policy.name, "params": self.param_dict(),
                    **self._ruleset_record()}
        digest = hashlib.sha256(np.ascontiguousarray(self.params).tobytes()).hexdigest()
        return {"policy": self.policy.name, "params_sha256": digest, **self._ruleset_record()}

    def _ruleset_record(self) -> dict:
        if not self.changes_rules:
            return {}
        return {"rules": self.rule_values, "readings": self.readings,
                "ruleset_hash": self.ruleset.digest}


def ruleset_text(rules: dict, readings: dict) -> str:
    """`KEY=VALUE` for each rule, then `ID=VARIANT` for each reading, space-separated
    (a string value bare, any other as JSON without spaces)."""
    def value(v) -> str:
        return v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))

    return " ".join([f"{k}={value(v)}" for k, v in rules.items()]
                    + [f"{rid}={name}" for rid, name in readings.items()])


PER_GAME = "per game (see the parameter columns)"


@dataclass(frozen=True)
class Experiment:
    """A validated spec of a game: its cells and its ruleset, ready to sweep."""

    name: str
    game: Game
    description: str
    seed: int
    games: int
    cells: tuple[Cell, ...]
    rules: Ruleset = field(repr=False)
    ruleset_source: RulesetSource = field(default_factory=RulesetSource)
    precision: float | None = None
    max_games: int | None = None
    path: Path | None = None
    spec: dict = field(default_factory=dict, repr=False)  # the TOML as read
    sensitivity: dict | None = None  # how a sensitivity run lays out its cells (sensitivity.py)


class Spec:
    """Typed access to a spec's TOML of a game that fails with `FILE: KEY: problem`."""

    def __init__(self, path: Path, game: Game):
        self.path, self.game = path, game

    def fail(self, key: str, problem: str):
        raise UsageError(f"{self.path}: {key}: {problem}")

    def known(self, table: dict, allowed: tuple[str, ...], prefix: str = "") -> None:
        for key in table:
            if key not in allowed:
                self.fail(prefix + key, f"unknown key (known: {', '.join(allowed)})")

    def whole(self, table: dict, key: str, limit: str, low: int | None = None, default=None) -> int:
        lowest, highest = LIMITS[limit]
        lowest = lowest if low is None else low
        value = table.get(key, default)
        if value is None:
            self.fail(key, f"missing: give a whole number from {lowest:,} to {highest:,}")
        if isinstance(value, bool) or not isinstance(value, int) or not lowest <= value <= highest:
            self.fail(key, f"expected a whole number from {lowest:,} to {highest:,}, got {shown(value)}")
        return value

    def text(self, table: dict, key: str, default=None, limit: str | None = None) -> str | None:
        value = table.get(key, default)
        if value is not None and not isinstance(value, str):
            self.fail(key, f"expected a string, got {shown(value)}")
        if value is not None and limit is not None and len(value) > LIMITS[limit][1]:
            self.fail(key, f"longer than {LIMITS[limit][1]:,} characters")
        return value

    def number(self, value, key: str) -> float:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            self.fail(key, f"expected a number, got {shown(value)}")
        return float(value)

    def param_value(self, parameter, value, key: str) -> float:
        """A parameter's value: a number, or the name of one of its choices."""
        given = value if isinstance(value, str) and parameter.choices else self.number(value, key)
        try:
            return parameter.value(given)
        except ValueError as exc:
            self.fail(key, str(exc))

    def file(self, table: dict, key: str) -> Path | None:
        value = self.text(table, key)
        if value is None:
            return None
        path = Path(value)
        path = path if path.is_absolute() else self.path.parent / path
        if not path.is_file():
            self.fail(key, f"no such file {str(path)!r} (a path is relative to the spec's folder)")
        return path


def read_spec(path: str | Path) -> dict:
    """The TOML of a spec file (UsageError naming the file if unreadable or not TOML)."""
    from bollesim.inputs import TOML_LIMIT, LimitError, loads_toml, read_text

    path = Path(path)
    text = read_text(path, TOML_LIMIT)
    try:
        return loads_toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    except LimitError as exc:
        raise UsageError(f"{path}: {exc}") from None


def spec_name(s: Spec, data: dict, path: Path) -> str:
    """A spec's `name` (default: the file's stem), which names its out folder."""
    name = s.text(data, "name", path.stem, limit="name")
    if not NAME.fullmatch(name):
        s.fail(
            "name", f"use letters, digits, '_', '-' or '.' (it names the out folder), got {shown(name)}"
        )
    return name


def load_experiment(path: str | Path, game: str | Game = DEFAULT_GAME) -> Experiment:
    """Read and validate a spec of the game `game` (a registered name or a Game): its keys,
    every cell's policy and parameter values (against the policy's declared ranges) and
    its ruleset. Errors are one line, `FILE: KEY: problem`."""
    path = Path(path)
    data = read_spec(path)
    s = Spec(path, load_game(game))
    s.known(data, SPEC_KEYS)
    name = spec_name(s, data, path)
    description = s.text(data, "description", "", limit="description") or ""
    seed = s.whole(data, "seed", "seed", default=DEFAULT_SEED)
    games = s.whole(data, "games", "games", low=1)
    precision = data.get("precision")
    if precision is not None:
        precision = check_precision(s.number(precision, "precision"), f"{path}: precision")
    max_games = s.whole(data, "max_games", "max_games") if "max_games" in data else None
    rules, source = ruleset_of(s, data)
    grids = data.get("grid")
    if grids is None:
        s.fail("grid", "missing: give at least one [[grid]] table with a policy")
    if not isinstance(grids, list) or not grids or not all(isinstance(g, dict) for g in grids):
        s.fail("grid", "expected one or more [[grid]] tables, each with a policy and params")
    if len(grids) > LIMITS["cells"][1]:
        s.fail("grid", f"more than {LIMITS['cells'][1]:,} grids")
    cells: list[Cell] = []
    rulesets: dict = {}  # one Ruleset per distinct change of the experiment's ruleset
    for i, grid in enumerate(grids):
        cells.extend(_grid_cells(s, grid, f"grid[{i}].", len(cells), rules, rulesets))
    return Experiment(
        name=name,
        game=s.game,
        description=description,
        seed=seed,
        games=games,
        cells=tuple(cells),
        rules=rules,
        ruleset_source=source,
        precision=precision,
        max_games=max_games,
        path=path,
        spec=data,
    )


def ruleset_of(s: Spec, data: dict) -> tuple[Ruleset, RulesetSource]:
    """The ruleset of a spec's `ruleset`, `partial`, `overrides` (a list of "KEY=VALUE") and
    `readings` (a table ID = "VARIANT"), as a sweep's and a search's spec give them, and
    its source."""
    overrides = data.get("overrides", [])
    if not isinstance(overrides, list) or not all(isinstance(o, str) for o in overrides):
        s.fail("overrides", 'expected a list of "KEY=VALUE" strings, e.g. ["roe.fire_allowed=10"]')
    if len(overrides) > LIMITS["overrides"][1]:
        s.fail("overrides", f"more than {LIMITS['overrides'][1]:,} overrides")
    readings = data.get("readings", {})
    if not isinstance(readings, dict) or not all(isinstance(v, str) for v in readings.values()):
        s.fail("readings", 'expected a table of ID = "VARIANT", e.g. { "I-AIR" = "ceil" }')
    source = RulesetSource(s.file(data, "ruleset"), s.file(data, "partial"), tuple(overrides),
                           dict(readings))
    try:
        return source.load(s.game), source
    except RulesetError as exc:
        if exc.source == "--reading":
            s.fail(f"readings.{exc.key}", exc.problem)
        s.fail("overrides" if exc.source == "--set" else "ruleset", str(exc))


def _grid_cells(
    s: Spec, grid: dict, prefix: str, first: int, base: Ruleset, rulesets: dict
) -> list[Cell]:
    s.known(grid, GRID_KEYS, prefix)
    name = grid.get("policy")
    if not isinstance(name, str):
        s.fail(prefix + "policy", "missing: name a policy (see `bollesim policies`)")
    try:
        policy = load_policy(name, s.game)
    except UsageError as exc:
        s.fail(prefix + "policy", str(exc))
    params = grid.get("params", {})
    if not isinstance(params, dict):
        s.fail(prefix + "params", "expected a table of parameter = value or [values]")
    axes: list[tuple[str, list[float]]] = []
    for pname, raw in params.items():
        key = f"{prefix}params.{pname}"
        values = raw if isinstance(raw, list) else [raw]
        if not values:
            s.fail(key, "empty list: give at least one value")
        if len(values) > LIMITS["cells"][1]:
            s.fail(key, f"more than {LIMITS['cells'][1]:,} values")
        try:
            policy.check_names([pname])
        except UsageError as exc:
            s.fail(key, str(exc))
        parameter = next(p for p in policy.parameters if p.name == pname)
        checked = []
        for j, value in enumerate(values):
            item = f"{key}[{j}]" if isinstance(raw, list) else key
            number = s.param_value(parameter, value, item)
            try:
                policy.param_vector({pname: number})
            except UsageError as exc:
                s.fail(item, str(exc))
            checked.append(number)
        axes.append((pname, checked))
    names = [a for a, _ in axes]
    rule_axes = _rule_axes(s, grid, prefix, base)
    reading_axes = _reading_axes(s, grid, prefix)
    lists = [values for _, values in axes + rule_axes + reading_axes]
    most = LIMITS["cells"][1]
    if first + math.prod(len(values) for values in lists) > most:
        s.fail(prefix + "params", f"the spec would make more than {most:,} cells")
    cells = []
    n_params, n_rules = len(axes), len(rule_axes)
    for combo in itertools.product(*lists):
        vector = policy.param_vector(dict(zip(names, combo[:n_params], strict=True)))
        rules = {k: v for (k, _), v in zip(rule_axes, combo[n_params:n_params + n_rules],
                                            strict=True)}
        readings = {r: v for (r, _), v in zip(reading_axes, combo[n_params + n_rules:],
                                               strict=True)}
        ruleset = _cell_ruleset(s, prefix, base, rules, readings, rulesets)
        cells.append(Cell(first + len(cells), policy, vector, rules, readings, ruleset))
    return cells


def _flat(table: dict, prefix: str = "") -> dict:
    """A rules table with nested tables as dotted keys: {tracks = {x = 1}} -> {"tracks.x": 1}."""
    out = {}
    for key, value in table.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[prefix + key] = value
    return out


def _rule_axes(s: Spec, grid: dict, prefix: str, base: Ruleset) -> list[tuple[str, list]]:
    """The grid's `rules`: [(key path, [values])], each value checked against its key's
    declaration (a list is swept; to sweep a key whose value is a list, give a list of
    lists)."""
    table = grid.get("rules", {})
    if not isinstance(table, dict):
        s.fail(prefix + "rules", 'expected a table of "KEY" = [values], e.g. '
               '{ "tracks.tank_to_hit" = [7, 8] }')
    axes = []
    for key, raw in _flat(table).items():
        where = f"{prefix}rules.{key}"
        values = raw if isinstance(raw, list) else [raw]
        if not values:
            s.fail(where, "empty list: give at least one value")
        try:
            s.game.rulebook.locate(copy.deepcopy(base.data), key, "rules")
        except RulesetError as exc:
            s.fail(where, exc.problem)
        for j, value in enumerate(values):
            item = f"{where}[{j}]" if isinstance(raw, list) else where
            try:
                s.game.rulebook.set_value(base.data, key, value, "rules")
            except RulesetError as exc:
                hint = (" (a list is swept: give a list of lists to sweep a key whose value "
                        "is a list)" if isinstance(raw, list) and not isinstance(value, list)
                        and "list" in exc.problem else "")
                suffix = exc.key[len(key):] if exc.key.startswith(key) else ""
                s.fail(item + suffix, exc.problem + hint)
        axes.append((key, values))
    return axes


def _reading_axes(s: Spec, grid: dict, prefix: str) -> list[tuple[str, list[str]]]:
    """The grid's `readings`: [(reading id, [variant names])], each checked."""
    rulebook = s.game.rulebook
    table = grid.get("readings", {})
    if not isinstance(table, dict):
        s.fail(prefix + "readings", 'expected a table of "ID" = ["VARIANT", ...], e.g. '
               '{ "I-AIR" = ["floor", "ceil"] }')
    axes = []
    for rid, raw in table.items():
        where = f"{prefix}readings.{rid}"
        if rid not in rulebook.READINGS:
            s.fail(where, "unknown reading; " + rulebook.ids_hint(rid))
        names = raw if isinstance(raw, list) else [raw]
        if not names:
            s.fail(where, "empty list: give at least one variant")
        for j, name in enumerate(names):
            item = f"{where}[{j}]" if isinstance(raw, list) else where
            if not isinstance(name, str):
                s.fail(item, f"expected a variant name, got {shown(name)}")
            try:
                rulebook.READINGS[rid].variant(name)
            except KeyError as exc:
                s.fail(item, exc.args[0].split(": ", 1)[1])
        axes.append((rid, names))
    return axes


def _cell_ruleset(
    s: Spec, prefix: str, base: Ruleset, rules: dict, readings: dict, rulesets: dict
) -> Ruleset | None:
    """The experiment's ruleset with a cell's rules and readings applied (None without
    any), built once for the cells that share them."""
    if not rules and not readings:
        return None
    key = ruleset_text(rules, readings)
    if key not in rulesets:
        try:
            rulesets[key] = changed_ruleset(s.game, base, rules, readings)
        except RulesetError as exc:
            s.fail(prefix + ("rules" if rules else "readings"),
                   f"the cells with {key} cannot be played: {exc.key}: {exc.problem}")
    return rulesets[key]


def changed_ruleset(game: Game, base: Ruleset, rules: dict, readings: dict) -> Ruleset:
    """The game's ruleset `base` with rule values set (as --set) and then readings switched
    (as --reading)."""
    rulebook = game.rulebook
    data = base.data
    for key, value in rules.items():
        data = rulebook.set_value(data, key, value, "rules")
    if readings:
        data = rulebook.apply_readings(data, readings, "readings")
    return rulebook.build(data, f"{base.name} + {ruleset_text(rules, readings)}")


def param_names(cells) -> list[str]:
    """The union of the cells' parameters, in order of first appearance."""
    names: list[str] = []
    for cell in cells:
        names += [p.name for p in cell.policy.parameters if p.name not in names]
    return names
