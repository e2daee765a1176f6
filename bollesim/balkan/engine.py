"""The fast engine: Balkan Wars engagements as numba kernels over small integer arrays,
many games on threads of their own. It plays the reference engine's games die for die
(reference.py says what each step means; the same names here do the same), and
tests/test_balkan.py holds the two to each other.

A game's state: for each side s (0 attacker, 1 defender) and stand i, its figures left,
status and distance (fig, status, dist [2, MAX_STANDS]); the stands' fixed columns are
the ruleset's tables (ruleset.py's column names).
"""

from __future__ import annotations

import numpy as np

from bollesim.balkan import luck, ruleset, tactics
from bollesim.balkan.schema import MAX_STANDS
from bollesim.jit import compiled
from bollesim.rng import CHANCE, init_stream, keyed_d6, keyed_size

ON, DESTROYED, LEFT = 0, 1, 2
ATT, DEF = 0, 1
K = {name: i for i, name in enumerate(ruleset.SCALARS)}
BOUNDS, BREAK, START, COUNTER = K["bounds"], K["break_percent"], K["start_distance"], K["counter"]
# a side's value is at its attacker's index + side: the SCALARS pairs are adjacent
MOVE_MOD, COVER, UNSEEN = K["attacker_move"], K["attacker_cover"], K["attacker_unseen"]
STRENGTH = K["attacker_strength"]
BEYOND, SIX_ROLLED, CLAMP_TOTAL, TIE_DEF = K["beyond_effective"], K["six_rolled"], K["clamp_total"], K["tie_defender"]
STREAM = keyed_size(luck.PURPOSES)
END_REASONS = ("defender broke", "attacker broke", "both broke", "day ended")
ONES, A_MEMBERS, D_MEMBERS = 6, 7, 8
"""Rows of a game's scratch (play_games): 0-2 and 3-5 a firefight's two sides (stands,
dice, modifiers; a close assault's modifiers in 0 and 1), then all ones, the attacker's
and the defender's stands in a close assault."""


@compiled
def throw(stream, bound, purpose, scratch, dice, mods, count, sc):
    """(total, sixes) of count stands, stand k throwing scratch[dice, k] dice at modifier
    scratch[mods, k] (rows of scratch, not views of it: a view costs two atomic reference
    counts, a fifth of the engine's time when each call made its own)."""
    total = sixes = n = 0
    for k in range(count):
        for _ in range(scratch[dice, k]):
            face = keyed_d6(stream, bound, purpose)
            score = face + scratch[mods, k]
            if sc[CLAMP_TOTAL] == 0:
                score = min(6, max(1, score))
            total += score
            n += 1
            if sc[SIX_ROLLED]:
                sixes += face == 6
            else:
                sixes += score >= 6
    if sc[CLAMP_TOTAL]:
        total = min(6 * n, max(n, total))
    return total, sixes


@compiled
def contest(ta, sa, td, sd):
    """(winner, casualties to the first side, to the second): reference.contest."""
    winner = (ta > td) - (ta < td)
    return winner, sd + max(0, td - ta) // 6, sa + max(0, ta - td) // 6


@compiled
def take(fig, status, dist, side, scratch, members, count, n):
    """n casualties on the count stands of side listed in row `members` of scratch (-1:
    stands 0 .. count - 1): nearest first, most damaged first."""
    for _ in range(n):
        best = -1
        for k in range(count):
            i = scratch[members, k] if members >= 0 else k
            if status[side, i] != ON:
                continue
            if best < 0 or (dist[side, i], fig[side, i]) < (dist[side, best], fig[side, best]):
                best = i
        if best < 0:
            return
        fig[side, best] -= 1
        if fig[side, best] == 0:
            status[side, best] = DESTROYED


@compiled
def lost(status, side, n):
    out = 0
    for i in range(n):
        out += status[side, i] != ON
    return out


@compiled
def end_code(status, na, nd, sc):
    """0 defender broke, 1 attacker broke, 2 both, -1 neither (END_REASONS)."""
    a = lost(status, ATT, na) * 100 > sc[BREAK] * sc[STRENGTH]
    d = lost(status, DEF, nd) * 100 > sc[BREAK] * sc[STRENGTH + 1]
    return 2 if a and d else 1 if a else 0 if d else -1


