"""§6 Execution phase (reference: reference/execution.py): airstrike, moves, fire."""

from bollesim.bits import lowest
from bollesim.bollebank import codes, decisions, events, luck, observation
from bollesim.bollebank.engine import draws, layout, tables
from bollesim.bollebank.engine.core import (
    ability_at,
    ability_ready,
    adjacent,
    d6_cuts,
    distance,
    fill,
    has,
    last_chit,
    log,
    marker_un,
    next_step,
    pick,
    pick_in,
    pool_append,
    pos,
    pos_un,
    release_tow,
    spend_ability,
    track_changed,
    track_len,
    vx,
    within_reach,
)
from bollesim.bollebank.engine.end import note_tango2
from bollesim.bollebank.engine.player import ask, ask_yes_no
from bollesim.jit import compiled


@compiled
def execution_phase(st, decide):
    """§4 step 2: a. airstrike, b. moves, c. fire, d. remove stun markers."""
    commander_checks(st)
    airstrike(st)
    move_step(st, decide)
    fire_step(st, decide)
    for v in range(tables.NV):
        if st[vx(v, observation.V_STUN)]:
            st[vx(v, observation.V_STUN)] = 0
            log(st, events.STUN_CLEARED, v, 0, 0, 0)
        st[vx(v, observation.V_SKIP)] = 0


@compiled
def commander_checks(st):
    """§7.1.3: commander killed: acts on 1-4, skips the turn on 5-6."""
    for v in range(tables.NV):
        if st[vx(v, observation.V_KIA)]:
            die = d6_cuts(st, luck.COMMANDER, st[tables.S_KIA_ACTS_MAX] + 1, draws.NO_CUT)
            skip = die > st[tables.S_KIA_ACTS_MAX]
            st[vx(v, observation.V_SKIP)] = skip
            log(st, events.COMMANDER_CHECK, v, die, not skip, 0)


@compiled(inline=True)
def regular_chits(st, t):
    return track_len(st, t) - (t == codes.ART)


@compiled(inline=True)
def remove_last(st, t):
    """Return a track's last chit to the pool; the setup marker flips instead (§6.3)."""
    chit = last_chit(st, t)
    if chit == st[tables.S_SETUP_CHIT]:
        st[layout.X_SETUP_FLIPPED] = 1
        track_changed(st, t)
        log(st, events.SETUP_FLIPPED, 0, 0, 0, 0)
        return
    st[observation.TRACK_LEN + t] -= 1
    track_changed(st, t)
    pool_append(st, chit)
    log(st, events.REMOVED, chit, t, 0, 0)


@compiled
def airstrike(st):
    """§6.1, I-AIR: every track keeps half its chits, rounded down (or up)."""
    if not st[observation.AIRSTRIKE_PENDING]:
        return
    ceil = st[tables.S_AIR_LEAVES] == codes.AIR_CEIL
    removed = layout.SCRATCH_REMOVED  # chits removed per track
    for t in range(codes.N_TRACKS):
        n = regular_chits(st, t)
        keep = (n + 1) // 2 if ceil else n // 2
        st[removed + t] = n - keep
        for _ in range(n - keep):
            remove_last(st, t)
    st[observation.AIRSTRIKE_PENDING] = 0
    st[layout.X_AIRSTRIKE_TURN] = st[observation.TURN]
    log(st, events.AIRSTRIKE, st[removed], st[removed + 1], st[removed + 2], st[removed + 3])


# ------------------------------------------------------------------ §6.2 move and tow


@compiled(inline=True)
def heading(st, v):
    if st[vx(v, observation.V_TOWED_BY)] >= 0:
        return -1
    if st[vx(v, observation.V_ORDER)] == codes.TOW and st[vx(v, observation.V_TOWING)] < 0:
        return pos(st, st[vx(v, observation.V_TOW_TARGET)])
    return st[vx(v, observation.V_DEST)]


@compiled(inline=True)
def wants_to_move(st, v):
    h = heading(st, v)
    return h != -1 and h != pos(st, v)


@compiled(inline=True)
def undamaged(st, v):
    return st[vx(v, observation.V_LIGHT)] == 0 and st[vx(v, observation.V_HEAVY)] == 0


