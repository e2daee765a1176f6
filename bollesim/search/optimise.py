"""Policy search: `bollesim optimise SPEC` looks for the parameters of one policy family that
maximise an objective, then estimates the winners on held-out seeds.

A spec (experiments/optimise_*.toml):

    name = "optimise_operational"       # default out folder: results/<name>
    description = "..."
    policy = "fire_at_roe"              # any module of policies/ with PARAMETERS
    seed = 1                            # the search plays games (seed, 0..)
    holdout_seed = 2                    # the held-out estimate plays (holdout_seed, 0..)
    budget = 9600000                    # every game it plays: the races and the held-out games
    candidates = 120                    # candidates drawn (the whole grid when it is smaller)
    eta = 3                             # each round keeps 1 / eta of the candidates
    finalists = 3                       # candidates the last round keeps
    holdout_games = 400000              # held-out games per finalist (and for the defaults)
    refine = 1                          # stages searching around the best (default 0)
    objective = "operational"           # an outcome rate, or a weighted score:
    # objective = { weights = { operational = 1, defeat = -1 }, label = "..." }
    # pareto = ["operational", "strategic"]   # instead of objective: trace the front
    ruleset / partial / overrides / readings   # as in a sweep spec (batch/spec.py: ruleset_of)

    [search]                            # optional; without it every parameter is searched
    k = [8, 20]                         # over its declared range. With it: a sub-range,
    stop_at_tanks = true                # the declared range,
    tow = 1                             # a fixed value; unlisted parameters keep their default

Candidates: the policy's defaults, then the whole grid of the searched parameters when
they are all whole-numbered (default, low and high whole) and the grid has at most
`candidates` points, else `candidates` points drawn at random (a generator seeded by
`seed`; whole-numbered parameters drawn as integers).

Search: successive halving on common random numbers. Round r plays every surviving
candidate on games t(r-1)..t(r)-1 of the search seed, the same games for every candidate
(runner.simulate, so --cluster plays them on Dask), with t(r) = t(0) * eta**r, and keeps
the best max(finalists, ceil(n / eta)) by the objective's mean over games 0..t(r)-1. All
survivors are judged on the same games, so their differences are paired and the noise
that is common to them cancels; games go to the candidates still in the race. t(0) is the
largest that keeps the whole search within `budget`. In Pareto mode a round keeps whole
fronts of non-dominated candidates (then the best by the sum of both objectives).

Refining: each of `refine` further stages races the finalists and the best one's
neighbours (one step along one searched parameter: +-1, or a tenth of the range) on the
same search games, with the same share of the budget, and stops early when no neighbour is
new. Every stage gets (budget - the held-out games) / (refine + 1).

Held-out estimate: the finalists and the defaults replay on `holdout_games` games of
`holdout_seed`, a run seed the search never uses, so the estimate of the winner is not
biased upward by the selection. The winner is the search's best finalist (chosen before
the held-out games are seen).

The result folder is a run folder (runfolder.py): games.parquet holds the held-out games,
one cell per finalist and one for the defaults, so `bollesim report OUT` and `bollesim
play --from OUT` work on it. Beside them, in the same atomic commit:
trajectory.parquet (every candidate's estimate at every round), best.json
({"policy": ..., "params": {...}}, read by `bollesim serve --from OUT`), optimise.md (the
held-out estimates with Wilson intervals, the paired differences against the defaults,
the trajectory) and its charts.
"""

from __future__ import annotations

import difflib
import itertools
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from bollesim.batch.limits import DEFAULT_SEED, LIMITS, NAME, search_stage_budget
from bollesim.batch.manifest import play_record, ruleset_record
from bollesim.batch.source import RulesetSource
from bollesim.batch.spec import Spec, read_spec, ruleset_of
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.errors import UsageError
from bollesim.game.policy import Policy, load_policy
from bollesim.stats import analysis as A

if TYPE_CHECKING:
    from bollesim.batch.cluster import Cluster

SPEC_KEYS = (
    "name", "description", "policy", "seed", "holdout_seed", "budget", "candidates", "eta",
    "finalists", "holdout_games", "objective", "pareto", "ruleset", "partial", "overrides",
    "readings", "search", "refine",
)
OBJECTIVE_KEYS = ("weights", "label")
DEFAULTS = {"budget": 4_000_000, "candidates": 120, "eta": 3, "finalists": 3,
            "holdout_games": 400_000, "refine": 0}
UNIT = 100
"""Games per candidate are whole multiples of UNIT."""
BEST = "best.json"
TRAJECTORY = "trajectory.parquet"
REPORT = "optimise.md"
REPORT_HTML = "optimise.html"


