"""The fast engine's fire (Move Sequence 3-6): reference_fire.py's firefights, close
assaults and retreats, on the state of engine_state.py, die for die the same."""

from __future__ import annotations

from bollesim.balkan import defence, luck, ruleset, tactics
from bollesim.balkan.engine_ask import C_STOPPED, ask_assault
from bollesim.balkan.engine_state import (
    A_MEMBERS,
    AIM,
    ASSAULTS,
    ATT,
    BEYOND,
    COLUMN_ALL,
    COVER,
    D_MEMBERS,
    DEF,
    DEPTH,
    DIST,
    FAR,
    FIG,
    FIRERS,
    FIRST,
    FORM,
    JOIN,
    LANE,
    LANES,
    LEAVES,
    LEFT,
    LITERAL,
    MASKED,
    MD,
    MM,
    MS,
    NEAR,
    NEAR_AT,
    OD,
    OM,
    ON,
    ONES,
    OS,
    PER_TARGET,
    POOL_A,
    POOL_D,
    RANGES,
    REACH,
    RIVER,
    START,
    STATUS,
    STOPS,
    TARGET,
    TIE_DEF,
    UNANSWERED,
    UNSEEN,
    arc,
    contest,
    crosses,
    crossing_ok,
    fill_near,
    take,
    throw,
    unmanaged,
)

# ------------------------------------------------------------------ who fires

@unmanaged
def fill_masked(st, ns, sc, s, scratch):
    """reference_fire.masked of every stand of side s, into row MASKED: a column's stands
    behind its leading stand."""
    for i in range(ns[s]):
        scratch[MASKED, i] = 0
        if st[FORM, s, i] != ruleset.COLUMN or sc[COLUMN_ALL]:
            continue
        for k in range(i):
            if (st[STATUS, s, k] == ON and st[FORM, s, k] == ruleset.COLUMN
                    and st[LANE, s, k] == st[LANE, s, i] and st[DIST, s, k] == st[DIST, s, i]):
                scratch[MASKED, i] = 1
                break


@unmanaged
def modifier(weapon, quality, effective, maximum, r, cover, unseen, beyond, literal):
    """reference_fire.shot's modifier of one stand at range r (numbers, not arrays, as
    engine_state.arc says)."""
    mod = quality + cover
    if weapon == ruleset.ARTILLERY:
        mod += unseen
    elif r > effective and (r < maximum or literal == 0):
        mod += beyond
    return mod


@unmanaged
def shot(tab, st, sc, s, i, j, scratch, row, at):
    """reference_fire.shot: stand i of side s firing at j, into scratch rows row (the
    stand), row + 1 (its dice) and row + 2 (its modifier), column at."""
    r = st[DIST, s, i] + st[DIST, 1 - s, j]
    cover = 0 if s == ATT and st[DIST, DEF, j] != 0 else sc[COVER + 1 - s]
    effective = tab[s, i, ruleset.EFFECTIVE]
    scratch[row, at] = i
    scratch[row + 1, at] = tab[s, i, ruleset.DICE_NEAR] if r <= effective else 1
    scratch[row + 2, at] = modifier(tab[s, i, ruleset.WEAPON], tab[s, i, ruleset.QUALITY_DRM], effective,
                                    tab[s, i, ruleset.MAXIMUM], r, cover, sc[UNSEEN + s], sc[BEYOND], sc[LITERAL])


@unmanaged
def fire_of(tab, st, ns, sc, s, scratch, row):
    """reference_fire.fire_of, into rows row .. row + 2; how many fire (shot's work done
    here, a stand at a time: no helper with arrays runs once a stand)."""
    fill_masked(st, ns, sc, s, scratch)
    fill_near(st, ns, sc, s, scratch)
    count = 0
    for i in range(ns[s]):
        j, r = scratch[NEAR_AT, i], scratch[NEAR, i]
        if st[STATUS, s, i] != ON or scratch[MASKED, i] or j < 0 or r > tab[s, i, ruleset.MAXIMUM]:
            continue
        cover = 0 if s == ATT and st[DIST, DEF, j] != 0 else sc[COVER + 1 - s]
        effective = tab[s, i, ruleset.EFFECTIVE]
        scratch[row, count] = i
        scratch[row + 1, count] = tab[s, i, ruleset.DICE_NEAR] if r <= effective else 1
        scratch[row + 2, count] = modifier(tab[s, i, ruleset.WEAPON], tab[s, i, ruleset.QUALITY_DRM], effective,
                                           tab[s, i, ruleset.MAXIMUM], r, cover, sc[UNSEEN + s], sc[BEYOND],
                                           sc[LITERAL])
        count += 1
    return count


