"""Exact odds of a firefight and of a close assault: the full distribution of who wins
and each side's casualties, by enumerating every die (Firing Rules, Close Assault Rules,
under the readings I-SIX and I-CLAMP), for any forces up to MAX_DICE dice a side. Written
apart from the engines: tests hold it to icepool and the fast engine's frequencies to it.

A side is a list of modifiers, one per die (a stand throwing two dice gives two).
"""

from __future__ import annotations

from collections import Counter
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
                 clamp_total: bool = False) -> dict[tuple[int, int, int], Fraction]:
    """{(winner, casualties to the first side, to the second): chance}: winner 1 when the
    first side's total is higher, -1 when lower, 0 on a tie; the loser takes the
    difference divided by six rounded down, and each six one more on the other side."""
    if len(first) > MAX_DICE or len(second) > MAX_DICE:
        raise ValueError(f"at most {MAX_DICE} dice a side")
    return dict(_contest(tuple(first), tuple(second), six_rolled, clamp_total))


@lru_cache(maxsize=256)  # the what-if page asks again at each edit of another table
def _contest(first: tuple, second: tuple, six_rolled: bool, clamp_total: bool) -> dict:
    a = side_counts(first, six_rolled, clamp_total)
    d = side_counts(second, six_rolled, clamp_total)
    out: Counter = Counter()
    for (ta, sa), wa in a.items():
        for (td, sd), wd in d.items():
            winner = (ta > td) - (ta < td)
            out[winner, sd + max(0, td - ta) // 6, sa + max(0, ta - td) // 6] += wa * wd
    whole = 6 ** (len(first) + len(second))
    return {k: Fraction(w, whole) for k, w in sorted(out.items())}


def scenario_sides(rules: ruleset.Ruleset, distance: int) -> tuple[list[int], list[int]]:
    """The dice modifiers of the attacker's firefight with every attacker stand at
    `distance` steps from the line and all stands whole (fire_of in reference.py)."""
    def fire(table, cover, unseen):
        mods = []
        for row in table:
            if distance > row[ruleset.MAXIMUM]:
                continue
            mod = row[ruleset.QUALITY_DRM] + cover
            if row[ruleset.WEAPON] == ruleset.ARTILLERY:
                mod += unseen
            elif distance > row[ruleset.EFFECTIVE]:
                mod += rules.p("beyond_effective")
            mods += [int(mod)] * int(row[ruleset.DICE_NEAR] if distance <= row[ruleset.EFFECTIVE] else 1)
        return mods

    return (fire(rules.attacker, rules.p("defender_cover"), rules.p("attacker_unseen")),
            fire(rules.defender, rules.p("attacker_cover"), rules.p("defender_unseen")))


def summary(odds: dict) -> dict[str, Fraction]:
    """The chances a player reads: the first side wins, ties, and each side's mean loss."""
    return {"first wins": sum((p for (w, _, _), p in odds.items() if w > 0), Fraction(0)),
            "tie": sum((p for (w, _, _), p in odds.items() if w == 0), Fraction(0)),
            "first's casualties": sum((p * a for (_, a, _), p in odds.items()), Fraction(0)),
            "second's casualties": sum((p * d for (_, _, d), p in odds.items()), Fraction(0))}


def exact_odds(rules: ruleset.Ruleset) -> list[dict]:
    """The scenario's opening firefight at each range band the attacker crosses, as plain
    data (Game.odds, the what-if page): the attacker's chance to win, of a tie, and each
    side's expected casualties (where a side throws more than MAX_DICE dice, the row says
    it is not counted). Shown under the modifiers' table on the page."""
    six, clamp = bool(rules.p("six_rolled")), bool(rules.p("clamp_total"))
    rows = []
    for distance in sorted({1, 2, 4, 8, 16, rules.p("start_distance")}):
        first, second = scenario_sides(rules, distance)
        cells = [f"not counted: over {MAX_DICE} dice a side", None, None, None]
        if max(len(first), len(second)) <= MAX_DICE:
            cells = [{"chance": float(v), "exact": str(v), "text": f"{float(v):.3g}"}
                     for v in summary(contest_odds(first, second, six, clamp)).values()]
        rows.append([f"{distance * 0.125:g} km", len(first), len(second), *cells])
    return [{"key": "modifiers", "title": "Exact odds: the attacker's firefight, by distance",
             "source": "Firing Rules, Firing Modifiers", "rows": rows,
             "columns": ["distance", "attacker's dice", "defender's dice", "attacker wins",
                         "tie", "attacker's casualties", "defender's casualties"]}]
