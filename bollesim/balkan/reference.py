"""The reference engine: one Balkan Wars engagement at a time in plain Python, reading
like the battle rules (each step names its section). It is the fast engine's oracle
(engine.py plays the same games, die for die) and the model docs/balkan-wars.md tells.

The engagement: the attacker's stands stand at distances from the defender's line (in
steps of 0.125 km), the defender's on it. Each bound the attacker's general throws his
move die and moves groups of stands; both sides fire (the attacker's firefight); the
attacker may close assault after a won firefight; then the defender's bound: both fire
again (the defender's firefight) and a defender that counter-attacks may close assault.
An army whose stands destroyed or gone pass the break percent of its pre-battle strength
has lost (Winning a Battle).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bollesim.balkan import luck, ruleset, tactics
from bollesim.rng import CHANCE, keyed_d6, new_stream

ON, DESTROYED, LEFT = 0, 1, 2  # a stand's status; LEFT: retired off the field


@dataclass(eq=False)
class Stand:
    weapon: int
    quality: int  # the dice modifier of its quality
    effective: int
    maximum: int
    dice_near: int
    figures: int  # figures left: at 0 the stand is destroyed
    move: int
    road: int
    dist: int  # from the defender's line; defenders stand on it (0)
    status: int = ON
    label: str = ""  # what the narration calls it ("trained infantry 3")

    @property
    def on(self) -> bool:
        return self.status == ON


@dataclass
class Battle:
    rules: ruleset.Ruleset
    attacker: list[Stand]
    defender: list[Stand]
    stream: np.ndarray  # the game's keyed chance stream
    bound: int = 0
    casualties: tuple = (0, 0)  # figures lost: attacker, defender
    first_assault: int = 0
    assaults: int = 0
    log: list | None = None  # the narration's events (bound, kind, *facts), when kept

    def d6(self, purpose: int) -> int:
        return int(keyed_d6(self.stream, self.bound, purpose))

    def note(self, kind: str, *facts) -> None:
        """Record an event for the narration (narrate.py), if it is kept."""
        if self.log is not None:
            self.log.append((self.bound, kind, *facts))


def new_battle(rules: ruleset.Ruleset, seed: int, game: int) -> Battle:
    def stands(table, dist):
        return [Stand(*(int(v) for v in row[:ruleset.N_COLUMNS]), dist=dist) for row in table]

    return Battle(rules, stands(rules.attacker, rules.p("start_distance")),
                  stands(rules.defender, 0), new_stream(seed, game, CHANCE, luck.PURPOSES))


# ------------------------------------------------------------------ dice

def throw(b: Battle, fire: list[tuple[Stand, int, int]], purpose: int) -> tuple[int, int]:
    """(total, sixes) of stands throwing (stand, dice, modifier), in stand order (Firing
    Rules: each modified score kept within 1 to 6, I-CLAMP; a six inflicts a casualty,
    I-SIX)."""
    total = sixes = dice = 0
    rolls = []
    for stand, n, modifier in fire:
        for _ in range(n):
            face = b.d6(purpose)
            score = face + modifier
            if not b.rules.p("clamp_total"):
                score = min(6, max(1, score))
            total += score
            dice += 1
            sixes += face == 6 if b.rules.p("six_rolled") else score >= 6
            rolls.append((stand.label, face, modifier, score))
    if b.rules.p("clamp_total"):
        total = min(6 * dice, max(dice, total))
    b.note("dice", purpose, rolls, total, sixes)
    return total, sixes


def contest(a: tuple[int, int], d: tuple[int, int]) -> tuple[int, int, int]:
    """(winner: 1 the first side, -1 the second, 0 a tie; casualties to the first side,
    to the second): the loser takes the difference divided by six, rounded down, and
    every six inflicts one on the other side (Firing Rules, Close Assault Rules)."""
    (ta, sa), (td, sd) = a, d
    winner = (ta > td) - (ta < td)
    to_first = sd + (max(0, td - ta) // 6)
    to_second = sa + (max(0, ta - td) // 6)
    return winner, to_first, to_second


# ------------------------------------------------------------------ casualties and breaking

def take(stands: list[Stand], n: int) -> None:
    """n casualties on the stands: the nearest the enemy first, the most damaged of them
    first, then stand order (I-FRONT); a stand with no figures left is destroyed."""
    for _ in range(n):
        alive = [s for s in stands if s.on]
        if not alive:
            return
        s = min(alive, key=lambda s: (s.dist, s.figures))
        s.figures -= 1
        if s.figures == 0:
            s.status = DESTROYED


def lost(stands: list[Stand]) -> int:
    return sum(not s.on for s in stands)


def broken(b: Battle, side: str) -> bool:
    """Winning a Battle: more than break_percent of the pre-battle strength in stands
    (transport and generals included) destroyed or gone from the field."""
    stands = b.attacker if side == "attacker" else b.defender
    return lost(stands) * 100 > b.rules.p("break_percent") * b.rules.p(f"{side}_strength")


def wound(b: Battle, to_attacker: int, to_defender: int, attackers, defenders) -> None:
    for side, stands, n in (("attacker", attackers, to_attacker), ("defender", defenders, to_defender)):
        standing = [s for s in stands if s.on]
        take(stands, n)
        b.note("casualties", side, n, [s.label for s in standing if not s.on])
    ca, cd = b.casualties
    b.casualties = (ca + to_attacker, cd + to_defender)


# ------------------------------------------------------------------ the bound

def move(b: Battle, params: np.ndarray) -> None:
    """Move Sequence 1-2: the general's modified d6 gives the digits; each moves one group
    (stands at one distance with one rate, all troops or all guns) toward the enemy, but
    not closer than 0.125 km (Movement Rules)."""
    face = b.d6(luck.MOVE)
    digits = max(0, face + b.rules.p("attacker_move"))
    b.note("move", face, b.rules.p("attacker_move"), digits)
    dist = np.array([s.dist for s in b.attacker], dtype=np.int64)
    weapon = np.array([s.weapon for s in b.attacker], dtype=np.int64)
    status = np.array([s.status for s in b.attacker], dtype=np.int64)
    for _ in range(digits):
        leader, to = tactics.advance(dist, weapon, status, params)
        if leader < 0:
            return
        head = b.attacker[leader]
        to = max(to, head.dist - head.move, 1)
        group = [s for s in b.attacker if s.on and s.dist == head.dist and s.move == head.move
                 and (s.weapon == ruleset.ARTILLERY) == (head.weapon == ruleset.ARTILLERY)]
        b.note("advance", [s.label for s in group], head, head.dist, to)
        for i, s in enumerate(b.attacker):
            if (s.on and s.dist == head.dist and s.move == head.move
                    and (s.weapon == ruleset.ARTILLERY) == (head.weapon == ruleset.ARTILLERY) and s is not head):
                s.dist = dist[i] = to
        head.dist = dist[leader] = to


def fire_of(b: Battle, side: str) -> list[tuple[Stand, int, int]]:
    """The side's stands that reach their target, with their dice and modifier (Firing
    Rules, Firing Modifiers): an attacker fires at the line from its distance, a defender
    at the nearest attacker; two dice for artillery at short range."""
    other = "defender" if side == "attacker" else "attacker"
    near = min((s.dist for s in b.attacker if s.on), default=0)
    out = []
    for s in (b.attacker if side == "attacker" else b.defender):
        reach = s.dist if side == "attacker" else near
        if not s.on or reach < 1 or reach > s.maximum:
            continue
        modifier = s.quality + b.rules.p(f"{other}_cover")
        if s.weapon == ruleset.ARTILLERY:
            modifier += b.rules.p(f"{side}_unseen")
        elif reach > s.effective:
            modifier += b.rules.p("beyond_effective")
        out.append((s, s.dice_near if reach <= s.effective else 1, modifier))
    return out


def firefight(b: Battle, mover: str, purposes: tuple[int, int]) -> int:
    """Move Sequence 3-4: both sides fire; 1 if the moving side won, -1 if it lost, 0
    for a tie or no fire."""
    other = "defender" if mover == "attacker" else "attacker"
    fire_m, fire_o = fire_of(b, mover), fire_of(b, other)
    if not fire_m and not fire_o:
        return 0
    b.note("firefight", mover, len(fire_m), len(fire_o))
    winner, to_m, to_o = contest(throw(b, fire_m, purposes[0]), throw(b, fire_o, purposes[1]))
    b.note("winner", mover, winner)
    if mover == "attacker":
        wound(b, to_m, to_o, b.attacker, b.defender)
    else:
        wound(b, to_o, to_m, b.attacker, b.defender)
    return winner


def close(stands: list[Stand]) -> list[Stand]:
    """The attacker's troops at their effective range or closer (artillery does not
    assault)."""
    return [s for s in stands if s.on and s.weapon != ruleset.ARTILLERY and s.dist <= s.effective]


def healthiest(stands: list[Stand], k: int) -> list[Stand]:
    return sorted(stands, key=lambda s: -s.figures)[:k]


def assault(b: Battle, params: np.ndarray) -> None:
    """Move Sequence 5-6, Close Assault Rules: the attacker's close troops assault as many
    of the defender's healthiest stands; the defender's cover counts against them."""
    assaulting = close(b.attacker)
    defending = healthiest([s for s in b.defender if s.on], len(assaulting))
    if not assaulting or not defending or not tactics.assault(len(assaulting), b.casualties[1], params):
        return
    b.assaults += 1
    b.first_assault = b.first_assault or b.bound
    b.note("assault", "attacker", [s.label for s in assaulting], [s.label for s in defending])
    cover = b.rules.p("defender_cover")
    winner, to_a, to_d = contest(
        throw(b, [(s, 1, s.quality + cover) for s in assaulting], luck.ASSAULT_A),
        throw(b, [(s, 1, s.quality) for s in defending], luck.ASSAULT_D))
    b.note("winner", "attacker", winner)
    wound(b, to_a, to_d, assaulting, defending)
    if winner > 0:
        retire(b, defending, True)
    if winner < 0 or (winner == 0 and b.rules.p("tie_defender")):
        retire(b, assaulting, False)
    else:
        for s in assaulting:
            if s.on:
                s.dist = 1


def counter(b: Battle) -> None:
    """The defender's close assault after winning its firefight (battle.counter): its
    healthiest troops against the attacker's close troops, whose cover counts."""
    assaulted = close(b.attacker)
    assaulting = healthiest([s for s in b.defender if s.on and s.weapon != ruleset.ARTILLERY],
                            len(assaulted))
    if not assaulted or not assaulting:
        return
    b.note("assault", "defender", [s.label for s in assaulting], [s.label for s in assaulted])
    cover = b.rules.p("attacker_cover")
    winner, to_d, to_a = contest(
        throw(b, [(s, 1, s.quality + cover) for s in assaulting], luck.COUNTER_D),
        throw(b, [(s, 1, s.quality) for s in assaulted], luck.COUNTER_A))
    b.note("winner", "defender", winner)
    wound(b, to_a, to_d, assaulted, assaulting)
    if winner > 0:
        retire(b, assaulted, False)
    elif winner < 0 or b.rules.p("tie_defender"):
        retire(b, assaulting, True)


