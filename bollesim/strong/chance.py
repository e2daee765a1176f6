"""A game's declared draws as the analysis reads them (bollesim/game/chance.py): the draws
of a segment, and the values after each outcome of one of them by rollouts that share
their streams across the outcomes. One compiled kernel of jobs takes the game's chance
primitives as first-class functions, as strong/kernel.py's jobs take its positions'."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from numba import types

from bollesim.game.chance import (
    DRAW_KIND,
    DRAW_N,
    DRAW_OUTCOME,
    DRAW_WEIGHTS,
    DRAWS,
    FORCED,
    declares_draws,
    draw_width,
)
from bollesim.game.positions import DECIDE
from bollesim.jit import compiled

I64, F64 = types.int64, types.float64

CHANCE_JOBS_SIGNATURE = types.void(
    DRAWS, FORCED,
    I64[::1],  # work
    DECIDE,  # the policy that plays the rollouts out
    F64[::1],  # its kernel vector
    I64, I64,  # seed, game
    I64[::1], I64[::1],  # start, script: the segment's position (every choice taken)
    I64,  # draw: the draw forced (-1: record the segment's draws into `record`)
    I64[::1],  # outcomes: per job, the outcome forced
    I64[::1],  # rollouts: per job, its rollout number
    I64[:, ::1],  # out: per job, the result row
    I64[::1],  # record: the draws (chance.py's layout)
)


def play_chance(draws, forced, work, decide, params, seed, game, start, script, draw, outcomes,
                rollouts, out, record):
    """The segment's draws into record (draw < 0), or job j: draw `draw` forced to
    outcomes[j], then rollout rollouts[j]'s streams played out by decide."""
    n = script.shape[0]
    if draw < 0:
        draws(work, decide, params, seed, game, start, script, n, record)
        return
    for j in range(out.shape[0]):
        forced(work, decide, params, seed, game, start, script, n, draw, outcomes[j], rollouts[j],
               out[j])


@cache
def chance_kernel():
    """play_chance, compiled for every game (on first use; cached on disk)."""
    return compiled(play_chance, signature=CHANCE_JOBS_SIGNATURE, nogil=True)


@dataclass(frozen=True)
class Draw:
    """One draw of a segment: its kind, the outcome drawn, the weight of each outcome
    (its probability: weight / their sum) and the game's context of it."""

    number: int  # among the segment's draws, from 0
    kind: int
    outcome: int
    weights: np.ndarray
    context: np.ndarray


class Chance:
    """The declared draws of one game (its positions module) for one ruleset, played out
    by a policy (DecidePolicy) at its kernel vector."""

    def __init__(self, positions, rules, policy, vector: np.ndarray, weights: np.ndarray):
        if not declares_draws(positions):
            raise ValueError("the game declares no draws")
        self.positions, self.rules, self.policy = positions, rules, policy
        self.params = np.require(policy.kernel_params(vector), np.float64, ["C", "W"])
        self.draws_fn, self.forced_fn = positions.chance_primitives()
        self.weights = weights  # the objective over the result's first columns
        self.width = draw_width(positions)

    def _run(self, seed, game, at, script, draw, outcomes, rollouts, n_results, record):
        out = np.zeros((len(outcomes), n_results), dtype=np.int64)
        chance_kernel()(self.draws_fn, self.forced_fn,
                        self.positions.new_work(self.rules, self.policy), self.policy.decide,
                        self.params, seed, game, at, np.asarray(script, dtype=np.int64), draw,
                        np.asarray(outcomes, dtype=np.int64), np.asarray(rollouts, dtype=np.int64),
                        out, record)
        return out

    def draws(self, seed: int, game: int, snapshot: np.ndarray, script) -> list[Draw]:
        """The draws of the segment after `script` (every choice taken) from `snapshot`."""
        record = np.zeros(1 + self.positions.MAX_DRAWS * self.width, dtype=np.int64)
        none = np.zeros(0, dtype=np.int64)
        self._run(seed, game, snapshot, script, -1, none, none, 1, record)
        out = []
        for j in range(int(record[0])):
            d = record[1 + j * self.width : 1 + (j + 1) * self.width]
            n = int(d[DRAW_N])
            weights = d[DRAW_WEIGHTS : DRAW_WEIGHTS + n].copy()
            context = d[DRAW_WEIGHTS + self.positions.MAX_OUTCOMES :].copy()
            out.append(Draw(j, int(d[DRAW_KIND]), int(d[DRAW_OUTCOME]), weights, context))
        if record[0] >= self.positions.MAX_DRAWS:
            raise ValueError(f"game {game}: more draws in a segment than MAX_DRAWS")
        return out

    def outcome_values(self, seed: int, game: int, snapshot: np.ndarray, script, draw: Draw,
                       rollouts: int, n_results: int) -> np.ndarray:
        """(outcomes, rollouts): the objective after each outcome of the draw, rollout r
        on the same streams for every outcome (common random numbers). An outcome of
        weight 0 (a chit not in the cup) is not rolled out: its values are 0."""
        live = np.flatnonzero(draw.weights).astype(np.int64)
        n = len(live)
        outcomes = np.repeat(live, rollouts)
        numbers = np.tile(np.arange(rollouts, dtype=np.int64), n)
        rows = self._run(seed, game, snapshot, script, draw.number, outcomes, numbers,
                         n_results, np.zeros(0, dtype=np.int64))
        k = len(self.weights)
        values = np.zeros((len(draw.weights), rollouts))
        values[live] = (rows[:, :k] @ self.weights).reshape(n, rollouts)
        return values
