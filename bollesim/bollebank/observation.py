"""What a policy sees: one int64 vector per game, the same from both engines.

Layout (index constants below; V = 9 vehicles, P = 18 positions, codes.py gives indices):

    [0 .. 31]             scalars: turn, RoE, fire status, tracks, pool, context...
    [VEH + 16*v + f]      vehicle v, field f (V_POS, V_DEST, ...)
    [ABIL + 2*a + f]      ability marker a (0 VL2, 1 QL3, 2 QL1): state, side
    [MARKER + p]          enemy-action marker at position p: -1 none, else 2*marker + side

The map, drawn once (R-MAP; exposed positions marked *, FP in brackets):

                                     K3*[4]  K2*[5]  K1*[6]
                                          \\   |   /
    S1 S2 S3 (OWs, fire indirectly) -- SAR -- SK1 -- SK2* -- SK3* -- SK4* -- KAL -- T21* -- T22* -- T23* -- T2
                                             |       [7-9 from the marker drawn on entry]   [1-3]
                                           OPN1
                                             |
                                            OPN
"""

import numpy as np

from bollesim.jit import compiled

# scalars
TURN = 0
TURN_LIMIT = 1
DEADLINE = 2
ROE = 3
FIRED = 4  # 1 once the first Fire order was given (fire status "Fire at Will")
FIRE_ROE = 5  # RoE when the first Fire order was given, 0 before (§5.2)
TANK_HOT = 6  # 1 if the enemy tank status is hot
AIRSTRIKES_USED = 7
AIRSTRIKE_PENDING = 8
PAIRS_THIS_TURN = 9  # valid pairs drawn so far this Orders phase
PAIR_FIRST = 10  # weapon type of the current pair's first chit, -1 outside a pair
PAIR_SECOND = 11
T2_REACHED = 12  # two tanks stood at T2 at the end of a turn within the deadline (I-OPV)
OPERATIONAL = 13  # victory flags met so far
TACTICAL = 14
ART_SILENT = 15  # last artillery chit is "No art." (or the flipped setup marker)
CONTEXT_A = 16  # decision context: see decisions.py
CONTEXT_B = 17
TRACK_LEN = 18  # + track (codes.TANK..ART): chits on the track (setup marker included)
TRACK_LETTER = 22  # + track: letter of the last chit, codes.LETTER_*
ART_TARGET = 26  # target of the last artillery chit (codes.TARGET_*, NO_ART if silent)
POOL_WEAPONS = 27  # weapon chits (and the car) left in the enemy weapon pool
POOL_TANKS = 28  # tank chits left in the pool
N_SCALARS = 32

# vehicle fields
VEH = N_SCALARS
V_FIELDS = 16
V_POS = 0
V_DEST = 1  # move/tow destination position, -1 none
V_ORDER = 2  # codes.NO_ORDER / MOVE / TOW
V_FIRE = 3  # 1 if flipped to its Fire side
V_LIGHT = 4  # bit mask over codes.RADIO, NIGHT_VISION, SIGHTS
V_HEAVY = 5  # bit mask over codes.TRACKS, HULL, TURRET
V_HULL_GREEN = 6  # 1 if its hull marker shows green (may move)
V_STUN = 7
V_KIA = 8  # 1 if the vehicle commander was killed
V_TOWING = 9  # the tank this one is towing (stacked with it), -1 none
V_TOWED_BY = 10  # the tank towing this one, -1 none
V_TOW_TARGET = 11  # under a Tow order: the tank to reach, -1 none
V_SKIP = 12  # 1 if it skips this Execution phase (commander killed, §7.1.3)

ABIL = VEH + 9 * V_FIELDS
MARKER = ABIL + 6
SIZE = MARKER + 18


@compiled
def vehicle(obs, v, field):
    """One field of vehicle v."""
    return obs[VEH + V_FIELDS * v + field]


def new_observation() -> np.ndarray:
    return np.zeros(SIZE, dtype=np.int64)