# --------------------------------------------------------------------------- objectives


@dataclass(frozen=True)
class Objective:
    """A per-game score: the weighted sum of outcome columns (analysis.OUTCOMES); its mean
    over games is what the search maximises. A rate is the score of one column, weight 1."""

    weights: dict[str, float]
    label: str

    @property
    def is_rate(self) -> bool:
        return len(self.weights) == 1 and next(iter(self.weights.values())) == 1.0

    def score(self, games: pl.DataFrame) -> np.ndarray:
        """Each game's score (float64), from its outcome columns."""
        games = A.with_outcomes(games)
        out = np.zeros(games.height)
        for column, weight in self.weights.items():
            out += weight * games[column].fill_null(False).cast(pl.Float64).to_numpy()
        return out

    def describe(self) -> dict:
        return {"label": self.label, "weights": dict(self.weights)}


def _objective(s: Spec, raw, key: str) -> Objective:
    if isinstance(raw, str):
        _outcome(s, raw, key)
        return Objective({raw: 1.0}, A.LABELS.get(raw, raw) + " rate")
    if not isinstance(raw, dict):
        s.fail(key, 'expected an outcome name ("operational") or a table '
                    "{ weights = { operational = 1, defeat = -1 } }")
    _known(s, raw, OBJECTIVE_KEYS, key + ".")
    weights = raw.get("weights")
    if not isinstance(weights, dict) or not weights:
        s.fail(key + ".weights", "missing: give { outcome = weight, ... }, e.g. "
                                 "{ operational = 1, defeat = -1 }")
    checked = {}
    for column, weight in weights.items():
        _outcome(s, column, f"{key}.weights.{column}")
        checked[column] = s.number(weight, f"{key}.weights.{column}")
    default = " + ".join(f"{w:g} × {column}" for column, w in checked.items())
    label = s.text(raw, "label", default) or default
    return Objective(checked, label)


def _outcome(s: Spec, name: str, key: str) -> None:
    if name not in A.OUTCOMES:
        s.fail(key, f"unknown outcome {name!r}{_nearest(name, A.OUTCOMES)} "
                    f"(outcomes: {', '.join(A.OUTCOMES)})")


def _nearest(word: str, known) -> str:
    close = difflib.get_close_matches(str(word), list(known), n=1, cutoff=0.5)
    return f"; did you mean {close[0]!r}?" if close else ""


def _known(s: Spec, table: dict, allowed, prefix: str = "") -> None:
    for key in table:
        if key not in allowed:
            s.fail(prefix + key, f"unknown key{_nearest(key, allowed)} (known: {', '.join(allowed)})")


# --------------------------------------------------------------------------- the spec


@dataclass(frozen=True)
class Axis:
    """A searched parameter: its index in the policy's vector and its range."""

    name: str
    index: int
    low: float
    high: float
    whole: bool

    def values(self) -> list[float]:
        return [float(v) for v in range(int(self.low), int(self.high) + 1)]


@dataclass(frozen=True)
class Search:
    """A validated optimise spec."""

    name: str
    description: str
    policy: Policy
    seed: int
    holdout_seed: int
    budget: int
    candidates: int
    eta: int
    finalists: int
    holdout_games: int
    refine: int
    objectives: tuple[Objective, ...]  # one, or two in Pareto mode
    axes: tuple[Axis, ...]
    base: np.ndarray  # the parameter vector: defaults, with the spec's fixed values
    rules: Ruleset = field(repr=False)
    ruleset_source: RulesetSource = field(default_factory=RulesetSource)
    path: Path | None = None
    spec: dict = field(default_factory=dict, repr=False)

    @property
    def pareto(self) -> bool:
        return len(self.objectives) == 2

    @property
    def stage_budget(self) -> int:
        """Games each stage's race may play: `budget` less the held-out games, shared by
        the stages (limits.search_stage_budget; UsageError when nothing is left)."""
        return search_stage_budget(self.budget, self.finalists, self.holdout_games, self.refine)


def is_whole(p) -> bool:
    """A parameter searched in whole numbers: its default and range are whole."""
    return all(float(v).is_integer() for v in (p.default, p.low, p.high))


