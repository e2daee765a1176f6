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

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from bollesim.batch.options import RunOptions
from bollesim.game.declaration import Game
from bollesim.game.result import Objective
from bollesim.search.optimise_space import (
    Search,
    distributions,
    grid_size,
    is_whole,
    params_of,
    seed_points,
    vector_of,
)
from bollesim.search.race import Race, as_params, check_budget, sampler
from bollesim.stats import intervals, paired_tests

if TYPE_CHECKING:
    from bollesim.batch.cluster import Cluster


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


def holdout(search: Search, held: list[tuple[str, np.ndarray]], *,
            options: RunOptions | None = None, progress=None) -> pl.DataFrame:
    """The held-out cells (the finalists, the best seed, the defaults last) on the
    held-out seed."""
    from bollesim.batch.runner import simulate

    frames = []
    for cell, (_, vector) in enumerate(held):
        games = simulate(search.policy, search.holdout_games, search.holdout_seed,
                         params=as_params(search.policy, vector), rules=search.rules,
                         options=options, progress=progress or False)
        frames.append(games.with_columns(pl.lit(cell, pl.Int32).alias("cell")))
    return pl.concat(frames)


def optimise(search: Search, *, options: RunOptions | None = None, threads: int | None = None,
             cluster: Cluster | None = None,
             progress: Callable[[int, int], None] | None = None) -> Result:
    """Race the seeds, then the sampler's trials until the budget or `candidates` runs
    out; then replay the finalists, the best seed and the defaults on held-out games.
    How games are played: `options` (batch/options.py), threads and cluster put over it."""
    import optuna

    from bollesim.batch.runner import set_threads

    options = RunOptions.of(options, threads=threads, cluster=cluster)
    set_threads(options.threads)
    seeds = seed_points(search)
    check_budget(search, len(seeds))  # load_search checked it; a search made in code too
    seen = [0]

    def advance(k: int) -> None:
        seen[0] += k
        if progress:
            progress(seen[0], search.budget)

    t0 = time.perf_counter()
    race = Race(search, options, advance)
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
    games = holdout(search, held, options=options, progress=advance)
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
            x = objective.score(games.filter(pl.col("cell") == cell), search.game.result)
            n = len(x)
            if objective.is_rate:
                low, high = intervals.wilson(int(x.sum()), n)
            else:
                half = intervals.Z95 * x.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
                low, high = x.mean() - half, x.mean() + half
            rows.append({"cell": cell, "defaults": cell == default_cell, "objective": j,
                         "label": objective.label, "n": n, "mean": float(x.mean()),
                         "low": float(low), "high": float(high),
                         **paired(search.game, objective, games, cell, default_cell)})
    return pl.DataFrame(rows, schema_overrides={"p_value": pl.Float64})


def paired(game: Game, objective: Objective, games: pl.DataFrame, a: int, b: int) -> dict:
    """Cell a's objective minus cell b's of the game's games, game by game on the same
    seeds: diff, diff_low,
    diff_high (95%: Newcombe's paired interval for a rate, normal for a weighted score)
    and p_value (exact McNemar for a rate, else None)."""
    if objective.is_rate:
        column = next(iter(objective.weights))
        cmp = paired_tests.paired_comparison(game, games, a, b, column).row(0, named=True)
        return {k: cmp[k] for k in ("diff", "diff_low", "diff_high", "p_value")}
    x, y = (objective.score(games.filter(pl.col("cell") == c).sort("game"), game.result) for c in (a, b))
    d = x - y
    half = intervals.Z95 * d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else math.nan
    return {"diff": float(d.mean()), "diff_low": float(d.mean() - half),
            "diff_high": float(d.mean() + half), "p_value": None}
