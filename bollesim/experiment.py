"""Experiments: a TOML spec of policy cells, played on common random numbers into one dataset.

A spec (experiments/*.toml) names the ruleset and the cells to play:

    name = "first_fire"                   # default out folder: results/<name>
    description = "When to give the first Fire order"
    seed = 1                              # game g of every cell is seeded from (seed, g)
    games = 10000                         # games per cell
    ruleset = "my_rules.toml"             # optional, relative to the spec's folder
    partial = "tweak.toml"                # optional partial TOML merged over it
    overrides = ["roe.fire_allowed=10"]   # optional KEY=VALUE, as `--set`
    precision = 0.01                      # optional: add games until every half-width <= 0.01
    max_games = 200000                    # optional cap on games per cell (with precision)

    [[grid]]                              # one or more; each makes one cell per combination
    policy = "fire_at_roe"
    params = { k = [8, 12, 16, 25], stop_at_tanks = 3 }   # a list is swept, a number is fixed

The cells are the Cartesian product of each grid's lists (first list slowest), grids in
file order, numbered from 0. Every cell plays the same game indices 0..N-1, hence the same
seeds (common random numbers, docs/architecture.md §3), so two cells can be compared game by game.

`sweep` writes OUT/games.parquet (one row per game of every cell: `cell`, the union of the
cells' parameter columns, null where a policy has no such parameter) and OUT/manifest.json
(the runner's fields, `cells`, the spec, and the ruleset data so that any game can be
replayed exactly with `replay_from_run`). Both are written under temporary names and
renamed when complete.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from bollesim.errors import UsageError
from bollesim.policy import Policy, load_policy
from bollesim.rules.loader import Ruleset, RulesetError, build, load_ruleset

if TYPE_CHECKING:
    from bollesim.cluster import Cluster

SPEC_KEYS = (
    "name",
    "description",
    "seed",
    "games",
    "ruleset",
    "partial",
    "overrides",
    "precision",
    "max_games",
    "grid",
)
GRID_KEYS = ("policy", "params")
PRECISION_RATES = ("operational", "tactical", "strategic", "political", "defeat")
"""The rates `--precision` watches, in every cell."""
DEFAULT_MAX_GAMES = 1_000_000
"""Games per cell at most when adding games for --precision, unless told otherwise."""
Z95 = 1.96
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


# --------------------------------------------------------------------------- the spec


@dataclass(frozen=True)
class Cell:
    """One combination of a policy and its parameter values."""

    cell: int
    policy: Policy
    params: np.ndarray  # float64, in the policy's PARAMETERS order

    def param_dict(self) -> dict[str, float]:
        return {p.name: float(v) for p, v in zip(self.policy.parameters, self.params, strict=True)}

    def describe(self) -> dict:
        """The manifest's record of the cell: {cell, policy, params}."""
        return {"cell": self.cell, "policy": self.policy.name, "params": self.param_dict()}