def load_search(path: str | Path, budget: int | None = None) -> Search:
    """Read and check an optimise spec (`budget` given over the spec's); errors are one
    line, `FILE: KEY: problem`."""
    path = Path(path)
    data = read_spec(path)
    s = Spec(path)
    _known(s, data, SPEC_KEYS)
    name = s.text(data, "name", path.stem, limit="name")
    if not NAME.fullmatch(name):
        s.fail("name", f"use letters, digits, '_', '-' or '.' (it names the out folder), got {name!r}")
    description = s.text(data, "description", "", limit="description") or ""
    policy_name = data.get("policy")
    if not isinstance(policy_name, str):
        s.fail("policy", "missing: name a policy family (see `bollesim policies`)")
    try:
        policy = load_policy(policy_name)
    except UsageError as exc:
        s.fail("policy", str(exc))
    if not policy.parameters:
        s.fail("policy", f"{policy_name!r} has no parameters to search")
    seed = s.whole(data, "seed", "seed", default=DEFAULT_SEED)
    holdout_seed = s.whole(data, "holdout_seed", "seed", default=(seed + 1) % 2**63)
    if holdout_seed == seed:
        s.fail("holdout_seed", "must differ from seed: the held-out games are never searched")
    counts = {}
    for key in DEFAULTS:  # their ranges: limits.LIMITS
        low, high = LIMITS[key]
        value = budget if key == "budget" and budget is not None else data.get(key, DEFAULTS[key])
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            s.fail(key, f"expected a whole number from {low:,} to {high:,}, got {value!r}")
        counts[key] = value
    try:  # sized before anything is played
        search_stage_budget(counts["budget"], counts["finalists"], counts["holdout_games"],
                            counts["refine"])
    except UsageError as exc:
        s.fail("budget", str(exc))
    if ("objective" in data) == ("pareto" in data):
        s.fail("objective", "give either objective = ... (one objective) or "
                            "pareto = [first, second] (trace the front between two)")
    if "objective" in data:
        objectives = (_objective(s, data["objective"], "objective"),)
    else:
        pair = data["pareto"]
        if not isinstance(pair, list) or len(pair) != 2:
            s.fail("pareto", 'expected two objectives, e.g. ["operational", "strategic"]')
        objectives = tuple(_objective(s, raw, f"pareto[{i}]") for i, raw in enumerate(pair))
    rules, source = ruleset_of(s, data)
    axes, base = _axes(s, data.get("search"), policy)
    return Search(name, description, policy, seed, holdout_seed, objectives=objectives,
                  axes=axes, base=base, rules=rules, ruleset_source=source, path=path,
                  spec=data, **counts)


def _axes(s: Spec, table, policy: Policy) -> tuple[tuple[Axis, ...], np.ndarray]:
    if table is None:  # no [search] table: every parameter over its declared range
        table = {p.name: True for p in policy.parameters}
    if not isinstance(table, dict):
        s.fail("search", "expected a table: parameter = true, [low, high] or a fixed value")
    names = [p.name for p in policy.parameters]
    for key in table:
        if key not in names:
            s.fail(f"search.{key}", f"policy {policy.name!r} has no parameter {key!r}"
                                    f"{_nearest(key, names)} (its parameters: {', '.join(names)})")
    base = policy.param_vector()
    axes = []
    for i, p in enumerate(policy.parameters):
        raw = table.get(p.name, p.default)
        key = f"search.{p.name}"
        if raw is True:
            raw = [p.low, p.high]
        if isinstance(raw, list):
            if len(raw) != 2:
                s.fail(key, "expected [low, high] or one fixed value")
            low, high = (s.number(v, key) for v in raw)
            if not p.low <= low <= high <= p.high:
                s.fail(key, f"expected {p.low:g} <= low <= high <= {p.high:g}, got [{low:g}, {high:g}]")
            whole = is_whole(p)
            if whole and not (low.is_integer() and high.is_integer()):
                s.fail(key, f"{p.name} is whole-numbered: give whole bounds")
            if low == high:
                base[i] = low
            else:
                axes.append(Axis(p.name, i, low, high, whole))
        else:
            value = s.number(raw, key)
            try:
                policy.param_vector({p.name: value})
            except UsageError as exc:
                s.fail(key, str(exc))
            base[i] = value
    if not axes:
        s.fail("search", "every parameter is fixed: leave at least one to search")
    return tuple(axes), base


# --------------------------------------------------------------------------- candidates