@compiled
def may_move(st, v, extra):
    """§6, §6.2, §7.1.3: stun, skip, tracks, red hull; night vision rolls."""
    reason = -1
    if st[vx(v, observation.V_STUN)]:
        reason = events.STUNNED
    elif st[vx(v, observation.V_SKIP)]:
        reason = events.SKIPPING
    elif has(st, v, observation.V_HEAVY, codes.TRACKS):
        reason = events.IMMOBILE
    elif has(st, v, observation.V_HEAVY, codes.HULL) and not st[vx(v, observation.V_HULL_GREEN)] and not extra:
        reason = events.HULL_RED
    if reason >= 0:
        log(st, events.NOT_MOVED, v, reason, -1, 0)
        return False
    if has(st, v, observation.V_LIGHT, codes.NIGHT_VISION):
        helpers = 0
        here = pos(st, v)
        for p in range(tables.NP):
            if adjacent(st, here, p):
                for o in range(tables.NV):
                    if pos(st, o) == p and undamaged(st, o):
                        helpers += 1
                        break
        fails = st[tables.S_NV_FAIL_MIN] - helpers * st[tables.S_NV_ADJ_DRM]
        die = d6_cuts(st, luck.NIGHT_VISION, fails, draws.NO_CUT)
        if die + helpers * st[tables.S_NV_ADJ_DRM] >= st[tables.S_NV_FAIL_MIN]:
            log(st, events.NOT_MOVED, v, events.NIGHT_VISION_FAILED, die, 0)
            return False
    return True


@compiled(inline=True)
def step(st, v):
    return next_step(st, pos(st, v), heading(st, v))


@compiled
def move_step(st, decide):
    """§6.2, then the optional APC rule and tows hook up; QL1's Extra move before or
    after, as the player chooses."""
    nv = tables.NV
    extra_move(st, decide, decisions.EXTRA_MOVE_BEFORE)
    fill(st, layout.SCRATCH_TARGET, nv, -1)
    for v in range(nv):
        if wants_to_move(st, v) and may_move(st, v, False):
            st[layout.SCRATCH_TARGET + v] = step(st, v)
    perform_moves(st, decide, layout.SCRATCH_TARGET)
    if st[tables.S_APC_DOUBLE] and st[layout.X_TANK_REACHED_KAL]:  # §6.2 optional rule
        fill(st, layout.SCRATCH_SECOND, tables.NV, -1)
        for v in range(tables.NV):
            if (
                st[layout.SCRATCH_MOVED + v]
                and not st[tables.IS_TANK + v]
                and st[tables.APC_SECOND_FROM + pos(st, v)]
                and wants_to_move(st, v)
                and may_move(st, v, False)
            ):
                st[layout.SCRATCH_SECOND + v] = step(st, v)
        perform_moves(st, decide, layout.SCRATCH_SECOND)
    hook_tows(st, decide)
    extra_move(st, decide, decisions.EXTRA_MOVE)


@compiled(inline=True)
def final(st, moves, v):
    """Where v stands once the moves are made (moves: the offset in st of nine next
    positions, -1: stays)."""
    return pos(st, v) if st[moves + v] < 0 else st[moves + v]


@compiled(inline=True)
def counts_for_stacking(st, moves, v):
    """§5.4.3: a towed tank, or one its rescuer is reaching, does not count."""
    if st[vx(v, observation.V_TOWED_BY)] >= 0:
        return False
    for r in range(tables.NV):
        if (
            st[vx(r, observation.V_ORDER)] == codes.TOW
            and st[vx(r, observation.V_TOWING)] < 0
            and st[vx(r, observation.V_TOW_TARGET)] == v
            and final(st, moves, r) == pos(st, v)
        ):
            return False
    return True


@compiled
def overfull_position(st, moves):
    """The first position a move fills beyond its stacking limit, or -1."""
    nv = tables.NV
    arriving = 0  # bit mask of the positions someone moves into
    towing = False  # a tow order is under way: the §5.4.3 exceptions may apply
    for v in range(nv):
        if st[moves + v] >= 0:
            arriving |= 1 << st[moves + v]
        towing = towing or st[vx(v, observation.V_ORDER)] == codes.TOW or st[vx(v, observation.V_TOWED_BY)] >= 0
    while arriving:  # in position order
        p = lowest(arriving)
        arriving &= arriving - 1
        count = 0
        for v in range(nv):
            if final(st, moves, v) == p and (not towing or counts_for_stacking(st, moves, v)):
                count += 1
        if count > st[tables.POS_STACK + p]:
            return p
    return -1


