"""Event codes of a game trace: (turn, kind, a, b, c, d), four integer arguments.

Both engines record the same events in the same order, so traces can be compared
element by element; narrate.py turns them into text. The comment gives the arguments.
"""

TURN_START = 0  # turn, deadline, roe, fire status (the RoE of the first Fire order, 0: Hold Fire)
VL2_DESTINATION = 1  # position
DRAW = 2  # chit
LIGHT_DAMAGE = 3  # vehicle, light kind (-1: nothing left to damage), die
CIVILIAN_CAR = 4  # car chit, the other chit
PAIR = 5  # first chit, second chit, fire allowed, move allowed (+2 if platoon scope)
ORDER = 6  # packed order, decision kind (ISSUE_ORDER or EXTRA_ORDER)
RADIO = 7  # vehicle, die (0: no roll needed), highest success roll, received (0/1)
FIRE_STATUS = 8  # roe: the first Fire order was given (§5.2)
PLACE = 9  # chit, track, chits on the track now
ROE = 10  # new level, change, cause (see ROE_CAUSES)
ABILITY = 11  # ability marker, what happened (ABILITY_*), side
POOL_EXHAUSTED = 12  # weapon chits left in the pool
COMMANDER_CHECK = 13  # vehicle, die, acts (0/1)
AIRSTRIKE = 14  # chits removed from tank, ATGM, HMG, artillery tracks
MOVE = 15  # vehicle, from, to
NOT_MOVED = 16  # vehicle, reason (see NOT_MOVED_REASONS), die or -1
MARKER_DRAWN = 17  # position, marker, side
ARRIVED = 18  # vehicle, position
TOW_HOOKED = 19  # rescuer, towed tank, destination
TOW_DONE = 20  # rescuer, towed tank, position
FIRE = 21  # vehicle, track, die (0: no roll), hit (0/1)
REMOVED = 22  # chit, track (the chit returns to the pool)
SETUP_FLIPPED = 23  # the Saraci setup marker turned to "No Artillery"
DEPOT = 24  # track emptied by the ammunition depot explosion
TANK_STATUS = 25  # die, hot (0/1), tank chits on the track
ATTACK = 26  # weapon, target vehicle, modified 2d6, to-hit
HEAVY_DAMAGE = 27  # vehicle, location, die
DESTROYED = 28  # vehicle
COMMANDER_ROLL = 29  # vehicle, die, killed (0/1)
ARTILLERY = 30  # target code, 2d6 (0: no roll), vehicles at the target
ARTILLERY_DRAW = 31  # vehicle of the drawn random-unit chit, to pool (1) or heavy (0)
DEADLINE = 32  # new deadline turn, change
VICTORY = 33  # operational now, tactical now, stop (0/1)
HULL_FLIP = 34  # vehicle, green (0/1)
GAME_END = 35  # end reason (see END_REASONS)
STUN_CLEARED = 36  # vehicle
ATTACK_SKIPPED = 37  # weapon (no target in its fields of fire)
TOW_DROPPED = 38  # rescuer, towed tank: a new order superseded the tow (§5.4)
MODIFIER = 39  # cause (see MODIFIER_CAUSES), modifier, detail: added to the next ATTACK's roll

EVENT_NAMES = (  # by code: how a game's JSON document names its events
    "turn_start", "vl2_destination", "draw", "light_damage", "civilian_car", "pair", "order",
    "radio", "fire_status", "place", "roe", "ability", "pool_exhausted", "commander_check",
    "airstrike", "move", "not_moved", "marker_drawn", "arrived", "tow_hooked", "tow_done",
    "fire", "removed", "setup_flipped", "depot", "tank_status", "attack", "heavy_damage",
    "destroyed", "commander_roll", "artillery", "artillery_draw", "deadline", "victory",
    "hull_flip", "game_end", "stun_cleared", "attack_skipped", "tow_dropped", "modifier",
)

ROE_CAUSES = (
    "hold-fire attack",
    "heavy damage",
    "commander killed",
    "artillery on S/K",
    "artillery silent",
)
ROE_HOLD_ATTACK, ROE_HEAVY, ROE_KIA, ROE_ART, ROE_NO_ART = range(5)

# Modifiers to an attack roll. Detail: the overwatch's letter (codes.LETTER_*), else 0.
MODIFIER_CAUSES = ("ATGM overwatch", "Draw their fire")
MOD_OVERWATCH, MOD_DRAW_THEIR_FIRE = range(2)

ABILITY_AVAILABLE, ABILITY_RETURNED, ABILITY_USED, ABILITY_REFRESHED = range(4)

NOT_MOVED_REASONS = (
    "stunned",
    "commander killed: skips the turn",
    "tracks destroyed",
    "hull marker red",
    "night-vision roll failed",
    "stacking limit",
)
STUNNED, SKIPPING, IMMOBILE, HULL_RED, NIGHT_VISION_FAILED, STACKING = range(6)

END_REASONS = ("victory", "turn limit", "vehicle destroyed", "VL2 commander killed", "turn 40")
END_VICTORY, END_TURN_LIMIT, END_DESTROYED, END_VL2_KILLED, END_TURN_40 = range(5)