def candidate_pool(search: Search) -> np.ndarray:
    """(n, n_params) parameter vectors: the defaults (with the fixed values) first, then the
    whole grid if it is small enough, else random draws; no duplicates."""
    axes = search.axes
    first = search.base.copy()
    for axis in axes:  # a default outside a sub-range moves to its nearest bound
        first[axis.index] = min(max(first[axis.index], axis.low), axis.high)
    rows = [first]
    grid_size = math.prod(len(a.values()) for a in axes) if all(a.whole for a in axes) else None
    if grid_size is not None and grid_size <= search.candidates:
        for combo in itertools.product(*(a.values() for a in axes)):
            row = search.base.copy()
            row[[a.index for a in axes]] = combo
            rows.append(row)
    else:
        rng = np.random.default_rng(search.seed)
        tries = 0
        while len(rows) < search.candidates + 1 and tries < 50 * search.candidates:
            row = search.base.copy()
            for a in axes:
                row[a.index] = rng.integers(a.low, a.high + 1) if a.whole else rng.uniform(a.low, a.high)
            rows.append(row)
            tries += 1
            if tries % 64 == 0:
                rows = _unique(rows)
    return np.array(_unique(rows)[: max(search.candidates, 1) + 1])


def _unique(rows: list[np.ndarray]) -> list[np.ndarray]:
    seen, out = set(), []
    for row in rows:
        key = row.tobytes()
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out


def schedule(n_candidates: int, eta: int, finalists: int, budget: int) -> list[tuple[int, int]]:
    """[(candidates in the round, cumulative games per candidate)] of successive halving:
    round r plays its candidates up to t(0) * eta**r games, t(0) the largest multiple of
    UNIT that keeps the total within budget. UsageError when budget is too small."""
    sizes = [n_candidates]
    while sizes[-1] > finalists:
        sizes.append(max(finalists, math.ceil(sizes[-1] / eta)))
    steps = [eta**r - (eta ** (r - 1) if r else 0) for r in range(len(sizes))]
    per_unit = sum(n * step for n, step in zip(sizes, steps, strict=True))
    t0 = budget // (per_unit * UNIT) * UNIT
    if t0 < UNIT:
        raise UsageError(
            f"a budget of {budget:,} games cannot race {n_candidates} candidates: it needs at "
            f"least {per_unit * UNIT:,} ({UNIT} games each in the first round); raise budget "
            "or lower candidates")
    return [(n, t0 * eta**r) for r, n in enumerate(sizes)]


# --------------------------------------------------------------------------- the race


def pareto_ranks(points: np.ndarray) -> np.ndarray:
    """Rank of each point's non-dominated front (0: the front), maximising every column."""
    n = len(points)
    ranks = np.full(n, -1)
    left = np.arange(n)
    rank = 0
    while left.size:
        p = points[left]
        dominated = np.array([
            np.any(np.all(p >= p[i], axis=1) & np.any(p > p[i], axis=1)) for i in range(len(p))
        ])
        ranks[left[~dominated]] = rank
        left = left[dominated]
        rank += 1
    return ranks


def order(means: np.ndarray) -> np.ndarray:
    """Candidates best first: by the mean (one objective) or by Pareto front, then the sum
    of the objectives (two); ties keep the pool's order."""
    if means.shape[1] == 1:
        return np.argsort(-means[:, 0], kind="stable")
    ranks = pareto_ranks(means)
    return np.lexsort((-means.sum(axis=1), ranks))


def as_params(policy: Policy, vector: np.ndarray) -> dict[str, float]:
    return {p.name: float(v) for p, v in zip(policy.parameters, vector, strict=True)}


@dataclass
class Result:
    """What a search found."""

    pool: np.ndarray
    trajectory: pl.DataFrame  # one row per candidate and round
    finalists: list[int]  # pool indices, best first by the search
    holdout: pl.DataFrame  # the held-out games: one cell per finalist, then the defaults
    best: dict  # best.json
    timings: dict
    games_searched: int


def race(search: Search, pool: np.ndarray, entrants: list[int], stage: int = 0, *,
         threads: int | None = None, cluster: Cluster | None = None,
         progress: Callable[[int], None] | None = None) -> tuple[pl.DataFrame, list[int], int]:
    """Successive halving of pool[entrants] on the search seed: (trajectory, finalists
    best first, games played)."""
    from bollesim.batch.runner import simulate

    plan = schedule(len(entrants), search.eta, search.finalists, search.stage_budget)
    k = len(search.objectives)
    sums = np.zeros((len(pool), k))
    alive = np.array(entrants)
    done, played, rows = 0, 0, []
    for r, (_, target) in enumerate(plan):
        for c in alive:
            games = simulate(search.policy, target - done, search.seed,
                             params=as_params(search.policy, pool[c]), rules=search.rules,
                             threads=threads, first_game=done, cluster=cluster,
                             progress=progress or False)
            for j, objective in enumerate(search.objectives):
                sums[c, j] += objective.score(games).sum()
            played += games.height
        means = sums[alive] / target
        ranked = alive[order(means)]
        keep = plan[r + 1][0] if r + 1 < len(plan) else search.finalists
        kept = set(ranked[:keep].tolist())
        for place, c in enumerate(ranked):
            rows.append({"stage": stage, "round": r, "candidate": int(c), "games": target, "place": place,
                         **{f"objective_{j}": float(sums[c, j] / target) for j in range(k)},
                         "kept": int(c) in kept,
                         **{p.name: float(pool[c, i]) for i, p in enumerate(search.policy.parameters)}})
        alive = np.array(sorted(kept, key=ranked.tolist().index))
        done = target
    return pl.DataFrame(rows), alive.tolist(), played


