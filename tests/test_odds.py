"""The exact odds (rules/odds.py) against the engines: the frequencies of hits, hit
locations, tank status, artillery results and the first pair observed in played games
each lie within a tight interval (Wilson, z = 4) of the exact chance.

The games are fixed by their seed, so the test is reproducible; z = 4 keeps a correct
engine inside every interval of the checks below while a wrong die, modifier or table
falls outside (e.g. a to-hit read as "more than" instead of "at least").
"""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction

import pytest

from bollesim.bollebank import codes, events
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.bollebank.rules.odds import (
    TWO_D6,
    d6_at_least,
    exact_odds,
    first_pair_chances,
    on_2d6,
)
from bollesim.game.policy import load_policy
from bollesim.stats.intervals import wilson

RULES = load_ruleset()
Z = 4.0
MIN_N = 30  # groups smaller than this say too little to check


def within(k: int, n: int, p: Fraction) -> bool:
    low, high = wilson([k], [n], Z)
    return float(low[0]) <= float(p) <= float(high[0])


@pytest.fixture(scope="module")
def traces():
    """Events of 3,000 games of each of two policies on the fast engine (its traced
    kernel), grouped per game."""
    from bollesim.bollebank.engine.trace import play_traced_game

    out = []
    for name, seed in (("random", 5), ("historical", 6)):
        policy = load_policy(name)
        params = policy.param_vector()
        out += [play_traced_game(RULES, policy, params, seed, g, capacity=4_000)[0]
                for g in range(3_000)]
    return out


def attacks(traces):
    """(weapon, to-hit, total modifier, die roll before modifiers, hit) of every attack,
    and the location d6 of each hit as (weapon, location)."""
    rolls, locations = [], []
    for trace in traces:
        drm, last = 0, None
        for _turn, kind, a, b, c, d in trace:
            if kind == events.MODIFIER:
                drm += b
            elif kind == events.ATTACK:
                rolls.append((a, d, drm, c - drm, c >= d))
                drm, last = 0, (a if c >= d else None)
            elif kind == events.HEAVY_DAMAGE and last is not None:
                locations.append((last, b))  # the hit's own location roll (§7.1.3)
                last = None
            elif kind in (events.ARTILLERY, events.ARTILLERY_DRAW, events.TURN_START):
                last = None
    return rolls, locations


def test_attacks_hit_as_often_as_the_exact_odds(traces):
    rolls, _ = attacks(traces)
    groups: dict[tuple[int, int], list[bool]] = defaultdict(list)
    for _weapon, to_hit, drm, _raw, hit in rolls:
        groups[(to_hit, drm)].append(hit)
    checked = {key: v for key, v in groups.items() if len(v) >= MIN_N}
    assert len(checked) >= 5 and any(drm for _, drm in checked)  # modifiers are exercised
    for (to_hit, drm), hits in checked.items():
        assert within(sum(hits), len(hits), on_2d6(to_hit, drm)), (to_hit, drm, len(hits))
    # the unmodified 2d6 of every attack, face by face
    faces = Counter(raw for *_, raw, _hit in rolls)
    n = sum(faces.values())
    assert n > 10_000
    for total, p in TWO_D6.items():
        assert within(faces[total], n, p), (total, faces[total], n)


def test_hits_land_where_the_tables_say(traces):
    _, locations = attacks(traces)
    for weapon in codes.DIRECT_TRACKS:
        landed = Counter(loc for w, loc in locations if w == weapon)
        n = sum(landed.values())
        assert n >= MIN_N, weapon
        for loc in range(len(codes.HEAVY_NAMES)):
            p = Fraction(sum(1 for v in RULES.hit_table[weapon] if v == loc), 6)
            assert within(landed[loc], n, p), (weapon, loc, landed, n)


def test_tanks_turn_hot_as_often_as_the_exact_odds(traces):
    checks: dict[int, list[bool]] = defaultdict(list)
    for trace in traces:
        for _turn, _kind, _die, hot, chits, _ in (ev for ev in trace if ev[1] == events.TANK_STATUS):
            checks[chits].append(bool(hot))
    assert len(checks) == len(RULES.tank_hot_min)
    for chits, hot in checks.items():
        assert within(sum(hot), len(hot), d6_at_least(int(RULES.tank_hot_min[chits - 1]))), chits


def test_artillery_results_follow_the_exact_odds(traces):
    low = RULES.p("artillery", "only_effects_roll")
    heavy = RULES.p("artillery", "heavy_damage_roll")
    rolls = [ev[3] for trace in traces for ev in trace if ev[1] == events.ARTILLERY and ev[3]]
    n = len(rolls)
    assert n > 1_000
    assert within(sum(r <= low for r in rolls), n, 1 - on_2d6(low + 1))
    assert within(sum(r >= heavy for r in rolls), n, on_2d6(heavy))


def test_the_first_pair_follows_the_exact_odds(traces):
    exact = first_pair_chances(RULES)
    assert sum(exact.values()) == 1
    first = Counter()
    for trace in traces:
        pair = next(ev for ev in trace if ev[1] == events.PAIR)
        first[(int(RULES.chit_type[pair[2]]), int(RULES.chit_type[pair[3]]))] += 1
    n = sum(first.values())
    for cell, p in exact.items():
        assert within(first[cell], n, p), (cell, first[cell], n)


def test_exact_odds_are_plain_data_for_a_page():
    """exact_odds: every table with its chances as numbers, exact fractions and text."""
    import json

    tables = exact_odds(RULES)
    json.dumps(tables)
    direct = next(t for t in tables if t["title"].startswith("Exact odds: a direct-fire"))
    atgm = [r for r in direct["rows"] if r[0] == "ATGM" and r[2] == "10 or more"][0]
    assert atgm[3] == {"chance": 1 / 6, "exact": "1/6", "text": "16.7%"}
