"""The invariants of tests/test_invariants.py on the fast engine (tests/invariants/).

Each check fails on a position built to break it, and passes on the legal position it
was built from; then the checked kernel plays many fast-engine games of several policies
and readings of the rules, and every phase of every game keeps every invariant.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from invariants import OK, check_games, check_phase, check_result
from invariants import violations as inv

from bollesim.bollebank import codes as C
from bollesim.bollebank import events as E
from bollesim.bollebank import observation
from bollesim.bollebank.engine import layout, tables
from bollesim.bollebank.engine.core import count_in_pool, log, new_game, track_changed
from bollesim.bollebank.engine.play import END, EXECUTION, ORDERS, REACTION, new_vector
from bollesim.bollebank.engine.trace import play_traced_game
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.game.policy import available_policies, load_policy

RULES = load_ruleset()
PACKED = RULES.packed
SEED = 29041994
AQ, EA, FA, GB, QL3, VL2 = C.AQ, C.EA, C.FA, C.GB, C.QL3, C.VL2
Edit = Callable[[np.ndarray], None]


# ------------------------------------------------------------------ edits of a position


def at(v: int, field: int) -> int:
    return observation.VEH + observation.V_FIELDS * v + field


def pool_chit(kind: int, k: int = 0) -> int:
    """The k-th chit of a weapon type in the ruleset's pool."""
    return [c for c in range(RULES.n_pool_chits) if RULES.chit_type[c] == kind][k]


def ability_of(ability: int) -> tuple[int, int]:
    """(marker, side) showing an ability (codes.EXTRA_MOVE ...)."""
    a, side = np.argwhere(RULES.ability_sides == ability)[0]
    return int(a), int(side)


def setting(index: int, value: int) -> Edit:
    def edit(x):
        x[index] = value

    return edit


def adding(index: int, delta: int) -> Edit:
    def edit(x):
        x[index] += delta

    return edit


def copying(source: int, target: int) -> Edit:
    def edit(x):
        x[target] = x[source]

    return edit


def vehicle(v: int, field: int, value: int) -> Edit:
    return setting(at(v, field), value)


def move(v: int, p: int) -> Edit:
    return vehicle(v, observation.V_POS, p)


def roe(level: int) -> Edit:
    """The RoE at `level`, each ability marker in its box at or above its level (§5.5)."""

    def edit(x):
        x[observation.ROE] = level
        for a in range(3):
            above = level >= RULES.ability_level[a]
            x[observation.ABIL + 2 * a] = C.AVAILABLE if above else C.ON_TRACK

    return edit


def ability(a: int, state: int, side: int = 0) -> Edit:
    def edit(x):
        x[observation.ABIL + 2 * a] = state
        x[observation.ABIL + 2 * a + 1] = side

    return edit


def place(chit: int, track: int | None = None) -> Edit:
    """The chit from the pool to the end of a track (its own unless told)."""

    def edit(x):
        n = x[layout.X_N_POOL]
        i = list(x[layout.POOL : layout.POOL + n]).index(chit)
        x[layout.POOL + i] = x[layout.POOL + n - 1]
        x[layout.X_N_POOL] = n - 1
        count_in_pool(x, chit, -1)
        t = RULES.chit_type[chit] if track is None else track
        x[layout.TRACKS + layout.TRACK_CAP * t + x[observation.TRACK_LEN + t]] = chit
        x[observation.TRACK_LEN + t] += 1

    return edit


def to_pool(chit: int) -> Edit:
    def edit(x):
        x[layout.POOL + x[layout.X_N_POOL]] = chit
        x[layout.X_N_POOL] += 1
        count_in_pool(x, chit, 1)

    return edit


def unplace(track: int) -> Edit:
    """A track's last chit back to the pool (§6.3)."""

    def edit(x):
        x[observation.TRACK_LEN + track] -= 1
        to_pool(x[layout.TRACKS + layout.TRACK_CAP * track + x[observation.TRACK_LEN + track]])(x)

    return edit


def draw_marker(p: int, side: int = 0, pool: int | None = None) -> Edit:
    """The last marker of p's pool (or of another) onto p (§6.2)."""

    def edit(x):
        k = (RULES.pos_eam_pool[p] if pool is None else pool) - 1
        x[layout.X_N_MPOOL + k] -= 1
        x[observation.MARKER + p] = 2 * x[layout.MPOOLS + 4 * k + x[layout.X_N_MPOOL + k]] + side

    return edit


def return_marker(p: int) -> Edit:
    """The marker on p back to its pool."""

    def edit(x):
        m = x[observation.MARKER + p] // 2
        k = RULES.marker_pool[m] - 1
        x[layout.MPOOLS + 4 * k + x[layout.X_N_MPOOL + k]] = m
        x[layout.X_N_MPOOL + k] += 1
        x[observation.MARKER + p] = -1

    return edit


def light(v: int, kind: int) -> Edit:
    def edit(x):
        x[at(v, observation.V_LIGHT)] |= 1 << kind
        x[layout.X_LIGHT_HITS] += 1

    return edit