@compiled
def move(stream, bound, tab, status, dist, na, sc, params):
    """reference.move."""
    digits = max(0, keyed_d6(stream, bound, luck.MOVE) + sc[MOVE_MOD])
    mine, weapon, standing = dist[ATT, :na], tab[ATT, :na, ruleset.WEAPON], status[ATT, :na]  # views
    for _ in range(digits):
        leader, to = tactics.advance(mine, weapon, standing, params)
        if leader < 0:
            return
        here, rate = dist[ATT, leader], tab[ATT, leader, ruleset.MOVE]
        guns = tab[ATT, leader, ruleset.WEAPON] == ruleset.ARTILLERY
        to = max(to, here - rate, 1)
        for i in range(na):
            if (status[ATT, i] == ON and dist[ATT, i] == here and tab[ATT, i, ruleset.MOVE] == rate
                    and (tab[ATT, i, ruleset.WEAPON] == ruleset.ARTILLERY) == guns):
                dist[ATT, i] = to


@compiled
def fire_of(tab, status, dist, side, n, na, sc, scratch, row):
    """reference.fire_of, into scratch rows row (the stands), row + 1 (their dice) and
    row + 2 (their modifiers); how many fire."""
    near = -1
    for i in range(na):
        if status[ATT, i] == ON and (near < 0 or dist[ATT, i] < near):
            near = dist[ATT, i]
    near = max(near, 0)
    count = 0
    for i in range(n):
        reach = dist[ATT, i] if side == ATT else near
        if status[side, i] != ON or reach < 1 or reach > tab[side, i, ruleset.MAXIMUM]:
            continue
        mod = tab[side, i, ruleset.QUALITY_DRM] + sc[COVER + 1 - side]
        effective = tab[side, i, ruleset.EFFECTIVE]
        if tab[side, i, ruleset.WEAPON] == ruleset.ARTILLERY:
            mod += sc[UNSEEN + side]
        elif reach > effective:
            mod += sc[BEYOND]
        scratch[row, count] = i
        scratch[row + 1, count] = tab[side, i, ruleset.DICE_NEAR] if reach <= effective else 1
        scratch[row + 2, count] = mod
        count += 1
    return count


@compiled
def firefight(stream, bound, tab, fig, status, dist, mover, ns, sc, purpose_m, purpose_o, scratch, cas):
    """reference.firefight: 1 if the moving side won, -1 lost, 0 tie or no fire."""
    other = 1 - mover
    cm = fire_of(tab, status, dist, mover, ns[mover], ns[ATT], sc, scratch, 0)
    co = fire_of(tab, status, dist, other, ns[other], ns[ATT], sc, scratch, 3)
    if cm == 0 and co == 0:
        return 0
    tm, sm = throw(stream, bound, purpose_m, scratch, 1, 2, cm, sc)
    to_, so = throw(stream, bound, purpose_o, scratch, 4, 5, co, sc)
    winner, to_m, to_o = contest(tm, sm, to_, so)
    take(fig, status, dist, ATT, scratch, -1, ns[ATT], to_m if mover == ATT else to_o)
    take(fig, status, dist, DEF, scratch, -1, ns[DEF], to_o if mover == ATT else to_m)
    cas[ATT] += to_m if mover == ATT else to_o
    cas[DEF] += to_o if mover == ATT else to_m
    return winner


@compiled
def close(tab, status, dist, na, scratch, out):
    """reference.close, into scratch row out; how many."""
    count = 0
    for i in range(na):
        if (status[ATT, i] == ON and tab[ATT, i, ruleset.WEAPON] != ruleset.ARTILLERY
                and dist[ATT, i] <= tab[ATT, i, ruleset.EFFECTIVE]):
            scratch[out, count] = i
            count += 1
    return count


