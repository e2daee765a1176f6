"""The fast engine's state, the table's geometry, the dice and casualties (engine.py plays
the game; engine_move.py the moves, engine_fire.py the firefights and close assaults;
reference.py says what each step means, the same names here doing the same).

A game's state (int64 arrays, side s: 0 attacker, 1 defender; stand i; general k):

    st[field, s, i]  FIG figures left, STATUS (ON, DESTROYED, LEFT), DIST (attacker: steps
                     from the defender's line; defender: steps behind it), LANE, FORM
                     (ruleset.LINE, COLUMN), MOVED (by a digit this bound), CMD (in its
                     general's command area at the start of the bound), ORDER (its
                     arm's order this bound: tactics.HALT .. TO_EFFECTIVE)
    gs[field, s, k]  GDIST, GLANE (the general's place), GDIGITS (this bound's digits,
                     less those passed down), GUSED (spent)
    scratch[row, :]  rows named below; fights[f] (winner, target or -1, to the moving
                     side, to the other) of this firefight phase

            attacker's edge (start_distance)           defender's edge (depth)
    dist:   24 ... 8 ... 2  1 | 0  (the line)  1 ... 16 ... 24   :dist
                 attacker ->  |  <- defender      (range = dist_a + dist_d)

The stands' fixed columns are the ruleset's tables (ruleset.py's column names).
"""

from __future__ import annotations

from bollesim.balkan import luck, ruleset
from bollesim.balkan.schema import MAX_LANES
from bollesim.jit import compiled
from bollesim.rng import keyed_d6, keyed_size

unmanaged = compiled(_nrt=False)
"""How the engine's functions are compiled: without numba's reference counting. They
allocate nothing (play_games owns every array), and the atomic counts numba puts around
each call that hands over an array were half the engine's time (a profile, December 2026)."""

ON, DESTROYED, LEFT = 0, 1, 2
ATT, DEF = 0, 1
FIG, STATUS, DIST, LANE, FORM, MOVED, CMD, ORDER = range(8)
N_FIELDS = 8
GDIST, GLANE, GDIGITS, GUSED = range(4)
FAR = 1 << 20
K = {name: i for i, name in enumerate(ruleset.SCALARS)}
BOUNDS, BREAK, START, COUNTER = K["bounds"], K["break_percent"], K["start_distance"], K["counter"]
# a side's value is at its attacker's index + side: the SCALARS pairs are adjacent
MOVE_MOD, COVER, UNSEEN = K["attacker_move"], K["attacker_cover"], K["attacker_unseen"]
STRENGTH, GENERALS = K["attacker_strength"], K["attacker_generals"]
BEYOND, SIX_ROLLED, CLAMP_TOTAL, TIE_DEF = K["beyond_effective"], K["six_rolled"], K["clamp_total"], K["tie_defender"]
RALLY, DEPTH, LANES, ROAD, RIVER, BRIDGE, FORD = (K[k] for k in ("rally", "depth", "lanes", "road",
                                                                 "river", "bridge", "ford"))
G_MOVE, G_ROAD = K["general_move"], K["general_road"]
LEAVES, STOPS, PER_TARGET, LITERAL = (K[k] for k in ("retreat_leaves", "blocked_stops", "per_target",
                                                     "beyond_literal"))
UNANSWERED, ONCE, SPARE_GENERAL, COLUMN_ALL = (K[k] for k in ("unanswered", "moves_once",
                                                              "spare_general", "column_all"))
CONTACT, FAR_BANK, GENERAL_DIGIT = K["road_contact"], K["crossing_far_bank"], K["general_digit"]
IMPASSABLE = K["impassable"]
STREAM = keyed_size(luck.PURPOSES)
END_REASONS = ("defender broke", "attacker broke", "both broke", "day ended")
FIRST, ASSAULTS = 2, 3  # cas[FIRST]: the attacker's first close assault's bound; cas[ASSAULTS]: their number
MS, MD, MM, OS, OD, OM = range(6)  # a firefight's two sides: stands, dice, modifiers
(ONES, A_MEMBERS, D_MEMBERS, GAP, ABLE, RANGES, TARGET, NEAR, GROUP, FIRERS, DONE, MAY, MASKED, REACH,
 NEAR_AT, JOIN, AIM, POOL_A, POOL_D, HALT_AT) = range(6, 26)
ROWS = 26
"""Rows of a game's scratch (play_games): a firefight's moving side (M, MD, MM: stands,
dice, modifiers) and the other (OS, OD, OM; a close assault's modifiers in MS and MD), all
ones, the close assault's two sides, the tactics' arrays (GAP, ABLE), a stand's ranges
to the enemy (RANGES), the targets (TARGET), each stand's nearest enemy ahead in its arc
and its range (NEAR_AT, NEAR: fill_near), a group (GROUP), the
moving side's firers of one firefight a bound (FIRERS), a flag row (DONE), the stands
that may move (MAY), a column's stands that cannot fire (MASKED), the defenders in
close-assault reach (REACH), the other side's stands in a firefight a target (JOIN: its
target; AIM: the moving stand each fires at) and the stands a close assault may join
(POOL_A, POOL_D), where each attacking stand stops under its arm's order (HALT_AT:
tactics.stop)."""


# ------------------------------------------------------------------ the table (I-FRONT)

@unmanaged
def arc(lanes, a, b):
    """reference.in_arc of two lanes (Firing Rules; lanes: the table has them). The table's
    helpers take numbers, not arrays: every array handed to a function costs two atomic
    reference counts, and these run in the inner loops."""
    return lanes == 0 or abs(a - b) <= 1


