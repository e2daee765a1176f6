"""Pig race's exact values for the analysis of luck and errors (bollesim/strong/analysis.py
Exact): the dynamic programme's (optimum.py) at every decision and after every face of
every die, under the best player or a banker; and the best player itself, a compiled
policy that reads the programme's choices from its parameter vector."""

from __future__ import annotations

import numpy as np
from numba import njit

from bollesim.game.policy import DecidePolicy
from toygame import optimum


class PigExact:
    """The exact values under the player whose value at a decision `v(turn, banked,
    busts, points)` is (optimum.optimal_value, optimum.banker_value)."""

    def __init__(self, rules, v):
        self.rules, self.v = rules, v

    def start(self) -> float:
        return optimum.roll_value(self.rules, self.v, 1, 0, 0, 0)

    def options(self, kind, obs, options) -> np.ndarray:
        at = tuple(int(x) for x in obs)
        return np.array([optimum.roll_value(self.rules, self.v, *at),
                         optimum.bank_value(self.rules, self.v, *at)])

    def outcomes(self, kind, context, n) -> np.ndarray:
        """After each face: a bust starts the next turn (or loses), else the points grow
        and reach the target or ask the player."""
        r = self.rules
        turn, total, busts, points = (int(x) for x in context)
        out = np.zeros(n)
        for face in range(1, n + 1):
            if face <= r.bust_faces:
                lost = busts + 1 >= r.busts_to_lose
                out[face - 1] = 0.0 if lost else optimum.roll_value(r, self.v, turn + 1, total,
                                                                    busts + 1, 0)
            elif total + points + face >= r.target:
                out[face - 1] = 1.0
            else:
                out[face - 1] = self.v(turn, total, busts, points + face)
        return out


@njit
def best_decide(kind, obs, rules, options, n_options, params, prng):
    """The programme's choice at (turn, banked, busts, points), from its table."""
    target, busts_to_lose = rules[0], rules[2]
    at = ((obs[0] * target + obs[1]) * busts_to_lose + obs[2]) * target + obs[3]
    return np.int64(params[at])


def best_player(rules) -> tuple[DecidePolicy, np.ndarray]:
    """(the best player, its table: 1 where banking is worth more than rolling on)."""
    v = optimum.optimal_value(rules)
    t, b = rules.target, rules.busts_to_lose
    table = np.zeros((rules.turns + 1) * t * b * t)
    for turn in range(1, rules.turns + 1):
        for total in range(t):
            for busts in range(b):
                for points in range(1, t - total):
                    at = (((turn * t + total) * b + busts) * t + points)
                    table[at] = (optimum.bank_value(rules, v, turn, total, busts, points)
                                 > optimum.roll_value(rules, v, turn, total, busts, points))
    policy = DecidePolicy("best", "the dynamic programme's choices", (), best_decide,
                          game="pig")
    return policy, table