def heavy(v: int, location: int) -> Edit:
    def edit(x):
        x[at(v, observation.V_HEAVY)] |= 1 << location
        x[layout.X_HEAVY_HITS] += 1

    return edit


def towing(rescuer: int, tank: int, dest: int) -> Edit:
    """§5.4.3: the rescuer has its tank in tow, heading for dest."""

    def edit(x):
        x[at(rescuer, observation.V_ORDER)] = C.TOW
        x[at(rescuer, observation.V_TOWING)] = tank
        x[at(rescuer, observation.V_DEST)] = dest
        x[at(tank, observation.V_TOWED_BY)] = rescuer

    return edit


def untow(rescuer: int, tank: int) -> Edit:
    def edit(x):
        x[at(rescuer, observation.V_ORDER)] = C.NO_ORDER
        x[at(rescuer, observation.V_TOWING)] = -1
        x[at(rescuer, observation.V_DEST)] = -1
        x[at(tank, observation.V_TOWED_BY)] = -1

    return edit


def move_order(v: int, dest: int) -> Edit:
    def edit(x):
        x[at(v, observation.V_ORDER)] = C.MOVE
        x[at(v, observation.V_DEST)] = dest

    return edit


def no_order(v: int) -> Edit:
    def edit(x):
        x[at(v, observation.V_ORDER)] = C.NO_ORDER
        x[at(v, observation.V_DEST)] = -1

    return edit


def open_fire(level: int) -> Edit:
    """§5.2: the fire status marker placed at `level` on turn 1."""

    def edit(x):
        x[observation.FIRE_ROE] = level
        x[layout.X_FIRE_TURN] = 1

    return edit


def firing(v: int, p: int) -> Edit:
    """§5.4.2: tank v on its Fire side at p, the fire status placed at RoE 8."""

    def edit(x):
        roe(8)(x)
        open_fire(8)(x)
        x[at(v, observation.V_FIRE)] = 1
        x[at(v, observation.V_POS)] = p

    return edit


def game_over(reason: int) -> Edit:
    def edit(x):
        x[layout.X_OVER] = 1
        x[layout.X_END_REASON] = reason

    return edit


# ------------------------------------------------------------------ each check can fail


@dataclass(frozen=True)
class Case:
    """A phase from the §3 setup position: `both` edits the position before the phase
    (and so after it), `after` is what the phase legally did, `breach` breaks `code`."""

    name: str
    phase: int
    code: int
    breach: tuple[Edit, ...]
    after: tuple[Edit, ...] = ()
    both: tuple[Edit, ...] = ()


EXTRA_MOVE = ability_of(C.EXTRA_MOVE)
ATGM, HMG, ART = pool_chit(C.ATGM), pool_chit(C.HMG), pool_chit(C.ART)
HMGS = tuple(place(pool_chit(C.HMG, k)) for k in range(4))

