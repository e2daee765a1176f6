"""The reference engine's moves (Move Sequence 1-2, Generals and Orders, Movement Rules):
each general's move die, the command area, passing digits down, formation changes, moves
over the ground, a road and a river, the unused digits and the generals' own moves. The
attacker's choices are tactics.py's, the defender's defence.py's (I-DEFENDER)."""

from __future__ import annotations

import numpy as np

from bollesim.balkan import defence, luck, ruleset, tactics
from bollesim.balkan.reference_state import (
    ATTACKER,
    FAR,
    SIDES,
    Battle,
    General,
    Stand,
    apart,
    bulk,
    can_cross,
    commands,
    crosses,
    gap,
    impassable,
    in_arc,
    span,
)

STEP_PER_DIGIT = 2  # Movement Rules: 0.25 km for every unused digit


def move_phase(b: Battle, side: int, params: np.ndarray, ask) -> None:
    """Move Sequence 1-2 for one side: every general throws his die (Generals and
    Orders), the attacker gives each arm its order (orders; ask: reference.asker's), the
    commander passes digits down, each general spends his digits on the
    stands of his that began the bound in his Command Area, then his unused digits and his
    own move (Movement Rules). A defender that holds (I-DEFENDER) only throws."""
    gens = b.generals[side]
    for k, g in enumerate(gens):
        purpose = ((luck.MOVE, luck.MOVE_D) if k == 0 else (luck.SUBORDINATE_A, luck.SUBORDINATE_D))[side]
        face = b.d6(purpose)
        g.digits, g.used = max(0, face + g.mod), 0
        b.note("move", SIDES[side], g.label, face, g.mod, g.digits)
    if side != ATTACKER and not b.p("rally"):
        return  # I-DEFENDER: a defender that holds moves no stand and no general
    for s in b.side(side):
        s.moved = False
        s.command = s.on and commands(b, gens[s.general], s.dist, s.lane)
    out = [s.label for s in b.side(side) if s.on and not s.command]
    if out:
        b.note("command", SIDES[side], out)
    if side == ATTACKER:
        orders(b, params, ask)
        pass_down(b, params)
    for k, g in enumerate(gens):
        spend(b, side, k, g, params, ask)
        finish(b, side, k, g, params)


def orders(b: Battle, params: np.ndarray, ask) -> None:
    """Move Sequence 2, 'Those stands that are being moved': the attacker's order for each
    arm this bound (tactics.TROOPS_ADVANCE, GUNS_ADVANCE: halt and fire, part of a move, the
    full move toward the player's own halt, toward the weapon's maximum or effective
    range), asked for an arm with a stand that may be moved (may_move, before any order)
    and is short of the nearest an order could send it (tactics.closest_stop; else the
    options are one), on its digits and the arm's stands' gaps; an arm not asked advances
    in full."""
    for s in b.attacker:
        s.order = tactics.FULL
    digits = sum(g.digits for g in b.generals[ATTACKER])
    movable = [s for s in b.attacker if may_move(b, s)]
    for kind in (tactics.TROOPS_ADVANCE, tactics.GUNS_ADVANCE):
        stands = [s for s in movable if tactics.arm_of(s.weapon) == kind]
        arm = [gap(b, s) for s in stands]
        if not any(gap(b, s) > tactics.closest_stop(s.weapon, s.effective, params) for s in stands):
            continue
        order = ask(kind, tactics.N_ORDERS, {tactics.O_DIGITS: digits, tactics.O_MOVABLE: len(arm),
                              tactics.O_NEAREST: min(arm), tactics.O_FARTHEST: max(arm)})
        for s in b.attacker:
            if tactics.arm_of(s.weapon) == kind:
                s.order = order
        if order != tactics.FULL:
            b.note("order", kind, order)


# ------------------------------------------------------------------ arrays for the choices

def able(b: Battle, side: int, k: int) -> np.ndarray:
    """1 for the general's stands that may be moved now (may_move)."""
    return np.array([s.general == k and may_move(b, s) for s in b.side(side)], dtype=np.int64)