def retire(b: Battle, stands: list[Stand], defender: bool) -> None:
    """The loser of a close assault retires a full road march from the contact at once; a
    defender leaves its position, an attacker carried past its start leaves the field
    (I-FRONT)."""
    gone = []
    for s in stands:
        if not s.on:
            continue
        if defender or s.road > b.rules.p("start_distance"):
            s.status = LEFT
        else:
            s.dist = s.road
        gone.append((s.label, s.status == LEFT, s.dist))
    b.note("retire", "defender" if defender else "attacker", gone)


# ------------------------------------------------------------------ a game

def play(rules: ruleset.Ruleset, params: np.ndarray, seed: int, game: int, b: Battle | None = None) -> dict:
    """One engagement under the attacker's scripted family at `params`; its result row
    (b: the battle to play, new_battle's, given when its events are to be kept)."""
    b = b or new_battle(rules, seed, game)
    for bound in range(1, rules.p("bounds") + 1):
        b.bound = bound
        reason = play_bound(b, params)
        if reason:
            b.note("end", reason)
            return result_row(b, reason)
    b.note("end", "day ended")
    return result_row(b, "day ended")


def play_bound(b: Battle, params: np.ndarray) -> str | None:
    """The attacker's bound, then the defender's; how the battle ended, if it did."""
    move(b, params)
    if firefight(b, "attacker", (luck.FIRE_A, luck.FIRE_D)) > 0 and not end_reason(b):
        assault(b, params)
    if end_reason(b):
        return end_reason(b)
    if firefight(b, "defender", (luck.REPLY_D, luck.REPLY_A)) > 0 and b.rules.p("counter") \
            and not end_reason(b):
        counter(b)
    return end_reason(b)


def end_reason(b: Battle) -> str | None:
    a, d = broken(b, "attacker"), broken(b, "defender")
    return "both broke" if a and d else "attacker broke" if a else "defender broke" if d else None


def result_row(b: Battle, reason: str) -> dict:
    lost_a, lost_d = lost(b.attacker), lost(b.defender)
    return {"won": reason == "defender broke", "light": lost_a <= 1,
            "lost": reason in ("attacker broke", "both broke"), "end_bound": b.bound,
            "end_reason": reason, "first_assault_bound": b.first_assault or None,
            "assaults": b.assaults, "attacker_stands_lost": lost_a,
            "defender_stands_lost": lost_d, "attacker_casualties": b.casualties[0],
            "defender_casualties": b.casualties[1]}