# fmt: off
CASES = [
    Case("pool count over its region", ORDERS, inv.OUT_OF_RANGE,
         (setting(layout.X_N_POOL, layout.POOL_CAP + 1),)),
    Case("vehicle off the map", EXECUTION, inv.OUT_OF_RANGE, (move(AQ, C.N_POSITIONS),)),
    Case("chit duplicated, one lost", ORDERS, inv.CHIT_MISPLACED, (copying(layout.POOL, layout.POOL + 1),)),
    Case("chit on a track and in the pool", ORDERS, inv.CHIT_MISPLACED, (to_pool(ATGM),),
         after=(place(ATGM),)),
    Case("pool count a policy sees is stale", ORDERS, inv.OBSERVATION_STALE,
         (adding(observation.POOL_TANKS, 1),)),
    Case("track letter a policy sees is stale", ORDERS, inv.OBSERVATION_STALE,
         (adding(observation.TRACK_LETTER + C.ART, 1),)),
    Case("ATGM chit on the HMG track", ORDERS, inv.CHIT_WRONG_PLACE,
         (unplace(C.ATGM), place(ATGM, C.HMG)), after=(place(ATGM),)),
    Case("weapon chit set aside", ORDERS, inv.CHIT_WRONG_PLACE,
         (copying(layout.ASIDE, layout.POOL + HMG), setting(layout.ASIDE, HMG))),
    Case("setup marker not first", ORDERS, inv.SETUP_MARKER,
         (setting(layout.TRACKS + layout.TRACK_CAP * C.ART, ART),
          setting(layout.TRACKS + layout.TRACK_CAP * C.ART + 1, RULES.setup_chit)), after=(place(ART),)),
    Case("setup marker flipped outside Execution", REACTION, inv.SETUP_MARKER,
         (setting(layout.X_SETUP_FLIPPED, 1),)),
    Case("chit placed in Execution", EXECUTION, inv.TRACK_CHANGE, (place(HMG),),
         after=(unplace(C.ATGM),), both=(place(ATGM), firing(AQ, C.S1))),
    Case("airstrike leaves over half", EXECUTION, inv.TRACK_CHANGE,
         (place(pool_chit(C.HMG, 2)),),
         after=(unplace(C.HMG), unplace(C.HMG), setting(observation.AIRSTRIKE_PENDING, 0)),
         both=(*HMGS, setting(observation.AIRSTRIKES_USED, 1), setting(observation.AIRSTRIKE_PENDING, 1))),
    Case("1-2-3 marker on a 7-8-9 position", EXECUTION, inv.MARKER_MISPLACED,
         (return_marker(C.SK2), draw_marker(C.SK2, pool=C.POOL_123)),
         after=(move(AQ, C.SK2), draw_marker(C.SK2, 1)), both=(move(AQ, C.SK1),)),
    Case("marker on a position and in its pool", EXECUTION, inv.MARKER_MISPLACED,
         (adding(layout.X_N_MPOOL + 1, 1),),
         after=(move(AQ, C.SK2), draw_marker(C.SK2, 1)), both=(move(AQ, C.SK1),)),
    Case("vehicle enters without drawing a marker", EXECUTION, inv.MARKER_CHANGE,
         (return_marker(C.SK2),),
         after=(move(AQ, C.SK2), draw_marker(C.SK2, 1)), both=(move(AQ, C.SK1),)),
    Case("marker drawn outside Execution", REACTION, inv.MARKER_CHANGE, (draw_marker(C.SK3),)),
    Case("RoE over the track", REACTION, inv.ROE_ILLEGAL, (setting(observation.ROE, 25),),
         after=(roe(2),)),
    Case("RoE moves in Orders", ORDERS, inv.ROE_ILLEGAL, (roe(2),)),
    Case("ability available below its level", REACTION, inv.ABILITY_VS_ROE,
         (setting(observation.ROE, 7),), after=(roe(8),)),
    Case("ability left on the track at its level", REACTION, inv.ABILITY_VS_ROE,
         (ability(0, C.ON_TRACK),), after=(roe(8),)),
    Case("ability spent from the track", EXECUTION, inv.ABILITY_MOVE,
         (ability(0, C.SPENT),)),
    Case("spent ability back in Execution", EXECUTION, inv.ABILITY_MOVE,
         (ability(0, C.AVAILABLE),), both=(roe(14), ability(0, C.SPENT))),
    Case("fire status off the RoE", ORDERS, inv.FIRE_STATUS, (open_fire(9),),
         after=(open_fire(8), vehicle(AQ, observation.V_FIRE, 1)), both=(roe(8),)),
    Case("fire status under fire-allowed RoE", ORDERS, inv.FIRE_STATUS, (open_fire(7),),
         both=(roe(7),)),
    Case("fire status placed in reaction", REACTION, inv.FIRE_STATUS, (open_fire(8),),
         both=(roe(8),)),
    Case("fire status moved", REACTION, inv.FIRE_STATUS, (open_fire(9), setting(observation.ROE, 9)),
         both=(roe(8), open_fire(8))),
    Case("APC on its Fire side", ORDERS, inv.FIRE_SIDE, (vehicle(QL3, observation.V_FIRE, 1),),
         after=(open_fire(8), vehicle(AQ, observation.V_FIRE, 1)), both=(roe(8),)),
    Case("tank on its Fire side under Hold Fire", ORDERS, inv.FIRE_SIDE,
         (vehicle(AQ, observation.V_FIRE, 1),)),
    Case("two tanks in an overwatch", EXECUTION, inv.OVERSTACKED, (move(EA, C.S1),),
         after=(move(EA, C.S2),), both=(move(AQ, C.S1),)),
    Case("an overfull position entered", EXECUTION, inv.OVERSTACKED, (move(EA, C.S1),),
         both=(move(AQ, C.S1), move(GB, C.S1))),
    Case("rescuer reaches its tank in an overwatch, no tow", EXECUTION, inv.OVERSTACKED,
         (untow(AQ, GB),),
         after=(move(AQ, C.S1), towing(AQ, GB, C.SAR), vehicle(AQ, observation.V_TOW_TARGET, -1)),
         both=(move(GB, C.S1), heavy(GB, C.TRACKS), vehicle(AQ, observation.V_ORDER, C.TOW),
               vehicle(AQ, observation.V_TOW_TARGET, GB), vehicle(AQ, observation.V_DEST, C.S1))),
    Case("tank enters a stranded tank's overwatch, its rescuer away", EXECUTION,
         inv.OVERSTACKED, (move(EA, C.K1),),
         both=(move(GB, C.K1), heavy(GB, C.TRACKS), move(EA, C.KAL),
               vehicle(AQ, observation.V_ORDER, C.TOW), vehicle(AQ, observation.V_TOW_TARGET, GB),
               vehicle(AQ, observation.V_DEST, C.K1))),
    Case("rescuer on its tank's overwatch loses its Tow order", EXECUTION, inv.OVERSTACKED,
         (no_order(AQ),), after=(move(AQ, C.K1),),
         both=(move(GB, C.K1), heavy(GB, C.TRACKS), move(AQ, C.KAL),
               vehicle(AQ, observation.V_ORDER, C.TOW), vehicle(AQ, observation.V_TOW_TARGET, GB),
               vehicle(AQ, observation.V_DEST, C.K1))),
    Case("stunned tank fires", EXECUTION, inv.FIRED_UNABLE, (unplace(C.ATGM),),
         after=(vehicle(AQ, observation.V_STUN, 0),),
         both=(place(ATGM), firing(AQ, C.S1), heavy(AQ, C.HULL), vehicle(AQ, observation.V_STUN, 1))),
    Case("one tank removes two chits", EXECUTION, inv.FIRED_UNABLE, (unplace(C.HMG),),
         after=(unplace(C.ATGM),), both=(place(ATGM), place(HMG), firing(AQ, C.S1))),
    Case("move in reaction", REACTION, inv.MOVED_OUT_OF_PHASE, (move(AQ, C.SK1),)),
    Case("tank jumps two road steps", EXECUTION, inv.MOVED_TOO_FAR, (move(AQ, C.OPN1),),
         after=(move(AQ, C.SK1),)),
    Case("tank takes the APC's second step", EXECUTION, inv.MOVED_TOO_FAR, (move(AQ, C.OPN1),),
         after=(move(QL3, C.OPN1),), both=(setting(tables.S_APC_DOUBLE, 1),)),
    Case("two vehicles use one Extra move", EXECUTION, inv.MOVED_TOO_FAR, (move(EA, C.OPN1),),
         after=(move(AQ, C.OPN1), ability(EXTRA_MOVE[0], C.SPENT, EXTRA_MOVE[1])),
         both=(roe(14), ability(EXTRA_MOVE[0], C.AVAILABLE, EXTRA_MOVE[1]))),
    Case("stunned tank moves", EXECUTION, inv.MOVED_UNABLE, (move(AQ, C.SK1),),
         after=(vehicle(AQ, observation.V_STUN, 0),),
         both=(heavy(AQ, C.TURRET), vehicle(AQ, observation.V_STUN, 1))),
    Case("immobilised tank moves", EXECUTION, inv.MOVED_UNABLE, (move(AQ, C.SK1),),
         both=(heavy(AQ, C.TRACKS),)),
    Case("red-hull tank moves", EXECUTION, inv.MOVED_UNABLE, (move(AQ, C.SK1),),
         both=(heavy(AQ, C.HULL), vehicle(AQ, observation.V_HULL_GREEN, 0))),
    Case("towed tank left behind", EXECUTION, inv.TOW_BROKEN, (move(GB, C.SAR),),
         after=(move(AQ, C.SK1), move(GB, C.SK1)),
         both=(heavy(GB, C.TRACKS), towing(AQ, GB, C.KAL))),
    Case("tow link one-sided", REACTION, inv.TOW_BROKEN, (vehicle(GB, observation.V_TOWED_BY, -1),),
         both=(heavy(GB, C.TRACKS), towing(AQ, GB, C.KAL))),
    Case("Move marker kept on arrival", EXECUTION, inv.ORDERS_INCONSISTENT,
         (move_order(AQ, C.S1),), after=(move(AQ, C.S1), no_order(AQ)),
         both=(move_order(AQ, C.S1),)),
    Case("VL2 given an order", ORDERS, inv.ORDERS_INCONSISTENT, (move_order(VL2, C.OPN),),
         after=(vehicle(VL2, observation.V_DEST, C.OPN),)),
    Case("tow ordered for a tank in a Saraci overwatch", ORDERS, inv.TOW_ORDER,
         (vehicle(AQ, observation.V_ORDER, C.TOW), vehicle(AQ, observation.V_TOW_TARGET, GB),
          vehicle(AQ, observation.V_DEST, C.S1)),
         after=(vehicle(EA, observation.V_ORDER, C.TOW), vehicle(EA, observation.V_TOW_TARGET, FA),
                vehicle(EA, observation.V_DEST, C.SK1)),
         both=(move(GB, C.S1), heavy(GB, C.TRACKS), move(FA, C.SK1), heavy(FA, C.TRACKS))),
    Case("tow ordered for an undamaged tank", ORDERS, inv.TOW_ORDER,
         (vehicle(AQ, observation.V_ORDER, C.TOW), vehicle(AQ, observation.V_TOW_TARGET, GB),
          vehicle(AQ, observation.V_DEST, C.SK1)), both=(move(GB, C.SK1),)),
    Case("immobilised tank keeps its Move order", REACTION, inv.ORDERS_INCONSISTENT,
         (move_order(AQ, C.KAL),), after=(heavy(AQ, C.TRACKS), no_order(AQ), roe(6)),
         both=(move_order(AQ, C.KAL),)),
    Case("radio repaired", ORDERS, inv.DAMAGE_HEALED, (vehicle(AQ, observation.V_LIGHT, 0),),
         both=(light(AQ, C.RADIO),)),
    Case("light damage in reaction", REACTION, inv.DAMAGE_OUT_OF_PHASE,
         (light(AQ, C.NIGHT_VISION),), after=(heavy(AQ, C.TRACKS), roe(6))),
    Case("heavy damage in Orders", ORDERS, inv.DAMAGE_OUT_OF_PHASE, (heavy(AQ, C.TRACKS),),
         after=(light(AQ, C.NIGHT_VISION),)),
    Case("APC marked with heavy damage", REACTION, inv.DAMAGE_INVALID,
         (heavy(QL3, C.TRACKS),), after=(heavy(AQ, C.HULL), vehicle(AQ, observation.V_STUN, 1))),
    Case("VL2's commander marked killed", REACTION, inv.DAMAGE_INVALID,
         (vehicle(VL2, observation.V_KIA, 1),), after=(vehicle(AQ, observation.V_KIA, 1),)),
    Case("light hit not counted", ORDERS, inv.DAMAGE_COUNTS, (adding(layout.X_LIGHT_HITS, -1),),
         after=(light(AQ, C.RADIO),)),
    Case("heavy hit not counted", REACTION, inv.DAMAGE_COUNTS, (adding(layout.X_HEAVY_HITS, -1),),
         after=(heavy(AQ, C.TRACKS),)),
    Case("stun left after Execution", EXECUTION, inv.STUN_OR_SKIP,
         (vehicle(AQ, observation.V_STUN, 1),), after=(vehicle(AQ, observation.V_STUN, 0),),
         both=(heavy(AQ, C.TURRET), vehicle(AQ, observation.V_STUN, 1))),
    Case("stun without a hull or turret hit", REACTION, inv.STUN_OR_SKIP,
         (vehicle(EA, observation.V_STUN, 1),), after=(heavy(AQ, C.TURRET), vehicle(AQ, observation.V_STUN, 1))),
    Case("hull hit without a stun marker", REACTION, inv.STUN_OR_SKIP,
         (vehicle(AQ, observation.V_STUN, 0),), after=(heavy(AQ, C.HULL), vehicle(AQ, observation.V_STUN, 1))),
    Case("skip left set", END, inv.STUN_OR_SKIP, (vehicle(AQ, observation.V_SKIP, 1),),
         after=(adding(observation.TURN, 1),)),
    Case("hull hit marked red", REACTION, inv.HULL_MARKER, (vehicle(AQ, observation.V_HULL_GREEN, 0),),
         after=(heavy(AQ, C.HULL), vehicle(AQ, observation.V_STUN, 1))),
    Case("hull marker not flipped in the End phase", END, inv.HULL_MARKER,
         (vehicle(AQ, observation.V_HULL_GREEN, 1),),
         after=(vehicle(AQ, observation.V_HULL_GREEN, 0), adding(observation.TURN, 1)), both=(heavy(AQ, C.HULL),)),
    Case("hull marker flipped in Orders", ORDERS, inv.HULL_MARKER,
         (vehicle(AQ, observation.V_HULL_GREEN, 0),), both=(heavy(AQ, C.HULL),)),
    Case("turn skipped", END, inv.TURN_ORDER, (adding(observation.TURN, 1),), after=(adding(observation.TURN, 1),)),
    Case("turn advanced in reaction", REACTION, inv.TURN_ORDER, (adding(observation.TURN, 1),)),
    Case("play past the turn limit", END, inv.TURN_ORDER,
         (setting(layout.X_OVER, 0), adding(observation.TURN, 1)), after=(game_over(E.END_TURN_LIMIT),),
         both=(setting(observation.TURN, RULES.p("game", "turn_limit")),)),
    Case("game ends in Execution", EXECUTION, inv.GAME_END,
         (game_over(E.END_DESTROYED), adding(layout.X_HEAVY_HITS, 1))),
    Case("turn limit reached early", END, inv.GAME_END,
         (game_over(E.END_TURN_LIMIT), adding(observation.TURN, -1)), after=(adding(observation.TURN, 1),)),
    Case("victory declared without one", END, inv.GAME_END, (setting(observation.TACTICAL, 0),),
         after=(game_over(E.END_VICTORY), setting(observation.TACTICAL, 1)),
         both=(setting(layout.X_SETUP_FLIPPED, 1),)),
    Case("destroyed ends the game for the wrong reason", REACTION, inv.GAME_END,
         (setting(layout.X_END_REASON, E.END_VICTORY), adding(layout.X_HEAVY_HITS, -1)),
         after=(game_over(E.END_DESTROYED), adding(layout.X_HEAVY_HITS, 1), roe(6))),
    Case("T2 reached after the deadline", END, inv.OPERATIONAL_VICTORY,
         (setting(observation.T2_REACHED, 1),), after=(setting(layout.X_TANKS_AT_T2, 2), adding(observation.TURN, 1)),
         both=(move(AQ, C.T2), move(EA, C.T2), setting(observation.TURN, 17), setting(observation.DEADLINE, 16))),
    Case("operational victory while Vis fires", END, inv.OPERATIONAL_VICTORY,
         (setting(observation.OPERATIONAL, 1),), after=(adding(observation.TURN, 1),),
         both=(setting(observation.T2_REACHED, 1), setting(layout.X_TANKS_AT_T2, 2))),
    Case("tactical victory missed", END, inv.TACTICAL_VICTORY, (setting(observation.TACTICAL, 0),),
         after=(setting(observation.TACTICAL, 1), adding(observation.TURN, 1)),
         both=(setting(layout.X_SETUP_FLIPPED, 1), heavy(AQ, C.TRACKS), move(AQ, C.S1),
               light(EA, C.RADIO), move(EA, C.SK1))),
    Case("tactical victory, a damaged tank outside Saraci", END, inv.TACTICAL_VICTORY,
         (setting(observation.TACTICAL, 1),), after=(adding(observation.TURN, 1),),
         both=(setting(layout.X_SETUP_FLIPPED, 1), heavy(AQ, C.TRACKS), move(AQ, C.SK1))),
    Case("deadline down two boxes", REACTION, inv.DEADLINE, (adding(observation.DEADLINE, -1),),
         after=(adding(observation.DEADLINE, -1),)),
    Case("deadline up two boxes", END, inv.DEADLINE, (adding(observation.DEADLINE, 1),),
         after=(adding(observation.DEADLINE, 1), adding(observation.TURN, 1))),
    Case("deadline past its last box", END, inv.DEADLINE, (adding(observation.DEADLINE, 1),),
         after=(adding(observation.TURN, 1),), both=(setting(observation.DEADLINE, RULES.p("game", "deadline_max")),)),
    Case("deadline moves in Orders", ORDERS, inv.DEADLINE, (adding(observation.DEADLINE, -1),)),
    Case("airstrike at Hold Fire, no tank damaged", ORDERS, inv.AIRSTRIKE,
         (setting(observation.AIRSTRIKES_USED, 1), setting(observation.AIRSTRIKE_PENDING, 1))),
    Case("second airstrike", ORDERS, inv.AIRSTRIKE,
         (setting(observation.AIRSTRIKES_USED, 2), setting(observation.AIRSTRIKE_PENDING, 1)),
         both=(roe(18), setting(observation.AIRSTRIKES_USED, 1))),
    Case("airstrike still pending after Execution", EXECUTION, inv.AIRSTRIKE,
         (setting(observation.AIRSTRIKE_PENDING, 1),), after=(setting(observation.AIRSTRIKE_PENDING, 0),),
         both=(roe(18), setting(observation.AIRSTRIKES_USED, 1), setting(observation.AIRSTRIKE_PENDING, 1))),
]
# fmt: on