@compiled
def perform_moves(st, decide, moves):
    """Move all at once (st[moves + v]: v's next position, -1: stays); stacking judged
    after all moves, the player picks who keeps the move into an overfull position
    (§6.2). Who moved: st[SCRATCH_MOVED + v]."""
    nv = tables.NV
    keep = layout.SCRATCH_KEEP
    while True:
        over = overfull_position(st, moves)
        if over < 0:
            break
        stayers = 0
        for v in range(nv):
            if (
                st[moves + v] != over
                and counts_for_stacking(st, moves, v)
                and final(st, moves, v) == over
            ):
                stayers += 1
        fill(st, keep, nv, 0)
        kept = 0
        while kept < st[tables.POS_STACK + over] - stayers:
            n = 0
            for v in range(nv):
                if st[moves + v] == over and not st[keep + v]:
                    st[layout.OPTS + n] = v
                    n += 1
            st[keep + ask(st, decide, decisions.STACK_PRIORITY, n, 0, over)] = 1
            kept += 1
        for v in range(nv):
            if st[moves + v] == over and not st[keep + v]:
                st[moves + v] = -1
                log(st, events.NOT_MOVED, v, events.STACKING, -1, 0)
    moved = layout.SCRATCH_MOVED
    entered = 0  # bit mask of the positions a mover now stands on
    for v in range(nv):
        to = st[moves + v]
        st[moved + v] = to >= 0
        if to < 0:
            continue
        log(st, events.MOVE, v, pos(st, v), to, 0)
        st[vx(v, observation.V_POS)] = to
        entered |= 1 << to
        if st[tables.IS_TANK + v] and to == st[tables.S_KALESIJA]:
            st[layout.X_TANK_REACHED_KAL] = 1
        towed = st[vx(v, observation.V_TOWING)]
        if towed >= 0:
            st[vx(towed, observation.V_POS)] = to
    while entered:  # §6.2 first entry: enemy-action marker, in position order
        p = lowest(entered)
        entered &= entered - 1
        if st[tables.POS_EAM_POOL + p] and st[observation.MARKER + p] < 0:
            draw_marker(st, p)
    for v in range(nv):
        if st[moved + v]:
            arrive(st, v)
    if st[tables.S_T2_REACHED_AT] == codes.T2_AT_ANY_MOMENT:
        note_tango2(st)



@compiled
def draw_marker(st, p):
    """§6.2: a marker from the position's pool; a 7-8-9 marker lands on a random side."""
    k = st[tables.POS_EAM_POOL + p] - 1
    n = st[layout.X_N_MPOOL + k]
    i = pick_in(st, layout.MPOOLS + layout.MPOOL_CAP * k, n, luck.MARKER, draws.MARKERS)
    marker = st[layout.MPOOLS + layout.MPOOL_CAP * k + i]
    st[layout.MPOOLS + layout.MPOOL_CAP * k + i] = st[layout.MPOOLS + layout.MPOOL_CAP * k + n - 1]
    st[layout.X_N_MPOOL + k] = n - 1
    side = pick(st, 2, luck.MARKER_SIDE) if st[tables.POS_EAM_POOL + p] == codes.POOL_789 else 0
    st[observation.MARKER + p] = 2 * marker + side
    log(st, events.MARKER_DRAWN, p, marker, side, 0)


@compiled(inline=True)
def arrive(st, v):
    """§6.2: the Move marker comes back at the destination; a tow there ends."""
    if pos(st, v) != st[vx(v, observation.V_DEST)]:
        return
    towed = st[vx(v, observation.V_TOWING)]
    if towed >= 0:
        log(st, events.TOW_DONE, v, towed, pos(st, v), 0)
        release_tow(st, v)
        return
    if st[vx(v, observation.V_ORDER)] == codes.TOW:
        return
    st[vx(v, observation.V_ORDER)] = codes.NO_ORDER
    st[vx(v, observation.V_DEST)] = -1
    log(st, events.ARRIVED, v, pos(st, v), 0, 0)


