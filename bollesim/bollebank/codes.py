"""Integer codes shared by the ruleset loader, both engines, policies and the narrator.

Both engines and every policy speak in these small integers, so a policy compiled by
numba and the readable reference engine see the same numbers.
"""

# Enemy weapon types: the tracks, in the order of §2.1.2, then the other chit kinds.
TANK, ATGM, HMG, ART, CAR, RU = 0, 1, 2, 3, 4, 5
WEAPON_NAMES = ("tank", "atgm", "hmg", "art", "car", "ru")
WEAPON_WORDS = ("Tank", "ATGM", "HMG", "Artillery")  # by TANK..ART, as §11 names chits
N_TRACKS = 4
DIRECT_TRACKS = (TANK, ATGM, HMG)

# Line-of-sight letters (§2.2.2).
NO_LETTER, LETTER_L, LETTER_C, LETTER_R = 0, 1, 2, 3
LETTER_NAMES = ("", "L", "C", "R")

# Artillery targets (§7.2). NO_ART is the "No art." marker and the flipped setup marker.
NO_ART, TARGET_S, TARGET_K, TARGET_T2 = 0, 1, 2, 3
ART_TARGET_NAMES = ("none", "S", "K", "T2")

# Position kinds (§2.1.1) and towns.
CP, CKP, OW = 0, 1, 2
KIND_NAMES = ("cp", "ckp", "ow")
NO_TOWN, TOWN_S, TOWN_K = 0, 1, 2
TOWN_NAMES = ("", "S", "K")

# Enemy-action marker pools (§6.2).
NO_POOL, POOL_123, POOL_789 = 0, 1, 2
POOL_NAMES = ("", "123", "789")

# Heavy damage locations (§7.1.3) and light damage kinds (§7.2.1), as bit positions.
TRACKS, HULL, TURRET = 0, 1, 2
HEAVY_NAMES = ("tracks", "hull", "turret")
RADIO, NIGHT_VISION, SIGHTS = 0, 1, 2
LIGHT_NAMES = ("radio", "night_vision", "sights")

# Battalion HQ special abilities (§5.5).
DRAW_THEIR_FIRE, EXTRA_ORDER, DIRECT_THEIR_FIRE, EXTRA_TURN, EXTRA_MOVE, EXTRA_FIRE = range(6)
ABILITY_NAMES = (
    "draw_their_fire",
    "extra_order",
    "direct_their_fire",
    "extra_turn",
    "extra_move",
    "extra_fire",
)
# Where an ability marker is: on the RoE track, available in its box, or spent.
ON_TRACK, AVAILABLE, SPENT = 0, 1, 2

# Orders (§5.4). An option offered to a policy is packed into one integer, see options.py.
NO_ORDER, MOVE, FIRE, TOW, AIRSTRIKE = 0, 1, 2, 3, 4
ORDER_NAMES = ("none", "move", "fire", "tow", "airstrike")

# Values of the ruleset's interpretation switches (docs/readings.md gives each reading).
TARGET_DAMAGED_FIRST, TARGET_LITERAL = 0, 1  # I-TARGET
TARGET_RULE_NAMES = ("damaged_first", "literal")
AIR_FLOOR, AIR_CEIL = 0, 1  # I-AIR: a track keeps floor or ceil of half its chits
AIR_LEAVES_NAMES = ("floor", "ceil")
ART_APC_DESTROYS, ART_APC_LOCATION = 0, 1  # I-ART-APC
ART_APC_NAMES = ("destroys", "location")
FIRE_ROE_FIRST, FIRE_ROE_EVERY = 0, 1  # I-FIRST-FIRE: which Fire orders need the RoE
FIRE_ROE_NAMES = ("first", "every")
T2_AT_TURN_END, T2_AT_ANY_MOMENT = 0, 1  # I-OPV: when tanks at Tango 2 count
T2_REACHED_NAMES = ("turn_end", "any_moment")
TOW_ANY_CP, TOW_NEAREST_CP = 0, 1  # I-TOW-CP: where a tow hooked up at a contact point goes
TOW_CP_NAMES = ("any_cp", "nearest")

# The rulebook fixes the cast and the map (§2.1.1, §2.2.1); the ruleset gives their
# attributes. Indices below are the same in the ruleset, both engines and every policy.
VEHICLES = ("VL2", "QL3", "QL1", "AQ", "EA", "FA", "BQ", "FB", "GB")
VL2, QL3, QL1, AQ, EA, FA, BQ, FB, GB = range(9)
N_VEHICLES = 9
POSITIONS = (
    "SAR",
    "KAL",
    "OPN",
    "T2",
    "S1",
    "S2",
    "S3",
    "K1",
    "K2",
    "K3",
    "SK1",
    "SK2",
    "SK3",
    "SK4",
    "T21",
    "T22",
    "T23",
    "OPN1",
)
SAR, KAL, OPN, T2, S1, S2, S3, K1, K2, K3, SK1, SK2, SK3, SK4, T21, T22, T23, OPN1 = range(18)
N_POSITIONS = 18
