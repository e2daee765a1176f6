"""The plan of 29 April 1994: platoon 1 and QL1 to Kalesija then Tango 2, platoon 2 to
the Saraci overwatches, VL2 to OP N, fire as soon as the RoE allows."""

import numpy as np
from numba import njit

from bollesim import codes as C
from bollesim import decisions as D
from bollesim import observation as O
from bollesim.policy import Parameter
from policies._tactics import best, order_scores, prefer

PARAMETERS = (
    Parameter("stop_at_tanks", 3, 0, 4, "stop drawing pairs once this many tank chits are on their track"),
)


@njit(cache=True)
def goals(obs):
    """Where each vehicle should be heading now (-1: no wish)."""
    goal = np.full(C.N_VEHICLES, -1, dtype=np.int64)
    goal[C.VL2] = C.OPN
    for v in (C.QL1, C.AQ, C.EA, C.FA):
        pos = O.vehicle(obs, v, O.V_POS)
        goal[v] = C.T2 if pos == C.KAL or pos == C.T21 or pos == C.T22 or pos == C.T23 else C.KAL
    goal[C.BQ], goal[C.FB], goal[C.GB] = C.S1, C.S2, C.S3
    return goal


def decide(kind, obs, options, n_options, params, prng):
    if kind == D.DRAW_AGAIN:
        return 1 if obs[O.TRACK_LEN + C.TANK] < params[0] else 0
    if kind in (D.ISSUE_ORDER, D.EXTRA_ORDER, D.VL2_DESTINATION):
        return best(order_scores(options, n_options, goals(obs), obs, 100, 1), n_options)
    if kind == D.ABILITY_SIDE:  # Extra order at OP N for VL2; side 0 for the others
        return 1 if obs[O.CONTEXT_A] == 0 else 0
    if kind == D.FIRE_TARGET:
        return prefer(options, n_options, (C.ATGM, C.TANK, C.HMG, C.ART))
    if kind == D.DEPOT_TRACK:
        return prefer(options, n_options, (C.ATGM, C.ART, C.TANK, C.HMG))
    if kind in (D.REFRESH_ABILITY, D.USE_ABILITY, D.EXTRA_MOVE, D.EXTRA_FIRE, D.STOP_ON_VICTORY):
        return 1 if n_options > 1 else 0
    return 0
