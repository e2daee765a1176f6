"""Building blocks for scripted policies (numba-compiled, shared by policy modules).

Map knowledge comes from the ruleset a policy is handed (rules/access.py): where a
vehicle may be sent next on its way to a goal (§5.4.1), road distances, the towns.
"""

from numba import njit

from bollesim import codes as C
from bollesim import decisions as D
from bollesim import observation as O
from bollesim.bits import lowest
from bollesim.rules import access as A


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
def in_saraci(rules, position):
    """Saraci's contact point or one of its overwatches (I-TACV); -1 is nowhere."""
    return position >= 0 and A.in_saraci(rules, position)


@njit(cache=True, inline="always")
def route(obs, rules, goal, v, tow):
    """Where a Move order should send vehicle v now (-1: no wish): the next destination
    on its way to goal[v] (§5.4.1, the ruleset's waypoints); with `tow`, a tank with
    heavy damage heads back to Saraci; a rescuer under a Tow order keeps its course."""
    if O.vehicle(obs, v, O.V_ORDER) == C.TOW:  # on its way to a tow: leave it be
        return O.vehicle(obs, v, O.V_DEST)
    pos = O.vehicle(obs, v, O.V_POS)
    g = goal[v]
    if tow and O.vehicle(obs, v, O.V_HEAVY) != 0 and not in_saraci(rules, g):
        g = pos if in_saraci(rules, pos) else A.saraci(rules)
    if g < 0 or g == pos:
        return g
    return A.waypoint(rules, pos, g)


@njit(cache=True, inline="always")
def routes(obs, rules, goal, tow):
    """route() of every vehicle, packed 5 bits a vehicle (route + 1), so that a policy
    allocates nothing per decision; wish() reads one back."""
    packed = 0
    for v in range(C.N_VEHICLES):
        packed |= (route(obs, rules, goal, v, tow) + 1) << (5 * v)
    return packed


@njit(cache=True, inline="always")
def wish(packed, v):
    return ((packed >> (5 * v)) & 31) - 1


@njit(cache=True, inline="always")
def move_score(code, obs, rules, wishes):
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
            target = A.spread(rules, dest - D.SPREAD, rank)
        rank += 1
        wanted = wish(wishes, v)
        if wanted < 0:
            continue
        if target != wanted:
            score -= 10
        elif O.vehicle(obs, v, O.V_POS) != target and O.vehicle(obs, v, O.V_DEST) != target:
            score += 10
    return score
