"""Invariants of the Enemy reaction phase (§7): the RoE, damage and stuns, and each
direct-fire attack at a first-priority target."""

from __future__ import annotations

from bollesim.bollebank import codes, events, observation
from bollesim.bollebank.engine import layout, tables
from bollesim.bollebank.engine.core import pos, vx
from bollesim.bollebank.engine.play import EXECUTION, ORDERS, REACTION
from bollesim.jit import compiled
from invariants.position import HULL_OR_TURRET, event, event_kind, exposed, traced
from invariants.violations import (
    DAMAGE_HEALED,
    DAMAGE_INVALID,
    DAMAGE_OUT_OF_PHASE,
    NO_EXCLUSION,
    OK,
    ROE_ILLEGAL,
    STUN_OR_SKIP,
    TARGET_PRIORITY,
    TRACE_EVENTS,
    UNCHECKED,
)


@compiled
def roe(before, st, phase):
    """I-ROE0: the RoE stays on its track; every RoE effect is an attack, damage or
    artillery (§7.1.2, §7.1.3, §7.2), so it moves only in the Enemy reaction phase."""
    level = st[observation.ROE]
    if not st[tables.S_ROE_MIN] <= level <= st[tables.S_ROE_MAX]:
        return ROE_ILLEGAL
    if level != before[observation.ROE] and phase != REACTION:
        return ROE_ILLEGAL
    return OK


@compiled
def damage(before, st, phase):
    """§7: damage is never repaired; light damage comes from random-unit chits drawn in
    the Orders phase (§5.3, §7.2.1), heavy damage and killed commanders from the Enemy
    reaction (§7.1.2, §7.1.3, §7.2); a hit APC or VL2's killed commander ends the game
    instead of being marked (§7.1.2, §7.1.3)."""
    for v in range(tables.NV):
        light, heavy, kia = st[vx(v, observation.V_LIGHT)], st[vx(v, observation.V_HEAVY)], st[vx(v, observation.V_KIA)]
        was_light, was_heavy, was_kia = (
            before[vx(v, observation.V_LIGHT)],
            before[vx(v, observation.V_HEAVY)],
            before[vx(v, observation.V_KIA)],
        )
        if was_light & ~light or was_heavy & ~heavy or was_kia & ~kia:
            return DAMAGE_HEALED
        if (light != was_light and phase != ORDERS) or (
            (heavy != was_heavy or kia != was_kia) and phase != REACTION
        ):
            return DAMAGE_OUT_OF_PHASE
        if not (0 <= light < 8 and 0 <= heavy < 8 and 0 <= kia <= 1):
            return DAMAGE_INVALID
        if (heavy and not st[tables.IS_TANK + v]) or (kia and v == st[tables.S_COMMANDER]):
            return DAMAGE_INVALID
    return OK


@compiled
def stun_and_skip(before, st, phase):
    """§7.1.3: a hull or turret hit brings a stun marker, and nothing else does; it goes
    at the end of the next Execution phase (§6 d). A commander's skip (§7.1.3) lasts only
    within the Execution phase."""
    for v in range(tables.NV):
        if st[vx(v, observation.V_SKIP)]:
            return STUN_OR_SKIP
        stunned = st[vx(v, observation.V_STUN)]
        hit = st[vx(v, observation.V_HEAVY)] & ~before[vx(v, observation.V_HEAVY)] & HULL_OR_TURRET
        if hit and not stunned:
            return STUN_OR_SKIP
        if stunned and (phase == EXECUTION or not (before[vx(v, observation.V_STUN)] or hit)):
            return STUN_OR_SKIP
    return OK


@compiled
def first_priority(st, weapon, target, exclude, damaged):
    """§7.1, I-TARGET: target is a vehicle `weapon` can fire at (not `exclude`, the first
    target of a double-target chit) among the first in priority: the heavily damaged ones
    (bit mask `damaged`) if any, under the literal reading only if exactly one, else all;
    of those, the lowest firing priority (ties are drawn at random)."""
    n_damaged = 0
    low_damaged = low_all = 1 << 30
    for v in range(tables.NV):
        can, fp = exposed(st, pos(st, v), weapon)
        if can and v != exclude:
            low_all = min(low_all, fp)
            if (damaged >> v) & 1:
                n_damaged += 1
                low_damaged = min(low_damaged, fp)
    if target < 0:  # the attack was skipped: no vehicle to fire at
        return low_all == 1 << 30
    can, fp = exposed(st, pos(st, target), weapon)
    if not can or target == exclude:
        return False
    if st[tables.S_TARGET_RULE] == codes.TARGET_DAMAGED_FIRST:
        damaged_first = n_damaged > 0
    else:
        damaged_first = n_damaged == 1
    if damaged_first:
        return (damaged >> target) & 1 == 1 and fp == low_damaged
    return fp == low_all


@compiled
def target_priority(before, st, phase):
    """§7.1, I-TARGET after every direct-fire attack of the Enemy reaction phase (its
    ATTACK and ATTACK_SKIPPED events, in order): each goes to a first-priority target,
    given the heavy damage of the attacks before it; the second attack of a
    double-target chit goes to another vehicle. Positions and markers stay put in this
    phase, so st shows where every vehicle stood."""
    if phase != REACTION or not traced(st):
        return OK
    n = st[layout.X_N_EVENTS]
    if n > TRACE_EVENTS:
        return UNCHECKED
    damaged = 0
    for v in range(tables.NV):
        if before[vx(v, observation.V_HEAVY)]:
            damaged |= 1 << v
    weapon, first = -1, NO_EXCLUSION
    for i in range(n):
        kind = event_kind(st, i)
        if kind == events.HEAVY_DAMAGE:
            damaged |= 1 << event(st, i, 0)
        elif kind == events.ATTACK or kind == events.ATTACK_SKIPPED:
            target = event(st, i, 1) if kind == events.ATTACK else -1
            second = event(st, i, 0) == weapon
            weapon = event(st, i, 0)
            exclude = first if second else NO_EXCLUSION
            if not first_priority(st, weapon, target, exclude, damaged):
                return TARGET_PRIORITY
            first = target
    return OK
