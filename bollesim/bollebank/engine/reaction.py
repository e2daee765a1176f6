"""§7 Enemy reaction (reference: reference/reaction.py)."""

from bollesim.bits import lowest, popcount
from bollesim.bollebank import codes as C
from bollesim.bollebank import decisions as D
from bollesim.bollebank import events as E
from bollesim.bollebank import luck
from bollesim.bollebank import observation as O
from bollesim.bollebank.engine import layout as L
from bollesim.bollebank.engine import tables as T
from bollesim.bollebank.engine.core import (
    ability_at,
    ability_ready,
    change_roe,
    d6,
    has,
    heavy_damage,
    hit_table,
    kill_commander,
    last_chit,
    log,
    marker_bsa,
    pick,
    pool_append,
    pos,
    pos_bsa,
    spend_ability,
    track_len,
    two_d6,
    vx,
)
from bollesim.bollebank.engine.player import ask_yes_no
from bollesim.jit import compiled


@compiled
def reaction_phase(st, decide):
    """§4 step 3: tank status, tanks, ATGM, HMG, artillery."""
    drawing_fire = draw_their_fire(st, decide)
    n = track_len(st, C.TANK)
    hot = 0
    if n:
        die = d6(st, luck.TANK_STATUS)
        hot = die >= st[T.TANK_HOT_MIN + (n - 1)]
        log(st, E.TANK_STATUS, die, hot, n, 0)
    st[O.TANK_HOT] = hot
    if hot:
        direct_fire(st, decide, C.TANK, st[T.S_TANK_TO_HIT], drawing_fire)
    n = track_len(st, C.ATGM)
    if n and not st[L.X_OVER]:
        direct_fire(st, decide, C.ATGM, st[T.ATGM_TO_HIT + (n - 1)], drawing_fire)
    n = track_len(st, C.HMG)
    if n and not st[L.X_OVER]:
        direct_fire(st, decide, C.HMG, st[T.HMG_TO_HIT + (n - 1)], drawing_fire)
    if not st[L.X_OVER]:
        artillery(st, decide)


@compiled
def draw_their_fire(st, decide):
    """§5.5 Draw their fire: True if used this turn."""
    a = ability_ready(st, C.DRAW_THEIR_FIRE)
    if a < 0 or not ability_at(st, a, T.S_DTF_AT):
        return False
    anyone = False
    for v in range(T.NV):
        if st[T.DTF_POSITIONS + (pos(st, v))]:
            anyone = True
    if not anyone or not ask_yes_no(st, decide, D.USE_ABILITY, a):
        return False
    spend_ability(st, a)
    return True


@compiled(inline=True)
def exposure(st, p, weapon):
    """(can `weapon` fire at p, firing priority of p)."""
    marker = st[O.MARKER + p]
    if marker >= 0:
        m, side = marker // 2, marker % 2
        return marker_bsa(st, m, side, weapon) == 1, st[T.MARKER_FP + m]
    return pos_bsa(st, p, weapon) == 1, st[T.POS_FP + p]


@compiled
def choose_target(st, weapon, exclude):
    """§7.1 target priority (I-TARGET): damaged first, lowest FP, ties at random."""
    exposed = 0  # bit masks over vehicles
    damaged = 0
    fp = L.SCRATCH_FP  # firing priority of each exposed vehicle
    for v in range(T.NV):
        can, priority = exposure(st, pos(st, v), weapon)
        if v != exclude and can:
            exposed |= 1 << v
            st[fp + v] = priority
            if st[vx(v, O.V_HEAVY)] != 0:
                damaged |= 1 << v
    if exposed == 0:
        return -1
    if st[T.S_TARGET_RULE] == C.TARGET_DAMAGED_FIRST:
        only_damaged = damaged != 0
    else:
        only_damaged = popcount(damaged) == 1
    candidates = damaged if only_damaged else exposed
    low = 1 << 30
    for v in range(T.NV):
        if (candidates >> v) & 1:
            low = min(low, st[fp + v])
    tied = 0
    for v in range(T.NV):
        if (candidates >> v) & 1 and st[fp + v] == low:
            tied |= 1 << v
    n = popcount(tied)
    for _ in range(pick(st, n, luck.TARGET) if n > 1 else 0):  # the k-th tied vehicle, in vehicle order
        tied &= tied - 1
    return lowest(tied)


@compiled
def direct_fire(st, decide, weapon, to_hit, drawing_fire):
    """§7.1: one attack, two for a double-target chit (different vehicles)."""
    attacks = 2 if st[T.CHIT_DOUBLE + (last_chit(st, weapon))] else 1
    first = -1
    for _ in range(attacks):
        target = choose_target(st, weapon, first)
        if target < 0:
            if first < 0:
                log(st, E.ATTACK_SKIPPED, weapon, 0, 0, 0)
            return
        attack(st, decide, weapon, target, to_hit, drawing_fire)
        if st[L.X_OVER]:
            return
        first = target


