"""The fast engine's moves (Move Sequence 1-2, Generals and Orders, Movement Rules):
reference_move.py's, on the state of engine_state.py, die for die the same."""

from __future__ import annotations

from bollesim.balkan import defence, luck, ruleset, tactics
from bollesim.balkan.engine_ask import C_OBS, C_STOPPED, ask, ask_digit, observe
from bollesim.balkan.engine_state import (
    ABLE,
    ATT,
    BRIDGE,
    CMD,
    CONTACT,
    DIST,
    DONE,
    FAR,
    FAR_BANK,
    FORD,
    FORM,
    G_MOVE,
    G_ROAD,
    GAP,
    GDIGITS,
    GDIST,
    GENERAL_DIGIT,
    GENERALS,
    GLANE,
    GROUP,
    GUSED,
    HALT_AT,
    IMPASSABLE,
    LANE,
    LANES,
    MAY,
    MOVED,
    NEAR,
    ON,
    ONCE,
    ORDER,
    RALLY,
    RIVER,
    ROAD,
    SPARE_GENERAL,
    STATUS,
    apart,
    arc,
    crosses,
    crossing_ok,
    fill_near,
    gap,
    impassable,
    nearest,
    unmanaged,
)
from bollesim.rng import keyed_d6

STEP_PER_DIGIT = 2  # Movement Rules: 0.25 km for every unused digit


@unmanaged
def commands(gdist, glane, area, dist, lane):
    """reference.commands: a place within a general's Command Area (the general at gdist,
    glane; numbers, not arrays, as engine_state.arc says)."""
    return apart(gdist - dist, glane - lane) <= (5 * area) ** 2


@unmanaged
def move_phase(stream, bound, tab, gtab, ns, sc, side, params, st, gs, scratch, cas, ctl, decide):
    """reference_move.move_phase; the attacker's orders are asked (orders), and a decision
    where the control says stop ends the phase there."""
    for k in range(sc[GENERALS + side]):
        if k == 0:
            purpose = luck.MOVE if side == ATT else luck.MOVE_D
        else:
            purpose = luck.SUBORDINATE_A if side == ATT else luck.SUBORDINATE_D
        gs[GDIGITS, side, k] = max(0, keyed_d6(stream, bound, purpose) + gtab[side, k, ruleset.MOD])
        gs[GUSED, side, k] = 0
    if side != ATT and sc[RALLY] == 0:
        return
    for i in range(ns[side]):
        k = tab[side, i, ruleset.GENERAL]
        st[MOVED, side, i] = 0
        st[CMD, side, i] = st[STATUS, side, i] == ON and commands(
            gs[GDIST, side, k], gs[GLANE, side, k], gtab[side, k, ruleset.AREA], st[DIST, side, i], st[LANE, side, i])
    fresh = False  # the rows of general 0's choices stand as fill_choices would fill them
    if side == ATT:
        fresh = orders(stream, bound, tab, ns, sc, params, st, gs, scratch, cas, ctl, decide)
        if ctl[C_STOPPED]:
            return
        fresh = fresh and sc[GENERALS] == 1  # else pass_down fills them for another general
        pass_down(tab, gtab, ns, sc, params, st, gs, scratch)
    for k in range(sc[GENERALS + side]):
        spend(stream, bound, tab, ns, sc, side, k, params, st, gs, scratch, fresh and k == 0, cas, ctl, decide)
        if ctl[C_STOPPED]:
            return
        finish(tab, ns, sc, side, k, params, st, gs, scratch)