def holdout(search: Search, pool: np.ndarray, finalists: list[int], *, threads=None,
            cluster=None, progress=None) -> pl.DataFrame:
    """The finalists (cells 0..) and then the policy's declared defaults (last cell) on the
    held-out seed."""
    from bollesim.batch.runner import simulate

    frames = []
    vectors = [pool[c] for c in finalists] + [search.policy.param_vector()]
    for cell, vector in enumerate(vectors):
        n = search.holdout_games
        games = simulate(search.policy, n, search.holdout_seed,
                         params=as_params(search.policy, vector), rules=search.rules,
                         threads=threads, cluster=cluster, progress=progress or False)
        frames.append(games.with_columns(pl.lit(cell, pl.Int32).alias("cell")))
    return pl.concat(frames)


def optimise(search: Search, *, threads: int | None = None, cluster: Cluster | None = None,
             progress: Callable[[int, int], None] | None = None) -> Result:
    """Race the candidates, then replay the finalists and the defaults on held-out games."""
    from bollesim.batch.runner import set_threads

    set_threads(threads)
    pool = candidate_pool(search)
    holdout_games = (search.finalists + 1) * search.holdout_games
    total, seen = [holdout_games], [0]

    def advance(k: int) -> None:
        seen[0] += k
        if progress:
            progress(seen[0], total[0])

    t0 = time.perf_counter()
    entrants, finalists, played, trajectories = list(range(len(pool))), [], 0, []
    for stage in range(search.refine + 1):
        if stage:
            pool, entrants = with_neighbours(search, pool, finalists)
            if len(entrants) <= len(finalists):
                break  # no neighbour left to try
        total[0] += budget_used(len(entrants), search)
        trajectory, finalists, games_played = race(search, pool, entrants, stage,
                                                   threads=threads, cluster=cluster,
                                                   progress=advance)
        trajectories.append(trajectory)
        played += games_played
    trajectory = pl.concat(trajectories)
    t1 = time.perf_counter()
    games = holdout(search, pool, finalists, threads=threads, cluster=cluster, progress=advance)
    t2 = time.perf_counter()
    best = best_record(search, pool[finalists[0]])
    timings = {"search_s": round(t1 - t0, 3), "holdout_s": round(t2 - t1, 3),
               "total_s": round(t2 - t0, 3),
               "games_per_s": round((played + games.height) / max(t2 - t0, 1e-9))}
    return Result(pool, trajectory, finalists, games, best, timings, played)


def budget_used(n_candidates: int, search: Search) -> int:
    """Games a race of n candidates plays (schedule's plan)."""
    plan = schedule(n_candidates, search.eta, search.finalists, search.stage_budget)
    return sum(n * (t - (plan[r - 1][1] if r else 0)) for r, (n, t) in enumerate(plan))


def neighbours(search: Search, vector: np.ndarray) -> list[np.ndarray]:
    """The vectors one step from `vector` along one searched parameter: +-1 for a
    whole-numbered one, +-a tenth of its range else, within its range."""
    out = []
    for axis in search.axes:
        step = 1.0 if axis.whole else (axis.high - axis.low) / 10
        for value in (vector[axis.index] - step, vector[axis.index] + step):
            if axis.low <= value <= axis.high:
                row = vector.copy()
                row[axis.index] = value
                out.append(row)
    return out


def with_neighbours(search: Search, pool: np.ndarray, finalists: list[int]
                    ) -> tuple[np.ndarray, list[int]]:
    """(pool, entrants) of a refining stage: the finalists and the neighbours of the best
    one, new vectors added to the pool."""
    index = {row.tobytes(): i for i, row in enumerate(pool)}
    rows = list(pool)
    entrants = list(finalists)
    for row in neighbours(search, pool[finalists[0]]):
        if row.tobytes() not in index:
            index[row.tobytes()] = len(rows)
            rows.append(row)
        if index[row.tobytes()] not in entrants:
            entrants.append(index[row.tobytes()])
    return np.array(rows), entrants


