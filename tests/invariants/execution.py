"""Invariants of the Execution phase (§6): markers drawn, moves and their road steps,
stacking, the tanks able to fire and the airstrike."""

from __future__ import annotations

import numpy as np

from bollesim.bollebank import codes, observation
from bollesim.bollebank.engine import layout, tables
from bollesim.bollebank.engine.core import distance, has, pos, vx
from bollesim.bollebank.engine.play import EXECUTION, ORDERS
from bollesim.jit import compiled
from invariants.position import fire_icon, shows
from invariants.violations import (
    AIRSTRIKE,
    FIRED_UNABLE,
    MARKER_CHANGE,
    MOVED_OUT_OF_PHASE,
    MOVED_TOO_FAR,
    MOVED_UNABLE,
    OK,
    OVERSTACKED,
)


@compiled
def marker_changes(before, st, phase):
    """§6.2: a marker is drawn in the Execution phase when a vehicle first enters its
    position, and stays there; so a vehicle never stands on a marker position without
    one (the towed tank enters with its rescuer)."""
    for p in range(tables.NP):
        was, now = before[observation.MARKER + p], st[observation.MARKER + p]
        if now != was and (was != -1 or phase != EXECUTION):
            return MARKER_CHANGE
    for v in range(tables.NV):
        p = pos(st, v)
        if st[tables.POS_EAM_POOL + p] != codes.NO_POOL and st[observation.MARKER + p] == -1:
            return MARKER_CHANGE
    return OK


@compiled(inline=True)
def regular_steps(before, st, v):
    """Road steps v may take in an Execution phase without Extra move: none if stunned
    (§6), immobilised (§7.1.3) or its hull marker red (§6.2); one (§6.2); two for an APC
    under the optional rule (§6.2: a second step from an SK checkpoint)."""
    if before[vx(v, observation.V_STUN)] or has(before, v, observation.V_HEAVY, codes.TRACKS):
        return 0
    if has(before, v, observation.V_HEAVY, codes.HULL) and not before[vx(v, observation.V_HULL_GREEN)]:
        return 0
    return 1 + (st[tables.S_APC_DOUBLE] != 0 and st[tables.IS_TANK + v] == 0)


@compiled(inline=True)
def ability_spent(before, st, ability):
    """§5.5: the marker showing `ability` went from its box to Spent in this phase."""
    for a in range(3):
        if (
            before[observation.ABIL + 2 * a] == codes.AVAILABLE
            and st[observation.ABIL + 2 * a] == codes.SPENT
            and shows(st, a, ability)
        ):
            return True
    return False


@compiled
def movement(before, st, phase):
    """§4, §6: vehicles move only in the Execution phase, by road, each at most its
    regular steps, and one of them a step more when Extra move was spent (§5.5: not a
    stunned, immobilised or towing tank). A tank in tow goes with its rescuer
    (tow_links)."""
    if phase != EXECUTION:
        for v in range(tables.NV):
            if pos(st, v) != pos(before, v):
                return MOVED_OUT_OF_PHASE
        return OK
    extra = ability_spent(before, st, codes.EXTRA_MOVE)
    extra_used = 0
    for v in range(tables.NV):
        if before[vx(v, observation.V_TOWED_BY)] >= 0:
            continue
        steps = distance(st, pos(before, v), pos(st, v))
        regular = regular_steps(before, st, v)
        bonus = (
            extra
            and not before[vx(v, observation.V_STUN)]
            and not has(before, v, observation.V_HEAVY, codes.TRACKS)
            and before[vx(v, observation.V_TOWING)] < 0
        )
        if steps > regular + bonus:
            return MOVED_UNABLE if regular + bonus == 0 else MOVED_TOO_FAR
        extra_used += steps > regular
    return OK if extra_used <= 1 else MOVED_TOO_FAR


@compiled(inline=True)
def in_tow(x, v):
    """§5.4.3: v is a tank in tow, stacked with a rescuer that tows it or that has reached
    it under its Tow order ("put the rescuing tank on top of the damaged tank")."""
    for r in range(tables.NV):
        if pos(x, r) == pos(x, v) and (
            x[vx(r, observation.V_TOWING)] == v
            or (x[vx(r, observation.V_ORDER)] == codes.TOW and x[vx(r, observation.V_TOW_TARGET)] == v)
        ):
            return True
    return False


