"""The fast engine's moves (Move Sequence 1-2, Generals and Orders, Movement Rules):
reference_move.py's, on the state of engine_state.py, die for die the same."""

from __future__ import annotations

from bollesim.balkan import defence, luck, ruleset, tactics
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
    LANE,
    LANES,
    MOVED,
    ON,
    ONCE,
    RALLY,
    RIVER,
    ROAD,
    SPARE_GENERAL,
    STATUS,
    apart,
    can_cross,
    crosses,
    gap,
    in_arc,
)
from bollesim.jit import compiled
from bollesim.rng import keyed_d6

STEP_PER_DIGIT = 2  # Movement Rules: 0.25 km for every unused digit


@compiled
def commands(gs, gtab, s, k, dist, lane):
    """reference.commands: a place on side s within general k's Command Area."""
    return apart(gs[GDIST, s, k] - dist, gs[GLANE, s, k] - lane) <= (5 * gtab[s, k, ruleset.AREA]) ** 2


@compiled
def move_phase(stream, bound, tab, gtab, ns, sc, side, params, st, gs, scratch):
    """reference_move.move_phase."""
    for k in range(sc[GENERALS + side]):
        if k == 0:
            purpose = luck.MOVE if side == ATT else luck.MOVE_D
        else:
            purpose = luck.SUBORDINATE_A if side == ATT else luck.SUBORDINATE_D
        gs[GDIGITS, side, k] = max(0, keyed_d6(stream, bound, purpose) + gtab[side, k, ruleset.MOD])
        gs[GUSED, side, k] = 0
    for i in range(ns[side]):
        st[MOVED, side, i] = 0
        st[CMD, side, i] = st[STATUS, side, i] == ON and commands(
            gs, gtab, side, tab[side, i, ruleset.GENERAL], st[DIST, side, i], st[LANE, side, i])
    if side == ATT:
        pass_down(tab, gtab, ns, sc, params, st, gs, scratch)
    for k in range(sc[GENERALS + side]):
        spend(tab, ns, sc, side, k, params, st, gs, scratch)
        finish(tab, ns, sc, side, k, params, st, gs, scratch)


# ------------------------------------------------------------------ rows for the choices

@compiled
def fill_able(tab, ns, sc, side, k, st, scratch):
    """reference_move.able, into row ABLE."""
    for i in range(ns[side]):
        scratch[ABLE, i] = tab[side, i, ruleset.GENERAL] == k and may_move(tab, ns, sc, side, i, st)


@compiled
def may_move(tab, ns, sc, side, i, st):
    """reference_move.may_move."""
    if st[STATUS, side, i] != ON or st[CMD, side, i] == 0 or (sc[ONCE] and st[MOVED, side, i]):
        return False
    for e in range(ns[1 - side]):
        r = st[DIST, side, i] + st[DIST, 1 - side, e]
        if st[STATUS, 1 - side, e] == ON and r >= 1 and in_arc(st, sc, side, i, e) and r <= 1:
            return False
    return not (side == ATT and sc[RIVER] > 0 and st[DIST, side, i] == sc[RIVER]
                and not can_cross(tab, st, sc, side, i, st[LANE, side, i]))


@compiled
def fill_gaps(ns, sc, side, st, scratch):
    """reference_move.gaps, into row GAP."""
    for i in range(ns[side]):
        scratch[GAP, i] = gap(st, ns, sc, side, i)


# ------------------------------------------------------------------ Generals and Orders