def may_move(b: Battle, s: Stand) -> bool:
    """On the field, in its general's command area at the start of the bound (Move
    Sequence 2), ordered to move (orders: its arm not halted, nor a part move made), not
    moved yet if it may move only once (I-MOVES), and able to come any
    nearer: not against the 0.125 km limit, nor on the river's bank without a crossing it
    may use (Movement Rules)."""
    if not (s.on and s.command) or (b.p("moves_once") and s.moved):
        return False
    if not tactics.ordered(s.order, s.moved):
        return False  # its arm halts, or moved its part this bound (orders)
    if any(e.on and span(b, s, e) == 1 and in_arc(b, s, e) for e in b.side(1 - s.side)):
        return False
    return not (s.side == ATTACKER and b.p("river") and s.dist == b.p("river") and not can_cross(b, s))


def gaps(b: Battle, side: int) -> np.ndarray:
    return np.array([gap(b, s) for s in b.side(side)], dtype=np.int64)


def stops(b: Battle, params: np.ndarray) -> np.ndarray:
    """Where each attacking stand stops under its arm's order (tactics.stop)."""
    return np.array([tactics.stop(s.weapon, s.order, s.effective, s.maximum, params) for s in b.attacker],
                    dtype=np.int64)


def column(b: Battle, side: int, name: str) -> np.ndarray:
    return np.array([getattr(s, name) for s in b.side(side)], dtype=np.int64)


# ------------------------------------------------------------------ Generals and Orders

def pass_down(b: Battle, params: np.ndarray) -> None:
    """Generals and Orders: the commander passes digits to subordinates within his
    Command Area, two of his for each one passed (tactics.pass_down says how many)."""
    gens = b.generals[ATTACKER]
    if len(gens) == 1:
        return
    c, g, w = gens[0], gaps(b, ATTACKER), stops(b, params)
    spare = max(0, c.digits - tactics.wanting(g, w, able(b, ATTACKER, 0)))
    for k in range(1, len(gens)):
        sub = gens[k]
        if not commands(b, c, sub.dist, sub.lane):
            continue
        wanted = max(0, tactics.wanting(g, w, able(b, ATTACKER, k)) - sub.digits)
        n = int(tactics.pass_down(spare, wanted))
        if n:
            c.digits -= 2 * n
            spare -= 2 * n
            sub.digits += n
            b.note("passed", k, n)


def spend(b: Battle, side: int, k: int, g: General, params: np.ndarray, ask=None) -> None:
    """Each digit changes a group's formation or moves a group (Movement Rules), until
    the side's choices stop or the digits run out. The attacker names the group a digit
    moves (digit; ask None: the family's, the farthest) or keeps it and the digits left
    unused."""
    while g.used < g.digits:
        if side == ATTACKER:
            ready = np.array([deployable(b, s) for s in b.side(side)], dtype=np.int64)
            j = tactics.reform(gaps(b, side), column(b, side, "formation"), able(b, side, k), ready)
            if j >= 0:
                deploy(b, group(b, b.attacker[j]))
                g.used += 1
                continue
            leader, want = digit(b, k, g, params, ask)  # -1: none to move, or SPARE (I-SPARE)
            if leader >= 0:
                s = b.side(side)[leader]
                want = tactics.part_of(want, s.order, s.move)
        elif b.p("rally"):
            leader, want = defence.rally(column(b, side, "dist"), able(b, side, k))
        else:
            return
        if leader < 0:
            return
        stands = group(b, b.side(side)[leader])
        move_group(b, stands, int(want), None)
        for s in stands:
            s.moved = True
        g.used += 1


