"""Policy search: `bollesim optimise SPEC` looks for the parameters of one policy family that
maximise an objective, then estimates the winners on held-out seeds.

A spec (experiments/optimise_*.toml):

    name = "optimise_operational"       # default out folder: results/<name>
    description = "..."
    policy = "fire_at_roe"              # any module of policies/ with PARAMETERS
    seed = 1                            # the search plays games (seed, 0..)
    holdout_seed = 2                    # the held-out estimate plays (holdout_seed, 0..)
    budget = 6000000                    # every game it plays, the held-out ones included
    candidates = 400                    # trials the sampler may suggest after the seeds
    trial_games = 20000                 # games of a trial never dropped
    eta = 3                             # each rung plays eta times the games of the one before
    finalists = 3                       # trials played to the end that go to the held-out games
    holdout_games = 400000              # held-out games per finalist (and for the defaults)
    objective = "operational"           # an outcome rate, or a weighted score:
    # objective = { weights = { operational = 1, defeat = -1 }, label = "..." }
    # pareto = ["operational", "strategic"]   # instead of objective: trace the front
    ruleset / partial / overrides / readings   # as in a sweep spec (batch/spec.py: ruleset_of)

    [search]                            # optional; without it every parameter is searched
    k = [8, 20]                         # over its declared range. With it: a sub-range,
    stop_at_tanks = true                # the declared range,
    tow = 1                             # a fixed value; unlisted parameters keep their default
    target = "tank"                     # (a choice by its name or index, in bounds too)

Seeds: the defaults; the whole grid of the searched parameters when they are all
whole-numbered and it has at most `candidates` points; for the scripted family, every
preset (fire_at_roe at every k, fire_at_turn at every t, ..., each at every
stop_at_tanks: PRESET mappings of policies/) that lies in the searched space. They race
first, together, and the sampler learns from them: the search cannot end below the best
of them on the search games.

Sampler: optuna's multivariate TPE (seeded by `seed`, so the same spec gives the same
trials), which proposes each next trial from the estimates of all before it: a parameter
declared with `choices` (posts, targets) as a categorical choice, a whole-numbered one as
an integer, others as floats. A point already tried is not played again.

Racing on common random numbers: every trial plays games 0.. of the search seed, the
same games for every trial, in rungs of trial_games / eta**i games (runner.simulate, so
--cluster plays them on Dask). After each rung it is dropped when its paired difference
from a reference (the best trial played to the end so far, or in a race of several the
best of them so far; in Pareto mode any point of the front) is DROP_Z standard errors
below zero on the same games: games go to the trials that could still win. A dropped
trial's estimate, told to the sampler, is its reference's whole mean plus their paired
difference. The budget is never exceeded: when it cannot pay for every entrant's next
rung, the best of them so far play on (Race._affordable), always enough for one to reach
the end; the smallest budget a spec accepts pays for the held-out games, each seed's first
rung and one trial to the end (smallest_budget). The search stops when the budget cannot
pay for one more trial to the end or after `candidates` trials; the finalists are the best trials played to the end, by
their mean on the search games (in Pareto mode by front, then the sum of both).

Held-out estimate: the finalists, the best seed (when it is not a finalist) and the
policy's defaults replay on `holdout_games` games of `holdout_seed`, a run seed the search
never uses, so the estimate of the winner is not biased upward by the selection. The
winner is the search's best finalist, chosen before the held-out games are seen; the
report says how it fares against the best seed on them.

The result folder is a run folder (runfolder.py): games.parquet holds the held-out games,
one cell per held-out candidate, the defaults last, so `bollesim report OUT` and
`bollesim play --from OUT` work on it. Beside them, in the same atomic commit:
trajectory.parquet (every trial's estimate at every rung), best.json
({"policy": ..., "params": {...}}, read by `bollesim serve --from OUT`), optimise.md (the
held-out estimates with Wilson intervals, the paired differences against the defaults
and the best seed, the search) and its charts.
"""

from __future__ import annotations

import difflib
import itertools
import json
import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from bollesim.batch.limits import DEFAULT_SEED, LIMITS, held_out_games, search_budget
from bollesim.batch.manifest import play_record, ruleset_record
from bollesim.batch.source import RulesetSource
from bollesim.batch.spec import Spec, read_spec, ruleset_of, spec_name
from bollesim.errors import UsageError
from bollesim.game.declaration import Ruleset, declared
from bollesim.game.policy import Policy, load_policy
from bollesim.game.result import Objective
from bollesim.stats import analysis as A

