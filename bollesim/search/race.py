"""Trials raced on common random numbers: rungs of growing games, a trial dropped once
clearly worse than its reference, the Pareto order of candidates, and the sampler."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from bollesim.batch.options import RunOptions
from bollesim.errors import UsageError
from bollesim.game.policy import Policy

if TYPE_CHECKING:
    from bollesim.search.optimise_space import Search

UNIT = 100
"""A trial's blocks of games are whole multiples of UNIT."""
FIRST_GAMES = 500
"""The fewest games a trial plays before it can be dropped."""
DROP_Z = 2.0
"""A trial is dropped when its paired difference from a reference is this many standard
errors below zero (one-sided, about 2.3% for a trial exactly as good)."""
STARTUP_SHARE = 0.1
"""The share of the sampler's trials drawn at random before its model takes over."""
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


@dataclass
class Race:
    """The search's state: every point tried (pool, labels), the per-game scores on the
    search seed of those played to the end, every trial's estimate, and the trajectory."""

    search: Search
    options: RunOptions = field(default_factory=RunOptions)
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
                         options=self.options, first_game=first,
                         progress=self.progress or False)
        self.played += games.height
        return np.column_stack([o.score(games, search.game.result) for o in search.objectives])

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
