"""The reference engine's fire (Move Sequence 3-6): the firefights (Firing Rules, Firing
Modifiers; one a bound, or one a target, I-FIREFIGHT), the close assaults after a won
firefight (Close Assault Rules, Close Assault Modifiers) and the loser's retreat
(I-RETREAT, I-BLOCKED)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bollesim.balkan import defence, luck, ruleset, tactics
from bollesim.balkan.reference_state import (
    ATTACKER,
    DEFENDER,
    LEFT,
    SIDES,
    Battle,
    Stand,
    can_cross,
    contest,
    crosses,
    in_arc,
    nearest,
    span,
    take,
    throw,
)

PURPOSES = {ATTACKER: (luck.FIRE_A, luck.FIRE_D), DEFENDER: (luck.REPLY_D, luck.REPLY_A)}
"""The dice of each side's bound's firefights: the moving side's, the other's."""


@dataclass
class Fight:
    """A firefight's outcome: the winner from the moving side's view (1 won, -1 lost, 0 a
    tie), the moving side's stands that fired, and the other side's in it: its target and
    the stands that joined it (None: one firefight a bound, every stand of the other
    side)."""

    winner: int
    firers: list[Stand]
    others: list[Stand] | None = None
    target: Stand | None = None
    casualties: tuple = field(default=(0, 0))  # to the moving side, to the other


# ------------------------------------------------------------------ who fires

def masked(b: Battle, s: Stand) -> bool:
    """I-COLUMN: a column's stand behind its leading stand (the first on the field of the
    column in its lane at its place) does not fire."""
    if s.formation != ruleset.COLUMN or b.p("column_all"):
        return False
    for t in b.side(s.side):
        if t is s:
            return False
        if t.on and t.formation == ruleset.COLUMN and t.lane == s.lane and t.dist == s.dist:
            return True
    return False


def shot(b: Battle, s: Stand, t: Stand) -> tuple[Stand, int, int]:
    """(stand, dice, modifier) of a stand firing at a target in its arc and range (Firing
    Rules, Firing Modifiers): the target's cover (the defender's only on its line,
    I-FRONT), quality, beyond effective range (I-BEYOND), artillery out of sight; two
    dice for artillery at short range."""
    r = span(b, s, t)
    cover = 0 if t.side == DEFENDER and t.dist else b.p(f"{SIDES[t.side]}_cover")
    modifier = s.quality + cover
    if s.gun:
        modifier += b.p(f"{SIDES[s.side]}_unseen")
    elif r > s.effective and (r < s.maximum or not b.p("beyond_literal")):
        modifier += b.p("beyond_effective")
    return s, s.dice_near if r <= s.effective else 1, modifier


def fire_of(b: Battle, side: int) -> list[tuple[Stand, int, int]]:
    """The side's stands that fire in one firefight a bound: each at its nearest enemy in
    arc and range."""
    out = []
    for s in b.side(side):
        if not s.on or masked(b, s):
            continue
        t, r = nearest(b, s)
        if t is not None and r <= s.maximum:
            out.append(shot(b, s, t))
    return out


# ------------------------------------------------------------------ firefights

def firefights(b: Battle, mover: int) -> list[Fight]:
    """Move Sequence 3-4: both sides fire (I-FIREFIGHT: one firefight, or one a target)."""
    if b.p("per_target"):
        return per_target(b, mover)
    fire_m, fire_o = fire_of(b, mover), fire_of(b, 1 - mover)
    if not fire_m and not fire_o:
        return []
    fight = contested(b, mover, fire_m, fire_o)
    if fight is None:
        return []
    to_m, to_o = fight.casualties
    wound(b, mover, to_m, to_o, b.side(mover), b.side(1 - mover))
    return [fight]


def contested(b: Battle, mover: int, fire_m, fire_o) -> Fight | None:
    """One firefight's dice and outcome; a side that cannot reply (I-UNANSWERED) totals 0,
    or there is no firefight (None), or only the sixes count."""
    unanswered = not fire_m or not fire_o
    if unanswered and b.p("unanswered") == 1:
        return None
    b.note("firefight", SIDES[mover], len(fire_m), len(fire_o))
    purpose_m, purpose_o = PURPOSES[mover]
    (tm, sm), (to, so) = throw(b, fire_m, purpose_m), throw(b, fire_o, purpose_o)
    if unanswered and b.p("unanswered") == 2:
        winner, to_m, to_o = 0, so, sm
    else:
        winner, to_m, to_o = contest((tm, sm), (to, so))
    b.note("winner", SIDES[mover], winner)
    return Fight(winner, [s for s, _, _ in fire_m], casualties=(to_m, to_o))


def wound(b: Battle, mover: int, to_m: int, to_o: int, movers, others) -> None:
    """Move Sequence 4: casualties on each side's stands (reference.take)."""
    attackers, defenders = (movers, others) if mover == ATTACKER else (others, movers)
    to_a, to_d = (to_m, to_o) if mover == ATTACKER else (to_o, to_m)
    for name, stands, n in (("attacker", attackers, to_a), ("defender", defenders, to_d)):
        standing = [s for s in stands if s.on]
        take(b, stands, n)
        b.note("casualties", name, n, [s.label for s in standing if not s.on])
    ca, cd = b.casualties
    b.casualties = (ca + to_a, cd + to_d)


