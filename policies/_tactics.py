"""Building blocks for scripted policies (numba-compiled, shared by policy modules).

Map knowledge lives here: where a vehicle may be sent next on its way to a goal (§5.4.1)
and road distances (from the default ruleset's map, R-MAP).
"""

import numpy as np
from numba import njit

from bollesim import codes as C
from bollesim import decisions as D
from bollesim import observation as O
from bollesim.bits import lowest
from bollesim.rules.loader import load_ruleset

# Road steps between positions (int64[P, P], codes.SAR...), frozen into compiled code.
DISTANCE = np.ascontiguousarray(load_ruleset().distance, dtype=np.int64)


@njit(cache=True, inline="always")
def find(options, n_options, value):
    """Index of value among the options, -1 if absent."""
    for i in range(n_options):
        if options[i] == value:
            return i
    return -1


@njit(cache=True)
def prefer(options, n_options, order):
    """Index of the first option that appears in `order` (a preference list), else 0."""
    for want in order:
        i = find(options, n_options, want)
        if i >= 0:
            return i
    return 0


@njit(cache=True, inline="always")
def on_t2_road(position):
    """Tango 2 or the Kalesija-Tango 2 road (§5.4.1 second restriction)."""
    return position == C.T21 or position == C.T22 or position == C.T23 or position == C.T2


@njit(cache=True, inline="always")
def in_saraci(position):
    """Saraci's contact point or one of its overwatches (I-TACV)."""
    return position == C.SAR or position == C.S1 or position == C.S2 or position == C.S3


@njit(cache=True, inline="always")
def in_kalesija(position):
    return position == C.KAL or position == C.K1 or position == C.K2 or position == C.K3


@njit(cache=True, inline="always")
def waypoint(position, goal):
    """The destination a Move order may name now on the way from position to goal
    (§5.4.1): Tango 2 only from Kalesija or its road, off that road only via Kalesija,
    an overwatch only from its own town. -1: no wish."""
    if goal < 0 or goal == position:
        return goal
    if goal == C.T2:
        return C.T2 if position == C.KAL or on_t2_road(position) else C.KAL
    if on_t2_road(position) and goal != C.KAL:
        return C.KAL
    if goal == C.S1 or goal == C.S2 or goal == C.S3:
        return goal if in_saraci(position) else C.SAR
    if goal == C.K1 or goal == C.K2 or goal == C.K3:
        return goal if in_kalesija(position) else C.KAL
    return goal


@njit(cache=True, inline="always")
def route(obs, goal, v, tow):
    """Where a Move order should send vehicle v now (-1: no wish): its next legal waypoint
    toward goal[v]; with `tow`, a tank with heavy damage heads back to Saraci; a rescuer
    under a Tow order keeps its course."""
    if O.vehicle(obs, v, O.V_ORDER) == C.TOW:  # on its way to a tow: leave it be
        return O.vehicle(obs, v, O.V_DEST)
    pos = O.vehicle(obs, v, O.V_POS)
    g = goal[v]
    if tow and O.vehicle(obs, v, O.V_HEAVY) != 0 and not in_saraci(g):
        g = pos if in_saraci(pos) else C.SAR
    return waypoint(pos, g)


@njit(cache=True, inline="always")
def routes(obs, goal, tow):
    """route() of every vehicle, packed 5 bits a vehicle (route + 1), so that a policy
    allocates nothing per decision; wish() reads one back."""
    packed = 0
    for v in range(C.N_VEHICLES):
        packed |= (route(obs, goal, v, tow) + 1) << (5 * v)
    return packed


@njit(cache=True, inline="always")
def wish(packed, v):
    return ((packed >> (5 * v)) & 31) - 1


@njit(cache=True, inline="always")
def move_score(code, obs, wishes):
    """+10 for each vehicle of the order sent to its wished position (routes(), -1: no
    wish) that is neither there nor already heading there; -10 for each vehicle with a
    wish that the order would send elsewhere."""
    mask, dest = D.order_mask(code), D.order_dest(code)
    score = 0
    rank = 0
    while mask:
        v = lowest(mask)
        mask &= mask - 1
        target = dest
        if dest >= D.SPREAD:  # I-OW-SPREAD: the k-th vehicle gets the town's k-th OW
            base = C.S1 if dest - D.SPREAD == C.TOWN_S else C.K1
            target = base + rank
        rank += 1
        wanted = wish(wishes, v)
        if wanted < 0:
            continue
        if target != wanted:
            score -= 10
        elif O.vehicle(obs, v, O.V_POS) != target and O.vehicle(obs, v, O.V_DEST) != target:
            score += 10
    return score