def phase_around(case: Case, trace: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(before, st): the setup position with the case's edits, before and after (st with
    room for `trace` events of the phase)."""
    st = new_vector(PACKED, trace, 0)
    new_game(st, SEED, 0)
    for edit in case.both:
        edit(st)
    observe(st)
    before = st[: layout.STATE_SIZE].copy()
    for edit in case.after:
        edit(st)
    observe(st)
    return before, st


def observe(st: np.ndarray) -> None:
    """The observation's track and fire slots brought up to date, as the engine keeps them
    (the edits above change the state only)."""
    for t in range(C.N_TRACKS):
        track_changed(st, t)
    st[observation.FIRED] = st[observation.FIRE_ROE] > 0


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_each_check_fails_on_its_breach(case):
    before, st = phase_around(case)
    legal = check_phase(before, st, case.phase)
    assert legal == OK, f"the legal position fails: {inv.MESSAGES[legal]}"
    for edit in case.breach:
        edit(st)
    got = check_phase(before, st, case.phase)
    assert got == case.code, f"got {got} ({inv.MESSAGES[got]}), want {inv.MESSAGES[case.code]}"


# ------------------------------------------------------------------ checks of the events

# Events as the engine logs them (events.py): (kind, a, b, c, d).
Event = tuple[int, int, int, int, int]


def attack(weapon: int, target: int) -> Event:
    return (E.ATTACK, weapon, target, 7, 7)


def victory(operational: int, tactical: int, stop: int) -> Event:
    return (E.VICTORY, operational, tactical, stop, 0)


@dataclass(frozen=True)
class Traced:
    """A Case whose check reads the phase's events: `events` are what the phase legally
    logged, `breach` the events that break `code` instead."""

    name: str
    phase: int
    code: int
    events: tuple[Event, ...]
    breach: tuple[Event, ...]
    after: tuple[Edit, ...] = ()
    both: tuple[Edit, ...] = ()


# K3, K2, K1: firing priorities 4, 5, 6 for every BSA weapon (R-FOF).
TARGETS = (move(AQ, C.K3), move(EA, C.K1), move(GB, C.K2))
SILENT = setting(layout.X_SETUP_FLIPPED, 1)  # with empty direct-fire tracks: tactical met
# fmt: off
TRACED = [
    Traced("attack not at the lowest FP", REACTION, inv.TARGET_PRIORITY,
           (attack(C.HMG, AQ),), (attack(C.HMG, EA),), both=TARGETS),
    Traced("damaged vehicle not attacked first", REACTION, inv.TARGET_PRIORITY,
           (attack(C.ATGM, GB),), (attack(C.ATGM, AQ),),
           both=(*TARGETS, heavy(EA, C.TRACKS), heavy(GB, C.TRACKS))),
    Traced("damage of an earlier attack ignored", REACTION, inv.TARGET_PRIORITY,
           (attack(C.TANK, AQ), (E.HEAVY_DAMAGE, EA, C.TRACKS, 1, 0), attack(C.HMG, EA)),
           (attack(C.TANK, AQ), (E.HEAVY_DAMAGE, EA, C.TRACKS, 1, 0), attack(C.HMG, AQ)),
           after=(heavy(EA, C.TRACKS),), both=TARGETS),
    Traced("double chit fires twice at one vehicle", REACTION, inv.TARGET_PRIORITY,
           (attack(C.HMG, AQ), attack(C.HMG, GB)), (attack(C.HMG, AQ), attack(C.HMG, AQ)),
           both=TARGETS),
    Traced("attack skipped with a target in sight", REACTION, inv.TARGET_PRIORITY,
           (attack(C.HMG, AQ),), ((E.ATTACK_SKIPPED, C.HMG, 0, 0, 0),),
           both=(move(AQ, C.K3),)),
    Traced("attack at a vehicle out of the field of fire", REACTION, inv.TARGET_PRIORITY,
           (attack(C.HMG, AQ),), (attack(C.HMG, VL2),), both=(move(AQ, C.K3),)),
    Traced("victory met and not offered", END, inv.VICTORY_OFFER,
           (victory(0, 1, 0),), (), after=(setting(observation.TACTICAL, 1), adding(observation.TURN, 1)),
           both=(SILENT,)),
    Traced("victory offered with another one", END, inv.VICTORY_OFFER,
           (victory(0, 1, 0),), (victory(1, 1, 0),),
           after=(setting(observation.TACTICAL, 1), adding(observation.TURN, 1)), both=(SILENT,)),
    Traced("victory declared though the player played on", END, inv.VICTORY_OFFER,
           (victory(0, 1, 1),), (victory(0, 1, 0),),
           after=(setting(observation.TACTICAL, 1), game_over(E.END_VICTORY)), both=(SILENT,)),
    Traced("victory offered when none is met", END, inv.VICTORY_OFFER,
           (), (victory(1, 0, 0),), after=(adding(observation.TURN, 1),)),
    Traced("a phase's events overflow the trace", REACTION, inv.UNCHECKED,
           (), ((E.ROE, 2, 1, 0, 0),) * (inv.TRACE_EVENTS + 1)),
]
# fmt: on


def logged(st: np.ndarray, events: tuple[Event, ...]) -> None:
    """The phase's events, as core.log records them."""
    st[layout.X_N_EVENTS] = 0
    for kind, a, b, c, d in events:
        log(st, kind, a, b, c, d)