def per_target(b: Battle, mover: int) -> list[Fight]:
    """I-FIREFIGHT=per-target (Firing Rules): each moving stand picks a target, and the
    stands firing at one target are one firefight; of the other side the target replies at
    the nearest of them it reaches, and every other stand that can fires in the firefight
    of the moving stand it picks (each side's choice: tactics.target, defence.target); the
    casualties of all are taken after all are thrown (Move Sequence 4), on the firers and
    on the target and the stands that joined it."""
    movers, others = b.side(mover), b.side(1 - mover)
    choose_m, choose_o = ((tactics.target, defence.target) if mover == ATTACKER
                          else (defence.target, tactics.target))
    aim: dict[int, Stand] = {}  # a firing stand: the enemy it fires at
    targets: dict[int, list[Stand]] = {}
    figures = np.array([t.figures for t in others], dtype=np.int64)
    for s in movers:
        if s.on and not masked(b, s):
            j = int(choose_m(ranges(b, s, others), figures))
            if j >= 0:
                targets.setdefault(j, []).append(s)
                aim[id(s)] = others[j]
    fight_of: dict[int, int] = {}  # the other side's stands that fire: the target of their firefight
    figures = np.array([s.figures for s in movers], dtype=np.int64)
    for k, u in enumerate(others):
        if not u.on or masked(b, u):
            continue
        if k in targets:
            near = min((s for s in targets[k] if in_arc(b, u, s) and 1 <= span(b, u, s) <= u.maximum),
                       key=lambda s: span(b, u, s), default=None)
            if near is not None:
                fight_of[k], aim[id(u)] = k, near
            continue
        firing = ranges(b, u, movers) * np.array([id(s) in aim for s in movers], dtype=np.int64)
        f = int(choose_o(firing, figures))
        if f >= 0:
            fight_of[k], aim[id(u)] = others.index(aim[id(movers[f])]), movers[f]
    fights = []
    for j in sorted(targets):
        t, firers = others[j], targets[j]
        fire_o = [shot(b, u, aim[id(u)]) for k, u in enumerate(others) if fight_of.get(k) == j]
        fight = contested(b, mover, [shot(b, s, t) for s in firers], fire_o)
        if fight is not None:
            fight.target = t
            fight.others = [u for k, u in enumerate(others) if k == j or fight_of.get(k) == j]
            fights.append(fight)
    for f in fights:
        wound(b, mover, *f.casualties, f.firers, f.others)
    return fights


def ranges(b: Battle, s: Stand, enemies: list[Stand]) -> np.ndarray:
    """The stand's range to each enemy on the field in its arc and range, else 0 (the
    choices' array, tactics.target)."""
    return np.array([span(b, s, t) if t.on and in_arc(b, s, t) and span(b, s, t) <= s.maximum else 0
                     for t in enemies], dtype=np.int64)


# ------------------------------------------------------------------ close assaults

def reaches(b: Battle, a: Stand, d: Stand) -> bool:
    """Whether a close assault can join the attacker's stand `a` and the defender's stand
    `d`: d in a's arc within a's effective range, whichever side goes in (I-FRONT), and
    across the river only where a may cross (Movement Rules)."""
    r = span(b, a, d)
    if not (d.on and 1 <= r <= a.effective and in_arc(b, a, d)):
        return False
    return not crosses(b, a.dist, 1 - d.dist) or can_cross(b, a)


def close(b: Battle, stands: list[Stand], enemies: list[Stand]) -> list[Stand]:
    """The attacker's troops among `stands` with an enemy in close-assault reach
    (artillery does not assault)."""
    return [s for s in stands if s.on and not s.gun and any(reaches(b, s, d) for d in enemies)]


def healthiest(stands: list[Stand], k: int) -> list[Stand]:
    return sorted(stands, key=lambda s: -s.figures)[:k]


