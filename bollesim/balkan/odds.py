"""Exact odds of a firefight and of a close assault: the full distribution of who wins
and each side's casualties, by enumerating every die (Firing Rules, Close Assault Rules,
under the readings I-SIX, I-CLAMP and I-UNANSWERED), for any forces up to MAX_DICE dice
a side, and the scenario's opening firefights: who fires with which modifiers, by arc,
range, formation and cover (I-FRONT, I-COLUMN, I-BEYOND; one firefight a bound or one a
target, I-FIREFIGHT). Written apart from the engines: tests hold it to icepool, to the
reference engine's fire, and the fast engine's frequencies to it.

A side is a list of modifiers, one per die (a stand throwing two dice gives two).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from bollesim.balkan import ruleset

MAX_DICE = 20
"""Dice a side the enumeration takes: 20 against 20 takes about a second (the pairs of
both sides' (total, sixes) grow as the fourth power of the dice). A scenario's 16 stands
could throw 32 at short range; the odds table says so where it does not count."""


def side_counts(mods: list[int], six_rolled: bool, clamp_total: bool) -> Counter:
    """{(total, sixes): ways} over the 6**n faces of a side's dice."""
    ways = Counter({(0, 0): 1})
    for mod in mods:
        step = Counter()
        for (total, sixes), w in ways.items():
            for face in range(1, 7):
                score = face + mod if clamp_total else min(6, max(1, face + mod))
                six = face == 6 if six_rolled else score >= 6
                step[total + score, sixes + six] += w
        ways = step
    if clamp_total:
        n = len(mods)
        clamped = Counter()
        for (total, sixes), w in ways.items():
            clamped[min(6 * n, max(n, total)), sixes] += w
        ways = clamped
    return ways


def contest_odds(first: list[int], second: list[int], six_rolled: bool = False,
                 clamp_total: bool = False, unanswered: int = 0) -> dict[tuple[int, int, int], Fraction]:
    """{(winner, casualties to the first side, to the second): chance}: winner 1 when the
    first side's total is higher, -1 when lower, 0 on a tie; the loser takes the
    difference divided by six rounded down, and each six one more on the other side.
    When one side throws no dice (I-UNANSWERED): 0 it totals 0; 1 no firefight (nothing
    happens); 2 nobody wins and only the other side's sixes count."""
    if len(first) > MAX_DICE or len(second) > MAX_DICE:
        raise ValueError(f"at most {MAX_DICE} dice a side")
    if (not first or not second) and unanswered == 1:
        return {(0, 0, 0): Fraction(1)}
    return dict(_contest(tuple(first), tuple(second), six_rolled, clamp_total,
                         bool(not first or not second) and unanswered == 2))


@lru_cache(maxsize=256)  # the what-if page asks again at each edit of another table
def _contest(first: tuple, second: tuple, six_rolled: bool, clamp_total: bool,
             sixes_only: bool = False) -> dict:
    a = side_counts(first, six_rolled, clamp_total)
    d = side_counts(second, six_rolled, clamp_total)
    out: Counter = Counter()
    for (ta, sa), wa in a.items():
        for (td, sd), wd in d.items():
            if sixes_only:
                out[0, sd, sa] += wa * wd
                continue
            winner = (ta > td) - (ta < td)
            out[winner, sd + max(0, td - ta) // 6, sa + max(0, ta - td) // 6] += wa * wd
    whole = 6 ** (len(first) + len(second))
    return {k: Fraction(w, whole) for k, w in sorted(out.items())}


@dataclass(frozen=True)
class Placed:
    """A stand at the opening firefight: its table row, lane, formation and distance (the
    attacker's from the defender's line, the defender's behind it)."""

    row: tuple
    lane: int
    column: bool
    dist: int
    masked: bool = False


def placed(rules: ruleset.Ruleset, distance: int) -> tuple[list[Placed], list[Placed]]:
    """Both sides at the start, every attacking stand at `distance` from the line; a
    column's stands behind its first are masked (I-COLUMN)."""
    def side(table, at):
        out = []
        for row in table:
            dist = at if at is not None else int(row[ruleset.START])
            column = row[ruleset.FORMATION] == ruleset.COLUMN
            behind = column and not rules.p("column_all") and any(
                p.column and p.lane == row[ruleset.LANE] and p.dist == dist for p in out)
            out.append(Placed(tuple(int(v) for v in row), int(row[ruleset.LANE]), bool(column),
                              dist, behind))
        return out

    return side(rules.attacker, distance), side(rules.defender, None)


def sees(rules: ruleset.Ruleset, a: Placed, b: Placed) -> bool:
    """Firing Rules: b is in a's arc (its lane or the next, with table.lanes)."""
    return not rules.p("lanes") or abs(a.lane - b.lane) <= 1


def shot_mods(rules: ruleset.Ruleset, shooter: Placed, target: Placed, side: str) -> list[int]:
    """The modifiers of a stand's dice at a target (Firing Modifiers): quality, the
    target's cover (the defender's only on its line), beyond effective range (I-BEYOND),
    artillery out of sight; two dice for artillery at short range."""
    row, r = shooter.row, shooter.dist + target.dist
    other = "defender" if side == "attacker" else "attacker"
    cover = 0 if other == "defender" and target.dist else rules.p(f"{other}_cover")
    mod = row[ruleset.QUALITY_DRM] + cover
    if row[ruleset.WEAPON] == ruleset.ARTILLERY:
        mod += rules.p(f"{side}_unseen")
    elif r > row[ruleset.EFFECTIVE] and (r < row[ruleset.MAXIMUM] or not rules.p("beyond_literal")):
        mod += rules.p("beyond_effective")
    return [mod] * (row[ruleset.DICE_NEAR] if r <= row[ruleset.EFFECTIVE] else 1)


def in_reach(rules: ruleset.Ruleset, shooter: Placed, enemies: list[Placed]) -> list[tuple[int, Placed]]:
    """(range, enemy) of the enemies ahead in the shooter's arc and range, in stand order."""
    out = []
    for e in enemies:
        r = shooter.dist + e.dist
        if 1 <= r <= shooter.row[ruleset.MAXIMUM] and sees(rules, shooter, e):
            out.append((r, e))
    return out


def scenario_sides(rules: ruleset.Ruleset, distance: int) -> tuple[list[int], list[int]]:
    """The dice modifiers of the attacker's one firefight a bound with every attacker
    stand at `distance` steps from the line and all stands whole: each stand that fires
    at its nearest enemy in its arc and range (reference_fire.fire_of)."""
    attackers, defenders = placed(rules, distance)

    def fire(stands, enemies, side):
        mods = []
        for s in stands:
            reach = in_reach(rules, s, enemies)
            if s.masked or not reach:
                continue
            mods += shot_mods(rules, s, min(reach, key=lambda x: x[0])[1], side)
        return mods

    return fire(attackers, defenders, "attacker"), fire(defenders, attackers, "defender")


def scenario_contests(rules: ruleset.Ruleset, distance: int) -> list[tuple[int, list[int], list[int]]]:
    """The attacker's firefights of one bound, one a target (I-FIREFIGHT=per-target), every
    attacker at `distance`, all stands whole: (target's stand number, attacker's
    modifiers, defender's). Each attacking stand fires at the nearest defender in its arc
    and range (the first of equals); a target replies at the nearest of its firers it
    reaches; every other defender fires at the nearest firer it reaches, in that firer's
    firefight (reference_fire.per_target)."""
    attackers, defenders = placed(rules, distance)
    chosen: dict[int, list[Placed]] = {}
    aim: dict[int, Placed] = {}  # a firing attacker (by id): its target
    for s in attackers:
        reach = in_reach(rules, s, defenders)
        if not s.masked and reach:
            target = min(reach, key=lambda x: x[0])[1]
            chosen.setdefault(defenders.index(target), []).append(s)
            aim[id(s)] = target
    firing = [s for s in attackers if id(s) in aim]
    joined: dict[int, list[tuple[int, Placed]]] = {}  # target -> (defender's number, the firer it fires at)
    for k, d in enumerate(defenders):
        pool = chosen.get(k, firing)
        reach = [] if d.masked else in_reach(rules, d, pool)
        if reach:
            at = min(reach, key=lambda x: x[0])[1]
            joined.setdefault(k if k in chosen else defenders.index(aim[id(at)]), []).append((k, at))
    out = []
    for j in sorted(chosen):
        first = [m for s in chosen[j] for m in shot_mods(rules, s, defenders[j], "attacker")]
        second = [m for k, at in sorted(joined.get(j, []), key=lambda x: x[0])
                  for m in shot_mods(rules, defenders[k], at, "defender")]
        out.append((j, first, second))
    return out


def summary(odds: dict) -> dict[str, Fraction]:
    """The chances a player reads: the first side wins, ties, and each side's mean loss."""
    return {"first wins": sum((p for (w, _, _), p in odds.items() if w > 0), Fraction(0)),
            "tie": sum((p for (w, _, _), p in odds.items() if w == 0), Fraction(0)),
            "first's casualties": sum((p * a for (_, a, _), p in odds.items()), Fraction(0)),
            "second's casualties": sum((p * d for (_, _, d), p in odds.items()), Fraction(0))}


def exact_odds(rules: ruleset.Ruleset) -> list[dict]:
    """The scenario's opening firefight at each range band the attacker crosses (one a
    target: each target's), as plain data (Game.odds, the what-if page): the attacker's
    chance to win, of a tie, and each side's expected casualties (where a side throws
    more than MAX_DICE dice, the row says it is not counted). Shown under the modifiers'
    table on the page."""
    six, clamp = bool(rules.p("six_rolled")), bool(rules.p("clamp_total"))
    unanswered = rules.p("unanswered")
    names = stand_names(rules)
    rows = []
    for distance in sorted({1, 2, 4, 8, 16, rules.p("start_distance")}):
        if rules.p("per_target"):
            contests = [(f" at {names[j]}", first, second)
                        for j, first, second in scenario_contests(rules, distance)]
        else:
            contests = [("", *scenario_sides(rules, distance))]
        for label, first, second in contests:
            cells = [f"not counted: over {MAX_DICE} dice a side", None, None, None]
            if max(len(first), len(second)) <= MAX_DICE:
                cells = [{"chance": float(v), "exact": str(v), "text": f"{float(v):.3g}"}
                         for v in summary(contest_odds(first, second, six, clamp, unanswered)).values()]
            rows.append([f"{distance * 0.125:g} km{label}", len(first), len(second), *cells])
    return [{"key": "modifiers", "title": "Exact odds: the attacker's firefight, by distance",
             "source": "Firing Rules, Firing Modifiers", "rows": rows,
             "columns": ["distance", "attacker's dice", "defender's dice", "attacker wins",
                         "tie", "attacker's casualties", "defender's casualties"]}]


def stand_names(rules: ruleset.Ruleset) -> list[str]:
    """The defender's stands by type and quality, numbered in stand order."""
    out = []
    for entry in rules.data["defender"]["stands"]:
        out += [f"{entry['quality']} {entry['type'].replace('_', ' ')}"] * entry["count"]
    return [f"{name} ({k})" for k, name in enumerate(out, start=1)]