if TYPE_CHECKING:
    from bollesim.batch.cluster import Cluster

SPEC_KEYS = (
    "name", "description", "policy", "seed", "holdout_seed", "budget", "candidates",
    "trial_games", "eta", "finalists", "holdout_games", "objective", "pareto", "ruleset",
    "partial", "overrides", "readings", "search",
)
OBJECTIVE_KEYS = ("weights", "label")
DEFAULTS = {"budget": 4_000_000, "candidates": 400, "trial_games": 20_000, "eta": 3,
            "finalists": 3, "holdout_games": 400_000}
UNIT = 100
"""A trial's blocks of games are whole multiples of UNIT."""
FIRST_GAMES = 500
"""The fewest games a trial plays before it can be dropped."""
DROP_Z = 2.0
"""A trial is dropped when its paired difference from a reference is this many standard
errors below zero (one-sided, about 2.3% for a trial exactly as good)."""
STARTUP_SHARE = 0.1
"""The share of the sampler's trials drawn at random before its model takes over."""
BEST = "best.json"  # runfolder.SEARCH_FILE: it makes a run folder a search's result
TRAJECTORY = "trajectory.parquet"
REPORT = "optimise.md"
REPORT_HTML = "optimise.html"


# --------------------------------------------------------------------------- objectives


def _objective(s: Spec, raw, key: str) -> Objective:
    if isinstance(raw, str):
        _outcome(s, raw, key)
        return Objective(A.LABELS.get(raw, raw) + " rate", {raw: 1.0})
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
    return Objective(label, checked)


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
    choices: tuple[str, ...] | None = None  # a categorical parameter's value names

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
    trial_games: int
    eta: int
    finalists: int
    holdout_games: int
    objectives: tuple[Objective, ...]  # one, or two in Pareto mode
    axes: tuple[Axis, ...]
    base: np.ndarray  # the parameter vector: defaults, with the spec's fixed values
    rules: Ruleset = field(repr=False)
    ruleset_source: RulesetSource = field(default_factory=RulesetSource)
    path: Path | None = None
    spec: dict = field(default_factory=dict, repr=False)

    @property
    def held_out_games(self) -> int:
        """Games of the held-out replay (limits.held_out_games)."""
        return held_out_games(self.finalists, self.holdout_games)

    @property
    def search_games(self) -> int:
        """Games the races may play: `budget` less the held-out games."""
        return search_budget(self.budget, self.finalists, self.holdout_games)

    @property
    def pareto(self) -> bool:
        return len(self.objectives) == 2


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
    name = spec_name(s, data, path)
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
    search = Search(name, description, policy, seed, holdout_seed, objectives=objectives,
                    axes=axes, base=base, rules=rules, ruleset_source=source, path=path,
                    spec=data, **counts)
    try:  # sized before anything is played
        check_budget(search, len(seed_points(search)))
    except UsageError as exc:
        s.fail("budget", str(exc))
    return search


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
            low, high = (s.param_value(p, v, key) for v in raw)
            if not p.low <= low <= high <= p.high:
                s.fail(key, f"expected {p.low:g} <= low <= high <= {p.high:g}, got [{low:g}, {high:g}]")
            whole = is_whole(p)
            if whole and not (low.is_integer() and high.is_integer()):
                s.fail(key, f"{p.name} is whole-numbered: give whole bounds")
            if low == high:
                base[i] = low
            else:
                axes.append(Axis(p.name, i, low, high, whole, p.choices))
        else:
            value = s.param_value(p, raw, key)
            try:
                policy.param_vector({p.name: value})
            except UsageError as exc:
                s.fail(key, str(exc))
            base[i] = value
    if not axes:
        s.fail("search", "every parameter is fixed: leave at least one to search")
    return tuple(axes), base


# --------------------------------------------------------------------------- the space


def distributions(search: Search) -> dict:
    """The sampler's view of the searched parameters (optuna distributions): a parameter
    declared with `choices` is a categorical choice among the names of its values, a
    whole-numbered one an integer, any other a float."""
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    out = {}
    for axis in search.axes:
        if axis.choices is not None:
            out[axis.name] = CategoricalDistribution(axis.choices[int(axis.low):int(axis.high) + 1])
        elif axis.whole:
            out[axis.name] = IntDistribution(int(axis.low), int(axis.high))
        else:
            out[axis.name] = FloatDistribution(axis.low, axis.high)
    return out


