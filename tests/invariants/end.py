"""Invariants of the End phase (§4, §8) and of the result row: hull markers, the turn,
the game's end, the T2 deadline, the victories met, offered and declared."""

from __future__ import annotations

from bollesim.bollebank import codes, events
from bollesim.bollebank import observation as O
from bollesim.bollebank.engine import layout, tables
from bollesim.bollebank.engine.core import has, pos, vx
from bollesim.bollebank.engine.play import END, REACTION
from bollesim.jit import compiled
from invariants.position import event, event_kind, in_saraci, silent, traced
from invariants.violations import (
    DEADLINE,
    GAME_END,
    HULL_MARKER,
    OK,
    OPERATIONAL_VICTORY,
    ROW_DEFEAT,
    ROW_STATE,
    ROW_VICTORY,
    TACTICAL_VICTORY,
    TRACE_EVENTS,
    TURN_ORDER,
    UNCHECKED,
    VICTORY_OFFER,
)

# Result columns that copy one slot of the final state (play.write_result).
ROW_COPIES = (
    (layout.R_END_TURN, O.TURN),
    (layout.R_END_REASON, layout.X_END_REASON),
    (layout.R_FIRST_FIRE_TURN, layout.X_FIRE_TURN),
    (layout.R_FIRST_FIRE_ROE, O.FIRE_ROE),
    (layout.R_FINAL_ROE, O.ROE),
    (layout.R_DEADLINE, O.DEADLINE),
    (layout.R_TANKS_AT_T2, layout.X_TANKS_AT_T2),
    (layout.R_AIRSTRIKE_TURN, layout.X_AIRSTRIKE_TURN),
    (layout.R_HEAVY, layout.X_HEAVY_HITS),
    (layout.R_LIGHT, layout.X_LIGHT_HITS),
    (layout.R_CHITS_DRAWN, layout.X_CHITS_DRAWN),
)


@compiled
def hull_marker(before, st, phase):
    """§7.1.3: a hull hit places the Hull marker green side up; the End phase flips it
    (§4 step 4b, §6.2: the tank moves every other turn) unless a declared victory ended
    the game first; nothing else turns it."""
    declared = st[layout.X_OVER] == 1 and st[layout.X_END_REASON] == events.END_VICTORY
    for v in range(tables.NV):
        was, now = before[vx(v, O.V_HULL_GREEN)], st[vx(v, O.V_HULL_GREEN)]
        hull = has(st, v, O.V_HEAVY, codes.HULL)
        if hull and not has(before, v, O.V_HEAVY, codes.HULL):
            want = 1
        elif hull and phase == END and not declared:
            want = 1 - was
        else:
            want = was
        if now != want:
            return HULL_MARKER
    return OK


@compiled
def turn_advance(before, st, phase):
    """§4: the End phase advances the turn by one unless the game ended in it; no other
    phase touches it, and it never passes the turn limit (20, or 40 with §8's option)."""
    advanced = phase == END and not st[layout.X_OVER]
    if st[O.TURN] != before[O.TURN] + advanced or not 1 <= st[O.TURN] <= st[tables.S_TURN_LIMIT]:
        return TURN_ORDER
    return OK


@compiled
def game_end(st, phase):
    """The game ends in the Enemy reaction phase when a vehicle is destroyed or VL2's
    commander killed (§7.1.2, §7.1.3), in the End phase on a declared victory (§8) or at
    the turn limit (§4), a defeat at turn 40 only with §8's option and no victory."""
    over = st[layout.X_OVER]
    if over == 0:
        return OK
    reason = st[layout.X_END_REASON]
    at_limit = st[O.TURN] == st[tables.S_TURN_LIMIT]
    won = st[O.OPERATIONAL] != 0 or st[O.TACTICAL] != 0
    extended = st[tables.S_EXTEND] != 0
    if phase == REACTION:
        ok = reason == events.END_DESTROYED or reason == events.END_VL2_KILLED
    elif phase == END:
        ok = (
            (reason == events.END_VICTORY and won)
            or (reason == events.END_TURN_LIMIT and at_limit and (won or not extended))
            or (reason == events.END_TURN_40 and at_limit and not won and extended)
        )
    else:
        ok = False
    return OK if over == 1 and ok else GAME_END


@compiled
def deadline(before, st, phase):
    """§3 step 9: the T2 deadline is on the turn track, 0 .. deadline_max; artillery on T2
    moves it in the Enemy reaction phase (§7.2, once a turn), Extra turn one box up in the
    End phase (§5.5, I-ABILITY-PHASE); nothing else moves it."""
    was, now = before[O.DEADLINE], st[O.DEADLINE]
    if not 0 <= now <= st[tables.S_DEADLINE_MAX]:
        return DEADLINE
    if phase == REACTION:
        ok = now == was or now == max(was + st[tables.S_ART_DEADLINE_T2], 0)
    elif phase == END:
        ok = now == was or now == was + 1
    else:
        ok = now == was
    return OK if ok else DEADLINE


@compiled
def t2_reached(before, st):
    """I-OPV: T2 is reached, for good, at the end of a turn no later than the deadline
    (Extra turn moved it first, I-ABILITY-PHASE) with tanks_needed_at_t2 tanks at T2."""
    at_t2 = 0
    for v in range(tables.NV):
        at_t2 += st[tables.IS_TANK + v] == 1 and pos(st, v) == st[tables.S_TANGO2]
    in_time = before[O.TURN] <= st[O.DEADLINE] and at_t2 >= st[tables.S_TANKS_NEEDED]
    return before[O.T2_REACHED] == 1 or in_time, at_t2