# ------------------------------------------------------------------ firefights

@unmanaged
def contested(stream, bound, sc, mover, cm, co, scratch):
    """reference_fire.contested on the rows M.. (cm stands) and O.. (co): (fought,
    winner, casualties to the moving side, to the other)."""
    unanswered = cm == 0 or co == 0
    if unanswered and sc[UNANSWERED] == 1:
        return False, 0, 0, 0
    pm, po = (luck.FIRE_A, luck.FIRE_D) if mover == ATT else (luck.REPLY_D, luck.REPLY_A)
    tm, sm = throw(stream, bound, pm, scratch, MD, MM, cm, sc)
    to, so = throw(stream, bound, po, scratch, OD, OM, co, sc)
    if unanswered and sc[UNANSWERED] == 2:
        return True, 0, so, sm
    winner, to_m, to_o = contest(tm, sm, to, so)
    return True, winner, to_m, to_o


@unmanaged
def wound(st, ns, sc, mover, to_m, to_o, scratch, movers, n_movers, others, n_others, cas):
    """reference_fire.wound: the attacker's casualties first, then the defender's, on the
    stands of the rows movers and others (-1: the whole side)."""
    if mover == ATT:
        take(st, ns, sc, ATT, scratch, movers, n_movers, to_m)
        take(st, ns, sc, DEF, scratch, others, n_others, to_o)
        cas[ATT] += to_m
        cas[DEF] += to_o
    else:
        take(st, ns, sc, ATT, scratch, others, n_others, to_o)
        take(st, ns, sc, DEF, scratch, movers, n_movers, to_m)
        cas[ATT] += to_o
        cas[DEF] += to_m


@unmanaged
def firefights_of(stream, bound, tab, ns, sc, mover, st, scratch, fights, cas):
    """reference_fire.firefights: how many firefights, each fights[f] = (winner, target
    or -1, to the moving side, to the other, firers); one a bound keeps its firers in row
    FIRERS, one a target its targets in row TARGET."""
    if sc[PER_TARGET]:
        return per_target(stream, bound, tab, ns, sc, mover, st, scratch, fights, cas)
    cm = fire_of(tab, st, ns, sc, mover, scratch, MS)
    co = fire_of(tab, st, ns, sc, 1 - mover, scratch, OS)
    if cm == 0 and co == 0:
        return 0
    fought, winner, to_m, to_o = contested(stream, bound, sc, mover, cm, co, scratch)
    if not fought:
        return 0
    for k in range(cm):
        scratch[FIRERS, k] = scratch[MS, k]
    wound(st, ns, sc, mover, to_m, to_o, scratch, -1, ns[mover], -1, ns[1 - mover], cas)
    fights[0, 0], fights[0, 1], fights[0, 2], fights[0, 3], fights[0, 4] = winner, -1, to_m, to_o, cm
    return 1


