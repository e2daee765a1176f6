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

`sweep` and `run_cells` write a run folder (runfolder.py): OUT/games.parquet (one row per
game of every cell: `cell`, the union of the cells' parameter columns, null where a policy
has no such parameter; with rule axes also `ruleset`, what the cell changes as
`tracks.tank_to_hit=8 I-DEADLINE=16` ("" for nothing), and `ruleset_hash`, the SHA-256 of
the ruleset it played) and OUT/manifest.json (the cells, each with the rules, readings and
ruleset hash it plays if it changes them; the spec; and the experiment's ruleset data, so
that any game can be replayed exactly with `replay_from_run`). An interrupted sweep
continues with mode="resume" (`--resume`); a cell's ruleset hash is part of what a resumed
sweep must match.

Every count a spec or the command line may set has a range (LIMITS); a value outside it is
a one-line error naming the key.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import re
import time
import tomllib
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from bollesim.batch.runner import RESULT_COLUMNS, check_counts, param_matrix, resolve_policy
from bollesim.bollebank.rules.loader import (
    Ruleset,
    RulesetError,
    build,
    load_ruleset,
    locate,
    set_value,
)
from bollesim.errors import UsageError
from bollesim.game.policy import Policy, load_policy

if TYPE_CHECKING:
    from bollesim.batch.cluster import Cluster

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
PRECISION_RATES = ("operational", "tactical", "strategic", "political", "defeat")
"""The rates `--precision` watches, in every cell."""
RATE_COLUMNS = [[name for name, _ in RESULT_COLUMNS].index(rate) for rate in PRECISION_RATES]
"""Where they are in the engine's result array."""
DEFAULT_MAX_GAMES = 1_000_000
"""Games per cell at most when adding games for --precision, unless told otherwise."""
Z95 = 1.96
LIMITS = {
    "games": (0, 10**15),  # per cell; game indices stay exact in int64 and float64
    "max_games": (1, 10**15),
    "seed": (0, 2**63 - 1),
    "cells": (1, 100_000),
    "chunk": (1, 10**7),
    "overrides": (0, 1_000),
    "name": (1, 100),  # characters: the name is the default out folder's
    "description": (0, 10_000),  # characters
}
"""The range of every count a spec or the command line sets: (lowest, highest)."""
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def check_count(what: str, value: int, limit: str, low: int | None = None) -> int:
    """`value` if it is a whole number within LIMITS[limit] (from `low` if given)."""
    lowest, highest = LIMITS[limit]
    lowest = lowest if low is None else low
    if isinstance(value, bool) or not isinstance(value, int) or not lowest <= value <= highest:
        raise UsageError(f"{what} must be a whole number from {lowest:,} to {highest:,}, got {value!r}")
    return value


# --------------------------------------------------------------------------- the spec


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
    """A validated spec: its cells and its ruleset, ready to sweep."""

    name: str
    description: str
    seed: int
    games: int
    cells: tuple[Cell, ...]
    rules: Ruleset = field(repr=False)
    ruleset_source: dict = field(default_factory=dict)  # {file, partial, overrides, readings}
    precision: float | None = None
    max_games: int | None = None
    path: Path | None = None
    spec: dict = field(default_factory=dict, repr=False)  # the TOML as read
    sensitivity: dict | None = None  # how a sensitivity run lays out its cells (sensitivity.py)