@compiled
def healthiest(tab, fig, status, nd, k, troops_only, scratch, out):
    """reference.healthiest of the defender's stands on the field (troops only: no
    artillery), into scratch row out; how many: the first k by figures, most first, ties in stand
    order (an insertion sort, stable as Python's sorted)."""
    count = 0
    for i in range(nd):
        if status[DEF, i] != ON or (troops_only and tab[DEF, i, ruleset.WEAPON] == ruleset.ARTILLERY):
            continue
        at = count
        while at > 0 and fig[DEF, scratch[out, at - 1]] < fig[DEF, i]:
            scratch[out, at] = scratch[out, at - 1]
            at -= 1
        scratch[out, at] = i
        count += 1
    return min(count, k)


@compiled
def retire(tab, status, dist, side, scratch, members, count, sc):
    """reference.retire, of the stands in scratch row members."""
    for k in range(count):
        i = scratch[members, k]
        if status[side, i] != ON:
            continue
        if side == DEF or tab[side, i, ruleset.ROAD] > sc[START]:
            status[side, i] = LEFT
        else:
            dist[side, i] = tab[side, i, ruleset.ROAD]


@compiled
def contact(stream, bound, tab, fig, status, dist, assaulting_side, a_members, ca, d_members, cd,
            sc, purpose_a, purpose_d, scratch, cas):
    """A close assault of ca stands of one side (scratch row a_members) on cd of the
    other (row d_members): the defending side's cover counts against the assaulting dice;
    the winner (1: the assaulting side, -1, 0 a tie). One die a stand (row ONES)."""
    defending_side = 1 - assaulting_side
    for k in range(ca):
        scratch[0, k] = tab[assaulting_side, scratch[a_members, k], ruleset.QUALITY_DRM] + sc[COVER + defending_side]
    for k in range(cd):
        scratch[1, k] = tab[defending_side, scratch[d_members, k], ruleset.QUALITY_DRM]
    ta, sa = throw(stream, bound, purpose_a, scratch, ONES, 0, ca, sc)
    td, sd = throw(stream, bound, purpose_d, scratch, ONES, 1, cd, sc)
    winner, to_a, to_d = contest(ta, sa, td, sd)
    take(fig, status, dist, assaulting_side, scratch, a_members, ca, to_a)
    take(fig, status, dist, defending_side, scratch, d_members, cd, to_d)
    cas[assaulting_side] += to_a
    cas[defending_side] += to_d
    return winner


@compiled
def play_one(tab, ns, sc, params, stream, fig, status, dist, scratch, cas, out):
    """One engagement into out (result.RESULT's columns, END_REASONS' codes); cas: its
    casualties per side (scratch)."""
    na, nd = ns[ATT], ns[DEF]
    for s in range(2):
        for i in range(ns[s]):
            fig[s, i] = tab[s, i, ruleset.FIGURES]
            status[s, i] = ON
            dist[s, i] = sc[START] if s == ATT else 0
    cas[:] = 0
    first = assaults = 0
    code = -1
    bound = 0
    a_members, d_members = A_MEMBERS, D_MEMBERS
    for bound in range(1, sc[BOUNDS] + 1):
        move(stream, bound, tab, status, dist, na, sc, params)
        won = firefight(stream, bound, tab, fig, status, dist, ATT, ns, sc, luck.FIRE_A, luck.FIRE_D,
                        scratch, cas)
        code = end_code(status, na, nd, sc)
        if won > 0 and code < 0:
            ca = close(tab, status, dist, na, scratch, a_members)
            cd = healthiest(tab, fig, status, nd, ca, False, scratch, d_members)
            if ca > 0 and cd > 0 and tactics.assault(ca, cas[DEF], params):
                assaults += 1
                if first == 0:
                    first = bound
                w = contact(stream, bound, tab, fig, status, dist, ATT, a_members, ca, d_members, cd,
                            sc, luck.ASSAULT_A, luck.ASSAULT_D, scratch, cas)
                if w > 0:
                    retire(tab, status, dist, DEF, scratch, d_members, cd, sc)
                if w < 0 or (w == 0 and sc[TIE_DEF]):
                    retire(tab, status, dist, ATT, scratch, a_members, ca, sc)
                else:
                    for k in range(ca):
                        if status[ATT, scratch[a_members, k]] == ON:
                            dist[ATT, scratch[a_members, k]] = 1
            code = end_code(status, na, nd, sc)
        if code >= 0:
            break
        won = firefight(stream, bound, tab, fig, status, dist, DEF, ns, sc, luck.REPLY_D, luck.REPLY_A,
                        scratch, cas)
        code = end_code(status, na, nd, sc)
        if won > 0 and sc[COUNTER] and code < 0:
            ca = close(tab, status, dist, na, scratch, a_members)
            cd = healthiest(tab, fig, status, nd, ca, True, scratch, d_members)
            if ca > 0 and cd > 0:
                w = contact(stream, bound, tab, fig, status, dist, DEF, d_members, cd, a_members, ca,
                            sc, luck.COUNTER_D, luck.COUNTER_A, scratch, cas)
                if w > 0:
                    retire(tab, status, dist, ATT, scratch, a_members, ca, sc)
                elif w < 0 or sc[TIE_DEF]:
                    retire(tab, status, dist, DEF, scratch, d_members, cd, sc)
            code = end_code(status, na, nd, sc)
        if code >= 0:
            break
    if code < 0:
        code = 3
    lost_a, lost_d = lost(status, ATT, na), lost(status, DEF, nd)
    out[0] = code == 0
    out[1] = lost_a <= 1
    out[2] = code == 1 or code == 2
    out[3] = bound
    out[4] = code
    out[5] = first
    out[6] = assaults
    out[7] = lost_a
    out[8] = lost_d
    out[9] = cas[ATT]
    out[10] = cas[DEF]


