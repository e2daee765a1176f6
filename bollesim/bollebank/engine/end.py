"""§8 End phase (reference: reference/end.py)."""

from bollesim.bollebank import codes, decisions, events, observation
from bollesim.bollebank.engine import layout, tables
from bollesim.bollebank.engine.core import (
    ability_at,
    ability_ready,
    artillery_silent,
    end_game,
    has,
    in_saraci,
    log,
    pos,
    spend_ability,
    track_len,
    vx,
)
from bollesim.bollebank.engine.player import ask_yes_no
from bollesim.jit import compiled


@compiled
def end_phase(st, decide):
    """§4 step 4: victory assessment, hull markers flip, the turn advances."""
    extra_turn(st, decide)
    operational, tactical = assess(st)
    if st[tables.S_STICKY]:
        st[observation.OPERATIONAL] |= operational
        st[observation.TACTICAL] |= tactical
    else:
        st[observation.OPERATIONAL] = operational
        st[observation.TACTICAL] = tactical
    if operational or tactical:
        stop = ask_yes_no(st, decide, decisions.STOP_ON_VICTORY, 0)
        log(st, events.VICTORY, operational, tactical, stop, 0)
        if stop:
            end_game(st, events.END_VICTORY)
            return
    for v in range(tables.NV):
        if has(st, v, observation.V_HEAVY, codes.HULL):
            st[vx(v, observation.V_HULL_GREEN)] = 1 - st[vx(v, observation.V_HULL_GREEN)]
            log(st, events.HULL_FLIP, v, st[vx(v, observation.V_HULL_GREEN)], 0, 0)
    if st[observation.TURN] >= st[tables.S_TURN_LIMIT]:
        won = st[observation.OPERATIONAL] or st[observation.TACTICAL]
        end_game(st, events.END_TURN_40 if st[tables.S_EXTEND] and not won else events.END_TURN_LIMIT)
        return
    st[observation.TURN] += 1


@compiled
def extra_turn(st, decide):
    """§5.5 Extra turn (I-ABILITY-PHASE): its vehicle (QL3) at Kalesija, deadline +1."""
    a = ability_ready(st, codes.EXTRA_TURN)
    if a < 0 or not ability_at(st, a, tables.S_EXTRA_TURN_AT):
        return
    if st[observation.DEADLINE] >= st[tables.S_DEADLINE_MAX] or not ask_yes_no(st, decide, decisions.USE_ABILITY, a):
        return
    spend_ability(st, a)
    st[observation.DEADLINE] += 1
    log(st, events.DEADLINE, st[observation.DEADLINE], 1, 0, 0)


@compiled
def note_tango2(st):
    """I-OPV: enough tanks stand in Tango 2 by the deadline; returns how many stand there."""
    at_t2 = 0
    for v in range(tables.NV):
        at_t2 += st[tables.IS_TANK + v] and pos(st, v) == st[tables.S_TANGO2]
    if st[observation.TURN] <= st[observation.DEADLINE] and at_t2 >= st[tables.S_TANKS_NEEDED]:
        st[observation.T2_REACHED] = 1
    return at_t2


@compiled
def assess(st):
    """§8 operational (I-OPV) and tactical (I-TACV) victory at this turn's end."""
    nv = tables.NV
    at_t2 = note_tango2(st)
    st[layout.X_TANKS_AT_T2] = max(st[layout.X_TANKS_AT_T2], at_t2)
    silent = artillery_silent(st)
    operational = st[observation.T2_REACHED] == 1 and silent
    tactical = silent and st[observation.TURN] <= st[tables.S_BASE_TURN_LIMIT]
    for t in codes.DIRECT_TRACKS:
        if track_len(st, t):
            tactical = False
    for v in range(nv):
        if st[vx(v, observation.V_HEAVY)] and not in_saraci(st, pos(st, v)):
            tactical = False
    return operational, tactical
