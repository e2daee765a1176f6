"""Building blocks for scripted policies (numba-compiled, shared by policy modules)."""

import numpy as np
from numba import njit

from bollesim import codes as C
from bollesim import decisions as D
from bollesim import observation as O


@njit(cache=True)
def count_bits(mask):
    n = 0
    while mask:
        n += mask & 1
        mask >>= 1
    return n


@njit(cache=True)
def best(scores, n_options):
    """Index of the highest score (the first on ties)."""
    i_best = 0
    for i in range(1, n_options):
        if scores[i] > scores[i_best]:
            i_best = i
    return i_best


@njit(cache=True)
def find(options, n_options, value):
    """Index of value among the options, -1 if absent."""
    for i in range(n_options):
        if options[i] == value:
            return i
    return -1


@njit(cache=True)
def move_score(code, goal, obs):
    """+10 for each vehicle of the order that is sent to its goal position and is neither
    there nor already heading there (goal[v] < 0: no wish for v)."""
    mask, dest = D.order_mask(code), D.order_dest(code)
    score = 0
    rank = 0
    for v in range(C.N_VEHICLES):
        if not (mask >> v) & 1:
            continue
        target = dest
        if dest >= D.SPREAD:  # I-OW-SPREAD: the k-th vehicle gets the town's k-th OW
            base = C.S1 if dest - D.SPREAD == C.TOWN_S else C.K1
            target = base + rank
        rank += 1
        if goal[v] >= 0 and target == goal[v]:
            if O.vehicle(obs, v, O.V_POS) != target and O.vehicle(obs, v, O.V_DEST) != target:
                score += 10
    return score


@njit(cache=True)
def order_scores(options, n_options, goal, obs, fire_weight, airstrike_weight):
    """Score each packed order: moves toward goals, Fire orders by tanks flipped."""
    scores = np.zeros(n_options, dtype=np.int64)
    for i in range(n_options):
        code = options[i]
        if code == D.PASS:
            continue
        kind = D.order_kind(code)
        if kind == C.MOVE:
            scores[i] = move_score(code, goal, obs)
        elif kind == C.FIRE:
            scores[i] = fire_weight * count_bits(D.order_mask(code))
        elif kind == C.AIRSTRIKE:
            scores[i] = airstrike_weight
    return scores


@njit(cache=True)
def prefer(options, n_options, order):
    """Index of the first option that appears in `order` (a preference list), else 0."""
    for want in order:
        i = find(options, n_options, want)
        if i >= 0:
            return i
    return 0
