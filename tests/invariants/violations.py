"""The invariants' codes: 0 is a legal position, each other code names the broken
invariant (MESSAGES says it in words), and first_violation reads check_games' errors."""

from __future__ import annotations

import numpy as np

OK = 0
OUT_OF_RANGE = 1  # layout.py capacities, R-MAP positions, vehicle indices
CHIT_MISPLACED = 2  # §3 step 1, §5.3, §6.3, §7.2: every chit in exactly one place
CHIT_WRONG_PLACE = 3  # §2.1.2 a track holds its own type; §7.2 RU chits aside; §5.3 the car
SETUP_MARKER = 4  # §3 step 6, §6.3: the setup marker first on the artillery track, flips once
TRACK_CHANGE = 5  # §5.3 d chits join in Orders; §6.1, §6.3, I-AIR they leave in Execution
MARKER_MISPLACED = 6  # §6.2, R-EAM: each enemy-action marker in its pool or on one position
MARKER_CHANGE = 7  # §6.2: drawn on first entry in the Execution phase, never moved again
ROE_ILLEGAL = 8  # I-ROE0 the RoE on its track; §7 it moves only in the Enemy reaction
ABILITY_VS_ROE = 9  # §5.5, I-SPENT: ability markers where the RoE puts them
ABILITY_MOVE = 10  # §5.3, §5.5: spent from its box; back from Spent only by a refresh
FIRE_STATUS = 11  # §5.2, §5.4.2: fire status placed once, in Orders, at a RoE allowing fire
FIRE_SIDE = 12  # §5.4.2: only tanks flip to Fire, by a Fire order, after the fire status
OVERSTACKED = 13  # §2.1.1, §6.2 stacking limits after the moves (§5.4.3 tows excepted)
MOVED_OUT_OF_PHASE = 14  # §4, §6: vehicles move only in the Execution phase
MOVED_TOO_FAR = 15  # §6.2 one road step; optional APC rule; §5.5 Extra move
MOVED_UNABLE = 16  # §6 stunned, §7.1.3 immobilised, §6.2 hull marker red: no move
TOW_BROKEN = 17  # §5.4.3: rescuer and towed tank linked both ways, together
ORDERS_INCONSISTENT = 18  # §5, §5.4.1, §6.2: standing orders that the rules allow
DAMAGE_HEALED = 19  # §7: no rule repairs damage or revives a commander
DAMAGE_OUT_OF_PHASE = 20  # §7.2.1 light damage in Orders; §7.1.3, §7.2 heavy, KIA in reaction
DAMAGE_INVALID = 21  # §7.1.3: a hit APC or VL2's killed commander ends the game instead
DAMAGE_COUNTS = 22  # the light/heavy hit counters agree with the damage marked
STUN_OR_SKIP = 23  # §7.1.3 stun with each hull/turret hit, §6 d gone after Execution
TURN_ORDER = 24  # §4: one turn at a time, advanced in the End phase, up to the limit
GAME_END = 25  # §4, §7.1.2, §7.1.3, §8: the game ends only for the rules' reasons
DEADLINE = 26  # §3 step 9, §5.5 Extra turn (End phase), §7.2 artillery on T2 (reaction)
AIRSTRIKE = 27  # §5.4.4, §6.1, I-AIR: when an airstrike may be called and strikes
ROW_STATE = 28  # docs/architecture.md §5: the result row copies the final state
ROW_DEFEAT = 29  # §8: defeat for the defeat reasons, and then no victory
ROW_VICTORY = 30  # §8, I-OPV, I-DIPLO: victories only on their conditions
OBSERVATION_STALE = 31  # observation.py: the derived slots a policy sees agree with the state
HULL_MARKER = 32  # §7.1.3 green on a hull hit; §4 step 4b, §6.2 flips in each End phase
FIRED_UNABLE = 33  # §6 stun, §5.4.3 tow, §6.3, §7.1.3, §7.2.1: one attack per able tank
OPERATIONAL_VICTORY = 34  # §8, I-OPV: two tanks at T2 by the deadline, Vis silent
TACTICAL_VICTORY = 35  # §8, I-TACV: tracks empty, Vis silent, heavy damage in Saraci, turn 20
TARGET_PRIORITY = 36  # §7.1, I-TARGET: each direct-fire attack at a vehicle of first priority
TOW_ORDER = 37  # §5.4.3, I-TOW-SARACI: a Tow order for a stranded tank outside Saraci
VICTORY_OFFER = 38  # §8, I-END: a victory met is offered, and declared only when met
UNCHECKED = 39  # the phase's events overflowed the checker's trace
MESSAGES = (
    "no violation",
    "a count of chits or markers, a position or a vehicle reference is out of its range",
    "a chit is lost, or in two places",
    "a track holds a chit of another type, or a chit aside or retired is of the wrong kind",
    "the setup artillery marker is not first on its track, or was flipped back or out of phase",
    "a track changed out of phase, other than at its end, or kept over half in an airstrike",
    "an enemy-action marker is in no place, in two, or on a position of another pool",
    "an enemy-action marker moved, appeared out of phase, or is missing where a vehicle stands",
    "the RoE is off its track, or moved outside the Enemy reaction phase",
    "an ability marker is available below its RoE level, or on the track at or above it",
    "an ability marker went from the track to Spent, or left Spent other than by a refresh",
    "the fire status marker was placed out of phase, below fire-allowed RoE, or moved",
    "a vehicle is on its Fire side under Hold Fire, is an APC, or flipped back",
    "a position is over its stacking limit after the moves",
    "a vehicle moved outside the Execution phase",
    "a vehicle moved more road steps than the rules allow in one Execution phase",
    "a stunned, immobilised or red-hull vehicle moved",
    "a tow link is one-sided, splits its tanks, or joins the wrong vehicles",
    "an immobilised tank or VL2 under orders, a Move without destination, or one not cleared",
    "a damage marker or a killed commander disappeared",
    "damage appeared in a phase that cannot cause it",
    "an APC carries heavy damage, VL2's commander is marked killed, or a mask is malformed",
    "the light or heavy hit counter disagrees with the damage marked",
    "a stun marker missing after a hull or turret hit, or there without one, or left set",
    "the turn moved other than by one in the End phase, or is outside 1..turn limit",
    "the game ended in a phase or for a reason the rules do not allow",
    "the T2 deadline is off the turn track or moved in a phase that cannot move it",
    "an airstrike was called illegally, too often, or is pending after its Execution phase",
    "the result row disagrees with the final state",
    "the result row's defeat disagrees with the end reason, or a defeat comes with a victory",
    "the result row claims a victory whose conditions do not hold",
    "the observation's pool counts, track letters, artillery or fire status are stale",
    "a hull marker is not green after a hull hit, did not flip in the End phase, or turned",
    "more chits left the tracks than the airstrike, Extra fire and the tanks able to fire remove",
    "T2 reached, most tanks at T2 or the operational victory flag disagree with §8, I-OPV",
    "the tactical victory flag disagrees with §8's conditions (I-TACV)",
    "a direct-fire attack went to a vehicle other than a first-priority target, or was skipped",
    "a Tow order sends a vehicle other than a tank, or to a tank not stranded outside Saraci",
    "a victory was met and not offered, offered with other victories, or declared when not met",
    "the phase had more events than the checker's trace holds",
)


TRACE_EVENTS = 256  # a phase's events kept by a checked game (an Enemy reaction has < 60)
NO_EXCLUSION = -1


# errors[g, 2] of a violation found in the result row rather than after a phase.
RESULT_ROW = 4


PHASE_NAMES = ("Orders", "Execution", "Enemy reaction", "End", "result row")


def first_violation(errors: np.ndarray) -> str | None:
    """The first failing game of check_games' errors, in words, or None."""
    failed = np.flatnonzero(errors[:, 0])
    if failed.size == 0:
        return None
    g = int(failed[0])
    code, turn, phase = (int(x) for x in errors[g])
    return f"game {g}, turn {turn}, {PHASE_NAMES[phase]}: {MESSAGES[code]} (code {code})"