@unmanaged
def orders(stream, bound, tab, ns, sc, params, st, gs, scratch, cas, ctl, decide):
    """reference_move.orders: each arm's order for the bound (tactics.TROOPS_ADVANCE,
    GUNS_ADVANCE), asked for an arm with a stand that may be moved (row MAY, before any
    order) and short of the nearest an order could send it, into field ORDER (FULL for an arm not asked). Whether
    every order is FULL: then the rows of general 0's choices it filled stand unchanged."""
    n = ns[ATT]
    for i in range(n):
        st[ORDER, ATT, i] = tactics.FULL
    fill_choices(tab, ns, sc, ATT, 0, params, st, scratch)
    digits, every_full = 0, True
    for k in range(sc[GENERALS]):
        digits += gs[GDIGITS, ATT, k]
    for kind in range(tactics.TROOPS_ADVANCE, tactics.GUNS_ADVANCE + 1):
        movable, low, high, short = 0, FAR, 0, False
        for i in range(n):
            weapon = tab[ATT, i, ruleset.WEAPON]
            if scratch[MAY, i] and tactics.arm_of(weapon) == kind:
                movable += 1
                low, high = min(low, scratch[GAP, i]), max(high, scratch[GAP, i])
                short = short or scratch[GAP, i] > tactics.closest_stop(
                    weapon, tab[ATT, i, ruleset.EFFECTIVE], params)
        if not short:
            continue
        observe(ctl, bound, st, ns, cas)
        ctl[C_OBS + tactics.O_DIGITS], ctl[C_OBS + tactics.O_MOVABLE] = digits, movable
        ctl[C_OBS + tactics.O_NEAREST], ctl[C_OBS + tactics.O_FARTHEST] = low, high
        order = ask(ctl, decide, stream, sc, params, kind, tactics.N_ORDERS)
        if ctl[C_STOPPED]:
            return False
        every_full = every_full and order == tactics.FULL
        for i in range(n):
            if tactics.arm_of(tab[ATT, i, ruleset.WEAPON]) == kind:
                st[ORDER, ATT, i] = order
    return every_full


# ------------------------------------------------------------------ rows for the choices