def digit(b: Battle, k: int, g: General, params: np.ndarray, ask) -> tuple[int, int]:
    """Movement Rules, 'One digit ... is expended to move: a stand or a group of stands': the
    attacker's choice of the group this digit moves (tactics.DIGIT: the farthest first,
    the nearest, the troops' or the guns' farthest), asked where they differ
    (tactics.digit_options; else the farthest), or SPARE (Movement Rules: the General 'may
    add 0.25km (5cm) for every unused digit', I-SPARE): (its leading stand, the steps it
    wants), or (-1, 0): none is short of where it stops, or the digits left are kept."""
    gap, stop, ok = gaps(b, ATTACKER), stops(b, params), able(b, ATTACKER, k)
    stands = tactics.leaders(gap, stop, ok, column(b, ATTACKER, "weapon"))
    codes = np.zeros(tactics.N_OPTIONS, dtype=np.int64)
    n = int(tactics.digit_options(*stands, codes))
    code = tactics.FARTHEST
    if n and ask is not None:
        count, low, high = tactics.short_of(gap, stop, ok)
        code = int(codes[ask(tactics.DIGIT, n, {
            tactics.O_DIGITS: g.digits - g.used, tactics.O_MOVABLE: int(count),
            tactics.O_NEAREST: int(low), tactics.O_FARTHEST: int(high)}, codes[:n])])
        if code != tactics.FARTHEST:
            b.note("digit", code)
    leader = int(tactics.pick(code, *stands))
    return leader, int(gap[leader] - stop[leader]) if leader >= 0 else 0


def group(b: Battle, head: Stand) -> list[Stand]:
    """The stands that move with a group's leading stand: those that may move and are
    together with it."""
    return [s for s in b.side(head.side) if may_move(b, s) and together(head, s)]


def together(head: Stand, s: Stand) -> bool:
    """A group (Movement Rules: 'a group of stands moving together'): the general's stands
    at one place with one rate, all troops or all guns, in one formation (a column: in
    one lane)."""
    return (s.general == head.general and s.dist == head.dist and s.move == head.move
            and s.gun == head.gun and s.formation == head.formation
            and (head.formation != ruleset.COLUMN or s.lane == head.lane))