@compiled
def pass_down(tab, gtab, ns, sc, params, st, gs, scratch):
    """reference_move.pass_down."""
    na = ns[ATT]
    if sc[GENERALS] == 1:
        return
    fill_gaps(ns, sc, ATT, st, scratch)
    weapon = tab[ATT, :na, ruleset.WEAPON]
    fill_able(tab, ns, sc, ATT, 0, st, scratch)
    spare = max(0, gs[GDIGITS, ATT, 0] - tactics.wanting(scratch[GAP, :na], weapon, scratch[ABLE, :na], params))
    for k in range(1, sc[GENERALS]):
        if not commands(gs, gtab, ATT, 0, gs[GDIST, ATT, k], gs[GLANE, ATT, k]):
            continue
        fill_able(tab, ns, sc, ATT, k, st, scratch)
        wanted = max(0, tactics.wanting(scratch[GAP, :na], weapon, scratch[ABLE, :na], params)
                     - gs[GDIGITS, ATT, k])
        n = tactics.pass_down(spare, wanted)
        if n:
            gs[GDIGITS, ATT, 0] -= 2 * n
            spare -= 2 * n
            gs[GDIGITS, ATT, k] += n


@compiled
def spend(tab, ns, sc, side, k, params, st, gs, scratch):
    """reference_move.spend."""
    n = ns[side]
    while gs[GUSED, side, k] < gs[GDIGITS, side, k]:
        fill_able(tab, ns, sc, side, k, st, scratch)
        if side == ATT:
            fill_gaps(ns, sc, side, st, scratch)
            for i in range(n):
                scratch[DONE, i] = sc[RIVER] == 0 or st[DIST, side, i] < sc[RIVER]
            j = tactics.reform(scratch[GAP, :n], st[FORM, side, :n], scratch[ABLE, :n], scratch[DONE, :n])
            if j >= 0:
                count = group(tab, ns, sc, side, j, st, scratch)
                deploy(sc, side, st, scratch, count)
                gs[GUSED, side, k] += 1
                continue
            leader, want = tactics.advance(scratch[GAP, :n], tab[side, :n, ruleset.WEAPON],
                                           scratch[ABLE, :n], params)
        elif sc[RALLY]:
            leader, want = defence.rally(st[DIST, side, :n], scratch[ABLE, :n])
        else:
            return
        if leader < 0:
            return
        count = group(tab, ns, sc, side, leader, st, scratch)
        move_group(tab, ns, sc, side, st, scratch, count, want, -1)
        for m in range(count):
            st[MOVED, side, scratch[GROUP, m]] = 1
        gs[GUSED, side, k] += 1


@compiled
def together(tab, st, side, h, i):
    """reference_move.together: stand i moves with the group of stand h."""
    return (tab[side, i, ruleset.GENERAL] == tab[side, h, ruleset.GENERAL]
            and st[DIST, side, i] == st[DIST, side, h]
            and tab[side, i, ruleset.MOVE] == tab[side, h, ruleset.MOVE]
            and ((tab[side, i, ruleset.WEAPON] == ruleset.ARTILLERY)
                 == (tab[side, h, ruleset.WEAPON] == ruleset.ARTILLERY))
            and st[FORM, side, i] == st[FORM, side, h]
            and (st[FORM, side, h] != ruleset.COLUMN or st[LANE, side, i] == st[LANE, side, h]))


@compiled
def group(tab, ns, sc, side, h, st, scratch):
    """reference_move.group of stand h, into row GROUP; how many."""
    count = 0
    for i in range(ns[side]):
        if may_move(tab, ns, sc, side, i, st) and together(tab, st, side, h, i):
            scratch[GROUP, count] = i
            count += 1
    return count


@compiled
def deploy(sc, side, st, scratch, count):
    """reference_move.deploy of the group in row GROUP."""
    lane = st[LANE, side, scratch[GROUP, 0]]
    for m in range(count):
        i = scratch[GROUP, m]
        st[FORM, side, i] = ruleset.LINE
        if sc[LANES]:
            st[LANE, side, i] = lane - (count - 1) // 2 + m


# ------------------------------------------------------------------ a move

@compiled
def on_road(sc, side, st, scratch, count):
    """reference_move.on_road of the group in row GROUP."""
    if sc[ROAD] < 0:
        return False
    for m in range(count):
        if st[LANE, side, scratch[GROUP, m]] != sc[ROAD]:
            return False
    return count == 1 or st[FORM, side, scratch[GROUP, 0]] == ruleset.COLUMN