@unmanaged
def fill_choices(tab, ns, sc, side, k, params, st, scratch):
    """The rows a general's choices read, in one pass over the side's stands: NEAR and
    NEAR_AT (fill_near), MAY (reference_move.may_move), ABLE (reference_move.able of
    general k), GAP (reference_move.gaps), DONE (reference_move.deployable, for
    tactics.reform) and the attacker's HALT_AT (reference_move.stops). Without lanes,
    touching the nearest enemy ahead is touching any."""
    fill_near(st, ns, sc, side, scratch)
    lanes, river = sc[LANES], sc[RIVER]
    for i in range(ns[side]):
        may = (st[STATUS, side, i] == ON and st[CMD, side, i] == 1 and not (sc[ONCE] and st[MOVED, side, i])
               and tactics.ordered(st[ORDER, side, i], st[MOVED, side, i]))
        here, lane = st[DIST, side, i], st[LANE, side, i]
        if not lanes:
            may = may and scratch[NEAR, i] != 1
        for e in range(ns[1 - side] if lanes and may else 0):
            if (st[STATUS, 1 - side, e] == ON and here + st[DIST, 1 - side, e] == 1
                    and arc(lanes, lane, st[LANE, 1 - side, e])):
                may = False
        if may and side == ATT and river > 0 and here == river and not crossing_ok(tab, st, sc, side, i):
            may = False
        scratch[MAY, i] = may
        scratch[ABLE, i] = may and tab[side, i, ruleset.GENERAL] == k
        scratch[GAP, i] = scratch[NEAR, i] if scratch[NEAR, i] < FAR else here
        scratch[DONE, i] = river == 0 or here < river
        if side == ATT:
            scratch[HALT_AT, i] = tactics.stop(tab[side, i, ruleset.WEAPON], st[ORDER, side, i],
                                               tab[side, i, ruleset.EFFECTIVE], tab[side, i, ruleset.MAXIMUM], params)
    if sc[IMPASSABLE] == 0:
        return
    for i in range(ns[side]):  # a column's line must not cover an impassable lane
        if not (scratch[DONE, i] and scratch[MAY, i] and st[FORM, side, i] == ruleset.COLUMN):
            continue
        n = together(tab, st, side, ns[side], i, scratch, MAY)
        for m in range(n):
            if impassable(sc[IMPASSABLE], st[LANE, side, i] - (n - 1) // 2 + m):
                scratch[DONE, i] = 0


@unmanaged
def fill_able(tab, ns, side, k, scratch):
    """reference_move.able of general k, into row ABLE (from row MAY)."""
    for i in range(ns[side]):
        scratch[ABLE, i] = scratch[MAY, i] and tab[side, i, ruleset.GENERAL] == k


# ------------------------------------------------------------------ Generals and Orders

@unmanaged
def pass_down(tab, gtab, ns, sc, params, st, gs, scratch):
    """reference_move.pass_down."""
    na = ns[ATT]
    if sc[GENERALS] == 1:
        return
    fill_choices(tab, ns, sc, ATT, 0, params, st, scratch)
    halts = scratch[HALT_AT, :na]
    spare = max(0, gs[GDIGITS, ATT, 0] - tactics.wanting(scratch[GAP, :na], halts, scratch[ABLE, :na]))
    for k in range(1, sc[GENERALS]):
        if not commands(gs[GDIST, ATT, 0], gs[GLANE, ATT, 0], gtab[ATT, 0, ruleset.AREA],
                        gs[GDIST, ATT, k], gs[GLANE, ATT, k]):
            continue
        fill_able(tab, ns, ATT, k, scratch)
        wanted = max(0, tactics.wanting(scratch[GAP, :na], halts, scratch[ABLE, :na])
                     - gs[GDIGITS, ATT, k])
        n = tactics.pass_down(spare, wanted)
        if n:
            gs[GDIGITS, ATT, 0] -= 2 * n
            spare -= 2 * n
            gs[GDIGITS, ATT, k] += n


@unmanaged
def spend(stream, bound, tab, ns, sc, side, k, params, st, gs, scratch, fresh, cas, ctl, decide):
    """reference_move.spend (fresh: the rows of the choices are filled for the first digit,
    by orders); the attacker's group for each digit asked (engine_ask.ask_digit), and a
    decision where the control says stop ends the spending there."""
    n = ns[side]
    while gs[GUSED, side, k] < gs[GDIGITS, side, k]:
        if not fresh:
            fill_choices(tab, ns, sc, side, k, params, st, scratch)
        fresh = False
        if side == ATT:
            j = tactics.reform(scratch[GAP, :n], st[FORM, side, :n], scratch[ABLE, :n], scratch[DONE, :n])
            if j >= 0:
                count = group(tab, ns, side, j, st, scratch)
                deploy(sc, side, st, scratch, count)
                gs[GUSED, side, k] += 1
                continue
            gap, halt_at, able = scratch[GAP, :n], scratch[HALT_AT, :n], scratch[ABLE, :n]
            far, near, troops, guns = tactics.leaders(gap, halt_at, able, tab[side, :n, ruleset.WEAPON])
            leader, want = far, 0
            if leader >= 0:
                code = ask_digit(ctl, decide, stream, sc, params, bound, st, ns, cas, gap, halt_at, able,
                                 far, near, troops, guns, gs[GDIGITS, side, k] - gs[GUSED, side, k])
                if ctl[C_STOPPED] or code == tactics.SPARE:
                    return  # I-SPARE: the digits left lengthen the moves (finish)
                leader = tactics.pick(code, far, near, troops, guns)
                want = tactics.part_of(gap[leader] - halt_at[leader], st[ORDER, side, leader],
                                       tab[side, leader, ruleset.MOVE])
        elif sc[RALLY]:
            leader, want = defence.rally(st[DIST, side, :n], scratch[ABLE, :n])
        else:
            return
        if leader < 0:
            return
        count = group(tab, ns, side, leader, st, scratch)
        move_group(tab, ns, sc, side, st, scratch, count, want, -1)
        for m in range(count):
            st[MOVED, side, scratch[GROUP, m]] = 1
        gs[GUSED, side, k] += 1


@unmanaged
def alike(general, dist, move, gun, form, lane, general_i, dist_i, move_i, gun_i, form_i, lane_i):
    """reference_move.together of two stands' (general, distance, rate, gun, formation,
    lane): the second moves with the group of the first."""
    return (general_i == general and dist_i == dist and move_i == move and gun_i == gun
            and form_i == form and (form != ruleset.COLUMN or lane_i == lane))


@unmanaged
def together(tab, st, side, n, h, scratch, flags):
    """The side's stands (of n) moving with the group of stand h, among those whose row
    `flags` is set, into row GROUP; how many."""
    general, dist, move = tab[side, h, ruleset.GENERAL], st[DIST, side, h], tab[side, h, ruleset.MOVE]
    gun, form, lane = tab[side, h, ruleset.WEAPON] == ruleset.ARTILLERY, st[FORM, side, h], st[LANE, side, h]
    count = 0
    for i in range(n):
        if scratch[flags, i] and alike(general, dist, move, gun, form, lane, tab[side, i, ruleset.GENERAL],
                                       st[DIST, side, i], tab[side, i, ruleset.MOVE],
                                       tab[side, i, ruleset.WEAPON] == ruleset.ARTILLERY,
                                       st[FORM, side, i], st[LANE, side, i]):
            scratch[GROUP, count] = i
            count += 1
    return count


@unmanaged
def group(tab, ns, side, h, st, scratch):
    """reference_move.group of stand h (from row MAY), into row GROUP; how many."""
    return together(tab, st, side, ns[side], h, scratch, MAY)


@unmanaged
def deploy(sc, side, st, scratch, count):
    """reference_move.deploy of the group in row GROUP."""
    lane = st[LANE, side, scratch[GROUP, 0]]
    for m in range(count):
        i = scratch[GROUP, m]
        st[FORM, side, i] = ruleset.LINE
        if sc[LANES]:
            st[LANE, side, i] = lane - (count - 1) // 2 + m


# ------------------------------------------------------------------ a move

@unmanaged
def on_road(sc, side, st, scratch, count):
    """reference_move.on_road of the group in row GROUP."""
    if sc[ROAD] < 0:
        return False
    for m in range(count):
        if st[LANE, side, scratch[GROUP, m]] != sc[ROAD]:
            return False
    return count == 1 or st[FORM, side, scratch[GROUP, 0]] == ruleset.COLUMN


@unmanaged
def out_of_contact(ns, sc, side, st, dist, lane):
    """reference_move.out_of_contact."""
    reach = (5 * sc[CONTACT]) ** 2
    for e in range(ns[1 - side]):
        if st[STATUS, 1 - side, e] == ON and apart(dist + st[DIST, 1 - side, e], lane - st[LANE, 1 - side, e]) <= reach:
            return False
    return True


@unmanaged
def closest(ns, sc, side, st, scratch, count):
    """reference_move.closest of the group in row GROUP. Without lanes its stands (at one
    distance) have every enemy in their arc: the nearest ahead sets the limit."""
    if not sc[LANES]:
        here = st[DIST, side, scratch[GROUP, 0]]
        _, r = nearest(st, ns, sc, side, scratch[GROUP, 0])
        return here + 1 - r if r < FAR else -FAR
    limit = -FAR
    for m in range(count):
        i = scratch[GROUP, m]
        for e in range(ns[1 - side]):
            if (st[STATUS, 1 - side, e] == ON and st[DIST, side, i] + st[DIST, 1 - side, e] >= 1
                    and arc(sc[LANES], st[LANE, side, i], st[LANE, 1 - side, e])):
                limit = max(limit, 1 - st[DIST, 1 - side, e])
    return limit


@unmanaged
def move_group(tab, ns, sc, side, st, scratch, count, want, extra):
    """reference_move.move_group of the group in row GROUP (extra -1: at its rate)."""
    head = scratch[GROUP, 0]
    here = st[DIST, side, head]
    goal, limit = here - want, closest(ns, sc, side, st, scratch, count)
    road_rate = difficult = FAR
    for m in range(count):
        road_rate = min(road_rate, tab[side, scratch[GROUP, m], ruleset.ROAD])
        difficult = min(difficult, tab[side, scratch[GROUP, m], ruleset.DIFFICULT])
    if extra >= 0:
        rate = extra
    elif on_road(sc, side, st, scratch, count) and out_of_contact(
            ns, sc, side, st, max(goal, here - road_rate, limit), st[LANE, side, head]):
        rate = road_rate
    else:
        rate = tab[side, head, ruleset.MOVE]
    to = max(goal, here - rate, limit)
    if side == ATT and crosses(sc[RIVER], here, to):
        every = True
        for m in range(count):
            every = every and crossing_ok(tab, st, sc, side, scratch[GROUP, m])
        if not every:
            to = sc[RIVER]
        elif sc[FAR_BANK]:
            to = max(to, sc[RIVER] - 1)
        elif extra < 0:
            across = max(goal, here - difficult, limit)
            to = across if across < sc[RIVER] else sc[RIVER]
    for m in range(count):
        st[DIST, side, scratch[GROUP, m]] = to


# ------------------------------------------------------------------ unused digits, the general's move

@unmanaged
def finish(tab, ns, sc, side, k, params, st, gs, scratch):
    """reference_move.finish."""
    found, dist, lane = destination(tab, ns, sc, side, k, st, scratch)
    moves = found and (dist != gs[GDIST, side, k] or lane != gs[GLANE, side, k]) and (
        sc[GENERAL_DIGIT] == 0 or gs[GUSED, side, k] < gs[GDIGITS, side, k])
    if moves and sc[GENERAL_DIGIT]:
        gs[GUSED, side, k] += 1
    unused = gs[GDIGITS, side, k] - gs[GUSED, side, k]
    extra = STEP_PER_DIGIT * unused
    if unused and sc[SPARE_GENERAL] == 0:
        lengthen(tab, ns, sc, side, k, extra, params, st, scratch)
        extra = 0
    if moves:
        general_moves(ns, sc, side, k, dist, lane, extra, st, gs)


@unmanaged
def destination(tab, ns, sc, side, k, st, scratch):
    """reference_move.destination: (found, dist, lane), the bulk of the general's stands
    (reference_state.bulk), their places gathered in rows GROUP and DONE (without lanes
    every lane is 0)."""
    count = 0
    for i in range(ns[side]):
        if st[STATUS, side, i] == ON and tab[side, i, ruleset.GENERAL] == k:
            scratch[GROUP, count], scratch[DONE, count] = st[DIST, side, i], st[LANE, side, i]
            count += 1
    if count == 0:
        return False, 0, 0
    if side == ATT:
        dist = tactics.general_to(scratch[GROUP, :count])
        return True, dist, tactics.general_to(scratch[DONE, :count]) if sc[LANES] else 0
    dist = defence.general_to(scratch[GROUP, :count])
    return True, dist, defence.general_to(scratch[DONE, :count]) if sc[LANES] else 0


@unmanaged
def lengthen(tab, ns, sc, side, k, extra, params, st, scratch):
    """reference_move.lengthen (row MAY: the moved stands not yet lengthened)."""
    n = ns[side]
    for i in range(n):
        scratch[MAY, i] = st[STATUS, side, i] == ON and st[MOVED, side, i] == 1
    for h in range(n):
        if not (scratch[MAY, h] and tab[side, h, ruleset.GENERAL] == k):
            continue
        count = together(tab, st, side, n, h, scratch, MAY)
        for m in range(count):
            scratch[MAY, scratch[GROUP, m]] = 0
        if side == ATT and not tactics.lengthened(st[ORDER, side, h]):
            continue  # a halted or part move is not lengthened (tactics.py's readings)
        if side == ATT:
            want = gap(st, ns, sc, side, h) - tactics.stop(
                tab[side, h, ruleset.WEAPON], st[ORDER, side, h], tab[side, h, ruleset.EFFECTIVE],
                tab[side, h, ruleset.MAXIMUM], params)
        else:
            want = st[DIST, side, h]
        if want > 0:
            move_group(tab, ns, sc, side, st, scratch, count, want, extra)


@unmanaged
def general_moves(ns, sc, side, k, dist, lane, extra, st, gs):
    """reference_move.general_moves."""
    gd, gl = gs[GDIST, side, k], gs[GLANE, side, k]
    road = sc[ROAD] >= 0 and gl == sc[ROAD] and out_of_contact(ns, sc, side, st, gd, gl)
    budget = 5 * ((sc[G_ROAD] if road else sc[G_MOVE]) + extra)
    lanes, way = 0, 1 if lane > gl else -1
    while lanes < min(abs(lane - gl), budget // 8) and not impassable(sc[IMPASSABLE], gl + way * (lanes + 1)):
        lanes += 1
    gl += way * lanes
    steps = min(abs(dist - gd), (budget - 8 * lanes) // 5)
    end = gd + (steps if dist > gd else -steps)
    river = sc[RIVER]
    crossing = (sc[BRIDGE] >= 0 and gl == sc[BRIDGE]) or (sc[FORD] >= 0 and gl == sc[FORD])
    if side == ATT and crosses(river, gd, end) and not crossing:
        end = river if gd >= river else river - 1
    gs[GDIST, side, k], gs[GLANE, side, k] = end, gl