class _Spec:
    """Typed access to a spec's TOML that fails with `FILE: KEY: problem`."""

    def __init__(self, path: Path):
        self.path = path

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
            self.fail(key, f"expected a whole number from {lowest:,} to {highest:,}, got {value!r}")
        return value

    def text(self, table: dict, key: str, default=None, limit: str | None = None) -> str | None:
        value = table.get(key, default)
        if value is not None and not isinstance(value, str):
            self.fail(key, f"expected a string, got {value!r}")
        if value is not None and limit is not None and len(value) > LIMITS[limit][1]:
            self.fail(key, f"longer than {LIMITS[limit][1]:,} characters")
        return value

    def number(self, value, key: str) -> float:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            self.fail(key, f"expected a number, got {value!r}")
        return float(value)

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
    from bollesim.inputs import TOML_LIMIT, read_text

    path = Path(path)
    text = read_text(path, TOML_LIMIT)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise UsageError(f"{path}: not valid TOML: nested too deeply") from None


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate a spec: its keys, every cell's policy and parameter values (against
    the policy's declared ranges) and its ruleset. Errors are one line, `FILE: KEY: problem`."""
    path = Path(path)
    data = read_spec(path)
    s = _Spec(path)
    s.known(data, SPEC_KEYS)
    name = s.text(data, "name", path.stem, limit="name")
    if not _NAME.fullmatch(name):
        s.fail(
            "name", f"use letters, digits, '_', '-' or '.' (it names the out folder), got {name!r}"
        )
    description = s.text(data, "description", "", limit="description") or ""
    seed = s.whole(data, "seed", "seed", default=1)
    games = s.whole(data, "games", "games", low=1)
    precision = data.get("precision")
    if precision is not None:
        precision = check_precision(s.number(precision, "precision"), f"{path}: precision")
    max_games = s.whole(data, "max_games", "max_games") if "max_games" in data else None
    overrides = data.get("overrides", [])
    if not isinstance(overrides, list) or not all(isinstance(o, str) for o in overrides):
        s.fail("overrides", 'expected a list of "KEY=VALUE" strings, e.g. ["roe.fire_allowed=10"]')
    if len(overrides) > LIMITS["overrides"][1]:
        s.fail("overrides", f"more than {LIMITS['overrides'][1]:,} overrides")
    ruleset_file, partial = s.file(data, "ruleset"), s.file(data, "partial")
    readings = data.get("readings", {})
    if not isinstance(readings, dict) or not all(isinstance(v, str) for v in readings.values()):
        s.fail("readings", 'expected a table of ID = "VARIANT", e.g. { "I-AIR" = "ceil" }')
    try:
        rules = load_ruleset(ruleset_file, overrides, partial, readings)
    except RulesetError as exc:
        if exc.source == "--reading":
            s.fail(f"readings.{exc.key}", exc.problem)
        s.fail("overrides" if exc.source == "--set" else "ruleset", str(exc))
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
    source = {
        "file": str(ruleset_file) if ruleset_file else None,
        "partial": str(partial) if partial else None,
        "overrides": list(overrides),
        "readings": dict(readings),
    }
    return Experiment(
        name=name,
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


def _grid_cells(
    s: _Spec, grid: dict, prefix: str, first: int, base: Ruleset, rulesets: dict
) -> list[Cell]:
    s.known(grid, GRID_KEYS, prefix)
    name = grid.get("policy")
    if not isinstance(name, str):
        s.fail(prefix + "policy", "missing: name a policy (see `bollesim policies`)")
    try:
        policy = load_policy(name)
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
        checked = []
        for j, value in enumerate(values):
            item = f"{key}[{j}]" if isinstance(raw, list) else key
            number = s.number(value, item)
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


def _rule_axes(s: _Spec, grid: dict, prefix: str, base: Ruleset) -> list[tuple[str, list]]:
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
            locate(copy.deepcopy(base.data), key, "rules")
        except RulesetError as exc:
            s.fail(where, exc.problem)
        for j, value in enumerate(values):
            item = f"{where}[{j}]" if isinstance(raw, list) else where
            try:
                set_value(base.data, key, value, "rules")
            except RulesetError as exc:
                hint = (" (a list is swept: give a list of lists to sweep a key whose value "
                        "is a list)" if isinstance(raw, list) and not isinstance(value, list)
                        and "list" in exc.problem else "")
                suffix = exc.key[len(key):] if exc.key.startswith(key) else ""
                s.fail(item + suffix, exc.problem + hint)
        axes.append((key, values))
    return axes


def _reading_axes(s: _Spec, grid: dict, prefix: str) -> list[tuple[str, list[str]]]:
    """The grid's `readings`: [(reading id, [variant names])], each checked."""
    from bollesim.bollebank.rules.readings import BY_ID, _ids_hint

    table = grid.get("readings", {})
    if not isinstance(table, dict):
        s.fail(prefix + "readings", 'expected a table of "ID" = ["VARIANT", ...], e.g. '
               '{ "I-AIR" = ["floor", "ceil"] }')
    axes = []
    for rid, raw in table.items():
        where = f"{prefix}readings.{rid}"
        if rid not in BY_ID:
            s.fail(where, "unknown reading; " + _ids_hint(rid))
        names = raw if isinstance(raw, list) else [raw]
        if not names:
            s.fail(where, "empty list: give at least one variant")
        for j, name in enumerate(names):
            item = f"{where}[{j}]" if isinstance(raw, list) else where
            if not isinstance(name, str):
                s.fail(item, f"expected a variant name, got {name!r}")
            try:
                BY_ID[rid].variant(name)
            except KeyError as exc:
                s.fail(item, exc.args[0].split(": ", 1)[1])
        axes.append((rid, names))
    return axes


def _cell_ruleset(
    s: _Spec, prefix: str, base: Ruleset, rules: dict, readings: dict, rulesets: dict
) -> Ruleset | None:
    """The experiment's ruleset with a cell's rules and readings applied (None without
    any), built once for the cells that share them."""
    if not rules and not readings:
        return None
    key = ruleset_text(rules, readings)
    if key not in rulesets:
        try:
            rulesets[key] = changed_ruleset(base, rules, readings)
        except RulesetError as exc:
            s.fail(prefix + ("rules" if rules else "readings"),
                   f"the cells with {key} cannot be played: {exc.key}: {exc.problem}")
    return rulesets[key]


def changed_ruleset(base: Ruleset, rules: dict, readings: dict) -> Ruleset:
    """`base` with rule values set (as --set) and then readings switched (as --reading)."""
    from bollesim.bollebank.rules.readings import apply_readings

    data = base.data
    for key, value in rules.items():
        data = set_value(data, key, value, "rules")
    if readings:
        data = apply_readings(data, readings, "readings")
    return build(data, f"{base.name} + {ruleset_text(rules, readings)}")


def check_precision(precision: float, what: str = "--precision") -> float:
    if not 0 < precision < 0.5:
        raise UsageError(
            f"{what} must be a half-width between 0 and 0.5 (0.01 = one percentage "
            f"point), got {precision:g}"
        )
    return precision


# --------------------------------------------------------------------------- playing cells


def half_widths(successes: np.ndarray, n: int) -> np.ndarray:
    """95% Wilson half-widths, (high - low) / 2, of successes out of n (array in, array out)."""
    from bollesim.stats.analysis import wilson

    if n == 0:
        return np.full(np.shape(successes), np.inf)
    low, high = wilson(np.asarray(successes), np.full(np.shape(successes), n))
    return (np.asarray(high) - np.asarray(low)) / 2


def games_needed(rates: np.ndarray, precision: float, cap: int) -> int:
    """The fewest games (at most cap) at which every rate's Wilson half-width is <= precision,
    were the rates to stay as estimated."""
    p = np.clip(np.asarray(rates, dtype=np.float64).ravel(), 0.0, 1.0)

    def worst(n: float) -> float:
        z2 = Z95 * Z95
        return float(np.max(Z95 * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)))

    low, high = 1, max(cap, 1)
    if worst(high) > precision:
        return high
    while low < high:
        mid = (low + high) // 2
        low, high = (mid + 1, high) if worst(mid) > precision else (low, mid)
    return low


