"""Invariants of the Orders phase (§5): the setup marker, the tracks, ability markers,
the fire status and Fire sides, standing orders and Tow orders."""

from __future__ import annotations

from bollesim.bollebank import codes, observation
from bollesim.bollebank.engine import layout, tables
from bollesim.bollebank.engine.core import has, pos, vx
from bollesim.bollebank.engine.play import EXECUTION, ORDERS, REACTION
from bollesim.jit import compiled
from invariants.position import in_saraci
from invariants.violations import (
    ABILITY_MOVE,
    FIRE_SIDE,
    FIRE_STATUS,
    OK,
    ORDERS_INCONSISTENT,
    SETUP_MARKER,
    TOW_ORDER,
    TRACK_CHANGE,
)


@compiled
def setup_marker(before, st, phase):
    """§3 step 6: the setup marker is the artillery track's first chit; §6.3: fire flips
    it to "No Artillery" in the Execution phase, for the rest of the game."""
    first = layout.TRACKS + layout.TRACK_CAP * codes.ART
    if st[observation.TRACK_LEN + codes.ART] < 1 or st[first] != st[tables.S_SETUP_CHIT]:
        return SETUP_MARKER
    was, now = before[layout.X_SETUP_FLIPPED], st[layout.X_SETUP_FLIPPED]
    if now != was and (now != 1 or phase != EXECUTION):
        return SETUP_MARKER
    return OK


@compiled
def track_changes(before, st, phase):
    """§5.3 d: chits join the end of a track in the Orders phase; §6.1, §6.3: they leave
    from its end in the Execution phase, and an airstrike leaves at most half of each
    track's regular chits (I-AIR); the other phases leave the tracks alone."""
    for t in range(codes.N_TRACKS):
        was, now = before[observation.TRACK_LEN + t], st[observation.TRACK_LEN + t]
        start = layout.TRACKS + layout.TRACK_CAP * t
        for i in range(min(was, now)):
            if st[start + i] != before[start + i]:
                return TRACK_CHANGE
        if (now > was and phase != ORDERS) or (now < was and phase != EXECUTION):
            return TRACK_CHANGE
        setup = t == codes.ART
        if phase == EXECUTION and before[observation.AIRSTRIKE_PENDING] and now - setup > (was - setup) // 2:
            return TRACK_CHANGE
    return OK


@compiled
def ability_moves(before, st, phase):
    """§5.5: an ability is spent from its box, never from the track (the RoE does not
    move in the phases that use abilities before it could rise); a spent one comes back
    only by the refresh after doubles in the Orders phase (§5.3), or under I-SPENT's other
    reading to the track when the RoE drops (and on up to its box when it rises again)."""
    returns = phase == REACTION and st[tables.S_SPENT_RETURNS] != 0
    for a in range(3):
        was, now = before[observation.ABIL + 2 * a], st[observation.ABIL + 2 * a]
        if was == codes.ON_TRACK and now == codes.SPENT:
            return ABILITY_MOVE
        if was == codes.SPENT and now != codes.SPENT and not (phase == ORDERS or returns):
            return ABILITY_MOVE
    return OK


@compiled
def fire_status(before, st, phase):
    """§5.2, §5.4.2: the fire status marker is placed once, by the first Fire order (an
    Orders phase), at that moment's RoE, which must allow fire; then it never moves."""
    placed, turn = st[observation.FIRE_ROE], st[layout.X_FIRE_TURN]
    if before[observation.FIRE_ROE] > 0:
        same = placed == before[observation.FIRE_ROE] and turn == before[layout.X_FIRE_TURN]
        return OK if same else FIRE_STATUS
    if placed == 0:
        return OK if turn == 0 else FIRE_STATUS
    if (
        phase != ORDERS
        or placed != st[observation.ROE]
        or placed < st[tables.S_FIRE_ALLOWED]
        or turn != st[observation.TURN]
    ):
        return FIRE_STATUS
    return OK


@compiled
def fire_sides(before, st, phase):
    """§5.4.2: a Fire order flips a tank (never an APC) to its Fire side, in the Orders
    phase, once the fire status is set; nothing flips it back."""
    for v in range(tables.NV):
        side = st[vx(v, observation.V_FIRE)]
        if side != 0 and (side != 1 or not st[tables.IS_TANK + v] or st[observation.FIRE_ROE] == 0):
            return FIRE_SIDE
        if side != before[vx(v, observation.V_FIRE)] and (side == 0 or phase != ORDERS):
            return FIRE_SIDE
    return OK


@compiled
def standing_orders(st, phase):
    """§5.4.1: an immobilised tank holds no Move or Tow order and tows nothing; a Move
    order has a destination, a Tow order a tank to reach or in tow; VL2 needs no orders
    (§5); after the moves no vehicle stands at its destination with its Move marker or
    VL2's reminder still out (§6.2: it comes back on arrival)."""
    for v in range(tables.NV):
        order, dest = st[vx(v, observation.V_ORDER)], st[vx(v, observation.V_DEST)]
        if not (order == codes.NO_ORDER or order == codes.MOVE or order == codes.TOW):
            return ORDERS_INCONSISTENT
        if has(st, v, observation.V_HEAVY, codes.TRACKS) and (order != codes.NO_ORDER
                                                               or st[vx(v, observation.V_TOWING)] >= 0):
            return ORDERS_INCONSISTENT
        if order == codes.MOVE and dest < 0:
            return ORDERS_INCONSISTENT
        if order == codes.TOW and st[vx(v, observation.V_TOW_TARGET)] < 0 and st[vx(v, observation.V_TOWING)] < 0:
            return ORDERS_INCONSISTENT
        if v == st[tables.S_COMMANDER] and order != codes.NO_ORDER:
            return ORDERS_INCONSISTENT
        if phase == EXECUTION and order != codes.TOW and dest == pos(st, v):
            return ORDERS_INCONSISTENT
    return OK


@compiled
def tow_orders(before, st, phase):
    """§5.4.3, I-TOW-SARACI: a Tow order, given in the Orders phase, sends a tank to
    another tank with tracks damage that is not in tow and not already in Saraci."""
    for v in range(tables.NV):
        target = st[vx(v, observation.V_TOW_TARGET)]
        if target < 0 or target == before[vx(v, observation.V_TOW_TARGET)]:
            continue
        if (
            phase != ORDERS
            or not st[tables.IS_TANK + v]
            or target == v
            or not has(st, target, observation.V_HEAVY, codes.TRACKS)
            or st[vx(target, observation.V_TOWED_BY)] >= 0
            or in_saraci(st, pos(st, target))
        ):
            return TOW_ORDER
    return OK