@pytest.mark.parametrize("case", TRACED, ids=lambda case: case.name)
def test_each_event_check_fails_on_its_breach(case):
    before, st = phase_around(Case(case.name, case.phase, case.code, (), case.after,
                                   case.both), trace=inv.TRACE_EVENTS)
    logged(st, case.events)
    legal = check_phase(before, st, case.phase)
    assert legal == OK, f"the legal phase fails: {inv.MESSAGES[legal]}"
    logged(st, case.breach)
    got = check_phase(before, st, case.phase)
    assert got == case.code, f"got {got} ({inv.MESSAGES[got]}), want {inv.MESSAGES[case.code]}"


def test_the_event_checks_need_a_trace():
    """Without a trace region (the cases above), nothing is read from events."""
    untraced = Case("untraced", END, OK, (), after=(adding(observation.TURN, 1),), both=(SILENT,))
    before, st = phase_around(untraced)
    assert check_phase(before, st, END) == inv.TACTICAL_VICTORY  # the flag is still checked
    st[observation.TACTICAL] = 1
    assert check_phase(before, st, END) == OK


def test_every_code_has_a_breach():
    """Each phase check has a case above; the result row's codes have the tests below."""
    row_codes = {inv.ROW_STATE, inv.ROW_DEFEAT, inv.ROW_VICTORY}
    codes = {case.code for case in CASES} | {case.code for case in TRACED} | row_codes
    assert codes == set(range(1, len(inv.MESSAGES)))