@unmanaged
def per_target(stream, bound, tab, ns, sc, mover, st, scratch, fights, cas):
    """reference_fire.per_target: row TARGET holds each moving stand's target (-1: none);
    JOIN each of the other side's stands' firefight (its target; -1: none), AIM the moving
    stand it fires at."""
    other = 1 - mover
    nm, no = ns[mover], ns[other]
    fill_masked(st, ns, sc, mover, scratch)
    for i in range(nm):
        scratch[TARGET, i] = -1
        if st[STATUS, mover, i] != ON or scratch[MASKED, i]:
            continue
        fill_ranges(tab, st, sc, mover, i, no, scratch)
        if mover == ATT:
            scratch[TARGET, i] = tactics.target(scratch[RANGES, :no], st[FIG, other, :no])
        else:
            scratch[TARGET, i] = defence.target(scratch[RANGES, :no], st[FIG, other, :no])
    fill_masked(st, ns, sc, other, scratch)
    for u in range(no):
        scratch[JOIN, u] = -1
        if st[STATUS, other, u] != ON or scratch[MASKED, u]:
            continue
        targeted = False
        for i in range(nm):
            targeted = targeted or scratch[TARGET, i] == u
        if targeted:  # the target replies at the nearest of its firers it reaches
            best, best_r = -1, 0
            for i in range(nm):
                r = st[DIST, other, u] + st[DIST, mover, i]
                if (scratch[TARGET, i] == u and arc(sc[LANES], st[LANE, other, u], st[LANE, mover, i])
                        and 1 <= r <= tab[other, u, ruleset.MAXIMUM] and (best < 0 or r < best_r)):
                    best, best_r = i, r
            if best >= 0:
                scratch[JOIN, u], scratch[AIM, u] = u, best
            continue
        fill_ranges(tab, st, sc, other, u, nm, scratch)
        for i in range(nm):
            if scratch[TARGET, i] < 0:
                scratch[RANGES, i] = 0
        if mover == ATT:
            f = defence.target(scratch[RANGES, :nm], st[FIG, mover, :nm])
        else:
            f = tactics.target(scratch[RANGES, :nm], st[FIG, mover, :nm])
        if f >= 0:
            scratch[JOIN, u], scratch[AIM, u] = scratch[TARGET, f], f
    nf = 0
    for j in range(no):
        cm = 0
        for i in range(nm):
            if scratch[TARGET, i] == j:
                shot(tab, st, sc, mover, i, j, scratch, MS, cm)
                cm += 1
        if cm == 0:
            continue
        co = 0
        for u in range(no):
            if scratch[JOIN, u] == j:
                shot(tab, st, sc, other, u, scratch[AIM, u], scratch, OS, co)
                co += 1
        fought, winner, to_m, to_o = contested(stream, bound, sc, mover, cm, co, scratch)
        if fought:
            fights[nf, 0], fights[nf, 1], fights[nf, 2], fights[nf, 3] = winner, j, to_m, to_o
            nf += 1
    for f in range(nf):
        j = fights[f, 1]
        n = members_of(scratch, nm, j, A_MEMBERS)
        m = 0
        for u in range(no):
            if u == j or scratch[JOIN, u] == j:
                scratch[D_MEMBERS, m] = u
                m += 1
        wound(st, ns, sc, mover, fights[f, 2], fights[f, 3], scratch, A_MEMBERS, n, D_MEMBERS, m, cas)
    return nf


@unmanaged
def fill_ranges(tab, st, sc, s, i, n, scratch):
    """reference_fire.ranges of stand i of side s to the other side's n stands, into row
    RANGES."""
    here, lane, top = st[DIST, s, i], st[LANE, s, i], tab[s, i, ruleset.MAXIMUM]
    for j in range(n):
        r = here + st[DIST, 1 - s, j]
        ok = st[STATUS, 1 - s, j] == ON and arc(sc[LANES], lane, st[LANE, 1 - s, j]) and r <= top
        scratch[RANGES, j] = r if ok else 0


@unmanaged
def members_of(scratch, n, j, row):
    """The moving stands whose target is j, into a row; how many."""
    count = 0
    for i in range(n):
        if scratch[TARGET, i] == j:
            scratch[row, count] = i
            count += 1
    return count


# ------------------------------------------------------------------ close assaults

@unmanaged
def reaches(tab, st, ns, sc, a, pool, scratch):
    """reference_fire.reaches of the attacker's stand a and each defending stand flagged in
    row `pool`, OR-ed into row REACH; how many it reaches."""
    here, lane, effective = st[DIST, ATT, a], st[LANE, ATT, a], tab[ATT, a, ruleset.EFFECTIVE]
    fords = crossing_ok(tab, st, sc, ATT, a)
    n = 0
    for d in range(ns[DEF]):
        r = here + st[DIST, DEF, d]
        if (scratch[pool, d] and st[STATUS, DEF, d] == ON and 1 <= r <= effective
                and arc(sc[LANES], lane, st[LANE, DEF, d])
                and (fords or not crosses(sc[RIVER], here, 1 - st[DIST, DEF, d]))):
            scratch[REACH, d] = 1
            n += 1
    return n


@unmanaged
def healthiest(st, side, scratch, row, count, k, out):
    """reference_fire.healthiest of the count stands of row `row`, into row out; how
    many: the first k by figures, most first, ties in stand order (a stable insertion
    sort)."""
    n = 0
    for m in range(count):
        i = scratch[row, m]
        at = n
        while at > 0 and st[FIG, side, scratch[out, at - 1]] < st[FIG, side, i]:
            scratch[out, at] = scratch[out, at - 1]
            at -= 1
        scratch[out, at] = i
        n += 1
    return min(n, k)