def best_record(search: Search, vector: np.ndarray) -> dict:
    """best.json: {"policy": name, "params": {name: value}} (whole-numbered values as ints)."""
    params = {}
    for p, v in zip(search.policy.parameters, vector, strict=True):
        params[p.name] = int(v) if is_whole(p) else float(v)
    return {"policy": search.policy.name, "params": params}


# --------------------------------------------------------------------------- statistics


def holdout_table(search: Search, games: pl.DataFrame) -> pl.DataFrame:
    """Per held-out cell and objective: the mean, its 95% interval (Wilson for a rate,
    normal for a weighted score), and the paired difference against the defaults (last
    cell) with its 95% interval (`paired`)."""
    default_cell = int(games["cell"].max())
    rows = []
    for cell in range(default_cell + 1):
        for j, objective in enumerate(search.objectives):
            x = objective.score(games.filter(pl.col("cell") == cell))
            n = len(x)
            if objective.is_rate:
                low, high = A.wilson(int(x.sum()), n)
            else:
                half = A.Z95 * x.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
                low, high = x.mean() - half, x.mean() + half
            rows.append({"cell": cell, "defaults": cell == default_cell, "objective": j,
                         "label": objective.label, "n": n, "mean": float(x.mean()),
                         "low": float(low), "high": float(high),
                         **paired(objective, games, cell, default_cell)})
    return pl.DataFrame(rows, schema_overrides={"p_value": pl.Float64})


def paired(objective: Objective, games: pl.DataFrame, a: int, b: int) -> dict:
    """Cell a's objective minus cell b's, game by game on the same seeds: diff, diff_low,
    diff_high (95%: Newcombe's paired interval for a rate, normal for a weighted score)
    and p_value (exact McNemar for a rate, else None)."""
    if objective.is_rate:
        column = next(iter(objective.weights))
        cmp = A.paired_comparison(A.with_outcomes(games), a, b, column).row(0, named=True)
        return {k: cmp[k] for k in ("diff", "diff_low", "diff_high", "p_value")}
    x, y = (objective.score(games.filter(pl.col("cell") == c).sort("game")) for c in (a, b))
    d = x - y
    half = A.Z95 * d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else math.nan
    return {"diff": float(d.mean()), "diff_low": float(d.mean() - half),
            "diff_high": float(d.mean() + half), "p_value": None}


# --------------------------------------------------------------------------- the result folder


def held_out_vectors(search: Search, result: Result) -> list[np.ndarray]:
    """The parameter vectors of the held-out cells: the finalists, then the defaults."""
    return [result.pool[c] for c in result.finalists] + [search.policy.param_vector()]


def candidate_label(search: Search, vector: np.ndarray) -> str:
    """The searched parameters' values, e.g. "k=14 stop_at_tanks=2"."""
    return " ".join(f"{a.name}={A.fmt_value(vector[a.index])}" for a in search.axes)


def write_result(search: Search, result: Result, out: str | Path) -> dict:
    """Commit the result folder `out` (a run folder of the held-out games, with the
    trajectory, best.json, optimise.md and its charts): all of it or nothing."""
    import io

    from bollesim.batch.runfolder import write_games
    from bollesim.report import charts

    table = holdout_table(search, result.holdout)
    cells = [{"cell": i, "policy": search.policy.name,
              "params": {p.name: float(v) for p, v in zip(search.policy.parameters,
                                                          vector, strict=True)}}
             for i, vector in enumerate(held_out_vectors(search, result))]
    trajectory = io.BytesIO()
    result.trajectory.write_parquet(trajectory)
    best = {**result.best, "objectives": [o.describe() for o in search.objectives],
            "held_out": _held_out_record(table, 0)}
    specs = {"trajectory": trajectory_spec(search, result)}
    if search.pareto:
        specs["pareto"] = pareto_spec(search, result, table)
    files = {TRAJECTORY: trajectory.getvalue(),
             BEST: (json.dumps(best, indent=2, ensure_ascii=False) + "\n").encode("utf-8")}
    for name, spec in specs.items():
        files[f"optimise-{name}.png"] = charts.png(spec)
        files[f"optimise-{name}.vl.json"] = json.dumps(spec).encode("utf-8")
    rep = report_blocks(search, result, table)
    files[REPORT] = report_markdown(rep, specs).encode("utf-8")
    files[REPORT_HTML] = report_html(rep, specs).encode("utf-8")
    return write_games(
        out, result.holdout, files,
        **play_record(search.rules, cells, search.holdout_seed, "fast", result.timings,
                      games_per_cell=search.holdout_games),
        experiment=search.name, description=search.description,
        spec_file=str(search.path) if search.path else None, spec=search.spec,
        **ruleset_record(search.rules, search.ruleset_source))