@compiled
def out_of_contact(ns, sc, side, st, dist, lane):
    """reference_move.out_of_contact."""
    reach = (5 * sc[CONTACT]) ** 2
    for e in range(ns[1 - side]):
        if st[STATUS, 1 - side, e] == ON and apart(dist + st[DIST, 1 - side, e], lane - st[LANE, 1 - side, e]) <= reach:
            return False
    return True


@compiled
def closest(ns, sc, side, st, scratch, count):
    """reference_move.closest of the group in row GROUP."""
    limit = -FAR
    for m in range(count):
        i = scratch[GROUP, m]
        for e in range(ns[1 - side]):
            if (st[STATUS, 1 - side, e] == ON and st[DIST, side, i] + st[DIST, 1 - side, e] >= 1
                    and in_arc(st, sc, side, i, e)):
                limit = max(limit, 1 - st[DIST, 1 - side, e])
    return limit


@compiled
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
    if side == ATT and crosses(sc, here, to):
        every = True
        for m in range(count):
            i = scratch[GROUP, m]
            every = every and can_cross(tab, st, sc, side, i, st[LANE, side, i])
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

@compiled
def finish(tab, ns, sc, side, k, params, st, gs, scratch):
    """reference_move.finish."""
    found, dist, lane = destination(tab, ns, side, k, st, scratch)
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


@compiled
def destination(tab, ns, side, k, st, scratch):
    """reference_move.destination: (found, dist, lane), the bulk of the general's stands
    (reference_state.bulk), their places gathered in rows GROUP and DONE."""
    count = 0
    for i in range(ns[side]):
        if st[STATUS, side, i] == ON and tab[side, i, ruleset.GENERAL] == k:
            scratch[GROUP, count], scratch[DONE, count] = st[DIST, side, i], st[LANE, side, i]
            count += 1
    if count == 0:
        return False, 0, 0
    if side == ATT:
        return True, tactics.general_to(scratch[GROUP, :count]), tactics.general_to(scratch[DONE, :count])
    return True, defence.general_to(scratch[GROUP, :count]), defence.general_to(scratch[DONE, :count])


@compiled
def lengthen(tab, ns, sc, side, k, extra, params, st, scratch):
    """reference_move.lengthen."""
    n = ns[side]
    for i in range(n):
        scratch[DONE, i] = 0
    for h in range(n):
        mine = st[STATUS, side, h] == ON and st[MOVED, side, h] and tab[side, h, ruleset.GENERAL] == k
        if not mine or scratch[DONE, h]:
            continue
        count = 0
        for i in range(n):
            if st[STATUS, side, i] == ON and st[MOVED, side, i] and together(tab, st, side, h, i):
                scratch[GROUP, count] = i
                scratch[DONE, i] = 1
                count += 1
        if side == ATT:
            want = gap(st, ns, sc, side, h) - tactics.halt(tab[side, h, ruleset.WEAPON], params)
        else:
            want = st[DIST, side, h]
        if want > 0:
            move_group(tab, ns, sc, side, st, scratch, count, want, extra)


@compiled
def general_moves(ns, sc, side, k, dist, lane, extra, st, gs):
    """reference_move.general_moves."""
    gd, gl = gs[GDIST, side, k], gs[GLANE, side, k]
    road = sc[ROAD] >= 0 and gl == sc[ROAD] and out_of_contact(ns, sc, side, st, gd, gl)
    budget = 5 * ((sc[G_ROAD] if road else sc[G_MOVE]) + extra)
    lanes = min(abs(lane - gl), budget // 8)
    gl += lanes if lane > gl else -lanes
    steps = min(abs(dist - gd), (budget - 8 * lanes) // 5)
    end = gd + (steps if dist > gd else -steps)
    river = sc[RIVER]
    crossing = (sc[BRIDGE] >= 0 and gl == sc[BRIDGE]) or (sc[FORD] >= 0 and gl == sc[FORD])
    if side == ATT and crosses(sc, gd, end) and not crossing:
        end = river if gd >= river else river - 1
    gs[GDIST, side, k], gs[GLANE, side, k] = end, gl
