"""Exact odds of a ruleset's dice and chit tables, by plain enumeration: the to-hit
tracks on 2d6 with every modifier (§7.1.1, §5.5), the enemy tanks' status (§7.1), the hit
location and light damage tables (PAS4, R-HIT, §7.2.1), the artillery roll (§7.2), the
other d6 rolls of the rules and the Order Matrix's order for the first pair of a game
(PAS1, R-MATRIX, §5.3).

Each table is an `OddsTable` whose chance cells are exact `Fraction`s; `rules show`,
docs/ruleset.md and `exact_odds` (plain data for a web page) all read these tables, so
every number is computed once, here. tests/test_odds.py checks the engines' observed
frequencies against them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import groupby, product

from bollesim.bollebank import codes
from bollesim.bollebank.rules.loader import Ruleset

D6 = range(1, 7)
TWO_D6: dict[int, Fraction] = {
    total: Fraction(sum(1 for a, b in product(D6, D6) if a + b == total), 36)
    for total in range(2, 13)
}
TRACK_LABELS = ("tank", "ATGM", "HMG", "artillery")  # by codes.TANK..ART


def on_2d6(target: int, drm: int = 0) -> Fraction:
    """The chance that 2d6 + drm is at least `target` (§7.1.1: a hit on the track's value)."""
    return sum((p for total, p in TWO_D6.items() if total + drm >= target), Fraction(0))


def d6_at_least(n: int) -> Fraction:
    return Fraction(sum(1 for face in D6 if face >= n), 6)


def d6_up_to(n: int) -> Fraction:
    return Fraction(sum(1 for face in D6 if face <= n), 6)


def percent(p: Fraction) -> str:
    """A chance as a percentage with one decimal: 1/6 is "16.7%"."""
    return f"{float(p) * 100:.1f}%"


def to_hit_words(target: int, drm: int = 0) -> str:
    """ "10 on 2d6 = 16.7%", or with a modifier "10 on 2d6, -1 = 8.3%"."""
    mod = f", {drm:+d}" if drm else ""
    return f"{target} on 2d6{mod} = {percent(on_2d6(target, drm))}"


Cell = str | Fraction | None  # text, an exact chance, or nothing (a modifier that cannot apply)


@dataclass(frozen=True)
class OddsTable:
    key: str  # which ruleset table it sits beside: tracks, damage or order_matrix
    title: str
    source: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


# ------------------------------------------------------------------ the tables


def odds_tables(rules: Ruleset) -> list[OddsTable]:
    """Every exact-odds table of the ruleset, in the order `rules show` prints them."""
    return [
        direct_fire(rules),
        enemy_tanks(rules),
        hit_locations(rules),
        light_damage(rules),
        artillery(rules),
        other_rolls(rules),
        first_pair(rules),
        first_pair_orders(rules),
    ]


def _chit_spans(values) -> list[tuple[str, int]]:
    """("4-7", 10): runs of chit counts on a track that share one value."""
    out, start = [], 1
    for value, run in groupby(int(v) for v in values):
        n = len(list(run))
        out.append((str(start) if n == 1 else f"{start}-{start + n - 1}", value))
        start += n
    return out


def direct_fire(rules: Ruleset) -> OddsTable:
    """§7.1.1: each direct-fire track's to-hit on 2d6, by chits on the track, with no
    modifier, the ATGM overwatch modifier (§7.1.1), Draw their fire (§5.5) and both."""
    ow = rules.atgm_overwatch_drm
    dtf = rules.p("ability_rules", "draw_their_fire_drm")
    rows: list[tuple[Cell, ...]] = []
    tracks = (
        (codes.TANK, [(f"1-{len(rules.tank_hot_min)}", rules.tank_to_hit)]),
        (codes.ATGM, _chit_spans(rules.atgm_to_hit)),
        (codes.HMG, _chit_spans(rules.hmg_to_hit)),
    )
    for weapon, spans in tracks:
        for chits, target in spans:
            atgm = weapon == codes.ATGM
            rows.append((
                TRACK_LABELS[weapon], chits, f"{target} or more",
                on_2d6(target), on_2d6(target, ow) if atgm else None,
                on_2d6(target, dtf), on_2d6(target, ow + dtf) if atgm else None,
            ))
    return OddsTable(
        "tracks", "Exact odds: a direct-fire attack hits (2d6 + modifiers)",
        "§7.1.1, §5.5, R-TRACK",
        ("weapon", "chits", "to hit", "no modifier", f"ATGM overwatch {ow:+d}",
         f"Draw their fire {dtf:+d}", f"both {ow + dtf:+d}"),
        tuple(rows),
    )


def enemy_tanks(rules: Ruleset) -> OddsTable:
    """§7.1: enemy tanks fire only when hot; a turn's tank attack hits when hot and hit."""
    hit = on_2d6(rules.tank_to_hit)
    rows = []
    for n, low in enumerate(rules.tank_hot_min, start=1):
        hot = d6_at_least(int(low))
        rows.append((str(n), f"{low}-6" if low < 6 else "6", hot, hit, hot * hit))
    return OddsTable(
        "tracks", "Exact odds: enemy tanks are hot, then hit (no modifier)", "§7.1, R-TRACK",
        ("tank chits", "hot on d6", "hot", f"hit ({rules.tank_to_hit} or more on 2d6)",
         "hot and hit"),
        tuple(rows),
    )


def _faces(table, code: int) -> str:
    faces = [face for face in D6 if table[face - 1] == code]
    if not faces:
        return ""
    if faces == list(range(faces[0], faces[-1] + 1)):
        return str(faces[0]) if len(faces) == 1 else f"{faces[0]}-{faces[-1]}"
    return ", ".join(map(str, faces))


def _by_face(table, code: int) -> Fraction:
    return Fraction(sum(1 for v in table if v == code), 6)


def hit_locations(rules: Ruleset) -> OddsTable:
    """PAS4 (R-HIT): where a hit on a tank lands, by weapon (any hit destroys an APC)."""
    rows = []
    for weapon, label in enumerate(("enemy tank", "ATGM", "HMG", "artillery heavy damage")):
        table = rules.hit_table[weapon]
        for code, name in enumerate(codes.HEAVY_NAMES):
            rows.append((label if code == 0 else "", name, _faces(table, code),
                         _by_face(table, code)))
    return OddsTable(
        "damage", "Exact odds: hit location on a tank (d6)", "R-HIT, §7.1.3, §7.2",
        ("weapon", "location", "d6", "chance"), tuple(rows),
    )


def light_damage(rules: Ruleset) -> OddsTable:
    """§7.2.1: the light damage of a random-unit chit on its first roll (a damage already
    sustained is rolled again)."""
    table = rules.light_table
    rows = tuple(
        (name.replace("_", " "), _faces(table, code), _by_face(table, code))
        for code, name in enumerate(codes.LIGHT_NAMES)
    )
    return OddsTable("damage", "Exact odds: light damage, first roll (d6)", "§7.2.1",
                     ("damage", "d6", "chance"), rows)


def artillery(rules: Ruleset) -> OddsTable:
    """§7.2: with vehicles at the target, 2d6: only the further effects, a random-unit chit
    into the weapon pool, or heavy damage."""
    low = rules.p("artillery", "only_effects_roll")
    heavy = rules.p("artillery", "heavy_damage_roll")
    only = 1 - on_2d6(low + 1)
    damage = on_2d6(heavy)
    return OddsTable(
        "damage", "Exact odds: artillery at a target with vehicles (2d6)", "§7.2",
        ("result", "2d6", "chance"),
        (
            ("only the further effects", f"{low} or less", only),
            ("a random-unit chit joins the weapon pool", f"{low + 1} to {heavy - 1}",
             1 - only - damage),
            ("a vehicle there takes heavy damage", f"{heavy} or more", damage),
        ),
    )


def other_rolls(rules: Ruleset) -> OddsTable:
    """The d6 rolls of the scalar rules: UN fire, radio, night vision, commanders."""
    p = rules.p
    indirect, sights = p("fire", "indirect_hit_max"), p("fire", "sights_hit_max")
    depot = p("fire", "depot_rolls")
    one, same, ql3 = (p("radio", k) for k in ("one_damaged_max", "same_position_drm",
                                              "ql3_at_opn_drm"))
    two = p("radio", "two_damaged_max")
    nv_fail, nv_drm = p("movement", "night_vision_fail_min"), p("movement",
                                                                "night_vision_adjacent_drm")
    kill, acts = p("damage", "hmg_kills_commander_on"), p("damage", "commander_killed_acts_max")
    rows: list[tuple[Cell, ...]] = [
        ("UN indirect fire from a hollow icon hits", f"1-{indirect}", d6_up_to(indirect),
         "§6.3"),
        ("UN fire with misaligned sights hits", f"1-{sights}", d6_up_to(sights), "§7.2.1"),
        (f"{depot} Saraci overwatch shots all roll 1: the depot explodes", "1 each",
         Fraction(1, 6) ** depot, "§6.3"),
        ("order over a link with one damaged radio arrives", f"1-{one}", d6_up_to(one), "§5.1"),
        (f"  with an undamaged vehicle beside the damaged one ({same:+d})",
         f"1-{one - same}", d6_up_to(one - same), "§5.1"),
        (f"  and QL3 at OP N as well ({same + ql3:+d})", f"1-{one - same - ql3}",
         d6_up_to(one - same - ql3), "§5.1"),
        ("order over a link with two damaged radios arrives", f"1-{two}", d6_up_to(two),
         "§5.1"),
    ]
    for helpers in range(4):
        need = nv_fail - helpers * nv_drm
        mod = f", {helpers} undamaged neighbour{'s' if helpers != 1 else ''}" if helpers else ""
        rows.append((f"a vehicle with night-vision damage stays put{mod}",
                     _at_least_words(need), d6_at_least(need), "§6.2"))
    rows += [
        ("an unbuttoned commander is killed after an HMG attack", f"{kill} or more",
         d6_at_least(kill), "§7.1.2"),
        ("a vehicle whose commander was killed acts", f"1-{acts}", d6_up_to(acts), "§7.1.3"),
    ]
    return OddsTable("damage", "Exact odds: the other d6 rolls", "§5.1, §6.2, §6.3, §7.1",
                     ("roll", "d6", "chance", "source"), tuple(rows))


def _at_least_words(need: int) -> str:
    return "never" if need > 6 else "any" if need <= 1 else f"{need} or more"


# ------------------------------------------------------------------ the first pair


def pool_counts(rules: Ruleset) -> tuple[int, ...]:
    """Chits of each type (tank, ATGM, HMG, artillery, car) in the pool at setup (§3)."""
    types = [int(rules.chit_type[c]) for c in range(rules.n_pool_chits)]
    return tuple(types.count(t) for t in range(codes.CAR + 1))


@cache
def _first_pair(counts: tuple[int, ...]) -> dict[tuple[int, int], Fraction]:
    """The chance of each (first type, second type) of the first pair put on the Order
    Matrix, two chits drawn in order without replacement. §5.3: a pair holding the
    civilian car gives no order, both chits leave the pool and two more are drawn."""
    total = sum(counts)
    out: dict[tuple[int, int], Fraction] = {}
    if total < 2:
        return out
    for a, b in product(range(len(counts)), repeat=2):
        ways = counts[a] * (counts[b] - (a == b))
        if ways == 0:
            continue
        p = Fraction(ways, total * (total - 1))
        if codes.CAR not in (a, b):
            out[(a, b)] = out.get((a, b), 0) + p
            continue
        left = list(counts)
        left[a] -= 1
        left[b] -= 1
        for pair, q in _first_pair(tuple(left)).items():
            out[pair] = out.get(pair, 0) + p * q
    return out


def first_pair_chances(rules: Ruleset) -> dict[tuple[int, int], Fraction]:
    """(first type, second type) -> the chance it is the game's first matrix pair."""
    return _first_pair(pool_counts(rules))


def _order_words(rules: Ruleset, a: int, b: int) -> str:
    orders = [w for w, ok in (("fire", rules.matrix_fire[a, b]), ("move", rules.matrix_move[a, b]))
              if ok]
    scope = "platoon" if rules.matrix_platoon[a, b] else "single"
    return f"{' or '.join(orders) or 'nothing'}, {scope}"


def first_pair(rules: Ruleset) -> OddsTable:
    """The Order Matrix with each cell's chance of being the game's first pair."""
    chances = first_pair_chances(rules)
    rows = tuple(
        (TRACK_LABELS[a], *(chances.get((a, b), Fraction(0)) for b in range(codes.N_TRACKS)))
        for a in range(codes.N_TRACKS)
    )
    return OddsTable(
        "order_matrix", "Exact odds: the game's first pair on the Order Matrix",
        "§3, §5.3, R-CHITS",
        ("first \\ second", *TRACK_LABELS), rows,
    )


def first_pair_orders(rules: Ruleset) -> OddsTable:
    """The chance of each order the first pair gives, and of a pair of one type (which
    ends the Orders phase, §5.3)."""
    chances = first_pair_chances(rules)
    by_order: dict[str, Fraction] = {}
    for (a, b), p in chances.items():
        words = _order_words(rules, a, b)
        by_order[words] = by_order.get(words, Fraction(0)) + p
    rows: list[tuple[Cell, ...]] = [(w, p) for w, p in sorted(by_order.items(),
                                                              key=lambda item: -item[1])]
    summary = (
        ("a Fire order possible", lambda a, b: rules.matrix_fire[a, b]),
        ("a Move order possible", lambda a, b: rules.matrix_move[a, b]),
        ("a platoon (or any one vehicle) may take it", lambda a, b: rules.matrix_platoon[a, b]),
        ("two chits of one type: the Orders phase ends", lambda a, b: a == b),
    )
    for words, test in summary:
        rows.append((words, sum((p for (a, b), p in chances.items() if test(a, b)),
                                Fraction(0))))
    return OddsTable("order_matrix", "Exact odds: what the game's first pair allows",
                     "§5.3, R-MATRIX", ("order", "chance"), tuple(rows))


# ------------------------------------------------------------------ as plain data


def cell_text(cell: Cell) -> str:
    if cell is None:
        return "-"
    return percent(cell) if isinstance(cell, Fraction) else cell


def exact_odds(rules: Ruleset) -> list[dict]:
    """Every odds table as plain data (for JSON): key, title, source, columns, and rows
    whose chance cells are {"chance": float, "exact": "1/6", "text": "16.7%"}."""

    def cell(c: Cell):
        if isinstance(c, Fraction):
            return {"chance": float(c), "exact": str(c), "text": percent(c)}
        return c

    return [
        {"key": t.key, "title": t.title, "source": t.source, "columns": list(t.columns),
         "rows": [[cell(c) for c in row] for row in t.rows]}
        for t in odds_tables(rules)
    ]
