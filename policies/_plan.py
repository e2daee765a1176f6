"""The scripted player shared by the policy families: a family gives where each vehicle is
going and when it is willing to give Fire orders; `play` takes every decision from that,
from the shared knobs below and from the ruleset it is handed (the map, the places of the
abilities), so it plays whatever ruleset the engines play.

A family module declares `PARAMETERS = (its own parameters...) + knobs(...)` and passes
the knob part of `params` (`params[len(own):]`) to `play`.
"""

from dataclasses import replace

import numpy as np
from numba import njit

from bollesim import codes as C
from bollesim import decisions as D
from bollesim import observation as O
from bollesim.bits import popcount
from bollesim.policy import Parameter
from bollesim.rules import access as A
from bollesim.rules import packed as P
from policies._tactics import find, move_score, prefer, routes

_KNOBS = (
    Parameter("stop_at_tanks", 3, 0, 4,
              "stop drawing pairs once this many tank chits are on their track",
              label="tank chits at which drawing stops"),
    Parameter("max_pairs", 20, 1, 20,
              "stop drawing after this many pairs in one Orders phase (20: no limit)",
              label="most pairs drawn in one Orders phase"),
    Parameter("target", 0, 0, 3,
              "fire first at the last chit of 0 ATGM, 1 tank, 2 HMG, 3 artillery",
              label="first fire target"),
    Parameter("play_on", 0, 0, 1,
              "1: after a victory, play on for the other type while it can still come",
              label="play on after a victory"),
    Parameter("tow", 0, 0, 1,
              "1: tow tracks-damaged tanks out of fire, send damaged tanks back to Saraci",
              label="tow damaged tanks"),
)
STOP_AT_TANKS, MAX_PAIRS, TARGET, PLAY_ON, TOW = range(len(_KNOBS))

# Fire target preferences, one row per value of the `target` knob (codes.TANK...).
TARGET_ORDERS = np.array([
    [C.ATGM, C.TANK, C.HMG, C.ART],
    [C.TANK, C.ATGM, C.HMG, C.ART],
    [C.HMG, C.ATGM, C.TANK, C.ART],
    [C.ART, C.ATGM, C.TANK, C.HMG],
], dtype=np.int64)
DEPOT_ORDER = (C.ATGM, C.ART, C.TANK, C.HMG)

# Order weights: a Move scores 10 per vehicle sent on its way (_tactics.move_score).
FIRE_FIRST = 100  # per tank: a Fire order beats any Move
FIRE_LAST = 3  # per tank: a Fire order only when no useful Move is on offer
AIRSTRIKE_FIRST = 1000  # call the airstrike as soon as it is offered
AIRSTRIKE_LAST = 1  # only when nothing else is worth issuing
TOW_WEIGHT = 50  # minus the rescuer's distance to the damaged tank


def knobs(**defaults: float) -> tuple[Parameter, ...]:
    """The shared knobs, with this family's defaults where given."""
    names = {p.name for p in _KNOBS}
    for name in defaults:
        if name not in names:
            raise ValueError(f"no shared knob {name!r} (knobs: {', '.join(sorted(names))})")
    return tuple(replace(p, default=defaults.get(p.name, p.default)) for p in _KNOBS)


@njit(cache=True, inline="always")
def historical_goals(rules):
    """The plan of 29 April 1994 (final goals by vehicle, codes.VEHICLES order; -1: no
    wish): platoon 1 and QL1 to Tango 2 by way of Kalesija, platoon 2 to the Saraci
    overwatches, VL2 to OP N. Goals are tuples: a policy allocates nothing per decision."""
    t2 = A.tango2(rules)
    ows = (A.spread(rules, C.TOWN_S, 0), A.spread(rules, C.TOWN_S, 1), A.spread(rules, C.TOWN_S, 2))
    return (A.op_n(rules), -1, t2, t2, t2, t2, ows[0], ows[1], ows[2])


@njit(cache=True)
def tow_score(code, obs, rules):
    """A Tow order worth giving: the damaged tank is not already someone's tow target and
    is out of a contact point (in fire) or at OP N (the tow then goes to Saraci). Nearer
    and undamaged rescuers first."""
    rescuer, damaged = 0, D.order_dest(code)
    mask = D.order_mask(code)
    while not (mask >> rescuer) & 1:
        rescuer += 1
    for v in range(C.N_VEHICLES):
        if O.vehicle(obs, v, O.V_TOW_TARGET) == damaged:
            return -1
    where = O.vehicle(obs, damaged, O.V_POS)
    if where == A.kalesija(rules) or where == A.tango2(rules):  # safe there: a tow leads away
        return -1
    score = TOW_WEIGHT - A.distance(rules, O.vehicle(obs, rescuer, O.V_POS), where)
    if O.vehicle(obs, rescuer, O.V_HEAVY) != 0:
        score -= 20
    return score