@compiled(inline=True)
def stacked(x, p):
    """Vehicles counting for stacking at p in state x: all but tanks in tow (§5.4.3)."""
    n = 0
    for v in range(tables.NV):
        n += pos(x, v) == p and not in_tow(x, v)
    return n


@compiled
def stacking(before, st, phase):
    """§2.1.1 stacking limits, judged at the end of the moves (§6.2). One overflow is not a
    move's doing: a rescuer hit on its tracks drops its tow and both tanks count where one
    fits (tests/test_invariants.py check_stacking); so a position may stay over its limit
    if no vehicle entered it and it holds no more than before."""
    if phase != EXECUTION:
        return OK
    for p in range(tables.NP):
        now = stacked(st, p)
        if now <= st[tables.POS_STACK + p]:
            continue
        for v in range(tables.NV):
            if pos(st, v) == p and pos(before, v) != p:
                return OVERSTACKED
        if now > stacked(before, p):
            return OVERSTACKED
    return OK


@compiled(inline=True)
def may_fire(before, st, v):
    """§6.3: v is a tank on its Fire side where blue icons let it fire, not stunned (§6),
    hit in the turret (§7.1.3), towing or in tow (§5.4.3), nor with gunner sights damage
    at an indirect-fire position (§7.2.1). Fire comes after the moves (§6), so positions,
    markers and tows are those in st; a commander's skip (§7.1.3) is not in the state."""
    if not st[tables.IS_TANK + v] or not st[vx(v, observation.V_FIRE)] or before[vx(v, observation.V_STUN)]:
        return False
    if has(st, v, observation.V_HEAVY, codes.TURRET):
        return False
    if st[vx(v, observation.V_TOWING)] >= 0 or st[vx(v, observation.V_TOWED_BY)] >= 0:
        return False
    p = pos(st, v)
    if st[tables.POS_INDIRECT + p] and has(st, v, observation.V_LIGHT, codes.SIGHTS):
        return False
    for t in range(codes.N_TRACKS):
        if fire_icon(st, p, t):
            return True
    return False


@compiled
def fire_count(before, st, phase):
    """§6.3: in the Execution phase each tank able to fire attacks once, Extra fire once
    more (§5.5), and an attack removes at most one chit (or flips the setup marker); the
    airstrike first halves the tracks (§6.1, I-AIR). The ammunition depot empties a track
    (§6.3), so there is no bound when enough Saraci overwatch fire could have hit it."""
    if phase != EXECUTION:
        return OK
    extra = ability_spent(before, st, codes.EXTRA_FIRE)
    attacks, indirect = np.int64(extra), np.int64(extra)
    for v in range(tables.NV):
        if may_fire(before, st, v):
            attacks += 1
            indirect += st[tables.POS_INDIRECT + pos(st, v)] != 0
    if indirect >= st[tables.S_DEPOT_ROLLS]:
        return OK
    removed = st[layout.X_SETUP_FLIPPED] - before[layout.X_SETUP_FLIPPED]
    for t in range(codes.N_TRACKS):
        removed += before[observation.TRACK_LEN + t] - st[observation.TRACK_LEN + t]
        if before[observation.AIRSTRIKE_PENDING]:
            regular = before[observation.TRACK_LEN + t] - (t == codes.ART)
            attacks += regular - regular // 2
    return OK if removed <= attacks else FIRED_UNABLE


@compiled
def airstrike(before, st, phase):
    """§5.4.4, I-AIR: an airstrike is called in the Orders phase, at most
    airstrikes_per_game times, at Unrestricted RoE or once a tank has heavy damage; it is
    pending until it strikes in that turn's Execution phase (§6.1)."""
    used, was = st[observation.AIRSTRIKES_USED], before[observation.AIRSTRIKES_USED]
    called = phase == ORDERS and used == was + 1
    if used > st[tables.S_AIRSTRIKES] or (used != was and not called):
        return AIRSTRIKE
    if st[observation.AIRSTRIKE_PENDING] != called:
        return AIRSTRIKE
    if called and st[observation.ROE] < st[tables.S_UNRESTRICTED]:
        for v in range(tables.NV):
            if st[vx(v, observation.V_HEAVY)]:
                return OK
        return AIRSTRIKE
    return OK