@unmanaged
def assaults(stream, bound, tab, ns, sc, params, st, scratch, fights, nf, cas, ctl, decide):
    """reference_fire.assaults; the attacker's choice is asked (engine_ask.ask_assault),
    and a decision where the control says stop ends the phase there."""
    for f in range(nf):
        if fights[f, 0] <= 0:
            continue
        j = fights[f, 1]
        n_firers = fights[f, 4] if j < 0 else members_of(scratch, ns[ATT], j, FIRERS)
        for d in range(ns[DEF]):
            scratch[POOL_D, d] = j < 0 or d == j or scratch[JOIN, d] == j
            scratch[REACH, d] = 0
        ca = 0  # the assaulting: the close troops among the firers (row A_MEMBERS)
        for k in range(n_firers):
            a = scratch[FIRERS, k]
            if (st[STATUS, ATT, a] == ON and tab[ATT, a, ruleset.WEAPON] != ruleset.ARTILLERY
                    and reaches(tab, st, ns, sc, a, POOL_D, scratch)):
                scratch[A_MEMBERS, ca] = a
                ca += 1
        n = 0  # the defending: the healthiest of those in reach, as many (row D_MEMBERS)
        for d in range(ns[DEF]):
            if scratch[REACH, d]:
                scratch[RANGES, n] = d
                n += 1
        cd = healthiest(st, DEF, scratch, RANGES, n, ca, D_MEMBERS)
        if ca <= 0 or cd <= 0:
            continue
        fresh = 0
        for k in range(ca):
            fresh += st[FIG, ATT, scratch[A_MEMBERS, k]] == tab[ATT, scratch[A_MEMBERS, k], ruleset.FIGURES]
        now = ask_assault(ctl, decide, stream, sc, params, bound, ca, cd, fresh, st, ns, cas)
        if ctl[C_STOPPED]:
            return
        if now == tactics.FRESH:
            ca, cd = freshen(tab, st, ns, sc, scratch, ca)
        if now != tactics.HOLD:
            cas[ASSAULTS] += 1
            if cas[FIRST] == 0:
                cas[FIRST] = bound
            assault(stream, bound, tab, ns, sc, st, scratch, ca, cd, cas)


@unmanaged
def freshen(tab, st, ns, sc, scratch, ca):
    """reference_fire.assaults' FRESH: the stands of row A_MEMBERS (ca) that have lost no
    figure, and the defender's healthiest of POOL_D in their reach, as many, into rows
    A_MEMBERS and D_MEMBERS; (their numbers)."""
    fresh = 0
    for k in range(ca):
        a = scratch[A_MEMBERS, k]
        if st[FIG, ATT, a] == tab[ATT, a, ruleset.FIGURES]:
            scratch[A_MEMBERS, fresh] = a
            fresh += 1
    for d in range(ns[DEF]):
        scratch[REACH, d] = 0
    for k in range(fresh):
        reaches(tab, st, ns, sc, scratch[A_MEMBERS, k], POOL_D, scratch)
    n = 0
    for d in range(ns[DEF]):
        if scratch[REACH, d]:
            scratch[RANGES, n] = d
            n += 1
    return fresh, healthiest(st, DEF, scratch, RANGES, n, fresh, D_MEMBERS)


@unmanaged
def assault(stream, bound, tab, ns, sc, st, scratch, ca, cd, cas):
    """reference_fire.assault of rows A_MEMBERS (ca) on D_MEMBERS (cd)."""
    on_line = True
    depth = FAR
    for k in range(cd):
        d = st[DIST, DEF, scratch[D_MEMBERS, k]]
        on_line = on_line and d == 0
        depth = min(depth, d)
    cover = sc[COVER + DEF] if on_line else 0
    for k in range(ca):
        scratch[MS, k] = tab[ATT, scratch[A_MEMBERS, k], ruleset.QUALITY_DRM] + cover
    for k in range(cd):
        scratch[MD, k] = tab[DEF, scratch[D_MEMBERS, k], ruleset.QUALITY_DRM]
    ta, sa = throw(stream, bound, luck.ASSAULT_A, scratch, ONES, MS, ca, sc)
    td, sd = throw(stream, bound, luck.ASSAULT_D, scratch, ONES, MD, cd, sc)
    winner, to_a, to_d = contest(ta, sa, td, sd)
    wound(st, ns, sc, ATT, to_a, to_d, scratch, A_MEMBERS, ca, D_MEMBERS, cd, cas)
    contact = 1 - depth
    if winner > 0:
        retire(tab, st, sc, DEF, scratch, D_MEMBERS, cd, -FAR)
    if winner < 0 or (winner == 0 and sc[TIE_DEF]):
        retire(tab, st, sc, ATT, scratch, A_MEMBERS, ca, contact)
    else:
        for k in range(ca):
            if st[STATUS, ATT, scratch[A_MEMBERS, k]] == ON:
                st[DIST, ATT, scratch[A_MEMBERS, k]] = contact


