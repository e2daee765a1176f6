"""§8 End phase (reference: reference/end.py)."""

from bollesim.bollebank import codes as C
from bollesim.bollebank import decisions as D
from bollesim.bollebank import events as E
from bollesim.bollebank import observation as O
from bollesim.bollebank.engine import layout as L
from bollesim.bollebank.engine import tables as T
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
    if st[T.S_STICKY]:
        st[O.OPERATIONAL] |= operational
        st[O.TACTICAL] |= tactical
    else:
        st[O.OPERATIONAL] = operational
        st[O.TACTICAL] = tactical
    if operational or tactical:
        stop = ask_yes_no(st, decide, D.STOP_ON_VICTORY, 0)
        log(st, E.VICTORY, operational, tactical, stop, 0)
        if stop:
            end_game(st, E.END_VICTORY)
            return
    for v in range(T.NV):
        if has(st, v, O.V_HEAVY, C.HULL):
            st[vx(v, O.V_HULL_GREEN)] = 1 - st[vx(v, O.V_HULL_GREEN)]
            log(st, E.HULL_FLIP, v, st[vx(v, O.V_HULL_GREEN)], 0, 0)
    if st[O.TURN] >= st[T.S_TURN_LIMIT]:
        won = st[O.OPERATIONAL] or st[O.TACTICAL]
        end_game(st, E.END_TURN_40 if st[T.S_EXTEND] and not won else E.END_TURN_LIMIT)
        return
    st[O.TURN] += 1


@compiled
def extra_turn(st, decide):
    """§5.5 Extra turn (I-ABILITY-PHASE): its vehicle (QL3) at Kalesija, deadline +1."""
    a = ability_ready(st, C.EXTRA_TURN)
    if a < 0 or not ability_at(st, a, T.S_EXTRA_TURN_AT):
        return
    if st[O.DEADLINE] >= st[T.S_DEADLINE_MAX] or not ask_yes_no(st, decide, D.USE_ABILITY, a):
        return
    spend_ability(st, a)
    st[O.DEADLINE] += 1
    log(st, E.DEADLINE, st[O.DEADLINE], 1, 0, 0)


@compiled
def note_tango2(st):
    """I-OPV: enough tanks stand in Tango 2 by the deadline; returns how many stand there."""
    at_t2 = 0
    for v in range(T.NV):
        at_t2 += st[T.IS_TANK + v] and pos(st, v) == st[T.S_TANGO2]
    if st[O.TURN] <= st[O.DEADLINE] and at_t2 >= st[T.S_TANKS_NEEDED]:
        st[O.T2_REACHED] = 1
    return at_t2


@compiled
def assess(st):
    """§8 operational (I-OPV) and tactical (I-TACV) victory at this turn's end."""
    nv = T.NV
    at_t2 = note_tango2(st)
    st[L.X_TANKS_AT_T2] = max(st[L.X_TANKS_AT_T2], at_t2)
    silent = artillery_silent(st)
    operational = st[O.T2_REACHED] == 1 and silent
    tactical = silent and st[O.TURN] <= st[T.S_BASE_TURN_LIMIT]
    for t in C.DIRECT_TRACKS:
        if track_len(st, t):
            tactical = False
    for v in range(nv):
        if st[vx(v, O.V_HEAVY)] and not in_saraci(st, pos(st, v)):
            tactical = False
    return operational, tactical
