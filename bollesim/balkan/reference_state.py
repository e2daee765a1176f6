"""The reference engine's state (the stands, the generals, the battle), the table's
geometry (I-FRONT), the dice and casualties; reference.py plays the game,
reference_move.py the moves, reference_fire.py the firefights and close assaults."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bollesim.balkan import luck, ruleset, schema
from bollesim.rng import CHANCE, keyed_d6, new_stream

ON, DESTROYED, LEFT = 0, 1, 2  # a stand's status; LEFT: retired off the field, or lost retiring
ATTACKER, DEFENDER = 0, 1
SIDES = ("attacker", "defender")
FAR = 1 << 20  # the range to an enemy that is not there


@dataclass(eq=False)
class Stand:
    weapon: int
    quality: int  # the dice modifier of its quality
    effective: int
    maximum: int
    dice_near: int
    figures: int  # figures left: at 0 the stand is destroyed
    move: int  # its move over the table's ground
    road: int  # its move on a road, and its road march (the retreat)
    dist: int  # attacker: from the defender's line; defender: behind it (0: on it)
    difficult: int = 0  # its move over difficult ground (a river's crossing)
    ford: int = 1  # 1: it may cross a river by a ford as well as a bridge
    lane: int = 0
    formation: int = ruleset.LINE
    general: int = 0  # its commanding general: 0 the commander, k the k-th subordinate
    side: int = ATTACKER
    status: int = ON
    moved: bool = False  # moved by a digit this bound (I-MOVES)
    command: bool = True  # in its general's command area at the start of the bound
    order: int = 2  # its arm's order this bound (tactics.HALT .. TO_EFFECTIVE; FULL: 2)
    label: str = ""  # what the narration calls it ("trained infantry 3")

    @property
    def on(self) -> bool:
        return self.status == ON

    @property
    def gun(self) -> bool:
        return self.weapon == ruleset.ARTILLERY


@dataclass(eq=False)
class General:
    mod: int  # Move Dice Modifier
    area: int  # Command Area, in steps
    dist: int = 0
    lane: int = 0
    digits: int = 0  # this bound's modified score, less what he passed down
    used: int = 0  # digits spent this bound
    label: str = ""


@dataclass
class Battle:
    rules: ruleset.Ruleset
    attacker: list[Stand]
    defender: list[Stand]
    stream: np.ndarray  # the game's keyed chance stream
    generals: tuple = field(default_factory=tuple)  # (attacker's, defender's), commander first
    bound: int = 0
    casualties: tuple = (0, 0)  # figures lost: attacker, defender
    first_assault: int = 0
    assaults: int = 0
    log: list | None = None  # the narration's events (bound, kind, *facts), when kept
    scalars: dict = field(default_factory=dict)  # the ruleset's scalars by name (p)

    def __post_init__(self):
        self.scalars = dict(zip(ruleset.SCALARS, (int(v) for v in self.rules.scalars), strict=True))
        self.lanes = bool(self.scalars["lanes"])

    def d6(self, purpose: int) -> int:
        return int(keyed_d6(self.stream, self.bound, purpose))

    def p(self, name: str) -> int:
        return self.scalars[name]

    def side(self, side: int) -> list[Stand]:
        return self.defender if side else self.attacker

    def note(self, kind: str, *facts) -> None:
        """Record an event for the narration (narrate.py), if it is kept."""
        if self.log is not None:
            self.log.append((self.bound, kind, *facts))


def new_battle(rules: ruleset.Ruleset, seed: int, game: int) -> Battle:
    names = ("weapon", "quality", "effective", "maximum", "dice_near", "figures", "move",
             "road", "difficult", "ford", "lane", "formation", "general", "dist")
    columns = (ruleset.WEAPON, ruleset.QUALITY_DRM, ruleset.EFFECTIVE, ruleset.MAXIMUM,
               ruleset.DICE_NEAR, ruleset.FIGURES, ruleset.MOVE, ruleset.ROAD,
               ruleset.DIFFICULT, ruleset.FORD, ruleset.LANE, ruleset.FORMATION,
               ruleset.GENERAL, ruleset.START)

    def stands(table, side):
        return [Stand(**{n: int(row[c]) for n, c in zip(names, columns, strict=True)}, side=side)
                for row in table]

    b = Battle(rules, stands(rules.attacker, ATTACKER), stands(rules.defender, DEFENDER),
               new_stream(seed, game, CHANCE, luck.PURPOSES))
    b.generals = tuple([General(int(g[ruleset.MOD]), int(g[ruleset.AREA])) for g in table]
                       for table in rules.generals)
    for side in (ATTACKER, DEFENDER):
        for k, g in enumerate(b.generals[side]):
            g.dist, g.lane = bulk(b, side, k)
    return b


def bulk(b: Battle, side: int, k: int) -> tuple[int, int]:
    """Where general k goes (and starts, I-FRONT): to the bulk of his stands on the
    field (tactics.general_to; the defender's defence.general_to)."""
    from bollesim.balkan import defence, tactics

    mine = [s for s in b.side(side) if s.on and s.general == k]
    to = tactics.general_to if side == ATTACKER else defence.general_to
    return (int(to(np.array([s.dist for s in mine], dtype=np.int64))),
            int(to(np.array([s.lane for s in mine], dtype=np.int64))))


# ------------------------------------------------------------------ the table (I-FRONT)

def span(b: Battle, s: Stand, e: Stand) -> int:
    """The range from a stand to an enemy stand along the axis (at or below 0: beside or
    behind it)."""
    return s.dist + e.dist


def in_arc(b: Battle, s: Stand, e: Stand) -> bool:
    """Firing Rules: 'straight ahead or one stand width sideways and ahead'."""
    return not b.lanes or abs(s.lane - e.lane) <= 1


def nearest(b: Battle, s: Stand) -> tuple[Stand | None, int]:
    """The nearest enemy stand on the field ahead in the stand's arc, and its range (the
    first in stand order of equals); (None, FAR) for none."""
    best, best_range = None, FAR
    for e in b.side(1 - s.side):
        r = span(b, s, e)
        if e.on and r >= 1 and in_arc(b, s, e) and r < best_range:
            best, best_range = e, r
    return best, best_range


def gap(b: Battle, s: Stand) -> int:
    """How far the stand is from the enemy ahead: its range to the nearest in its arc, or
    from the defender's line when there is none (I-FRONT)."""
    _, r = nearest(b, s)
    return r if r < FAR else s.dist


def apart(axis: int, lanes: int) -> int:
    """The square of a distance on the table in 5 mm units: a step is 25 mm, a lane 40 mm."""
    return (5 * axis) ** 2 + (8 * lanes) ** 2


def commands(b: Battle, g: General, dist: int, lane: int) -> bool:
    """Whether a place on the general's side is within his Command Area."""
    return apart(g.dist - dist, g.lane - lane) <= (5 * g.area) ** 2


def crosses(b: Battle, here: int, to: int) -> bool:
    """Whether a move along the axis crosses the river (on the attacker's side of it:
    distances at or above table.river)."""
    river = b.p("river")
    return river > 0 and (here >= river) != (to >= river)


def impassable(b: Battle, lane: int) -> bool:
    """Terrain: a lane of ground no troops can cross (table.impassable)."""
    return 0 <= lane <= schema.MAX_LANES and bool(b.p("impassable") >> lane & 1)


def can_cross(b: Battle, s: Stand, lane: int | None = None) -> bool:
    """Movement Rules: rivers are crossed at a bridge, or a ford by those that may ford,
    in the stand's lane."""
    lane = s.lane if lane is None else lane
    bridge, ford = b.p("bridge"), b.p("ford")
    return (bridge >= 0 and lane == bridge) or (bool(s.ford) and ford >= 0 and lane == ford)


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
            if not b.p("clamp_total"):
                score = min(6, max(1, score))
            total += score
            dice += 1
            sixes += face == 6 if b.p("six_rolled") else score >= 6
            rolls.append((stand.label, face, modifier, score))
    if b.p("clamp_total"):
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

def take(b: Battle, stands: list[Stand], n: int) -> None:
    """n casualties on the stands: the nearest the enemy first, the most damaged of them
    first, then stand order (I-FRONT); a stand with no figures left is destroyed."""
    near = {id(s): nearest(b, s)[1] for s in stands if s.on}
    for _ in range(n):
        alive = [s for s in stands if s.on]
        if not alive:
            return
        s = min(alive, key=lambda s: (near[id(s)], s.figures))
        s.figures -= 1
        if s.figures == 0:
            s.status = DESTROYED


def lost(stands: list[Stand]) -> int:
    return sum(not s.on for s in stands)


def broken(b: Battle, side: str) -> bool:
    """Winning a Battle: more than break_percent of the pre-battle strength in stands
    (transport and generals included) destroyed or gone from the field."""
    stands = b.attacker if side == "attacker" else b.defender
    return lost(stands) * 100 > b.p("break_percent") * b.p(f"{side}_strength")