@dataclass(frozen=True)
class Experiment:
    """A validated spec: its cells and its ruleset, ready to sweep."""

    name: str
    description: str
    seed: int
    games: int
    cells: tuple[Cell, ...]
    rules: Ruleset = field(repr=False)
    ruleset_source: dict = field(default_factory=dict)  # {file, partial, overrides}
    precision: float | None = None
    max_games: int | None = None
    path: Path | None = None
    spec: dict = field(default_factory=dict, repr=False)  # the TOML as read


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

    def whole(self, table: dict, key: str, low: int, default=None, prefix: str = "") -> int:
        value = table.get(key, default)
        if value is None:
            self.fail(prefix + key, f"missing: give a whole number of {low} or more")
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            self.fail(prefix + key, f"expected a whole number of {low} or more, got {value!r}")
        return value

    def text(self, table: dict, key: str, default=None) -> str | None:
        value = table.get(key, default)
        if value is not None and not isinstance(value, str):
            self.fail(key, f"expected a string, got {value!r}")
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
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the experiment file ({exc.strerror})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate a spec: its keys, every cell's policy and parameter values (against
    the policy's declared ranges) and its ruleset. Errors are one line, `FILE: KEY: problem`."""
    path = Path(path)
    data = read_spec(path)
    s = _Spec(path)
    s.known(data, SPEC_KEYS)
    name = s.text(data, "name", path.stem)
    if not _NAME.fullmatch(name):
        s.fail(
            "name", f"use letters, digits, '_', '-' or '.' (it names the out folder), got {name!r}"
        )
    description = s.text(data, "description", "") or ""
    seed = s.whole(data, "seed", 0, default=1)
    if seed >= 2**63:
        s.fail("seed", f"must be below 2**63, got {seed}")
    games = s.whole(data, "games", 1)
    precision = data.get("precision")
    if precision is not None:
        precision = check_precision(s.number(precision, "precision"), f"{path}: precision")
    max_games = s.whole(data, "max_games", 1) if "max_games" in data else None
    overrides = data.get("overrides", [])
    if not isinstance(overrides, list) or not all(isinstance(o, str) for o in overrides):
        s.fail("overrides", 'expected a list of "KEY=VALUE" strings, e.g. ["roe.fire_allowed=10"]')
    ruleset_file, partial = s.file(data, "ruleset"), s.file(data, "partial")
    try:
        rules = load_ruleset(ruleset_file, overrides, partial)
    except RulesetError as exc:
        key = "overrides" if exc.source == "--set" else "ruleset"
        s.fail(key, str(exc))
    grids = data.get("grid")
    if grids is None:
        s.fail("grid", "missing: give at least one [[grid]] table with a policy")
    if not isinstance(grids, list) or not grids or not all(isinstance(g, dict) for g in grids):
        s.fail("grid", "expected one or more [[grid]] tables, each with a policy and params")
    cells: list[Cell] = []
    for i, grid in enumerate(grids):
        cells.extend(_grid_cells(s, grid, f"grid[{i}].", len(cells)))
    source = {
        "file": str(ruleset_file) if ruleset_file else None,
        "partial": str(partial) if partial else None,
        "overrides": list(overrides),
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


def _grid_cells(s: _Spec, grid: dict, prefix: str, first: int) -> list[Cell]:
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
    cells = []
    for combo in itertools.product(*(values for _, values in axes)):
        vector = policy.param_vector(dict(zip(names, combo, strict=True)))
        cells.append(Cell(first + len(cells), policy, vector))
    return cells


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
    from bollesim.analysis import wilson

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
    """What a run of cells came to: games per cell and, with --precision, why it stopped."""

    games_per_cell: int
    n_cells: int = 1
    precision: float | None = None
    reached: bool | None = None
    worst_half_width: float | None = None
    worst_cell: int | None = None
    worst_rate: str | None = None
    cap: int | None = None

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
) -> tuple[dict, Outcome]:
    """Play games 0..games-1 of every cell into out_dir/games.parquet + manifest.json
    (with a cluster.Cluster, as tasks on its workers).

    With `precision`, keep adding games (continuing the game indices, so the seed scheme is
    unchanged and every cell still plays the same games) until every cell's rates of
    PRECISION_RATES have a 95% Wilson half-width of at most `precision`, or a cell has
    `max_games` games (default DEFAULT_MAX_GAMES). progress(done, total) gets game counts
    over all cells. Returns (manifest, outcome)."""
    from bollesim import runner as R

    if games < 0:
        raise UsageError(f"the number of games must be 0 or more, got {games}")
    if not 0 <= seed < 2**63:
        raise UsageError(f"the seed must be a whole number from 0 to 2**63 - 1, got {seed}")
    if not cells:
        raise UsageError("no cells to play")
    if precision is not None:
        check_precision(precision)
    elif max_games is not None:
        raise UsageError("--max-games caps the games added for --precision: give --precision too")
    cap = max_games if max_games is not None else DEFAULT_MAX_GAMES
    if cap < 1:
        raise UsageError(f"--max-games must be 1 or more, got {cap}")
    chunk_size = max(1, chunk_size or R.DEFAULT_CHUNK)
    out_dir = R.prepare_dir(out_dir)
    if engine not in R.ENGINES:
        raise UsageError(f"unknown engine {engine!r} (choose fast or reference)")
    R.set_threads(threads)

    columns = _columns(cells)
    t0 = time.perf_counter()
    warm = R.warm_up(rules, cells[0].policy, engine, cluster)
    counts = np.zeros((len(cells), len(PRECISION_RATES)), dtype=np.int64)
    target = min(games, cap) if precision is not None else games
    unit = 10 ** max(0, len(str(max(games, 1))) - 2)  # 2000 -> added in hundreds
    done = 0
    outcome = Outcome(0, len(cells))
    with R.ParquetSink(out_dir / "games.parquet") as sink:
        t1 = time.perf_counter()
        while True:
            if progress:
                progress(done * len(cells), target * len(cells))
            jobs = [  # every cell's games a..b, chunk after chunk
                (a + done, b + done, i, np.broadcast_to(cell.params, (b - a, len(cell.params))))
                for a, b in R.chunks(target - done, chunk_size)
                for i, cell in enumerate(cells)
            ]
            played = R.play_chunks(
                rules, ((cells[i].policy, m, seed, a) for a, _, i, m in jobs), engine, cluster
            )
            for (a, b, i, matrix), results in zip(jobs, played, strict=True):
                cell = cells[i]
                frame = R.to_frame(results, cell.policy, matrix, seed, a, cell=cell.cell)
                counts[i] += frame.select(pl.col(PRECISION_RATES).sum()).row(0)
                sink.write(_conform(frame, columns).to_arrow())
                if progress:
                    progress(a * len(cells) + (i + 1) * (b - a), target * len(cells))
            done = target
            outcome = _judge(counts, done, precision, cap)
            if precision is None or outcome.reached or done >= cap:
                break
            need = games_needed(counts / done, precision, cap)
            target = min(cap, _round_up(max(done + unit, math.ceil(need * 1.02)), unit))
        empty = R.to_frame(
            np.zeros((0, len(R.RESULT_COLUMNS)), dtype=np.int64),
            cells[0].policy,
            np.zeros((0, len(cells[0].params))),
            seed,
            0,
            cell=cells[0].cell,
        )
        sink.commit(_conform(empty, columns).to_arrow())
        run_seconds = time.perf_counter() - t1

    total = done * len(cells)
    manifest = _manifest(R, rules, cells, seed, total, engine, threads, chunk_size)
    manifest["games_per_cell"] = done
    if precision is not None:
        manifest["precision"] = {
            "half_width": precision,
            "max_games": cap,
            "reached": outcome.reached,
            "largest_half_width": outcome.worst_half_width,
            "largest_in": {"cell": outcome.worst_cell, "rate": outcome.worst_rate},
        }
        manifest["stopped"] = outcome.sentence()
    manifest["timings"] = R.timings(warm, run_seconds, t0, total)
    if cluster is not None:
        manifest["cluster"] = cluster.describe()
    manifest.update(extra_manifest or {})
    R.write_json(out_dir / "manifest.json", manifest)
    return manifest, outcome