def _round_up(n: int, unit: int) -> int:
    return -(-n // unit) * unit


@dataclass
class Outcome:
    """What a run of cells came to: games per cell and, with --precision, why it stopped.
    `saved_before` counts the games an interrupted run had saved when this session resumed
    it; `already_complete` says a resumed run had nothing left to play."""

    games_per_cell: int
    n_cells: int = 1
    precision: float | None = None
    reached: bool | None = None
    worst_half_width: float | None = None
    worst_cell: int | None = None
    worst_rate: str | None = None
    cap: int | None = None
    saved_before: int = 0
    already_complete: bool = False

    def sentence(self) -> str:
        """One line: how many games, and whether the precision or the game cap stopped it."""
        games = f"{self.games_per_cell:,} games" + (" per cell" if self.n_cells > 1 else "")
        if self.precision is None:
            return games
        where = f"the {self.worst_rate} rate" + (
            f" of cell {self.worst_cell}" if self.n_cells > 1 else ""
        )
        worst = f"{self.worst_half_width * 100:.2f} points, {where}"
        asked = f"{self.precision * 100:g} points"
        if self.reached:
            return (
                f"precision reached: every rate's 95% half-width is at most {asked} after "
                f"{games} (largest {worst})"
            )
        return (
            f"game cap reached: {games} (--max-games {self.cap:,}); the largest 95% "
            f"half-width is {worst}, above the {asked} asked"
        )

    def record(self) -> dict | None:
        """The manifest's `precision` field (None without --precision)."""
        if self.precision is None:
            return None
        return {
            "half_width": self.precision,
            "max_games": self.cap,
            "reached": self.reached,
            "largest_half_width": self.worst_half_width,
            "largest_in": {"cell": self.worst_cell, "rate": self.worst_rate},
        }

    @classmethod
    def from_manifest(cls, manifest: dict) -> Outcome:
        """The outcome a committed run recorded (inverse of record())."""
        p = manifest.get("precision") or {}
        where = p.get("largest_in") or {}
        return cls(
            manifest.get("games_per_cell") or 0,
            manifest.get("n_cells") or 1,
            p.get("half_width"),
            p.get("reached"),
            p.get("largest_half_width"),
            where.get("cell"),
            where.get("rate"),
            p.get("max_games"),
            already_complete=True,
        )


def run_cells(
    out_dir: str | Path,
    cells: tuple[Cell, ...] | list[Cell],
    rules: Ruleset,
    seed: int,
    games: int,
    *,
    precision: float | None = None,
    max_games: int | None = None,
    threads: int | None = None,
    chunk_size: int | None = None,
    engine: str = "fast",
    progress: Callable[[int, int], None] | None = None,
    extra_manifest: dict | None = None,
    cluster: Cluster | None = None,
    mode: str = "new",
) -> tuple[dict, Outcome]:
    """Play games 0..games-1 of every cell into the run folder out_dir (runfolder.py), here
    or, with a cluster.Cluster, as tasks on its workers. Returns (manifest, outcome).

    With `precision`, keep adding games (continuing the game indices, so the seed scheme is
    unchanged and every cell still plays the same games) until every cell's rates of
    PRECISION_RATES have a 95% Wilson half-width of at most `precision`, or a cell has
    `max_games` games (default DEFAULT_MAX_GAMES). progress(done, total) gets game counts
    over all cells.

    Finished chunks are saved as they complete. mode "resume" continues an interrupted run
    (its saved chunks are not played again; the result is the same file as an uninterrupted
    run's), "restart" discards it, and the default "new" refuses a folder holding one.
    `chunk_size` defaults to the interrupted run's when resuming, else runner.default_chunk.
    """
    from bollesim.batch import runner as R
    from bollesim.batch.runfolder import Workspace, interrupted_run, manifest_fields

    check_count("the number of games", games, "games")
    check_count("the seed", seed, "seed")
    if not cells:
        raise UsageError("no cells to play")
    check_count("the number of cells", len(cells), "cells")
    if precision is not None:
        check_precision(precision)
        if any(c.per_game for c in cells):
            raise UsageError("--precision adds games: give one parameter set, not one per game")
    elif max_games is not None:
        raise UsageError("--max-games caps the games added for --precision: give --precision too")
    cap = check_count("--max-games", max_games, "max_games") if max_games else DEFAULT_MAX_GAMES
    if chunk_size is not None:
        check_count("--chunk", chunk_size, "chunk")
    if engine not in R.ENGINES:
        raise UsageError(f"unknown engine {engine!r} (choose fast or reference)")
    if mode not in ("new", "resume", "restart"):
        raise UsageError(f"unknown mode {mode!r} (new, resume or restart)")
    extra = {**ruleset_record(rules), **(extra_manifest or {})}
    unknown = sorted(set(extra) - set(manifest_fields()))
    if unknown:
        raise UsageError(f"{unknown[0]!r} is not a manifest field (see bollesim.batch.runfolder)")
    R.set_threads(threads)

    ws = Workspace(out_dir)
    ws.check_replaceable()  # refusals first: nothing is written for a request refused
    waiting = interrupted_run(ws.out) if mode == "resume" else None
    if chunk_size is None and mode == "resume":  # the chunks of the run being resumed
        before = waiting.plan if waiting is not None else _committed_plan(ws.out)
        chunk_size = before.get("chunk_size")
    plan = {
        "ruleset_hash": rules.digest,
        "seed": seed,
        "games": games,
        "precision": precision,
        "max_games": cap if precision is not None else None,
        "chunk_size": chunk_size or min(R.default_chunk(c.policy, engine) for c in cells),
        "engine": engine,
        "cells": [c.key() for c in cells],
        "planned": (min(games, cap) if precision is not None else games) * len(cells),
    }
    play = _Session(ws, cells, rules, seed, plan, engine, cluster, progress)
    play.check_resources(games, cap, waiting.saved if waiting is not None else 0)
    with ws:
        if mode == "resume" and interrupted_run(ws.out) is None:
            ws.recover()  # a writer killed while it cleaned up after its commit
            done = _complete_run(ws.out, plan)
            if done is not None:
                return done, Outcome.from_manifest(done)
        saved = ws.start(plan, mode)
        outcome = play.rounds(saved, games, cap)
        fields = {
            **_manifest_fields(rules, cells, seed, play, engine, threads),
            "plan": {k: v for k, v in plan.items() if k != "planned"},
            "n_games": outcome.games_per_cell * len(cells),
            "games_per_cell": outcome.games_per_cell,
            "precision": outcome.record(),
            "stopped": outcome.sentence() if precision is not None else None,
            "sessions": ws.sessions,
            "cluster": cluster.describe() if cluster is not None else None,
            **extra,
        }
        manifest = ws.commit(fields, play.schema)
    return manifest, outcome


def run_to_dir(
    out_dir: str | Path,
    policy: str | Policy,
    n_games: int,
    seed: int = 0,
    params=None,
    rules: Ruleset | None = None,
    engine: str = "fast",
    threads: int | None = None,
    chunk_size: int | None = None,
    progress: Callable[[int], None] | None = None,
    extra_manifest: dict | None = None,
    cluster: Cluster | None = None,
    mode: str = "new",
) -> dict:
    """Play a batch into the run folder out_dir (games.parquet and manifest.json, see
    runfolder.py), chunk by chunk (with a cluster.Cluster, as tasks on its workers), and
    return its manifest. `params` as for simulate(), one value or one per game.

    mode "resume" continues an interrupted run into out_dir, "restart" discards it; the
    default refuses a folder holding one. progress(k) is told of every k games played."""
    check_counts(n_games, seed)
    policy = resolve_policy(policy)
    per_game = isinstance(params, np.ndarray) or any(
        np.ndim(v) > 0 for v in dict(params or {}).values()
    )
    if per_game:
        cell = Cell(0, policy, param_matrix(policy, n_games, params))
    else:
        policy.check_names(dict(params or {}))
        cell = Cell(0, policy, policy.param_vector(params))
    seen = [0]

    def advance(done: int, total: int) -> None:
        if progress and done > seen[0]:
            progress(done - seen[0])
            seen[0] = done

    manifest, _ = run_cells(
        out_dir,
        [cell],
        rules or load_ruleset(),
        seed,
        n_games,
        threads=threads,
        chunk_size=chunk_size,
        engine=engine,
        progress=advance,
        extra_manifest=extra_manifest,
        cluster=cluster,
        mode=mode,
    )
    return manifest


def _committed_plan(out: Path) -> dict:
    """The plan recorded by the run in out, or {} (unreadable folders are judged later)."""
    from bollesim.batch.runfolder import RunFolderError, read_manifest

    try:
        return read_manifest(out).plan or {}
    except RunFolderError:
        return {}


def _complete_run(out: Path, plan: dict) -> dict | None:
    """The manifest of out if it holds the complete run of `plan`, else None."""
    from bollesim.batch.runfolder import RunFolderError, open_run

    try:
        manifest = open_run(out).manifest
    except RunFolderError:
        return None
    asked = {k: v for k, v in plan.items() if k != "planned"}
    return manifest if manifest.get("plan") == asked else None


class _Session:
    """One session of play of a run of cells: the rounds of games (one round, or more with
    --precision), each round's chunks as jobs (span, cell), saved chunks skipped."""

    def __init__(self, ws, cells, rules, seed, plan, engine, cluster, progress):
        from bollesim.batch import runner as R
        from bollesim.batch.runfolder import CHECKPOINT_ROWS

        self.ws, self.cells, self.rules, self.seed = ws, list(cells), rules, seed
        self.plan, self.engine, self.cluster, self.progress = plan, engine, cluster, progress
        self.chunk = plan["chunk_size"]
        self.precision = plan["precision"]
        self.with_rulesets = any(c.changes_rules for c in cells)
        self.schema = R.dataset_schema(param_names(cells), rulesets=self.with_rulesets)
        self.index = {c.cell: i for i, c in enumerate(cells)}
        self.counts = np.zeros((len(cells), len(PRECISION_RATES)), dtype=np.int64)
        self.played = 0  # games played (or found saved) so far, over all cells
        self.saved_before = 0  # games an interrupted run had saved
        self.warm_s = self.run_s = 0.0
        self.t0 = time.perf_counter()
        ws.flush_rows = max(self.chunk, CHECKPOINT_ROWS)

    def check_resources(self, games: int, cap: int, saved: int) -> None:
        """Refuse a run the disk or memory cannot hold, with the estimate (resources.py);
        `saved` games are on disk already."""
        from bollesim import resources

        most = (cap if self.precision is not None else games) * len(self.cells)
        resources.check_disk(self.ws.out, max(0, most - saved), most)
        workers = len(self.cluster.workers) if self.cluster is not None else 0
        in_flight = 2 * workers + 3  # playing, being written, being saved (+ tasks)
        chunk = min(self.chunk, max(1, most // len(self.cells)))
        rows = in_flight * chunk + min(self.ws.flush_rows, most)
        resources.check_memory(
            rows * resources.MEMORY_BYTES_PER_GAME,
            f"a chunk of {self.chunk:,} games",
            "give a smaller --chunk",
        )

    def rounds(self, saved, games: int, cap: int) -> Outcome:
        """Play every round; returns the outcome. Saved chunks of rounds that never come
        (impossible unless the folder was tampered with) are removed."""
        from bollesim.batch import runner as R

        by_round: dict[int, list] = {}
        for chunk in saved:
            by_round.setdefault(chunk.round, []).append(chunk)
        self.warm_s = R.warm_up(self.rules, self.cells[0].policy, self.engine, self.cluster)
        t1 = time.perf_counter()
        done, target = 0, (min(games, cap) if self.precision is not None else games)
        unit = 10 ** max(0, len(str(max(games, 1))) - 2)  # 2000 -> added in hundreds
        while True:
            self._round(done, target, by_round.pop(done, []))
            done = target
            outcome = _judge(self.counts, done, self.precision, cap)
            if self.precision is None or outcome.reached or done >= cap:
                break
            need = games_needed(self.counts / done, self.precision, cap)
            target = min(cap, _round_up(max(done + unit, math.ceil(need * 1.02)), unit))
        for chunk in itertools.chain.from_iterable(by_round.values()):
            chunk.path.unlink()
        self.run_s = time.perf_counter() - t1
        outcome.saved_before = self.saved_before = sum(c.rows for c in saved)
        return outcome

    def _job_rows(self, done: int, target: int, job: int) -> int:
        a = done + (job // len(self.cells)) * self.chunk
        return min(target, a + self.chunk) - a

    def _round(self, done: int, target: int, saved: list) -> None:
        """Play games done..target-1 of every cell, except the jobs of saved chunks."""
        from bollesim.batch import runner as R

        n_jobs = -(-(target - done) // self.chunk) * len(self.cells)
        kept = []
        for chunk in saved:
            rows = sum(self._job_rows(done, target, j) for j in range(chunk.first, chunk.end))
            if chunk.end <= n_jobs and rows == chunk.rows:
                kept.append(chunk)
            else:
                chunk.path.unlink()
        for chunk in kept:
            if self.precision is not None:
                self._count(self.ws.read_chunk(chunk))
            self.played += chunk.rows
        self._report(done, target)
        jobs: deque = deque()

        def feed():
            for job, a, b, i in _unsaved_jobs(len(self.cells), done, target, self.chunk, kept):
                jobs.append((job, a, b, i))
                yield self.cells[i].policy, self.cells[i].chunk_params(a, b), self.seed, a, \
                    self.ruleset(i)

        pending = None
        try:
            with ThreadPoolExecutor(1) as writer:
                for results in R.play_chunks(feed(), self.engine, self.cluster):
                    if pending is not None:
                        pending.result()
                    # chunk k is written while chunk k + 1 plays (the kernel releases the GIL)
                    pending = writer.submit(self._keep, done, target, *jobs.popleft(), results)
                if pending is not None:
                    pending.result()
                    pending = None
            self.ws.flush()
        except KeyboardInterrupt:  # Ctrl-C or a signal (cli.py): save what is finished
            if pending is not None and not pending.cancelled():
                pending.exception()
            self.ws.flush()
            raise

    def _keep(self, done: int, target: int, job: int, a: int, b: int, i: int, results) -> None:
        """A finished job: its rows to the workspace, its outcomes to the counts."""
        from bollesim.batch import runner as R

        cell = self.cells[i]
        params = cell.chunk_params(a, b)
        table = R.to_table(results, cell.policy, params, self.seed, a, cell.cell, self.schema)
        if self.with_rulesets:
            table = R.with_ruleset(table, cell.ruleset_text(), self.ruleset(i).digest)
        if self.precision is not None:
            self.counts[i] += results[:, RATE_COLUMNS].sum(axis=0)
        self.ws.add(done, job, table)
        self.played += b - a
        self._report(done, target)

    def ruleset(self, i: int) -> Ruleset:
        """The ruleset cell i plays: its own, or the run's."""
        return self.cells[i].ruleset or self.rules

    def _count(self, table) -> None:
        sums = (
            pl.from_arrow(table.select(["cell", *PRECISION_RATES]))
            .group_by("cell")
            .agg(pl.col(PRECISION_RATES).sum())
        )
        for row in sums.iter_rows():
            self.counts[self.index[row[0]]] += row[1:]

    def _report(self, done: int, target: int) -> None:
        if self.progress:
            self.progress(self.played, target * len(self.cells))


def _unsaved_jobs(
    n_cells: int, done: int, target: int, chunk: int, saved: list
) -> Iterator[tuple[int, int, int, int]]:
    """(job, first game, end game, cell index) of a round's jobs that no saved chunk holds,
    lazily: job j is span j // n_cells of `chunk` games of cell j % n_cells."""
    covered = iter(saved)
    nxt = next(covered, None)
    job = 0
    for a in range(done, target, chunk):
        b = min(target, a + chunk)
        for i in range(n_cells):
            while nxt is not None and nxt.end <= job:
                nxt = next(covered, None)
            if nxt is None or not nxt.first <= job < nxt.end:
                yield job, a, b, i
            job += 1


def param_names(cells) -> list[str]:
    """The union of the cells' parameters, in order of first appearance."""
    names: list[str] = []
    for cell in cells:
        names += [p.name for p in cell.policy.parameters if p.name not in names]
    return names


def _judge(counts: np.ndarray, n: int, precision: float | None, cap: int) -> Outcome:
    if precision is None:
        return Outcome(n, counts.shape[0])
    widths = half_widths(counts, n)
    i, j = np.unravel_index(int(np.argmax(widths)), widths.shape)
    worst = float(widths[i, j])
    return Outcome(
        n,
        counts.shape[0],
        precision,
        bool(worst <= precision),
        worst,
        int(i),
        PRECISION_RATES[j],
        cap,
    )


def _manifest_fields(rules: Ruleset, cells, seed: int, play: _Session, engine, threads) -> dict:
    """The manifest fields that describe what was played and on what (runfolder.Manifest)."""
    from bollesim import __version__
    from bollesim.batch import runner as R

    policies = list(dict.fromkeys(c.policy.name for c in cells))
    if len(cells) > 1:
        params = "per cell (see cells)"
    else:
        params = cells[0].describe()["params"]
    games = play.played - play.saved_before  # in this session
    return {
        "version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "seed": seed,
        "n_cells": len(cells),
        "cells": [c.describe() for c in cells],
        "policy": ", ".join(policies),
        "params": params,
        "ruleset": rules.name,
        "ruleset_hash": rules.digest,
        "engine": engine,
        "threads": R.threads_used(threads),
        "chunk_size": play.chunk,
        "machine": R.machine(),
        "timings": R.timings(play.warm_s, play.run_s, play.t0, games),
    }


def ruleset_record(rules: Ruleset, source: dict | None = None) -> dict:
    """Manifest fields that let `replay_from_run` rebuild the ruleset exactly."""
    return {
        "ruleset_source": source or {"file": None, "partial": None, "overrides": []},
        "ruleset_data": rules.data,
    }


def sweep(
    experiment: Experiment,
    out_dir: str | Path | None = None,
    *,
    games: int | None = None,
    seed: int | None = None,
    precision: float | None = None,
    max_games: int | None = None,
    threads: int | None = None,
    chunk_size: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    cluster: Cluster | None = None,
    mode: str = "new",
) -> tuple[dict, Outcome]:
    """Play every cell of an experiment on common random numbers (arguments given here
    override the spec's) into out_dir (default results/<name>), here or on a cluster.
    mode: "new", "resume" or "restart", as for run_cells. Returns (manifest, outcome)."""
    out = Path(out_dir) if out_dir is not None else Path("results") / experiment.name
    if precision is None and max_games is not None and experiment.precision is None:
        raise UsageError("--max-games caps the games added for --precision: give --precision too")
    precision = precision if precision is not None else experiment.precision
    if max_games is None and precision is not None:
        max_games = experiment.max_games  # the spec's cap, if any (else DEFAULT_MAX_GAMES)
    extra = {
        "experiment": experiment.name,
        "description": experiment.description,
        "spec_file": str(experiment.path) if experiment.path else None,
        "spec": experiment.spec,
        "sensitivity": experiment.sensitivity,
        **ruleset_record(experiment.rules, experiment.ruleset_source),
    }
    return run_cells(
        out,
        experiment.cells,
        experiment.rules,
        experiment.seed if seed is None else seed,
        experiment.games if games is None else games,
        precision=precision,
        max_games=max_games,
        threads=threads,
        chunk_size=chunk_size,
        progress=progress,
        extra_manifest=extra,
        cluster=cluster,
        mode=mode,
    )


# --------------------------------------------------------------------------- replaying a row


@dataclass
class Replay:
    """One game of a run replayed by the reference engine, with its stored row."""

    lines: list[str]  # the narration, ending with the outcome line
    stored: dict  # the row of games.parquet
    replayed: dict  # the reference engine's result row
    differences: list[str]  # "column (stored x, replayed y)" for every result that differs


def find_row(run_dir: str | Path, game: int, cell: int | None = None) -> tuple[dict, dict]:
    """(row, manifest) of game `game` (in cell `cell`) of a run or sweep folder."""
    from bollesim.batch.runfolder import open_run

    run = open_run(run_dir)
    manifest = run.manifest
    scan = run.scan()
    rows = run.collect(scan.filter(pl.col("game") == game))
    if rows.height == 0:
        span = run.collect(scan.select(pl.col("game").min().alias("a"), pl.col("game").max().alias("b")))
        a, b = span.row(0)
        held = "it holds no games" if a is None else f"its games are {a}..{b}"
        raise UsageError(f"game {game} is not in {run_dir} ({held})")
    if cell is not None:
        if "cell" not in rows.columns:
            if cell != 0:
                raise UsageError(f"{run_dir} is a plain run with no cell {cell}")
        else:
            picked = rows.filter(pl.col("cell") == cell)
            if picked.height == 0:
                cells = sorted(rows["cell"].unique().to_list())
                raise UsageError(f"cell {cell} is not in {run_dir} (cells {cells[0]}..{cells[-1]})")
            rows = picked
    if rows.height > 1:
        cells = sorted(rows["cell"].unique().to_list())
        raise UsageError(
            f"game {game} is in {len(cells)} cells of {run_dir}: choose one with "
            f"--cell ({cells[0]}..{cells[-1]})"
        )
    return rows.row(0, named=True), manifest


def run_ruleset(manifest: dict, run_dir: str | Path) -> Ruleset:
    """The ruleset a run was played with, rebuilt from its manifest and checked by its hash."""
    where = f"{run_dir}/manifest.json"
    digest = manifest.get("ruleset_hash")
    data = manifest.get("ruleset_data")
    if data is not None:
        try:
            rules = build(data, where)
        except RulesetError as exc:
            raise UsageError(f"{where}: the recorded ruleset no longer loads: {exc}") from None
    else:
        rules = load_ruleset()
        if digest and rules.digest != digest:
            raise UsageError(
                f"{where} records no ruleset data and its ruleset (sha256 "
                f"{digest[:12]}…) is not the default one: cannot replay exactly"
            )
    if digest and rules.digest != digest:
        raise UsageError(f"{where}: the recorded ruleset data does not match its hash")
    return rules


def cell_ruleset(manifest: dict, run_dir: str | Path, cell: int) -> Ruleset:
    """The ruleset a cell of a run was played with: the run's, with the rules and readings
    its manifest record names applied, checked by the cell's ruleset hash."""
    rules = run_ruleset(manifest, run_dir)
    record = next((c for c in manifest.get("cells") or [] if c.get("cell") == cell), {})
    if not record.get("rules") and not record.get("readings"):
        return rules
    where = f"{run_dir}/manifest.json: cell {cell}"
    try:
        rules = changed_ruleset(rules, record.get("rules") or {}, record.get("readings") or {})
    except RulesetError as exc:
        raise UsageError(f"{where}: its ruleset no longer loads: {exc}") from None
    if rules.digest != record.get("ruleset_hash"):
        raise UsageError(f"{where}: its rules and readings do not make the ruleset of its hash")
    return rules


def row_params(policy: Policy, row: dict) -> np.ndarray:
    missing = [p.name for p in policy.parameters if row.get(p.name) is None]
    if missing:
        raise UsageError(
            f"the row has no value for {policy.name}'s parameter {missing[0]!r} "
            "(was the policy changed after the run?)"
        )
    return policy.param_vector({p.name: row[p.name] for p in policy.parameters})


def replay_from_run(run_dir: str | Path, game: int, cell: int | None = None) -> Replay:
    """Replay game `game` of a run or sweep folder from its row alone (seed, policy and
    parameters from the row, ruleset from the manifest), narrated by the reference engine,
    and compare the result with the stored row."""
    from bollesim.batch.replay import narrated_game

    row, manifest = find_row(run_dir, game, cell)
    rules = cell_ruleset(manifest, run_dir, row.get("cell") or 0)
    policy = load_policy(str(row.get("policy") or manifest.get("policy")))
    lines, replayed = narrated_game(
        rules, policy, row_params(policy, row), int(row["seed"]), int(row["game"])
    )
    return Replay(lines, row, replayed, result_differences(row, replayed))


def result_differences(stored: dict, replayed: dict) -> list[str]:
    """The result columns in which two rows of the same game differ."""
    from bollesim.batch.runner import NULL_WHEN_ZERO, RESULT_COLUMNS

    def norm(name, value):
        if name in NULL_WHEN_ZERO and not value:
            return None
        return value if value is None or isinstance(value, str) else int(value)

    out = []
    for name, _ in RESULT_COLUMNS:
        if name not in stored:
            continue
        a, b = norm(name, stored[name]), norm(name, replayed.get(name))
        if a != b:
            out.append(f"{name} (stored {a}, replayed {b})")
    return out