@compiled
def tactical_met(before, st):
    """§8, I-TACV at the assessment of turn before[O.TURN]: by the end of turn 20 (even
    with §8's turn-40 option), the three direct-fire tracks empty, Vis silent and every
    heavily damaged vehicle in Saraci."""
    met = silent(st) and before[O.TURN] <= st[tables.S_BASE_TURN_LIMIT]
    for t in (codes.TANK, codes.ATGM, codes.HMG):
        met = met and st[O.TRACK_LEN + t] == 0
    for v in range(tables.NV):
        met = met and (st[vx(v, O.V_HEAVY)] == 0 or in_saraci(st, pos(st, v)))
    return met


@compiled
def operational_victory(before, st, phase):
    """§8, I-OPV: an End phase notes T2 reached (t2_reached) and the most tanks seen at
    T2; the operational flag is T2 reached with Vis silent, kept once met if victories are
    sticky (I-STICKY), and set exactly then. Other phases keep them."""
    if phase != END:
        for at in (O.T2_REACHED, O.OPERATIONAL, layout.X_TANKS_AT_T2):
            if st[at] != before[at]:
                return OPERATIONAL_VICTORY
        return OK
    reached, at_t2 = t2_reached(before, st)
    kept = st[tables.S_STICKY] != 0 and before[O.OPERATIONAL] == 1
    if (
        st[O.T2_REACHED] != reached
        or st[O.OPERATIONAL] != ((reached and silent(st)) or kept)
        or st[layout.X_TANKS_AT_T2] != max(before[layout.X_TANKS_AT_T2], at_t2)
    ):
        return OPERATIONAL_VICTORY
    return OK


@compiled
def tactical_victory(before, st, phase):
    """§8, I-TACV: an End phase sets the tactical flag exactly when tactical_met, or keeps
    it once met if victories are sticky (I-STICKY). Other phases keep it."""
    if phase != END:
        return OK if st[O.TACTICAL] == before[O.TACTICAL] else TACTICAL_VICTORY
    kept = st[tables.S_STICKY] != 0 and before[O.TACTICAL] == 1
    return OK if st[O.TACTICAL] == (tactical_met(before, st) or kept) else TACTICAL_VICTORY


@compiled
def victory_offer(before, st, phase):
    """§8, I-END: at the victory assessment of an End phase where an operational or a
    tactical victory is met now (not merely kept), the player is asked whether to stop and
    declare it (one VICTORY event naming the victories met), and the game ends by victory
    exactly when the player stops; no victory is offered or declared otherwise."""
    if phase != END or not traced(st):
        return OK
    n = st[layout.X_N_EVENTS]
    if n > TRACE_EVENTS:
        return UNCHECKED
    operational = t2_reached(before, st)[0] and silent(st)
    tactical = tactical_met(before, st)
    offers = 0
    stopped = False
    for i in range(n):
        if event_kind(st, i) == events.VICTORY:
            offers += 1
            stopped = event(st, i, 2) == 1
            if event(st, i, 0) != operational or event(st, i, 1) != tactical:
                return VICTORY_OFFER
    declared = st[layout.X_OVER] == 1 and st[layout.X_END_REASON] == events.END_VICTORY
    if offers != (operational or tactical) or declared != stopped:
        return VICTORY_OFFER
    return OK


@compiled
def check_result(st, row):
    """0 if the result row (play.write_result) of the finished game in st agrees with its
    final state and with §8, else ROW_STATE, ROW_DEFEAT or ROW_VICTORY. Each victory of
    the row is derived here from the final state, so the row claims a victory exactly when
    its conditions hold: operational and tactical by the flags every End phase checks,
    strategic by the fire status at the first Fire order, political by the fire status
    against the final RoE, both only alongside a military victory under I-DIPLO."""
    if st[layout.X_OVER] != 1 or not 0 <= row[layout.R_END_REASON] < len(events.END_REASONS):
        return ROW_STATE
    for column, at in ROW_COPIES:
        if row[column] != st[at]:
            return ROW_STATE
    reason = row[layout.R_END_REASON]
    defeat = reason == events.END_DESTROYED or reason == events.END_VL2_KILLED or reason == events.END_TURN_40
    if row[layout.R_DEFEAT] != defeat:
        return ROW_DEFEAT
    if defeat:
        for column in (layout.R_OPERATIONAL, layout.R_TACTICAL, layout.R_STRATEGIC, layout.R_POLITICAL):
            if row[column]:
                return ROW_DEFEAT
        return OK
    operational = st[O.OPERATIONAL] == 1 and st[O.T2_REACHED] == 1
    tactical = st[O.TACTICAL] == 1
    fire_roe = st[O.FIRE_ROE]  # 0: the fire status still shows Hold Fire (§5.2)
    diplomatic = operational or tactical or st[tables.S_DIPLO_MILITARY] == 0
    strategic = diplomatic and (fire_roe == 0 or fire_roe >= st[tables.S_UNRESTRICTED])
    political = diplomatic and (fire_roe == 0 or fire_roe <= st[O.ROE])
    if (
        row[layout.R_OPERATIONAL] != operational
        or row[layout.R_TACTICAL] != tactical
        or row[layout.R_STRATEGIC] != strategic
        or row[layout.R_POLITICAL] != political
        or (operational and row[layout.R_TANKS_AT_T2] < st[tables.S_TANKS_NEEDED])  # I-OPV
        or (reason == events.END_VICTORY and not (operational or tactical))  # §8: declared
    ):
        return ROW_VICTORY
    return OK