def _held_out_record(table: pl.DataFrame, cell: int) -> list[dict]:
    keep = ["label", "n", "mean", "low", "high", "diff", "diff_low", "diff_high", "p_value"]
    return table.filter(pl.col("cell") == cell).select(keep).to_dicts()


def trajectory_spec(search: Search, result: Result) -> dict:
    """Every candidate's estimate of the first objective against the games it had played
    (log scale): the race, round by round."""
    import altair as alt

    finalists = set(result.finalists)
    data = result.trajectory.with_columns(
        (pl.col("objective_0") * 100).alias("estimate"),
        pl.col("candidate").is_in(list(finalists)).alias("finalist"),
        pl.Series("label", [candidate_label(search, result.pool[c])
                            for c in result.trajectory["candidate"]]),
    ).to_dicts()
    chart = alt.Chart(alt.Data(values=data)).mark_line(point=True, opacity=0.6).encode(
        x=alt.X("games:Q", scale=alt.Scale(type="log"), title="games played (search seed)"),
        y=alt.Y("estimate:Q", title=f"{search.objectives[0].label} (%)",
                scale=alt.Scale(zero=False)),
        detail=["stage:N", "candidate:N"],
        color=alt.Color("finalist:N", title="finalist"),
        tooltip=["label:N", "games:Q", alt.Tooltip("estimate:Q", format=".2f")],
    ).properties(width=640, height=320, title=f"The race: {search.name}")
    return chart.to_dict()


def pareto_spec(search: Search, result: Result, table: pl.DataFrame) -> dict:
    """The two objectives of every candidate at its last round (grey) and the finalists'
    held-out estimates with their intervals, the front joined by a line."""
    import altair as alt

    x_label, y_label = (o.label for o in search.objectives)
    last = (result.trajectory.sort("round").group_by("candidate").last()
            .with_columns((pl.col("objective_0") * 100).alias("x"),
                          (pl.col("objective_1") * 100).alias("y")))
    wide = (table.filter(pl.col("objective") == 0).select("cell", "defaults", x="mean",
                                                          x_low="low", x_high="high")
            .join(table.filter(pl.col("objective") == 1)
                  .select("cell", y="mean", y_low="low", y_high="high"), on="cell"))
    vectors = held_out_vectors(search, result)
    wide = wide.with_columns(
        *(pl.col(c) * 100 for c in ("x", "x_low", "x_high", "y", "y_low", "y_high")),
        pl.Series("label", [candidate_label(search, vectors[c]) for c in wide["cell"]]),
    ).sort("x")
    points = wide.select("x", "y").to_numpy()
    front = wide.filter(pl.Series(pareto_ranks(points) == 0)).sort("x")
    searched = alt.Chart(alt.Data(values=last.to_dicts())).mark_point(color="#bbbbbb").encode(
        x=alt.X("x:Q", title=f"{x_label} (%)", scale=alt.Scale(zero=False)),
        y=alt.Y("y:Q", title=f"{y_label} (%)", scale=alt.Scale(zero=False)),
        tooltip=["candidate:N", "games:Q"])
    base = alt.Chart(alt.Data(values=wide.to_dicts()))
    held = base.mark_point(filled=True, size=70).encode(
        x="x:Q", y="y:Q", color=alt.Color("defaults:N", title="defaults"),
        tooltip=["label:N", alt.Tooltip("x:Q", format=".2f"), alt.Tooltip("y:Q", format=".2f")])
    x_bars = base.mark_rule().encode(x="x_low:Q", x2="x_high:Q", y="y:Q")
    y_bars = base.mark_rule().encode(x="x:Q", y="y_low:Q", y2="y_high:Q")
    line = alt.Chart(alt.Data(values=front.to_dicts())).mark_line(color="#d62728").encode(x="x:Q", y="y:Q")
    chart = (searched + line + x_bars + y_bars + held).properties(
        width=640, height=400,
        title={"text": f"Pareto front: {x_label} against {y_label}",
               "subtitle": ["grey: every candidate's search estimate at its last round; "
                            "dots: held-out estimates with 95% intervals; red: the front"]})
    return chart.to_dict()


CHART_ALT = {"pareto": "the Pareto front", "trajectory": "the race"}


def report_markdown(rep, specs: dict[str, dict]) -> str:
    """optimise.md: the report's blocks, then its charts as PNG links."""
    from bollesim.report.document import render_markdown

    images = [f"![{CHART_ALT[name]}](optimise-{name}.png)" for name in sorted(specs)]
    return render_markdown(rep, {}) + "\n" + "\n\n".join(images) + "\n"