@compiled(nogil=True)
def play_games(tab, ns, sc, params, seed, first_game, out):
    """Games first_game .. first_game + len(out) - 1, game g at params[g], into out."""
    stream = np.zeros(STREAM, dtype=np.int64)
    fig = np.zeros((2, MAX_STANDS), dtype=np.int64)
    status = np.zeros((2, MAX_STANDS), dtype=np.int64)
    dist = np.zeros((2, MAX_STANDS), dtype=np.int64)
    scratch = np.zeros((9, MAX_STANDS * 2), dtype=np.int64)
    scratch[ONES] = 1  # one die a stand (contact)
    cas = np.zeros(2, dtype=np.int64)
    for g in range(out.shape[0]):
        init_stream(stream, seed, first_game + g, CHANCE)
        play_one(tab, ns, sc, params[g], stream, fig, status, dist, scratch, cas, out[g])


def tables(rules: ruleset.Ruleset) -> tuple[np.ndarray, np.ndarray]:
    """The two sides' stand tables in one array [2, MAX_STANDS, columns], and their sizes."""
    tab = np.zeros((2, MAX_STANDS, ruleset.N_COLUMNS), dtype=np.int64)
    tab[ATT, :len(rules.attacker)] = rules.attacker
    tab[DEF, :len(rules.defender)] = rules.defender
    return tab, np.array([len(rules.attacker), len(rules.defender)], dtype=np.int64)


@compiled(nogil=True)
def firefights(mods_a, mods_d, sc, seed, counts):
    """counts[g] = (winner + 1, casualties to the first side, to the second) of firefight
    g, one die per modifier a side, each from game g's stream (the odds' frequency check
    and a measure of the dice alone)."""
    stream = np.zeros(STREAM, dtype=np.int64)
    table = np.ones((3, max(mods_a.shape[0], mods_d.shape[0])), dtype=np.int64)  # dice, mods
    table[1, :mods_a.shape[0]] = mods_a
    table[2, :mods_d.shape[0]] = mods_d
    for g in range(counts.shape[0]):
        init_stream(stream, seed, g, CHANCE)
        ta, sa = throw(stream, 1, luck.FIRE_A, table, 0, 1, mods_a.shape[0], sc)
        td, sd = throw(stream, 1, luck.FIRE_D, table, 0, 2, mods_d.shape[0], sc)
        winner, to_a, to_d = contest(ta, sa, td, sd)
        counts[g, 0] = winner + 1
        counts[g, 1] = to_a
        counts[g, 2] = to_d