def assaults(b: Battle, fights: list[Fight], ask) -> None:
    """Move Sequence 5-6, Close Assault Rules: after each won firefight the attacker's
    close troops among its firers assault (ask, the attacker's declared decision
    tactics.CLOSE_ASSAULT, says whether: reference.asker) as many of the
    defender's healthiest stands in reach that it defeated: every one (one firefight a
    bound) or those of that firefight (one a target); or, as it may choose, only its
    stands that have lost no figure (tactics.FRESH), against as many in their reach."""
    for f in fights:
        if f.winner <= 0:
            continue
        targets = b.defender if f.others is None else f.others
        assaulting = close(b, f.firers, targets)
        defending = healthiest([d for d in targets if any(reaches(b, a, d) for a in assaulting)],
                               len(assaulting))
        if not assaulting or not defending:
            continue
        fresh = [s for s in assaulting if s.figures == b.rules.attacker[b.attacker.index(s), ruleset.FIGURES]]
        seen = {tactics.O_CANDIDATES: len(assaulting), tactics.O_DEFENDING: len(defending),
                tactics.O_FRESH: len(fresh)}
        choice = ask(tactics.CLOSE_ASSAULT, 3 if 0 < len(fresh) < len(assaulting) else 2, seen)
        if choice == tactics.HOLD:
            continue
        if choice == tactics.FRESH:
            assaulting = fresh
            defending = healthiest([d for d in targets if any(reaches(b, a, d) for a in assaulting)],
                                   len(assaulting))
        b.assaults += 1
        b.first_assault = b.first_assault or b.bound
        assault(b, assaulting, defending)


def assault(b: Battle, assaulting: list[Stand], defending: list[Stand]) -> None:
    """One close assault of the attacker: the defender's cover counts against the
    assaulting dice (Close Assault Modifiers, the defender's cover only on its line);
    the loser retires (I-TIE), the winners stand in contact."""
    b.note("assault", "attacker", [s.label for s in assaulting], [s.label for s in defending])
    cover = b.p("defender_cover") if all(d.dist == 0 for d in defending) else 0
    winner, to_a, to_d = contest(
        throw(b, [(s, 1, s.quality + cover) for s in assaulting], luck.ASSAULT_A),
        throw(b, [(s, 1, s.quality) for s in defending], luck.ASSAULT_D))
    b.note("winner", "attacker", winner)
    wound(b, ATTACKER, to_a, to_d, assaulting, defending)
    contact = 1 - min(d.dist for d in defending)
    if winner > 0:
        retire(b, defending, None)
    if winner < 0 or (winner == 0 and b.p("tie_defender")):
        retire(b, assaulting, contact)
    else:
        for s in assaulting:
            if s.on:
                s.dist = contact


def counters(b: Battle, fights: list[Fight]) -> None:
    """The defender's close assaults after a won firefight in its bound (battle.counter):
    its healthiest troops in reach against the attacker's close troops, all of them (one
    firefight a bound) or those of that firefight (one a target)."""
    for f in fights:
        if f.winner <= 0:
            continue
        pool_a, pool_d = (b.attacker, b.defender) if f.others is None else (f.others, f.firers)
        assaulted = close(b, pool_a, pool_d)
        assaulting = healthiest([d for d in pool_d if not d.gun and any(
            reaches(b, a, d) for a in assaulted)], len(assaulted))
        if assaulted and assaulting:
            counter(b, assaulting, assaulted)


def counter(b: Battle, assaulting: list[Stand], assaulted: list[Stand]) -> None:
    """One close assault of the defender: the attacker's cover counts against it."""
    b.note("assault", "defender", [s.label for s in assaulting], [s.label for s in assaulted])
    cover = b.p("attacker_cover")
    winner, to_d, to_a = contest(
        throw(b, [(s, 1, s.quality + cover) for s in assaulting], luck.COUNTER_D),
        throw(b, [(s, 1, s.quality) for s in assaulted], luck.COUNTER_A))
    b.note("winner", "defender", winner)
    wound(b, ATTACKER, to_a, to_d, assaulted, assaulting)
    if winner > 0:
        retire(b, assaulted, None)
    elif winner < 0 or b.p("tie_defender"):
        retire(b, assaulting, None)


# ------------------------------------------------------------------ the retreat

def retire(b: Battle, stands: list[Stand], contact: int | None) -> None:
    """Close Assault Rules: the loser retires a full road march at once, away from the
    enemy, from the contact (`contact`, an assaulting attacker's) or where it stands; past
    its table edge it leaves the field (I-RETREAT); a river it may not cross bars it
    (I-BLOCKED). I-RETREAT=leaves: a defender leaves the field, an attacker falls back to
    a road march from the defender's line (off the field past its start)."""
    gone = []
    for s in stands:
        if not s.on:
            continue
        how = "back"
        if b.p("retreat_leaves"):
            if s.side == DEFENDER or s.road > b.p("start_distance"):
                s.status, how = LEFT, "off"
            else:
                s.dist = s.road
        else:
            here = s.dist if contact is None else contact
            to = here + s.road
            edge = b.p("start_distance") if s.side == ATTACKER else b.p("depth")
            if s.side == ATTACKER and crosses(b, here, to) and not can_cross(b, s):
                if b.p("blocked_stops"):
                    s.dist, how = b.p("river") - 1, "bank"
                else:
                    s.status, how = LEFT, "blocked"
            elif to > edge:
                s.status, how = LEFT, "off"
            else:
                s.dist = to
        gone.append((s.label, how, s.dist))
    b.note("retire", SIDES[stands[0].side] if stands else "", gone)