def report_html(rep, specs: dict[str, dict]) -> str:
    """optimise.html: the same report in one page that works offline, its charts
    interactive (report.render_html's page, charts.page_script's Vega-Lite)."""
    import html

    from bollesim.report import charts
    from bollesim.report.document import render_html

    figures = "".join(
        f'<figure><div class="chart" id="vis-{name}" role="img" '
        f'aria-label="{html.escape(CHART_ALT[name])}"></div></figure>' for name in sorted(specs))
    script = charts.page_script({f"vis-{name}": spec for name, spec in specs.items()})
    return render_html(rep).replace("</body>", figures + "\n" + script + "\n</body>", 1)


def report_blocks(search: Search, result: Result, table: pl.DataFrame):
    """The report's content (report.Report): the winner, the held-out estimates and
    differences, the race."""
    from bollesim.report.chartdata import pct
    from bollesim.report.document import Report, pct_ci

    rep = Report(f"Policy search: {search.name}")
    rep.h(1, rep.title)
    if search.description:
        rep.p(search.description)
    goal = " and ".join(o.label for o in search.objectives)
    mode = "Pareto front of" if search.pareto else "maximising"
    rep.p(f"Family `{search.policy.name}`, {mode} {goal}; {len(result.pool)} candidates raced "
          f"by successive halving (eta {search.eta}) on {result.games_searched:,} games of "
          f"seed {search.seed}, the same games for every candidate; the {search.finalists} "
          f"finalists and the defaults then replayed on {search.holdout_games:,} held-out "
          f"games of seed {search.holdout_seed}, never used in the search.")
    rep.p(f"Best (the search's first finalist): `{candidate_label(search, result.pool[result.finalists[0]])}`"
          " (best.json).")
    rep.h(2, "Held-out estimates")
    vectors = held_out_vectors(search, result)
    header = ["cell", "candidate", "objective", "estimate (95% interval)",
              "difference from the defaults (95% interval)", "p"]
    rows = []
    for row in table.iter_rows(named=True):
        who = "defaults" if row["defaults"] else f"finalist {row['cell'] + 1}"
        label = candidate_label(search, vectors[row["cell"]])
        if search.objectives[row["objective"]].is_rate:
            estimate = pct_ci(row["mean"], row["low"], row["high"])
            diff = (f"{100 * row['diff']:+.2f} points ({100 * row['diff_low']:+.2f} to "
                    f"{100 * row['diff_high']:+.2f})")
        else:
            estimate = f"{row['mean']:.4f} ({row['low']:.4f} to {row['high']:.4f})"
            diff = f"{row['diff']:+.4f} ({row['diff_low']:+.4f} to {row['diff_high']:+.4f})"
        p = "–" if row["p_value"] is None or row["defaults"] else f"{row['p_value']:.2g}"
        rows.append([who, label, row["label"], estimate, "–" if row["defaults"] else diff, p])
    rep.table(header, rows, right={3, 4, 5})
    if len(result.finalists) > 1:
        objective = search.objectives[0]
        d = paired(objective, result.holdout, 0, 1)
        scale, unit = (100, " points") if objective.is_rate else (1, "")
        rep.p(f"Finalist 1 against finalist 2, game by game on the held-out seeds: "
              f"{scale * d['diff']:+.2f}{unit} of {objective.label} (95% interval "
              f"{scale * d['diff_low']:+.2f} to {scale * d['diff_high']:+.2f}).")
    rep.p("Rates have Wilson intervals and paired differences Newcombe's interval with an "
          "exact McNemar p; a weighted score has a normal interval of its mean and of the "
          "paired per-game difference. Every rate of every cell: `bollesim report OUT`.")
    rep.h(2, "The race")
    header = ["stage", "round", "candidates", "games each", "leader", "leader's estimate"]
    rows = []
    for (stage, r), g in sorted(result.trajectory.group_by("stage", "round"), key=lambda kv: kv[0]):
        top = g.sort("place").row(0, named=True)
        rows.append([str(stage), str(r), str(g.height), f"{top['games']:,}",
                     candidate_label(search, result.pool[top["candidate"]]),
                     pct(top["objective_0"]) if search.objectives[0].is_rate
                     else f"{top['objective_0']:.4f}"])
    rep.table(header, rows, right={0, 1, 2, 3, 5})
    t = result.timings
    rep.p(f"Search {t['search_s']:.0f} s, held-out {t['holdout_s']:.0f} s "
          f"({t['games_per_s']:,} games/s). Every round of every candidate: {TRAJECTORY}.")
    return rep