@njit(cache=True, inline="always")
def best_order(options, n_options, obs, rules, goal, fire_now, fire_weight, airstrike_weight,
               tow):
    """Index of the best-scored packed order, the first on ties (PASS scores 0; a
    negative score is never chosen)."""
    wishes = routes(obs, rules, goal, tow)
    i_best = 0
    s_best = 0
    for i in range(n_options):
        code = options[i]
        if code == D.PASS:
            score = 0
        else:
            kind = D.order_kind(code)
            score = 0
            if kind == C.MOVE:
                score = move_score(code, obs, rules, wishes)
            elif kind == C.FIRE:
                score = fire_weight * popcount(D.order_mask(code)) if fire_now else -1
            elif kind == C.AIRSTRIKE:
                score = airstrike_weight
            elif kind == C.TOW:
                score = tow_score(code, obs, rules) if tow else -1
        if i == 0 or score > s_best:
            i_best, s_best = i, score
    return i_best


@njit(cache=True)
def draw_again(obs, knobs):
    """§5.3: another pair while the tank track is short of stop_at_tanks and fewer than
    max_pairs pairs were drawn this turn."""
    short = obs[O.TRACK_LEN + C.TANK] < knobs[STOP_AT_TANKS]
    return 1 if short and obs[O.PAIRS_THIS_TURN] < knobs[MAX_PAIRS] else 0


@njit(cache=True)
def ability_side(rules, marker, goal):
    """§5.5: the side whose ability works where the marker's vehicle is going (VL2's
    Extra order at OP N, QL3's Extra turn at Kalesija...), else its first side."""
    vehicle = rules[P.ABILITY_VEHICLE + marker]
    for side in range(2):
        place = A.ability_place(rules, A.ability_sides(rules, marker, side))
        if place >= 0 and place == goal[vehicle]:
            return side
    return 0


@njit(cache=True)
def refresh(options, n_options, rules, goal):
    """§5.3 doubles: bring back the first spent marker, on the side the plan uses."""
    for a in range(3):
        i = find(options, n_options, 1 + 2 * a + ability_side(rules, a, goal))
        if i >= 0:
            return i
    return 1


@njit(cache=True)
def stop_on_victory(obs, knobs):
    """§8, I-END: stop, unless play_on and the missing victory type can still come
    (operational: Tango 2 reached or the deadline not yet passed)."""
    if knobs[PLAY_ON] < 1 or obs[O.TURN] >= obs[O.TURN_LIMIT]:
        return 1
    if not obs[O.OPERATIONAL] and (obs[O.T2_REACHED] or obs[O.TURN] < obs[O.DEADLINE]):
        return 0
    return 0 if not obs[O.TACTICAL] else 1


@njit(cache=True, inline="always")
def tow_to(options, n_options, rules):
    """§5.4.3: among the contact points on offer, Saraci first, then OP N, Kalesija,
    Tango 2: away from the fighting."""
    order = (A.saraci(rules), A.op_n(rules), A.kalesija(rules), A.tango2(rules))
    return prefer(options, n_options, order)


@njit(cache=True, inline="always")
def play(kind, obs, rules, options, n_options, knobs, goal, fire_now, fire_weight,
         airstrike_weight):
    """Every decision of a scripted player. goal: a tuple of final positions by vehicle
    (-1: no wish);
    fire_now: whether Fire orders may be given now; fire_weight, airstrike_weight: how
    they rank against moves (FIRE_FIRST/LAST, AIRSTRIKE_FIRST/LAST)."""
    if kind == D.DRAW_AGAIN:
        return draw_again(obs, knobs)
    if kind == D.ISSUE_ORDER or kind == D.EXTRA_ORDER or kind == D.VL2_DESTINATION:
        return best_order(options, n_options, obs, rules, goal, fire_now, fire_weight,
                          airstrike_weight, knobs[TOW] >= 1)
    if kind == D.ABILITY_SIDE:
        return ability_side(rules, obs[O.CONTEXT_A], goal)
    if kind == D.REFRESH_ABILITY:
        return refresh(options, n_options, rules, goal)
    if kind == D.FIRE_TARGET:
        return prefer(options, n_options, TARGET_ORDERS[int(knobs[TARGET])])
    if kind == D.DEPOT_TRACK:
        return prefer(options, n_options, DEPOT_ORDER)
    if kind == D.TOW_DESTINATION:
        return tow_to(options, n_options, rules)
    if kind == D.STOP_ON_VICTORY:
        return stop_on_victory(obs, knobs)
    if kind == D.USE_ABILITY or kind == D.EXTRA_MOVE or kind == D.EXTRA_FIRE:
        return 1  # use it (Extra move/fire: the first vehicle on offer)
    return 0  # STACK_PRIORITY, FIRE_ORDER: the first vehicle on offer; EXTRA_MOVE_BEFORE: not now