@unmanaged
def nearest(st, ns, sc, s, i):
    """reference.nearest: (j, range) of the nearest enemy ahead in stand i's arc, or (-1, FAR)."""
    best, best_range = -1, FAR
    here, lane, lanes = st[DIST, s, i], st[LANE, s, i], sc[LANES]
    for j in range(ns[1 - s]):
        r = here + st[DIST, 1 - s, j]
        if st[STATUS, 1 - s, j] == ON and r >= 1 and r < best_range and arc(lanes, lane, st[LANE, 1 - s, j]):
            best, best_range = j, r
    return best, best_range


@unmanaged
def fill_near(st, ns, sc, s, scratch):
    """nearest for every stand of side s: the enemy into row NEAR_AT (-1: none), the range
    into row NEAR (FAR). One call for the side: a call that hands over arrays costs their
    reference counts, so no helper with arrays runs once a stand. Without lanes every
    stand has every enemy in its arc: the enemy nearest its own line is every stand's
    nearest ahead, but for a stand already past it."""
    o = 1 - s
    if sc[LANES]:
        for i in range(ns[s]):
            best, best_range = -1, FAR
            here, lane = st[DIST, s, i], st[LANE, s, i]
            for j in range(ns[o]):
                r = here + st[DIST, o, j]
                if st[STATUS, o, j] == ON and r >= 1 and r < best_range and arc(1, lane, st[LANE, o, j]):
                    best, best_range = j, r
            scratch[NEAR_AT, i], scratch[NEAR, i] = best, best_range
        return
    low, low_at = FAR, -1  # the enemy nearest its line: every stand's nearest, unless it is behind
    for j in range(ns[o]):
        if st[STATUS, o, j] == ON and st[DIST, o, j] < low:
            low, low_at = st[DIST, o, j], j
    for i in range(ns[s]):
        here = st[DIST, s, i]
        best, best_range = (low_at, here + low) if low_at >= 0 and here + low >= 1 else (-1, FAR)
        if low_at >= 0 and here + low < 1:
            for j in range(ns[o]):
                r = here + st[DIST, o, j]
                if st[STATUS, o, j] == ON and r >= 1 and r < best_range:
                    best, best_range = j, r
        scratch[NEAR_AT, i], scratch[NEAR, i] = best, best_range


@unmanaged
def gap(st, ns, sc, s, i):
    """reference.gap."""
    _, r = nearest(st, ns, sc, s, i)
    return r if r < FAR else st[DIST, s, i]


@unmanaged
def apart(axis, lanes):
    """reference.apart: a squared distance on the table in 5 mm units."""
    return (5 * axis) ** 2 + (8 * lanes) ** 2


@unmanaged
def crosses(river, here, to):
    """reference.crosses."""
    return river > 0 and (here >= river) != (to >= river)


@unmanaged
def impassable(mask, lane):
    """reference_state.impassable: lane's bit in table.impassable's mask."""
    return 0 <= lane <= MAX_LANES and (mask >> lane) & 1 == 1


@unmanaged
def can_cross(fords, lane, bridge, ford):
    """reference.can_cross: a bridge in the lane, or a ford for a stand that may ford."""
    return (bridge >= 0 and lane == bridge) or (fords == 1 and ford >= 0 and lane == ford)


@unmanaged
def crossing_ok(tab, st, sc, s, i):
    """Whether stand i of side s may cross the river in its lane (can_cross)."""
    return can_cross(tab[s, i, ruleset.FORD], st[LANE, s, i], sc[BRIDGE], sc[FORD])


# ------------------------------------------------------------------ dice

@unmanaged
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


@unmanaged
def contest(ta, sa, td, sd):
    """(winner, casualties to the first side, to the second): reference.contest."""
    winner = (ta > td) - (ta < td)
    return winner, sd + max(0, td - ta) // 6, sa + max(0, ta - td) // 6


# ------------------------------------------------------------------ casualties and breaking

@unmanaged
def take(st, ns, sc, side, scratch, members, count, n):
    """reference.take: n casualties on the count stands of side listed in row `members` of
    scratch (-1: stands 0 .. count - 1): nearest the enemy first, most damaged first."""
    if n <= 0:
        return
    fill_near(st, ns, sc, side, scratch)
    for _ in range(n):
        best = -1
        for k in range(count):
            i = scratch[members, k] if members >= 0 else k
            if st[STATUS, side, i] != ON:
                continue
            if best < 0 or (scratch[NEAR, i], st[FIG, side, i]) < (scratch[NEAR, best], st[FIG, side, best]):
                best = i
        if best < 0:
            return
        st[FIG, side, best] -= 1
        if st[FIG, side, best] == 0:
            st[STATUS, side, best] = DESTROYED


@unmanaged
def lost(st, side, n):
    out = 0
    for i in range(n):
        out += st[STATUS, side, i] != ON
    return out


@unmanaged
def end_code(st, ns, sc):
    """0 defender broke, 1 attacker broke, 2 both, -1 neither (END_REASONS)."""
    a = lost(st, ATT, ns[ATT]) * 100 > sc[BREAK] * sc[STRENGTH]
    d = lost(st, DEF, ns[DEF]) * 100 > sc[BREAK] * sc[STRENGTH + 1]
    return 2 if a and d else 1 if a else 0 if d else -1