@unmanaged
def counters(stream, bound, tab, ns, sc, st, scratch, fights, nf, cas):
    """reference_fire.counters: the defender's close assaults (rows D_MEMBERS on
    A_MEMBERS), the attacker's stands of the firefight in POOL_A (JOIN: theirs), the
    defender's in POOL_D (TARGET: its firers')."""
    for f in range(nf):
        if fights[f, 0] <= 0:
            continue
        j = fights[f, 1]
        for a in range(ns[ATT]):
            scratch[POOL_A, a] = j < 0 or a == j or scratch[JOIN, a] == j
        for d in range(ns[DEF]):
            scratch[POOL_D, d] = j < 0 or scratch[TARGET, d] == j
            scratch[REACH, d] = 0
        ca = 0
        for a in range(ns[ATT]):
            if (scratch[POOL_A, a] and st[STATUS, ATT, a] == ON and tab[ATT, a, ruleset.WEAPON] != ruleset.ARTILLERY
                    and reaches(tab, st, ns, sc, a, POOL_D, scratch)):
                scratch[A_MEMBERS, ca] = a
                ca += 1
        n = 0
        for d in range(ns[DEF]):
            if scratch[REACH, d] and tab[DEF, d, ruleset.WEAPON] != ruleset.ARTILLERY:
                scratch[RANGES, n] = d
                n += 1
        cd = healthiest(st, DEF, scratch, RANGES, n, ca, D_MEMBERS)
        if ca > 0 and cd > 0:
            counter(stream, bound, tab, ns, sc, st, scratch, ca, cd, cas)


@unmanaged
def counter(stream, bound, tab, ns, sc, st, scratch, ca, cd, cas):
    """reference_fire.counter: D_MEMBERS (cd) assault A_MEMBERS (ca)."""
    for k in range(cd):
        scratch[MS, k] = tab[DEF, scratch[D_MEMBERS, k], ruleset.QUALITY_DRM] + sc[COVER + ATT]
    for k in range(ca):
        scratch[MD, k] = tab[ATT, scratch[A_MEMBERS, k], ruleset.QUALITY_DRM]
    td, sd = throw(stream, bound, luck.COUNTER_D, scratch, ONES, MS, cd, sc)
    ta, sa = throw(stream, bound, luck.COUNTER_A, scratch, ONES, MD, ca, sc)
    winner, to_d, to_a = contest(td, sd, ta, sa)
    wound(st, ns, sc, ATT, to_a, to_d, scratch, A_MEMBERS, ca, D_MEMBERS, cd, cas)
    if winner > 0:
        retire(tab, st, sc, ATT, scratch, A_MEMBERS, ca, -FAR)
    elif winner < 0 or sc[TIE_DEF]:
        retire(tab, st, sc, DEF, scratch, D_MEMBERS, cd, -FAR)


# ------------------------------------------------------------------ the retreat

@unmanaged
def retire(tab, st, sc, side, scratch, row, count, contact):
    """reference_fire.retire of the stands of a row; contact: where an assaulting
    attacker retires from (-FAR: where each stands)."""
    for k in range(count):
        i = scratch[row, k]
        if st[STATUS, side, i] != ON:
            continue
        road = tab[side, i, ruleset.ROAD]
        if sc[LEAVES]:
            if side == DEF or road > sc[START]:
                st[STATUS, side, i] = LEFT
            else:
                st[DIST, side, i] = road
            continue
        here = st[DIST, side, i] if contact == -FAR else contact
        to = here + road
        edge = sc[START] if side == ATT else sc[DEPTH]
        if side == ATT and crosses(sc[RIVER], here, to) and not crossing_ok(tab, st, sc, ATT, i):
            if sc[STOPS]:
                st[DIST, side, i] = sc[RIVER] - 1
            else:
                st[STATUS, side, i] = LEFT
        elif to > edge:
            st[STATUS, side, i] = LEFT
        else:
            st[DIST, side, i] = to