# ------------------------------------------------------------------ the result row


def finished(name: str, reason: int) -> tuple[np.ndarray, np.ndarray]:
    """(st, result row) of the first game of a policy that ended for `reason`."""
    policy = load_policy(name)
    for g in range(200):
        _, row, final = play_traced_game(RULES, policy, policy.param_vector(), SEED, g)
        if row[layout.R_END_REASON] == reason:
            st = new_vector(PACKED, 0, 0)
            st[: layout.STATE_SIZE] = final
            assert check_result(st, row) == OK, inv.MESSAGES[check_result(st, row)]
            return st, row
    raise AssertionError(f"no {name} game ended by {E.END_REASONS[reason]}")


@pytest.mark.parametrize(
    "name, reason, breach, code",
    [
        ("historical", E.END_VICTORY, {layout.R_FINAL_ROE: 25}, inv.ROW_STATE),
        ("random", E.END_TURN_LIMIT, {layout.R_DEADLINE: -1}, inv.ROW_STATE),
        ("random", E.END_DESTROYED, {layout.R_DEFEAT: 0}, inv.ROW_DEFEAT),
        ("random", E.END_DESTROYED, {layout.R_STRATEGIC: 1}, inv.ROW_DEFEAT),
        ("historical", E.END_VICTORY, {layout.R_OPERATIONAL: 0, layout.R_TACTICAL: 0}, inv.ROW_VICTORY),
        ("random", E.END_TURN_LIMIT, {layout.R_POLITICAL: 1}, inv.ROW_VICTORY),
    ],
    ids=[
        "final RoE not the state's",
        "deadline not the state's",
        "destroyed, not a defeat",
        "defeat with a strategic victory",
        "victory declared with no military victory",
        "political victory alone (I-DIPLO)",
    ],
)
def test_result_row_check_fails_on_its_breach(name, reason, breach, code):
    st, row = finished(name, reason)
    for column, value in breach.items():
        row[column] = value
    assert check_result(st, row) == code