@compiled(inline=True)
def atgm_overwatch(st):
    """§7.1.1: a UN vehicle in an overwatch of the last ATGM chit's letter."""
    letter = st[T.CHIT_LETTER + (last_chit(st, C.ATGM))]
    for v in range(T.NV):
        p = pos(st, v)
        if st[T.POS_KIND + p] == C.OW and st[T.POS_LETTER + p] == letter and not st[vx(v, O.V_KIA)]:
            return True
    return False


@compiled
def attack(st, decide, weapon, target, to_hit, drawing_fire):
    """§7.1.2-7.1.3: 2d6 + modifiers; Hold Fire RoE +1; location; HMG commander roll."""
    unbuttoned = has(st, target, O.V_LIGHT, C.NIGHT_VISION) or has(st, target, O.V_HEAVY, C.TURRET)
    roll = two_d6(st, luck.ATTACK + weapon)
    if weapon == C.ATGM and atgm_overwatch(st):
        roll += st[T.S_ATGM_OW_DRM]
        letter = st[T.CHIT_LETTER + (last_chit(st, C.ATGM))]
        log(st, E.MODIFIER, E.MOD_OVERWATCH, st[T.S_ATGM_OW_DRM], letter, 0)
    if drawing_fire and st[T.DTF_POSITIONS + (pos(st, target))]:
        roll += st[T.S_DTF_DRM]
        log(st, E.MODIFIER, E.MOD_DRAW_THEIR_FIRE, st[T.S_DTF_DRM], 0, 0)
    hit = roll >= to_hit
    log(st, E.ATTACK, weapon, target, roll, to_hit)
    if st[O.FIRE_ROE] == 0:
        change_roe(st, decide, st[T.S_HOLD_ATTACK], E.ROE_HOLD_ATTACK)
    if hit:
        die = d6(st, luck.LOCATION + weapon)
        heavy_damage(st, decide, target, hit_table(st, weapon, die - 1), die, False, weapon)
    if weapon == C.HMG and unbuttoned and not st[L.X_OVER]:
        die = d6(st, luck.HMG_COMMANDER)
        killed = die >= st[T.S_HMG_KILL_ON]
        log(st, E.COMMANDER_ROLL, target, die, killed, 0)
        if killed:
            kill_commander(st, decide, target)


@compiled
def artillery(st, decide):
    """§7.2 with I-ROE-ART: 2 only effects, 3-11 random unit to the pool, 12 heavy
    (I-ART-APC: an APC destroyed, or damaged like a tank)."""
    last = last_chit(st, C.ART)
    if last == st[T.S_SETUP_CHIT] and st[L.X_SETUP_FLIPPED]:
        log(st, E.ARTILLERY, C.NO_ART, 0, 0, 0)
        return
    target = st[T.CHIT_ART_TARGET + last]
    present = 0
    for v in range(T.NV):
        if target != C.NO_ART and st[T.POS_ART + (pos(st, v))] == target:
            present += 1
    roll = two_d6(st, luck.ARTILLERY) if present else 0
    log(st, E.ARTILLERY, target, roll, present, 0)
    if present or target == C.NO_ART or st[T.S_ART_ALWAYS]:
        further_effects(st, decide, target)
    if not present or roll <= st[T.S_ART_ONLY_EFFECTS]:
        return
    chits = L.SCRATCH_CHITS  # the random-unit chits of those there
    n = 0
    for v in range(T.NV):
        if target != C.NO_ART and st[T.POS_ART + (pos(st, v))] == target:
            for i in range(st[L.X_N_ASIDE]):
                if st[T.CHIT_VEHICLE + (st[L.ASIDE + i])] == v:
                    st[chits + n] = st[L.ASIDE + i]
                    n += 1
    if n == 0:
        return
    chit = st[chits + pick(st, n, luck.RU)]
    victim = st[T.CHIT_VEHICLE + chit]
    to_pool = roll < st[T.S_ART_HEAVY]
    log(st, E.ARTILLERY_DRAW, victim, to_pool, 0, 0)
    if to_pool:
        for i in range(st[L.X_N_ASIDE]):
            if st[L.ASIDE + i] == chit:
                st[L.ASIDE + i] = st[L.ASIDE + st[L.X_N_ASIDE] - 1]
                st[L.X_N_ASIDE] -= 1
                break
        pool_append(st, chit)
    else:
        die = d6(st, luck.LOCATION + C.ART)
        apc_survives = st[T.S_ART_ON_APC] == C.ART_APC_LOCATION  # I-ART-APC
        heavy_damage(st, decide, victim, hit_table(st, C.ART, die - 1), die, apc_survives, C.ART)


@compiled
def further_effects(st, decide, target):
    """§7.2: S/K RoE +1, T2 deadline -1, regular No art. RoE -1."""
    if target == C.TARGET_S or target == C.TARGET_K:
        change_roe(st, decide, st[T.S_ART_ROE_SK], E.ROE_ART)
    elif target == C.TARGET_T2:
        change = st[T.S_ART_DEADLINE_T2]
        st[O.DEADLINE] = max(st[O.DEADLINE] + change, 0)
        log(st, E.DEADLINE, st[O.DEADLINE], change, 0, 0)
    else:
        change_roe(st, decide, st[T.S_ART_ROE_NO_ART], E.ROE_NO_ART)