def vector_of(search: Search, params: dict) -> np.ndarray:
    """The parameter vector of a sampler's point (choice names back to their indices)."""
    vector = search.base.copy()
    for axis in search.axes:
        value = params[axis.name]
        vector[axis.index] = axis.choices.index(value) if axis.choices is not None else value
    return vector


def params_of(search: Search, vector: np.ndarray) -> dict:
    """The sampler's point of a parameter vector (the inverse of vector_of)."""
    out = {}
    for axis in search.axes:
        value = vector[axis.index]
        out[axis.name] = (axis.choices[int(value)] if axis.choices is not None
                          else int(value) if axis.whole else float(value))
    return out


def in_space(search: Search, vector: np.ndarray) -> bool:
    """Whether a parameter vector lies in the searched space: its fixed parameters at the
    spec's values, its searched ones within their ranges."""
    searched = np.zeros(len(vector), dtype=bool)
    for axis in search.axes:
        searched[axis.index] = True
        if not axis.low <= vector[axis.index] <= axis.high:
            return False
    return bool(np.array_equal(vector[~searched], search.base[~searched]))


def grid_size(search: Search) -> float:
    """The number of points of the searched space (inf when a parameter is a float)."""
    if not all(a.whole for a in search.axes):
        return math.inf
    return math.prod(len(a.values()) for a in search.axes)


# --------------------------------------------------------------------------- the seeds


def seed_points(search: Search) -> list[tuple[np.ndarray, str]]:
    """The points the search starts from, each with its name: the defaults (a default
    outside a sub-range moved to its nearest bound); the whole grid of the searched
    parameters when they are all whole-numbered and it has at most `candidates` points;
    and, for the scripted family, every preset (policies/ modules with PRESET) at every
    value of its own parameters and of its family's seeded knobs (Game.space) that lies in
    the searched space. No
    duplicates: the first name of a point is kept."""
    first = search.base.copy()
    for axis in search.axes:
        first[axis.index] = min(max(first[axis.index], axis.low), axis.high)
    points = [(first, "defaults")]
    if grid_size(search) <= search.candidates:
        for combo in itertools.product(*(a.values() for a in search.axes)):
            row = search.base.copy()
            row[[a.index for a in search.axes]] = combo
            points.append((row, "grid"))
    if search.policy.name == declared().scripted:
        points += [(v, label) for v, label in preset_points() if in_space(search, v)]
    seen, out = set(), []
    for vector, label in points:
        if vector.tobytes() not in seen:
            seen.add(vector.tobytes())
            out.append((vector, label))
    return out


def preset_points() -> list[tuple[np.ndarray, str]]:
    """Every preset of the scripted family as points of it (its PRESET mapping), over the
    grid of its own whole-numbered parameters that are not shared knobs and of the
    family's seeded knobs (Game.space), e.g. ("fire_at_roe k=8 stop_at_tanks=0", its
    family vector)."""
    from bollesim.game.policy import Preset, available_policies

    if not declared().space:
        return []
    space = declared().space_module
    fixed_knobs = {p.name for p in space.knobs()} - set(space.SEEDED_KNOBS)
    out = []
    for name in available_policies():
        preset = load_policy(name)
        if not isinstance(preset, Preset):
            continue
        varied = [p for p in preset.parameters if p.name not in fixed_knobs and is_whole(p)]
        for combo in itertools.product(*(range(int(p.low), int(p.high) + 1) for p in varied)):
            values = dict(zip((p.name for p in varied), combo, strict=True))
            vector = preset.kernel_params(preset.param_vector(values))
            label = " ".join([name] + [f"{k}={v}" for k, v in values.items()])
            out.append((vector, label))
    return out


# --------------------------------------------------------------------------- the race


def rungs(search: Search) -> list[int]:
    """The games a trial has played at each of its checks (rung_sizes)."""
    return rung_sizes(search.trial_games, search.eta)