@pytest.mark.parametrize(
    "name, reason",
    [("historical", E.END_VICTORY), ("random", E.END_TURN_LIMIT), ("fire_at_roe", E.END_VICTORY)],
)
def test_each_victory_of_the_row_follows_its_conditions(name, reason):
    """§8, I-DIPLO both ways: a row claiming a victory whose conditions fail, or missing
    one whose conditions hold, breaks ROW_VICTORY (each column flipped in turn)."""
    st, row = finished(name, reason)
    for column in (layout.R_OPERATIONAL, layout.R_TACTICAL, layout.R_STRATEGIC, layout.R_POLITICAL):
        flipped = row.copy()
        flipped[column] = 1 - flipped[column]
        assert check_result(st, flipped) == inv.ROW_VICTORY, column


def test_operational_victory_needs_the_tanks_at_t2():
    """I-OPV: a row claiming an operational victory with too few tanks ever at T2."""
    st, row = finished("historical", E.END_VICTORY)
    st[layout.X_TANKS_AT_T2] = row[layout.R_TANKS_AT_T2] = RULES.p("game", "tanks_needed_at_t2") - 1
    row[layout.R_OPERATIONAL] = 1
    assert check_result(st, row) == inv.ROW_VICTORY


def test_operational_victory_needs_t2_reached():
    """I-OPV: a row claiming an operational victory though no End phase noted enough
    tanks at T2 by the deadline (operational_victory checks the flag each End phase)."""
    st, row = finished("historical", E.END_VICTORY)
    st[layout.X_TANKS_AT_T2] = row[layout.R_TANKS_AT_T2] = RULES.p("game", "tanks_needed_at_t2")
    st[observation.T2_REACHED] = st[observation.OPERATIONAL] = row[layout.R_OPERATIONAL] = 1
    assert check_result(st, row) == OK
    st[observation.T2_REACHED] = 0
    assert check_result(st, row) == inv.ROW_VICTORY