def deployable(b: Battle, s: Stand) -> bool:
    """Whether the column of stand s could deploy here: across any river before it (so
    that it crossed in column, the attacker's choice read by tactics.reform) and with no
    impassable lane under the line it would form (Terrain)."""
    if b.p("river") and s.dist >= b.p("river"):
        return False
    if s.formation != ruleset.COLUMN or not b.p("impassable") or not may_move(b, s):
        return True
    n = len(group(b, s))
    return not any(impassable(b, s.lane - (n - 1) // 2 + i) for i in range(n))


def deploy(b: Battle, stands: list[Stand]) -> None:
    """A column deploys into line (I-FORMATION): its stands spread to either side of its
    lane, the middle one keeping it."""
    lane = stands[0].lane
    for i, s in enumerate(stands):
        s.formation = ruleset.LINE
        if b.p("lanes"):
            s.lane = lane - (len(stands) - 1) // 2 + i
    b.note("formation", SIDES[stands[0].side], [s.label for s in stands], "line")


# ------------------------------------------------------------------ a move

def on_road(b: Battle, stands: list[Stand]) -> bool:
    """Terrain: a group on the road's lane in column (or one stand) keeps to the road."""
    road = b.p("road")
    return road >= 0 and all(s.lane == road for s in stands) and (
        len(stands) == 1 or stands[0].formation == ruleset.COLUMN)


def out_of_contact(b: Battle, side: int, dist: int, lane: int) -> bool:
    """I-CONTACT: more than road_contact steps on the table from every enemy stand."""
    reach = (5 * b.p("road_contact")) ** 2
    return all(apart(dist + e.dist, lane - e.lane) > reach for e in b.side(1 - side) if e.on)


def closest(b: Battle, stands: list[Stand]) -> int:
    """Movement Rules: the nearest a group may come, not closer than 0.125 km to an enemy
    ahead in the lanes beside it (a distance: the group stops at or above it)."""
    limit = -FAR
    for s in stands:
        for e in b.side(1 - s.side):
            if e.on and span(b, s, e) >= 1 and in_arc(b, s, e):
                limit = max(limit, 1 - e.dist)
    return limit


def move_group(b: Battle, stands: list[Stand], want: int, extra: int | None) -> None:
    """Move a group toward the enemy by `want` steps at most: at its rate (extra None) or
    by `extra` steps (unused digits, I-SPARE); on the road at road speed out of contact
    (I-CONTACT); across the river only where a crossing serves every stand, at the
    difficult rate (I-CROSSING: a move that would not get across so stops at the bank),
    else to the bank (Movement Rules)."""
    head, side = stands[0], stands[0].side
    here = head.dist
    goal, limit = here - want, closest(b, stands)
    if extra is not None:
        rate, how = extra, "further"
    else:
        road = on_road(b, stands) and out_of_contact(
            b, side, max(goal, here - min(s.road for s in stands), limit), head.lane)
        rate, how = (min(s.road for s in stands), "road") if road else (head.move, "ground")
    to = max(goal, here - rate, limit)
    if side == ATTACKER and crosses(b, here, to):
        if not all(can_cross(b, s) for s in stands):
            to, how = b.p("river"), "blocked"
        elif b.p("crossing_far_bank"):
            to, how = max(to, b.p("river") - 1), "crossing"
        elif extra is None:
            across = max(goal, here - min(s.difficult for s in stands), limit)
            to, how = (across, "crossing") if across < b.p("river") else (b.p("river"), "bank")
    b.note("advance", [s.label for s in stands], head, here, to, how)
    for s in stands:
        s.dist = to


# ------------------------------------------------------------------ unused digits, the general's move

def finish(b: Battle, side: int, k: int, g: General, params: np.ndarray) -> None:
    """After his stands: the general's own move (I-GENERAL: free, or a digit) and his
    unused digits' 0.25 km each (I-SPARE: to the groups he moved, or to his own move)."""
    to = destination(b, side, k)
    moves = to is not None and to != (g.dist, g.lane) and (
        not b.p("general_digit") or g.used < g.digits)
    if moves and b.p("general_digit"):
        g.used += 1
    unused = g.digits - g.used
    extra = STEP_PER_DIGIT * unused
    if unused and not b.p("spare_general"):
        lengthen(b, side, k, extra, params)
        extra = 0
    if moves:
        general_moves(b, side, g, to, extra)


def destination(b: Battle, side: int, k: int) -> tuple[int, int] | None:
    """Where the general goes (reference_state.bulk); None with none of his stands left."""
    if not any(s.on and s.general == k for s in b.side(side)):
        return None
    return bulk(b, side, k)


def lengthen(b: Battle, side: int, k: int, extra: int, params: np.ndarray) -> None:
    """I-SPARE=stands: each group the general moved goes `extra` steps further toward its
    goal (its halt; the defender's line)."""
    done: set[int] = set()
    for s in b.side(side):
        if not (s.on and s.moved and s.general == k) or id(s) in done:
            continue
        stands = [t for t in b.side(side) if t.on and t.moved and id(t) not in done and together(s, t)]
        done |= {id(t) for t in stands}
        if side == ATTACKER and not tactics.lengthened(s.order):
            continue  # a halted or part move is not lengthened (the General 'may add')
        want = (gap(b, s) - tactics.stop(s.weapon, s.order, s.effective, s.maximum, params)
                if side == ATTACKER else s.dist)
        if want > 0:
            move_group(b, stands, int(want), extra)


def general_moves(b: Battle, side: int, g: General, to: tuple[int, int], extra: int) -> None:
    """The general goes toward `to`, his lane first, then along the axis, as far as his
    move (and `extra`) takes him, at road speed on the road out of contact; across the
    river only at a crossing in his lane (Movement Rules: generals cross by bridge or
    ford)."""
    dist, lane = to
    road = b.p("road") >= 0 and g.lane == b.p("road") and out_of_contact(b, side, g.dist, g.lane)
    budget = 5 * ((b.p("general_road") if road else b.p("general_move")) + extra)
    frm = (g.dist, g.lane)
    lanes, way = 0, 1 if lane > g.lane else -1
    while lanes < min(abs(lane - g.lane), budget // 8) and not impassable(b, g.lane + way * (lanes + 1)):
        lanes += 1
    g.lane += way * lanes
    steps = min(abs(dist - g.dist), (budget - 8 * lanes) // 5)
    end = g.dist + (steps if dist > g.dist else -steps)
    river = b.p("river")
    crossing = g.lane >= 0 and g.lane in (b.p("bridge"), b.p("ford"))
    if side == ATTACKER and crosses(b, g.dist, end) and not crossing:
        end = river if g.dist >= river else river - 1
    g.dist = end
    if (g.dist, g.lane) != frm:
        b.note("general", SIDES[side], g.label, frm, (g.dist, g.lane))