@compiled
def hook_tows(st, decide):
    """§5.4.3: a rescuer stacked with its tank takes it in tow to a nearest other CP."""
    for r in range(tables.NV):
        if st[vx(r, observation.V_ORDER)] != codes.TOW or st[vx(r, observation.V_TOWING)] >= 0:
            continue
        damaged = st[vx(r, observation.V_TOW_TARGET)]
        if st[vx(damaged, observation.V_TOWED_BY)] >= 0:
            st[vx(r, observation.V_ORDER)] = codes.NO_ORDER
            st[vx(r, observation.V_DEST)] = -1
            st[vx(r, observation.V_TOW_TARGET)] = -1
            continue
        here = pos(st, r)
        if pos(st, damaged) != here:
            st[vx(r, observation.V_DEST)] = pos(st, damaged)
            continue
        nearest = 1 << 30
        for p in range(tables.NP):
            if st[tables.POS_KIND + p] == codes.CP and p != here:
                nearest = min(nearest, distance(st, here, p))
        # I-TOW-CP: from a contact point, any other one (or, read so, a nearest one)
        anywhere = st[tables.POS_KIND + here] == codes.CP and st[tables.S_TOW_FROM_CP] == codes.TOW_ANY_CP
        n = 0
        for p in range(tables.NP):
            if (
                st[tables.POS_KIND + p] == codes.CP
                and p != here
                and (anywhere or distance(st, here, p) == nearest)
            ):
                st[layout.OPTS + n] = p
                n += 1
        dest = ask(st, decide, decisions.TOW_DESTINATION, n, 0, 0)
        st[vx(r, observation.V_TOWING)] = damaged
        st[vx(r, observation.V_DEST)] = dest
        st[vx(r, observation.V_TOW_TARGET)] = -1
        st[vx(damaged, observation.V_TOWED_BY)] = r
        log(st, events.TOW_HOOKED, r, damaged, dest, 0)


@compiled
def extra_move(st, decide, kind):
    """§5.5 Extra move, before the Move step (kind EXTRA_MOVE_BEFORE) or after it."""
    a = ability_ready(st, codes.EXTRA_MOVE)
    if a < 0:
        return
    st[layout.OPTS] = -1
    n = 1
    for v in range(tables.NV):
        if (
            within_reach(st, a, v)
            and wants_to_move(st, v)
            and st[vx(v, observation.V_TOWING)] < 0
            and not st[vx(v, observation.V_STUN)]
            and not st[vx(v, observation.V_SKIP)]
            and not has(st, v, observation.V_HEAVY, codes.TRACKS)
        ):
            st[layout.OPTS + n] = v
            n += 1
    if n == 1:
        return
    choice = ask(st, decide, kind, n, a, 0)
    if choice < 0:
        return
    spend_ability(st, a)
    if may_move(st, choice, True):
        fill(st, layout.SCRATCH_EXTRA, tables.NV, -1)
        st[layout.SCRATCH_EXTRA + choice] = step(st, choice)
        perform_moves(st, decide, layout.SCRATCH_EXTRA)


# ------------------------------------------------------------------ §6.3 fire