def test_tactical_victory_needs_the_tactical_flag():
    """§8, I-TACV: a row claiming a tactical victory that no End phase assessed."""
    st, row = finished("historical", E.END_VICTORY)
    st[observation.TACTICAL] = row[layout.R_TACTICAL] = 1
    assert check_result(st, row) == OK
    st[observation.TACTICAL] = 0
    assert check_result(st, row) == inv.ROW_VICTORY


def test_first_violation_names_game_turn_phase_and_rule():
    errors = np.zeros((3, 3), dtype=np.int64)
    assert inv.first_violation(errors) is None
    errors[2] = (inv.OVERSTACKED, 9, EXECUTION)
    assert inv.first_violation(errors) == (
        "game 2, turn 9, Execution: a position is over its stacking limit after the moves"
        f" (code {inv.OVERSTACKED})"
    )


# ------------------------------------------------------------------ fast-engine games


def assert_no_violation(rules, name: str, n: int) -> None:
    errors = check_games(rules, load_policy(name), n, SEED)
    assert errors.shape == (n, 3)
    assert not errors.any(), f"{name}: {inv.first_violation(errors)}"


@pytest.mark.parametrize(
    "name, n",
    [("random", 50_000), ("historical", 20_000), ("rush", 10_000), ("fire_at_roe", 10_000)],
)
def test_fast_games_keep_every_invariant(name, n):
    """Every phase of every game, and its result row (issue: the reference engine's
    invariant checks, on fast-engine games)."""
    assert_no_violation(RULES, name, n)


@pytest.mark.parametrize(
    "overrides",
    [
        ["interpretations.radio_check_per_vehicle=false"],
        ['interpretations.target_priority="literal"', "movement.apc_double_move=true"],
        ["game.extend_to_40=true", "interpretations.victories_sticky=false"],
        [
            "interpretations.spent_returns_to_track=true",
            "interpretations.fire_status_on_issue=false",
        ],
    ],
    ids=["one-radio-roll", "literal-target+apc-double", "turn-40", "spent-returns"],
)
def test_other_readings_keep_every_invariant(overrides):
    assert_no_violation(load_ruleset(overrides=overrides), "random", 10_000)


@pytest.mark.slow
@pytest.mark.parametrize("name", available_policies(deciding=True))
def test_100k_fast_games_keep_every_invariant(name):
    """The issue's 100,000 games, per policy (pytest -m slow)."""
    assert_no_violation(RULES, name, 100_000)
