"""§7 Enemy reaction (reference: reference/reaction.py)."""

from bollesim.bits import lowest, popcount
from bollesim.bollebank import codes, decisions, events, luck, observation
from bollesim.bollebank.engine import draws, layout, tables
from bollesim.bollebank.engine.core import (
    ability_at,
    ability_ready,
    change_roe,
    d6_cuts,
    d6_table,
    has,
    heavy_damage,
    hit_table,
    kill_commander,
    last_chit,
    log,
    marker_bsa,
    pick,
    pick_in,
    pool_append,
    pos,
    pos_bsa,
    spend_ability,
    track_len,
    two_d6_cuts,
    vx,
)
from bollesim.bollebank.engine.player import ask_yes_no
from bollesim.jit import compiled


@compiled
def reaction_phase(st, decide):
    """§4 step 3: tank status, tanks, ATGM, HMG, artillery."""
    drawing_fire = draw_their_fire(st, decide)
    n = track_len(st, codes.TANK)
    hot = 0
    if n:
        die = d6_cuts(st, luck.TANK_STATUS, st[tables.TANK_HOT_MIN + (n - 1)], draws.NO_CUT)
        hot = die >= st[tables.TANK_HOT_MIN + (n - 1)]
        log(st, events.TANK_STATUS, die, hot, n, 0)
    st[observation.TANK_HOT] = hot
    if hot:
        direct_fire(st, decide, codes.TANK, st[tables.S_TANK_TO_HIT], drawing_fire)
    n = track_len(st, codes.ATGM)
    if n and not st[layout.X_OVER]:
        direct_fire(st, decide, codes.ATGM, st[tables.ATGM_TO_HIT + (n - 1)], drawing_fire)
    n = track_len(st, codes.HMG)
    if n and not st[layout.X_OVER]:
        direct_fire(st, decide, codes.HMG, st[tables.HMG_TO_HIT + (n - 1)], drawing_fire)
    if not st[layout.X_OVER]:
        artillery(st, decide)


@compiled
def draw_their_fire(st, decide):
    """§5.5 Draw their fire: True if used this turn."""
    a = ability_ready(st, codes.DRAW_THEIR_FIRE)
    if a < 0 or not ability_at(st, a, tables.S_DTF_AT):
        return False
    anyone = False
    for v in range(tables.NV):
        if st[tables.DTF_POSITIONS + (pos(st, v))]:
            anyone = True
    if not anyone or not ask_yes_no(st, decide, decisions.USE_ABILITY, a):
        return False
    spend_ability(st, a)
    return True


@compiled(inline=True)
def exposure(st, p, weapon):
    """(can `weapon` fire at p, firing priority of p)."""
    marker = st[observation.MARKER + p]
    if marker >= 0:
        m, side = marker // 2, marker % 2
        return marker_bsa(st, m, side, weapon) == 1, st[tables.MARKER_FP + m]
    return pos_bsa(st, p, weapon) == 1, st[tables.POS_FP + p]


@compiled
def choose_target(st, weapon, exclude):
    """§7.1 target priority (I-TARGET): damaged first, lowest FP, ties at random."""
    exposed = 0  # bit masks over vehicles
    damaged = 0
    fp = layout.SCRATCH_FP  # firing priority of each exposed vehicle
    for v in range(tables.NV):
        can, priority = exposure(st, pos(st, v), weapon)
        if v != exclude and can:
            exposed |= 1 << v
            st[fp + v] = priority
            if st[vx(v, observation.V_HEAVY)] != 0:
                damaged |= 1 << v
    if exposed == 0:
        return -1
    if st[tables.S_TARGET_RULE] == codes.TARGET_DAMAGED_FIRST:
        only_damaged = damaged != 0
    else:
        only_damaged = popcount(damaged) == 1
    candidates = damaged if only_damaged else exposed
    low = 1 << 30
    for v in range(tables.NV):
        if (candidates >> v) & 1:
            low = min(low, st[fp + v])
    tied = 0
    for v in range(tables.NV):
        if (candidates >> v) & 1 and st[fp + v] == low:
            tied |= 1 << v
    n = popcount(tied)
    for _ in range(pick(st, n, luck.TARGET) if n > 1 else 0):  # the k-th tied vehicle, in vehicle order
        tied &= tied - 1
    return lowest(tied)


@compiled
def direct_fire(st, decide, weapon, to_hit, drawing_fire):
    """§7.1: one attack, two for a double-target chit (different vehicles)."""
    attacks = 2 if st[tables.CHIT_DOUBLE + (last_chit(st, weapon))] else 1
    first = -1
    for _ in range(attacks):
        target = choose_target(st, weapon, first)
        if target < 0:
            if first < 0:
                log(st, events.ATTACK_SKIPPED, weapon, 0, 0, 0)
            return
        attack(st, decide, weapon, target, to_hit, drawing_fire)
        if st[layout.X_OVER]:
            return
        first = target


@compiled(inline=True)
def atgm_overwatch(st):
    """§7.1.1: a UN vehicle in an overwatch of the last ATGM chit's letter."""
    letter = st[tables.CHIT_LETTER + (last_chit(st, codes.ATGM))]
    for v in range(tables.NV):
        p = pos(st, v)
        if (st[tables.POS_KIND + p] == codes.OW and st[tables.POS_LETTER + p] == letter
                and not st[vx(v, observation.V_KIA)]):
            return True
    return False