def _columns(cells) -> list[tuple[str, pl.DataType]]:
    """The dataset's columns: to_frame's, with the union of the cells' parameters."""
    from bollesim import runner as R

    params: list[str] = []
    for cell in cells:
        params += [p.name for p in cell.policy.parameters if p.name not in params]
    head = [("game", pl.Int64), ("seed", pl.Int64), ("policy", pl.Utf8), ("cell", pl.Int32)]
    return head + [(p, pl.Float64) for p in params] + list(R.RESULT_COLUMNS)


def _conform(frame: pl.DataFrame, columns) -> pl.DataFrame:
    return frame.select(
        [
            pl.col(c).cast(t) if c in frame.columns else pl.lit(None, dtype=t).alias(c)
            for c, t in columns
        ]
    )


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


def _manifest(
    R, rules: Ruleset, cells, seed: int, total: int, engine: str, threads, chunk_size
) -> dict:
    first = cells[0]
    manifest = R.make_manifest(
        rules, first.policy, first.params[None, :], seed, total, engine, threads, chunk_size
    )
    policies = list(dict.fromkeys(c.policy.name for c in cells))
    if len(cells) > 1:
        manifest["policy"] = policies[0] if len(policies) == 1 else ", ".join(policies)
        manifest["params"] = "per cell (see cells)"
    manifest["n_cells"] = len(cells)
    manifest["cells"] = [c.describe() for c in cells]
    return manifest


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
    progress: Callable[[int, int], None] | None = None,
    cluster: Cluster | None = None,
) -> tuple[dict, Outcome]:
    """Play every cell of an experiment on common random numbers (arguments given here
    override the spec's) into out_dir (default results/<name>), here or on a cluster.
    Returns (manifest, outcome)."""
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
        progress=progress,
        extra_manifest=extra,
        cluster=cluster,
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
    run_dir = Path(run_dir)
    games_path, manifest_path = run_dir / "games.parquet", run_dir / "manifest.json"
    if not games_path.exists():
        raise UsageError(f"{run_dir}: no games.parquet (is this a run or sweep folder?)")
    if not manifest_path.exists():
        raise UsageError(f"{run_dir}: no manifest.json: the run's ruleset is unknown")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    scan = pl.scan_parquet(games_path)
    rows = scan.filter(pl.col("game") == game).collect()
    if rows.height == 0:
        span = scan.select(
            pl.col("game").min().alias("a"), pl.col("game").max().alias("b")
        ).collect()
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
    from bollesim.replay import narrated_game

    row, manifest = find_row(run_dir, game, cell)
    rules = run_ruleset(manifest, run_dir)
    policy = load_policy(str(row.get("policy") or manifest.get("policy")))
    lines, replayed = narrated_game(
        rules, policy, row_params(policy, row), int(row["seed"]), int(row["game"])
    )
    return Replay(lines, row, replayed, result_differences(row, replayed))


def result_differences(stored: dict, replayed: dict) -> list[str]:
    """The result columns in which two rows of the same game differ."""
    from bollesim.runner import NULL_WHEN_ZERO, RESULT_COLUMNS

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