def rung_sizes(trial_games: int, eta: int) -> list[int]:
    """The games a trial has played at each of its checks, smallest first: trial_games,
    and before it trial_games / eta, / eta**2, ... (whole multiples of UNIT, at least
    FIRST_GAMES)."""
    out = [trial_games]
    while (before := out[-1] // eta // UNIT * UNIT) >= FIRST_GAMES:
        out.append(before)
    return out[::-1]


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


def leaders(means: np.ndarray) -> np.ndarray:
    """The rows no other beats: the best (one objective) or the Pareto front (two)."""
    if means.shape[1] == 1:
        return np.array([int(np.argmax(means[:, 0]))])
    return np.flatnonzero(pareto_ranks(means) == 0)


def clearly_worse(scores: np.ndarray, reference: np.ndarray) -> bool:
    """Whether a trial's per-game scores (games, objectives) are worse than the
    reference's on the same games for every objective: the paired difference's upper
    bound at DROP_Z standard errors below zero."""
    d = scores - reference
    n = len(d)
    if n < 2:
        return False
    upper = d.mean(axis=0) + DROP_Z * d.std(axis=0, ddof=1) / math.sqrt(n)
    return bool(np.all(upper < 0))


def as_params(policy: Policy, vector: np.ndarray) -> dict[str, float]:
    return {p.name: float(v) for p, v in zip(policy.parameters, vector, strict=True)}


@dataclass
class Race:
    """The search's state: every point tried (pool, labels), the per-game scores on the
    search seed of those played to the end, every trial's estimate, and the trajectory."""

    search: Search
    threads: int | None = None
    cluster: Cluster | None = None
    progress: Callable[[int], None] | None = None
    pool: list[np.ndarray] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    index: dict[bytes, int] = field(default_factory=dict)
    finished: dict[int, np.ndarray] = field(default_factory=dict)  # (trial_games, objectives)
    estimates: dict[int, np.ndarray] = field(default_factory=dict)
    rows: list[dict] = field(default_factory=list)
    played: int = 0
    trials: int = 0

    def add(self, vector: np.ndarray, label: str) -> tuple[int, bool]:
        """(pool index of the vector, whether it is new)."""
        key = vector.tobytes()
        if key in self.index:
            return self.index[key], False
        self.index[key] = len(self.pool)
        self.pool.append(vector)
        self.labels.append(label)
        return self.index[key], True

    def play(self, c: int, first: int, stop: int) -> np.ndarray:
        """Candidate c's scores (games, objectives) on games first..stop-1 of the search seed."""
        from bollesim.batch.runner import simulate

        search = self.search
        games = simulate(search.policy, stop - first, search.seed,
                         params=as_params(search.policy, self.pool[c]), rules=search.rules,
                         threads=self.threads, first_game=first, cluster=self.cluster,
                         progress=self.progress or False)
        self.played += games.height
        return np.column_stack([o.score(games, A.RESULT) for o in search.objectives])

    def references(self) -> list[int]:
        """The candidates played to the end that no other of them beats."""
        done = list(self.finished)
        if not done:
            return []
        means = np.array([self.estimates[c] for c in done])
        return [done[i] for i in leaders(means)]

    def run(self, entrants: list[int], stage: int) -> None:
        """Race pool[entrants] on the same games of the search seed, rung by rung: each
        rung plays every entrant still in on the next block of games, then drops those
        clearly worse (paired, on all games so far) than a reference: the best (or the
        front) of the candidates already played to the end and of the entrants still in.
        An entrant that survives the last rung is played to the end; a dropped one is
        estimated by its reference's whole mean plus their paired difference."""
        scores = {c: np.empty((0, len(self.search.objectives))) for c in entrants}
        alive, done = list(entrants), 0
        base = self.references()
        for r, target in enumerate(rungs(self.search)):
            if not alive:
                break
            alive = self._affordable(alive, scores, stage, r, done, target)
            for c in alive:
                scores[c] = np.vstack([scores[c], self.play(c, done, target)])
            means = np.array([scores[c].mean(axis=0) for c in alive])
            refs = [(c, scores[c]) for c in (alive[i] for i in leaders(means))]
            refs += [(c, self.finished[c][:target]) for c in base]
            survivors = []
            for c in alive:
                beaten_by = next((ref for ref, x in refs if ref != c and clearly_worse(scores[c], x)), None)
                if beaten_by is None:
                    survivors.append(c)
                else:
                    whole = (self.estimates[beaten_by] - self.finished[beaten_by][:target].mean(axis=0)
                             if beaten_by in self.finished else 0.0)
                    self.estimates[c] = scores[c].mean(axis=0) + whole
                self._row(stage, r, c, target, scores[c], beaten_by is None)
            alive, done = survivors, target
        for c in alive:
            self.finished[c] = scores[c]
            self.estimates[c] = scores[c].mean(axis=0)

    def _affordable(self, alive: list[int], scores: dict, stage: int, r: int, done: int,
                    target: int) -> list[int]:
        """The entrants the budget lets play the next rung, best first by their games so
        far, keeping enough for one of them to reach the end (at least one: check_budget
        made room). Those left out stop here, estimated by their mean so far."""
        room = self.search.search_games - self.played - (self.search.trial_games - target)
        fits = max(1, room // (target - done))
        if fits >= len(alive):
            return alive
        ranked = [alive[i] for i in order(np.array([scores[c].mean(axis=0) for c in alive]))]
        for c in ranked[fits:]:
            self.estimates[c] = scores[c].mean(axis=0)
            self._row(stage, r, c, done, scores[c], False)
        return ranked[:fits]

    def _row(self, stage: int, r: int, c: int, games: int, scores: np.ndarray, kept: bool) -> None:
        k = len(self.search.objectives)
        self.rows.append({
            "stage": stage, "trial": self.trials, "round": r, "candidate": c, "games": games,
            **{f"objective_{j}": float(scores[:, j].mean()) for j in range(k)},
            "kept": kept, "spent": self.played,
            **{p.name: float(self.pool[c][i]) for i, p in enumerate(self.search.policy.parameters)},
        })

    def ranking(self) -> list[int]:
        """The candidates played to the end, best first by their search estimate."""
        done = list(self.finished)
        means = np.array([self.estimates[c] for c in done])
        return [done[i] for i in order(means)]


def sampler(search: Search, n_seeds: int):
    """optuna's multivariate TPE sampler, seeded by the search seed (the same spec gives
    the same trials): random points for the first STARTUP_SHARE of `candidates` after
    the seeds, then the model's."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.samplers.TPESampler(
            seed=search.seed % 2**32, multivariate=True,
            n_startup_trials=n_seeds + max(10, int(STARTUP_SHARE * search.candidates)))


@dataclass
class Result:
    """What a search found."""

    pool: np.ndarray  # every point tried
    labels: list[str]  # its origin: "defaults", "grid", a preset, "sampler"
    trajectory: pl.DataFrame  # one row per trial and rung
    finalists: list[int]  # pool indices, best first by the search
    best_seed: int  # pool index of the best seed by the search
    held: list[tuple[str, np.ndarray]]  # the held-out cells: (who, parameter vector)
    holdout: pl.DataFrame  # the held-out games, one cell per entry of held
    best: dict  # best.json
    timings: dict
    games_searched: int


def smallest_budget(search: Search, n_seeds: int) -> int:
    """The fewest games a search of n_seeds seeds can be run in: the held-out games, each
    seed's first rung, and the rest of one trial's games to the end."""
    first = rungs(search)[0]
    return search.held_out_games + first * n_seeds + search.trial_games - first


def check_budget(search: Search, n_seeds: int) -> None:
    """UsageError, naming the smallest budget the spec accepts, when the budget cannot pay
    for the held-out games, every seed's first rung and one trial to the end."""
    need = smallest_budget(search, n_seeds)
    if search.budget < need:
        first = rungs(search)[0]
        raise UsageError(
            f"a budget of {search.budget:,} games is too small: the smallest this spec accepts "
            f"is {need:,} ({search.held_out_games:,} held-out games, then the {n_seeds} seeds' "
            f"first {first:,} games each and {search.trial_games - first:,} more for one trial "
            "to the end); raise budget, or lower holdout_games, finalists or trial_games")


def holdout(search: Search, held: list[tuple[str, np.ndarray]], *, threads=None,
            cluster=None, progress=None) -> pl.DataFrame:
    """The held-out cells (the finalists, the best seed, the defaults last) on the
    held-out seed."""
    from bollesim.batch.runner import simulate

    frames = []
    for cell, (_, vector) in enumerate(held):
        games = simulate(search.policy, search.holdout_games, search.holdout_seed,
                         params=as_params(search.policy, vector), rules=search.rules,
                         threads=threads, cluster=cluster, progress=progress or False)
        frames.append(games.with_columns(pl.lit(cell, pl.Int32).alias("cell")))
    return pl.concat(frames)


def optimise(search: Search, *, threads: int | None = None, cluster: Cluster | None = None,
             progress: Callable[[int, int], None] | None = None) -> Result:
    """Race the seeds, then the sampler's trials until the budget or `candidates` runs
    out; then replay the finalists, the best seed and the defaults on held-out games."""
    import optuna

    from bollesim.batch.runner import set_threads

    set_threads(threads)
    seeds = seed_points(search)
    check_budget(search, len(seeds))  # load_search checked it; a search made in code too
    seen = [0]

    def advance(k: int) -> None:
        seen[0] += k
        if progress:
            progress(seen[0], search.budget)

    t0 = time.perf_counter()
    race = Race(search, threads, cluster, advance)
    space = distributions(search)
    study = optuna.create_study(directions=["maximize"] * len(search.objectives),
                                sampler=sampler(search, len(seeds)))
    entrants = [race.add(vector, label)[0] for vector, label in seeds]
    race.run(entrants, stage=0)
    for c in entrants:
        study.add_trial(optuna.trial.create_trial(
            params=params_of(search, race.pool[c]), distributions=space,
            values=race.estimates[c].tolist()))
    best_seed = race.ranking()[0]
    if len(seeds) < grid_size(search):
        for number in range(1, search.candidates + 1):
            if search.search_games - race.played < search.trial_games:
                break
            race.trials = number
            trial = study.ask(space)
            c, new = race.add(vector_of(search, trial.params), "sampler")
            if new:
                race.run([c], stage=1)
            study.tell(trial, race.estimates[c].tolist())
    finalists = race.ranking()[: search.finalists]
    held = [(f"finalist {i + 1}", race.pool[c]) for i, c in enumerate(finalists)]
    if best_seed not in finalists:
        held.append((f"best seed ({race.labels[best_seed]})", race.pool[best_seed]))
    held.append(("defaults", search.policy.param_vector()))
    t1 = time.perf_counter()
    games = holdout(search, held, threads=threads, cluster=cluster, progress=advance)
    t2 = time.perf_counter()
    best = best_record(search, race.pool[finalists[0]])
    timings = {"search_s": round(t1 - t0, 3), "holdout_s": round(t2 - t1, 3),
               "total_s": round(t2 - t0, 3),
               "games_per_s": round((race.played + games.height) / max(t2 - t0, 1e-9))}
    return Result(np.array(race.pool), race.labels, pl.DataFrame(race.rows), finalists,
                  best_seed, held, games, best, timings, race.played)


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
            x = objective.score(games.filter(pl.col("cell") == cell), A.RESULT)
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
    x, y = (objective.score(games.filter(pl.col("cell") == c).sort("game"), A.RESULT) for c in (a, b))
    d = x - y
    half = A.Z95 * d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else math.nan
    return {"diff": float(d.mean()), "diff_low": float(d.mean() - half),
            "diff_high": float(d.mean() + half), "p_value": None}


# --------------------------------------------------------------------------- the result folder


def held_out_vectors(search: Search, result: Result) -> list[np.ndarray]:
    """The parameter vectors of the held-out cells: the finalists, the best seed when it
    is not one of them, then the defaults."""
    return [vector for _, vector in result.held]


def candidate_label(search: Search, vector: np.ndarray) -> str:
    """The searched parameters' values, e.g. "k=14 stop_at_tanks=2"."""
    return " ".join(f"{a.name}={A.fmt_value(vector[a.index])}" for a in search.axes)


def write_result(search: Search, result: Result, out) -> dict:
    """Commit the result folder `out` (a run folder of the held-out games, with the
    trajectory, best.json, optimise.md and its charts): all of it or nothing. `out`: the
    folder, or its runfolder.Workspace held by the caller."""
    import io

    from bollesim.batch.runfolder import SEARCH, write_games
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
        out, result.holdout, files, "bollesim optimise", SEARCH,
        **play_record(search.rules, cells, search.holdout_seed, "fast", result.timings,
                      games_per_cell=search.holdout_games),
        experiment=search.name, description=search.description,
        spec_file=str(search.path) if search.path else None, spec=search.spec,
        **ruleset_record(search.rules, search.ruleset_source))


def _held_out_record(table: pl.DataFrame, cell: int) -> list[dict]:
    keep = ["label", "n", "mean", "low", "high", "diff", "diff_low", "diff_high", "p_value"]
    return table.filter(pl.col("cell") == cell).select(keep).to_dicts()


def trials_table(search: Search, result: Result) -> pl.DataFrame:
    """One row per trial at its last rung, in the order played: the search games spent
    when it ended, its estimate of the first objective on the games it played (in
    points for a rate), how it ended, and the best estimate of a trial played to the end
    so far."""
    scale = 100 if search.objectives[0].is_rate else 1
    ends = (result.trajectory.with_row_index("row").sort("row").group_by("stage", "trial", "candidate")
            .last().sort("row"))
    finished = ends["kept"].to_numpy() & (ends["games"] == search.trial_games).to_numpy()
    estimate = ends["objective_0"].to_numpy() * scale
    best = np.maximum.accumulate(np.where(finished, estimate, -np.inf))
    return ends.select("stage", "trial", "candidate", "games", "spent").with_columns(
        pl.Series("estimate", estimate),
        pl.Series("ended", np.where(finished, "played to the end", "dropped")),
        pl.Series("best", np.where(np.isfinite(best), best, np.nan)).fill_nan(None),
        pl.Series("origin", [result.labels[c] for c in ends["candidate"]]),
        pl.Series("label", [candidate_label(search, result.pool[c]) for c in ends["candidate"]]),
    )


def trajectory_spec(search: Search, result: Result) -> dict:
    """The search's trajectory: every trial's estimate of the first objective (on the
    games it played) against the search games spent when it ended, and the best trial
    played to the end so far."""
    import altair as alt

    data = trials_table(search, result).to_dicts()
    unit = " (%)" if search.objectives[0].is_rate else ""
    base = alt.Chart(alt.Data(values=data))
    points = base.mark_point(opacity=0.5, size=18).encode(
        x=alt.X("spent:Q", title="search games spent"),
        y=alt.Y("estimate:Q", title=search.objectives[0].label + unit, scale=alt.Scale(zero=False)),
        color=alt.Color("ended:N", title="trial"),
        shape=alt.Shape("stage:N", title="stage (0 seeds, 1 sampler)"),
        tooltip=["origin:N", "label:N", "games:Q", alt.Tooltip("estimate:Q", format=".2f")],
    )
    line = base.mark_line(color="#d62728", interpolate="step-after").encode(x="spent:Q", y="best:Q")
    chart = (points + line).properties(
        width=640, height=320,
        title={"text": f"The search: {search.name}",
               "subtitle": ["dots: each trial's estimate on the games it played; "
                            "red: the best trial played to the end so far"]})
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


CHART_ALT = {"pareto": "the Pareto front", "trajectory": "the search's trajectory"}


def report_markdown(rep, specs: dict[str, dict], stem: str = "optimise",
                    alts: dict[str, str] = CHART_ALT) -> str:
    """STEM.md: the report's blocks, then its charts (STEM-NAME.png, `alts` their
    captions) as PNG links."""
    from bollesim.report.document import render_markdown

    images = [f"![{alts[name]}]({stem}-{name}.png)" for name in sorted(specs)]
    return render_markdown(rep, {}) + "\n" + "\n\n".join(images) + "\n"


def report_html(rep, specs: dict[str, dict], alts: dict[str, str] = CHART_ALT) -> str:
    """The same report in one page that works offline, its charts interactive
    (report.render_html's page, charts.page_script's Vega-Lite)."""
    from bollesim.report import charts
    from bollesim.report.document import render_html

    drawn = {name: charts.figure(name, specs[name], alts[name]) for name in sorted(specs)}
    figures = "".join(figure for figure, _ in drawn.values())
    script = charts.page_script({f"vis-{name}": spec for name, (_, spec) in drawn.items()})
    return render_html(rep).replace("</body>", figures + "\n" + script + "\n</body>", 1)


def report_blocks(search: Search, result: Result, table: pl.DataFrame):
    """The report's content (report.Report): the winner, the held-out estimates and
    differences, the winner against the best seed, the search."""
    from bollesim.report.document import Report
    from bollesim.stats.analysis import pct

    rep = Report(f"Policy search: {search.name}")
    rep.h(1, rep.title)
    if search.description:
        rep.p(search.description)
    goal = " and ".join(o.label for o in search.objectives)
    mode = "Pareto front of" if search.pareto else "maximising"
    trials = result.trajectory.select("stage", "trial", "candidate").unique()
    n_seeds = trials.filter(pl.col("stage") == 0).height
    rep.p(f"Family `{search.policy.name}`, {mode} {goal}. {n_seeds} seeds (the defaults and "
          f"the presets in the space), then {trials.height - n_seeds} trials of optuna's TPE "
          f"sampler, each played on the same games of seed {search.seed} in growing blocks "
          f"(up to {search.trial_games:,}) and dropped once clearly worse than the best so "
          f"far on the same games: {result.games_searched:,} games in all. The "
          f"{len(result.held)} cells below then replayed on {search.holdout_games:,} "
          f"held-out games of seed {search.holdout_seed}, never used in the search.")
    winner = result.pool[result.finalists[0]]
    rep.p(f"Best (the search's first finalist, chosen on the search games): "
          f"`{candidate_label(search, winner)}` (best.json, from "
          f"{result.labels[result.finalists[0]]}).")
    rep.h(2, "Held-out estimates")
    header = ["cell", "candidate", "objective", "estimate (95% interval)",
              "difference from the defaults (95% interval)", "p"]
    rows = []
    for row in table.iter_rows(named=True):
        who, vector = result.held[row["cell"]]
        estimate, diff = _estimate_and_difference(search.objectives[row["objective"]], row)
        p = "–" if row["p_value"] is None or row["defaults"] else A.p_text(row["p_value"]).removeprefix("p = ")
        rows.append([who, candidate_label(search, vector), row["label"], estimate,
                     "–" if row["defaults"] else diff, p])
    rep.table(header, rows, right={3, 4, 5})
    objective = search.objectives[0]
    scale, unit = (100, " points") if objective.is_rate else (1, "")
    seed_cell = (result.finalists.index(result.best_seed) if result.best_seed in result.finalists
                 else len(result.finalists))
    if result.finalists[0] == result.best_seed:
        rep.p(f"The winner is the best seed ({result.labels[result.best_seed]}): no trial of "
              "the sampler beat it on the search games.")
    else:
        d = paired(objective, result.holdout, 0, seed_cell)
        verdict = ("The best seed beats the winner on the held-out games: the search's "
                   "choice did not carry over." if d["diff_high"] < 0 else "")
        rep.p(f"The winner against the best seed ({result.labels[result.best_seed]}), game by "
              f"game on the held-out seeds: {scale * d['diff']:+.2f}{unit} of {objective.label} "
              f"(95% interval {scale * d['diff_low']:+.2f} to {scale * d['diff_high']:+.2f}). "
              + verdict)
    if len(result.finalists) > 1:
        d = paired(objective, result.holdout, 0, 1)
        rep.p(f"Finalist 1 against finalist 2, game by game on the held-out seeds: "
              f"{scale * d['diff']:+.2f}{unit} of {objective.label} (95% interval "
              f"{scale * d['diff_low']:+.2f} to {scale * d['diff_high']:+.2f}).")
    rep.p("Rates have Wilson intervals and paired differences Newcombe's interval with an "
          "exact McNemar p; a weighted score has a normal interval of its mean and of the "
          "paired per-game difference. Every rate of every cell: `bollesim report OUT`.")
    rep.h(2, "The search")
    header = ["stage", "rung", "trials", "games each", "dropped there", "leader",
              "leader's estimate"]
    rows = []
    for (stage, r), g in sorted(result.trajectory.group_by("stage", "round"), key=lambda kv: kv[0]):
        top = g.sort("objective_0", descending=True).row(0, named=True)
        rows.append([("seeds", "sampler")[stage], str(r), str(g.height), f"{top['games']:,}",
                     str(g.filter(~pl.col("kept")).height),
                     candidate_label(search, result.pool[top["candidate"]]),
                     pct(top["objective_0"]) if objective.is_rate else f"{top['objective_0']:.4f}"])
    rep.table(header, rows, right={1, 2, 3, 4, 6})
    t = result.timings
    rep.p(f"Search {t['search_s']:.0f} s, held-out {t['holdout_s']:.0f} s "
          f"({t['games_per_s']:,} games/s). Every rung of every trial: {TRAJECTORY}.")
    return rep


def _estimate_and_difference(objective: Objective, row: dict) -> tuple[str, str]:
    from bollesim.report.document import pct_ci

    if objective.is_rate:
        return (pct_ci(row["mean"], row["low"], row["high"]),
                f"{100 * row['diff']:+.2f} points ({100 * row['diff_low']:+.2f} to "
                f"{100 * row['diff_high']:+.2f})")
    return (f"{row['mean']:.4f} ({row['low']:.4f} to {row['high']:.4f})",
            f"{row['diff']:+.4f} ({row['diff_low']:+.4f} to {row['diff_high']:+.4f})")