@compiled
def attack(st, decide, weapon, target, to_hit, drawing_fire):
    """§7.1.2-7.1.3: 2d6 + modifiers; Hold Fire RoE +1; location; HMG commander roll."""
    unbuttoned = (has(st, target, observation.V_LIGHT, codes.NIGHT_VISION)
                  or has(st, target, observation.V_HEAVY, codes.TURRET))
    overwatch = weapon == codes.ATGM and atgm_overwatch(st)
    drawn = drawing_fire and st[tables.DTF_POSITIONS + (pos(st, target))] != 0
    drm = (st[tables.S_ATGM_OW_DRM] if overwatch else 0) + (st[tables.S_DTF_DRM] if drawn else 0)
    roll = two_d6_cuts(st, luck.ATTACK + weapon, to_hit - drm, draws.NO_CUT)  # hit or miss
    if overwatch:
        roll += st[tables.S_ATGM_OW_DRM]
        letter = st[tables.CHIT_LETTER + (last_chit(st, codes.ATGM))]
        log(st, events.MODIFIER, events.MOD_OVERWATCH, st[tables.S_ATGM_OW_DRM], letter, 0)
    if drawn:
        roll += st[tables.S_DTF_DRM]
        log(st, events.MODIFIER, events.MOD_DRAW_THEIR_FIRE, st[tables.S_DTF_DRM], 0, 0)
    hit = roll >= to_hit
    log(st, events.ATTACK, weapon, target, roll, to_hit)
    if st[observation.FIRE_ROE] == 0:
        change_roe(st, decide, st[tables.S_HOLD_ATTACK], events.ROE_HOLD_ATTACK)
    if hit:
        die = d6_table(st, luck.LOCATION + weapon, tables.HIT_TABLE + tables.HIT_TABLE_S0 * weapon)
        heavy_damage(st, decide, target, hit_table(st, weapon, die - 1), die, False, weapon)
    if weapon == codes.HMG and unbuttoned and not st[layout.X_OVER]:
        die = d6_cuts(st, luck.HMG_COMMANDER, st[tables.S_HMG_KILL_ON], draws.NO_CUT)
        killed = die >= st[tables.S_HMG_KILL_ON]
        log(st, events.COMMANDER_ROLL, target, die, killed, 0)
        if killed:
            kill_commander(st, decide, target)


@compiled
def artillery(st, decide):
    """§7.2 with I-ROE-ART: 2 only effects, 3-11 random unit to the pool, 12 heavy
    (I-ART-APC: an APC destroyed, or damaged like a tank)."""
    last = last_chit(st, codes.ART)
    if last == st[tables.S_SETUP_CHIT] and st[layout.X_SETUP_FLIPPED]:
        log(st, events.ARTILLERY, codes.NO_ART, 0, 0, 0)
        return
    target = st[tables.CHIT_ART_TARGET + last]
    present = 0
    for v in range(tables.NV):
        if target != codes.NO_ART and st[tables.POS_ART + (pos(st, v))] == target:
            present += 1
    only, heavy = st[tables.S_ART_ONLY_EFFECTS], st[tables.S_ART_HEAVY]
    roll = two_d6_cuts(st, luck.ARTILLERY, only + 1, heavy) if present else 0
    log(st, events.ARTILLERY, target, roll, present, 0)
    if present or target == codes.NO_ART or st[tables.S_ART_ALWAYS]:
        further_effects(st, decide, target)
    if not present or roll <= st[tables.S_ART_ONLY_EFFECTS]:
        return
    chits = layout.SCRATCH_CHITS  # the random-unit chits of those there
    n = 0
    for v in range(tables.NV):
        if target != codes.NO_ART and st[tables.POS_ART + (pos(st, v))] == target:
            for i in range(st[layout.X_N_ASIDE]):
                if st[tables.CHIT_VEHICLE + (st[layout.ASIDE + i])] == v:
                    st[chits + n] = st[layout.ASIDE + i]
                    n += 1
    if n == 0:
        return
    chit = st[chits + pick_in(st, chits, n, luck.RU, draws.CHITS)]
    victim = st[tables.CHIT_VEHICLE + chit]
    to_pool = roll < st[tables.S_ART_HEAVY]
    log(st, events.ARTILLERY_DRAW, victim, to_pool, 0, 0)
    if to_pool:
        for i in range(st[layout.X_N_ASIDE]):
            if st[layout.ASIDE + i] == chit:
                st[layout.ASIDE + i] = st[layout.ASIDE + st[layout.X_N_ASIDE] - 1]
                st[layout.X_N_ASIDE] -= 1
                break
        pool_append(st, chit)
    else:
        die = d6_table(st, luck.LOCATION + codes.ART, tables.HIT_TABLE + tables.HIT_TABLE_S0 * codes.ART)
        apc_survives = st[tables.S_ART_ON_APC] == codes.ART_APC_LOCATION  # I-ART-APC
        heavy_damage(st, decide, victim, hit_table(st, codes.ART, die - 1), die, apc_survives, codes.ART)


@compiled
def further_effects(st, decide, target):
    """§7.2: S/K RoE +1, T2 deadline -1, regular No art. RoE -1."""
    if target == codes.TARGET_S or target == codes.TARGET_K:
        change_roe(st, decide, st[tables.S_ART_ROE_SK], events.ROE_ART)
    elif target == codes.TARGET_T2:
        change = st[tables.S_ART_DEADLINE_T2]
        st[observation.DEADLINE] = max(st[observation.DEADLINE] + change, 0)
        log(st, events.DEADLINE, st[observation.DEADLINE], change, 0, 0)
    else:
        change_roe(st, decide, st[tables.S_ART_ROE_NO_ART], events.ROE_NO_ART)