@compiled(inline=True)
def has_icon(st, p, t):
    marker = st[observation.MARKER + p]
    if marker >= 0:
        return marker_un(st, marker // 2, marker % 2, t) == 1
    return pos_un(st, p, t) == 1


@compiled
def able_to_fire(st, v):
    """A tank on its Fire side, free to act, with icons where it stands (§6.3)."""
    if (
        not st[tables.IS_TANK + v]
        or not st[vx(v, observation.V_FIRE)]
        or st[vx(v, observation.V_STUN)]
        or st[vx(v, observation.V_SKIP)]
    ):
        return False
    if (
        has(st, v, observation.V_HEAVY, codes.TURRET)
        or st[vx(v, observation.V_TOWING)] >= 0
        or st[vx(v, observation.V_TOWED_BY)] >= 0
    ):
        return False
    here = pos(st, v)
    if st[tables.POS_INDIRECT + here] and has(st, v, observation.V_LIGHT, codes.SIGHTS):
        return False
    for t in range(codes.N_TRACKS):
        if has_icon(st, here, t):
            return True
    return False


@compiled
def fire_targets(st, v, out):
    """Tracks whose last chit v may remove (§6.3 letters, flipped setup marker), written
    to st[out:]; returns how many."""
    here = pos(st, v)
    n = 0
    for t in range(codes.N_TRACKS):
        if not has_icon(st, here, t) or track_len(st, t) == 0:
            continue
        last = last_chit(st, t)
        if last == st[tables.S_SETUP_CHIT] and st[layout.X_SETUP_FLIPPED]:
            continue
        if (
            t != codes.ART
            and st[tables.POS_KIND + here] == codes.OW
            and st[tables.CHIT_LETTER + last] != st[tables.POS_LETTER + here]
        ):
            continue
        st[out + n] = t
        n += 1
    return n


@compiled
def fire_step(st, decide):
    """§6.3: Direct their fire first, the Fire orders in the player's order, Extra fire
    last, then the depot."""
    nv = tables.NV
    tracks = layout.SCRATCH_TRACKS
    direct = False
    a = ability_ready(st, codes.DIRECT_THEIR_FIRE)
    if a >= 0 and ability_at(st, a, tables.S_DIRECT_FIRE_AT):
        worth = False
        for v in range(nv):
            if (
                able_to_fire(st, v)
                and st[tables.POS_INDIRECT + (pos(st, v))]
                and fire_targets(st, v, tracks) > 0
            ):
                worth = True
        if worth and ask_yes_no(st, decide, decisions.USE_ABILITY, a):
            spend_ability(st, a)
            direct = True
    rolls = layout.SCRATCH_ROLLS  # st[rolls]: count, then the dice of the indirect shots
    st[rolls] = 0
    ready = 0  # the tanks still to carry out their Fire order (firing changes no tank)
    for v in range(nv):
        if able_to_fire(st, v):
            ready |= 1 << v
    while ready:  # §11: "execute the Fire orders in any order desired"
        n = 0
        left = ready
        while left:
            st[layout.OPTS + n] = lowest(left)
            n += 1
            left &= left - 1
        v = ask(st, decide, decisions.FIRE_ORDER, n, 0, 0)
        ready &= ~(1 << v)
        fire_once(st, decide, v, direct, rolls)
    a = ability_ready(st, codes.EXTRA_FIRE)
    if a >= 0:
        st[layout.OPTS] = -1
        n = 1
        for v in range(nv):
            if within_reach(st, a, v) and able_to_fire(st, v) and fire_targets(st, v, tracks) > 0:
                st[layout.OPTS + n] = v
                n += 1
        if n > 1:
            choice = ask(st, decide, decisions.EXTRA_FIRE, n, a, 0)
            if choice >= 0:
                spend_ability(st, a)
                fire_once(st, decide, choice, direct, rolls)
    if st[rolls] >= st[tables.S_DEPOT_ROLLS]:
        all_ones = True
        for i in range(st[rolls]):
            if st[rolls + 1 + i] != 1:
                all_ones = False
        if all_ones:
            ammunition_depot(st, decide)


@compiled
def fire_once(st, decide, v, direct, rolls):
    """One attack: direct hits, indirect 1-5 (Direct their fire: always), sights 1-2."""
    n = fire_targets(st, v, layout.OPTS)
    if n == 0:
        return
    t = ask(st, decide, decisions.FIRE_TARGET, n, v, 0)
    die = 0
    hit = True
    here = pos(st, v)
    if st[tables.POS_INDIRECT + here]:
        die = d6_cuts(st, luck.UN_FIRE, 2, st[tables.S_INDIRECT_MAX] + 1)  # a 1 counts (depot)
        st[rolls + 1 + st[rolls]] = die
        st[rolls] += 1
        hit = direct or die <= st[tables.S_INDIRECT_MAX]
    elif has(st, v, observation.V_LIGHT, codes.SIGHTS):
        die = d6_cuts(st, luck.UN_FIRE, st[tables.S_SIGHTS_MAX] + 1, draws.NO_CUT)
        hit = die <= st[tables.S_SIGHTS_MAX]
    log(st, events.FIRE, v, t, die, hit)
    if hit:
        remove_last(st, t)


@compiled
def ammunition_depot(st, decide):
    """§6.3: one track of the player's choice is emptied."""
    n = 0
    for t in range(codes.N_TRACKS):
        if regular_chits(st, t) > 0 or (t == codes.ART and not st[layout.X_SETUP_FLIPPED]):
            st[layout.OPTS + n] = t
            n += 1
    if n == 0:
        return
    t = ask(st, decide, decisions.DEPOT_TRACK, n, 0, 0)
    log(st, events.DEPOT, t, 0, 0, 0)
    while regular_chits(st, t) > 0 or (t == codes.ART and not st[layout.X_SETUP_FLIPPED]):
        remove_last(st, t)
