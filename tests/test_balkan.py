"""The Balkan Wars game (bollesim/balkan): the exact odds equal an independent count
(icepool), the fast engine's firefights fall inside their intervals around them, and the
reference and fast engines play the same games on random scenarios, readings and
attacker policies."""

from __future__ import annotations

import copy
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import icepool
import numpy as np
import polars as pl
import pytest

from bollesim.balkan import engine, odds, reference, schema
from bollesim.balkan.result import RESULT
from bollesim.balkan.ruleset import BOOK, SCALARS, build, load_ruleset
from bollesim.balkan.tactics import NEVER
from bollesim.errors import RulesetError

ROOT = Path(__file__).resolve().parents[1]

# ------------------------------------------------------------------ exact odds


def icepool_contest(first, second, six_rolled, clamp_total):
    """The contest's distribution counted by icepool, from the rules' words alone."""
    def side(mods):
        dice = []
        for mod in mods:
            def score(face, mod=mod):
                s = face + mod if clamp_total else min(6, max(1, face + mod))
                six = face == 6 if six_rolled else s >= 6
                return icepool.Vector((s, int(six)))
            dice.append(icepool.d6.map(score))
        total = icepool.Die([icepool.Vector((0, 0))])
        for d in dice:
            total = total + d
        n = len(mods)
        return total.map(lambda v: (min(6 * n, max(n, v[0])) if clamp_total else v[0], v[1]))

    def contest(a, d):
        (ta, sa), (td, sd) = a, d
        winner = (ta > td) - (ta < td)
        loss = abs(ta - td) // 6
        return winner, sd + (loss if winner < 0 else 0), sa + (loss if winner > 0 else 0)

    both = icepool.map(contest, side(first), side(second))
    denominator = both.denominator()
    return {tuple(k): Fraction(q, denominator) for k, q in both.items()}


CASES = [([0, 1, -1], [0, 0], False, False), ([1, 1], [-2, 0, 3], True, False),
         ([0, -1, -1, 2], [1], False, True), ([2, -3], [0, 0, -1], True, True),
         ([], [0, 0], False, False), ([-2] * 5, [1] * 4, False, False)]


@pytest.mark.parametrize("first, second, six_rolled, clamp_total", CASES)
def test_exact_odds_equal_icepool(first, second, six_rolled, clamp_total):
    ours = odds.contest_odds(first, second, six_rolled, clamp_total)
    assert sum(ours.values()) == 1
    assert ours == icepool_contest(first, second, six_rolled, clamp_total)


def test_exact_odds_of_a_worked_case():
    """One die each, no modifiers: 15/36 each to win; the winner's six always inflicts one."""
    o = odds.summary(odds.contest_odds([0], [0]))
    assert o["first wins"] == Fraction(15, 36) and o["tie"] == Fraction(6, 36)
    assert o["first's casualties"] == Fraction(1, 6)  # only the other's six: the difference is under six


def test_exact_odds_refuse_more_dice_than_they_count():
    with pytest.raises(ValueError, match=f"{odds.MAX_DICE} dice"):
        odds.contest_odds([0] * (odds.MAX_DICE + 1), [0])


def test_the_shipped_scenarios_odds_are_all_counted():
    """Every distance of the shipped scenario's odds table has its chances (its 13
    attacking dice at close range included); a larger force is named, not left blank."""
    table = odds.exact_odds(load_ruleset())[0]
    assert max(row[1] for row in table["rows"]) > 12
    assert all(isinstance(cell, dict) for row in table["rows"] for cell in row[3:])
    big = load_ruleset(overrides=["attacker.stands[3].count=7"])  # 14 guns: 23 dice at short range
    rows = odds.exact_odds(big)[0]["rows"]
    assert any(str(row[3]).startswith("not counted") for row in rows)


# ------------------------------------------------------------------ frequencies

Z = 3.891  # the two-sided 99.99% normal quantile


def frequency_cases(n_cases):
    rng = np.random.default_rng(11)
    for _ in range(n_cases):
        first = rng.integers(-3, 3, size=rng.integers(1, 6)).tolist()
        second = rng.integers(-3, 3, size=rng.integers(1, 6)).tolist()
        yield first, second, bool(rng.integers(2)), bool(rng.integers(2))


def check_frequencies(first, second, six_rolled, clamp_total, n, seed):
    """The fast engine's firefights: who wins, and each side's casualties, each within
    the 99.99% interval of its exact chance."""
    sc = np.zeros(len(SCALARS), dtype=np.int64)
    sc[SCALARS.index("six_rolled")], sc[SCALARS.index("clamp_total")] = six_rolled, clamp_total
    counts = np.zeros((n, 3), dtype=np.int64)
    engine.firefights(np.array(first, dtype=np.int64), np.array(second, dtype=np.int64), sc, seed, counts)
    exact = odds.contest_odds(first, second, six_rolled, clamp_total)
    for column in range(3):
        marginal: dict[int, Fraction] = {}
        for key, p in exact.items():
            value = key[0] + 1 if column == 0 else key[column]
            marginal[value] = marginal.get(value, Fraction(0)) + p
        seen = np.bincount(counts[:, column], minlength=max(marginal) + 1)
        assert set(np.nonzero(seen)[0]) <= set(marginal)
        for value, p in marginal.items():
            half = Z * math.sqrt(float(p) * (1 - float(p)) / n)
            assert abs(seen[value] / n - float(p)) <= half + 1e-12, (first, second, column, value)


@pytest.mark.parametrize("case", list(frequency_cases(20)))
def test_firefight_frequencies_fall_inside_their_intervals(case):
    check_frequencies(*case, n=50_000, seed=5)


@pytest.mark.slow
@pytest.mark.parametrize("case", list(frequency_cases(20)))
def test_firefight_frequencies_on_a_million(case):
    check_frequencies(*case, n=1_000_000, seed=6)


def test_frequency_check_catches_a_wrong_distribution():
    """The check can fail: the odds of one modifier more do not pass for these dice."""
    first, second = [0, 0, 0], [0, 0]
    sc = np.zeros(len(SCALARS), dtype=np.int64)
    counts = np.zeros((50_000, 3), dtype=np.int64)
    engine.firefights(np.array(first), np.array(second), sc, 5, counts)
    wrong = odds.summary(odds.contest_odds([1, 0, 0], second))["first wins"]
    half = Z * math.sqrt(float(wrong) * (1 - float(wrong)) / 50_000)
    assert abs((counts[:, 0] == 2).mean() - float(wrong)) > half


# ------------------------------------------------------------------ the engines agree

TROOPS = ("infantry", "cavalry")


def random_scenario(rng) -> tuple[dict, np.ndarray]:
    """A random valid scenario (forces, generals, cover, ground, readings) and policy."""
    data = copy.deepcopy(BOOK.default_data)
    for side in ("attacker", "defender"):
        stands = []
        for _ in range(rng.integers(1, 5)):
            kind = str(rng.choice(schema.TYPES))
            qualities = schema.QUALITIES if kind in TROOPS else schema.QUALITIES[:2]
            stands.append({"type": kind, "quality": str(rng.choice(qualities)),
                           "count": int(rng.integers(1, 4))})
        data[side].update(stands=stands, general=str(rng.choice(schema.GENERALS)),
                          cover=str(rng.choice(schema.COVERS)),
                          artillery_sees=bool(rng.integers(2)),
                          other_stands=int(rng.integers(0, 3)))
    data["battle"].update(bounds=int(rng.integers(1, 15)), start_distance=int(rng.integers(1, 60)),
                          approach=str(rng.choice(schema.TERRAINS)), counter=bool(rng.integers(2)),
                          break_percent=int(rng.choice([25, 25, 50])))
    chosen = {r.id: str(rng.choice([v.name for v in r.variants()])) for r in BOOK.readings}
    data = BOOK.apply_readings(data, chosen)
    losses = int(rng.choice([0, 0, rng.integers(0, 20), NEVER]))
    params = np.array([rng.integers(1, 9), rng.integers(1, 41), losses, rng.integers(1, 5)],
                      dtype=np.float64)
    return data, params


def compare(n_scenarios, games, seed):
    rng = np.random.default_rng(seed)
    for s in range(n_scenarios):
        data, params = random_scenario(rng)
        rules = build(data)
        tab, ns = engine.tables(rules)
        fast = np.zeros((games, len(RESULT.columns)), dtype=np.int64)
        engine.play_games(tab, ns, rules.scalars, np.tile(params, (games, 1)), seed, s * games, fast)
        slow = np.array([RESULT.ints(reference.play(rules, params, seed, s * games + g))
                         for g in range(games)])
        assert (fast == slow).all(), (s, params.tolist(), rules.readings, slow, fast)


def test_engines_agree_on_random_scenarios():
    compare(n_scenarios=300, games=3, seed=1)


@pytest.mark.slow
def test_engines_agree_on_ten_thousand_scenarios():
    compare(n_scenarios=10_000, games=1, seed=2)


def test_default_scenario_plays_the_same_in_both_engines():
    rules = load_ruleset()
    params = np.array([[2, 8, 0, 1], [1, 4, 6, 3], [2, 8, NEVER, 1]], dtype=np.float64)
    for p in params:
        fast = np.zeros((40, len(RESULT.columns)), dtype=np.int64)
        tab, ns = engine.tables(rules)
        engine.play_games(tab, ns, rules.scalars, np.tile(p, (40, 1)), 3, 0, fast)
        slow = np.array([RESULT.ints(reference.play(rules, p, 3, g)) for g in range(40)])
        assert (fast == slow).all()
        if p[2] == NEVER:
            assert (fast[:, RESULT.slot("assaults")] == 0).all()


# ------------------------------------------------------------------ the rules, as read


def test_the_rules_numbers_and_readings():
    rules = load_ruleset()
    assert rules.p("break_percent") == 25 and rules.p("attacker_move") == 1
    assert rules.readings == {r.id: r.default for r in BOOK.readings}
    field = load_ruleset(readings={"I-FIELD-ART": "30cm"})
    assert field.readings["I-FIELD-ART"] == "30cm"
    assert BOOK.get_path(field.data, "types[field_artillery].effective") == 12


def test_a_close_assault_needs_a_won_firefight():
    """The attacker's dice lose every firefight (green, hardened cover, at maximum
    range): no close assault is ever made, however eager the policy."""
    data = copy.deepcopy(BOOK.default_data)
    data["attacker"]["stands"] = [{"type": "infantry", "quality": "green", "count": 4}]
    data["defender"].update(cover="hardened", stands=[
        {"type": "machine_gun", "quality": "veteran", "count": 1},
        {"type": "heavy_artillery", "quality": "veteran", "count": 4}])
    rules = build(data)
    rows = [reference.play(rules, np.array([8, 8, 0, 1.0]), 1, g) for g in range(30)]
    assert all(r["assaults"] == 0 for r in rows)
    assert all(r["lost"] for r in rows)


def test_bad_scenarios_are_refused_with_one_line():
    with pytest.raises(RulesetError, match="veteran or trained"):
        BOOK.load_ruleset(overrides=['defender.stands[2].quality="green"'])
    with pytest.raises(RulesetError, match="did you mean battle.bounds"):
        BOOK.load_ruleset(overrides=["battle.bound=3"])


# ------------------------------------------------------------------ through the command line


def bollesim(*args, cwd):
    done = subprocess.run([sys.executable, "-m", "bollesim", "--game", "balkan-wars", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "NUMBA_NUM_THREADS": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout + done.stderr


def test_run_sweep_and_report_play_balkan_wars(tmp_path):
    """`--game balkan-wars` plays the fast engine's rows through `run`, and `sweep` and
    `report` answer the close-assault question in words."""
    bollesim("run", "-P", "assault", "-p", "losses=4", "-n", "300", "--seed", "9", "--out", "a",
             cwd=tmp_path)
    rows = pl.read_parquet(tmp_path / "a" / "games.parquet")
    rules = load_ruleset()
    tab, ns = engine.tables(rules)
    fast = np.zeros((300, len(RESULT.columns)), dtype=np.int64)
    engine.play_games(tab, ns, rules.scalars, np.tile([2, 8, 4, 1.0], (300, 1)), 9, 0, fast)
    assert rows["won"].to_list() == [bool(v) for v in fast[:, RESULT.slot("won")]]
    assert rows["defender_casualties"].to_list() == fast[:, RESULT.slot("defender_casualties")].tolist()
    spec = ROOT / "experiments" / "balkan_close_assault.toml"
    out = bollesim("sweep", str(spec), "-n", "500", "--out", "sweep", cwd=tmp_path)
    assert "close assault once the defender has lost" in out.lower()
    assert "A game can count several wins at once (attack won, light losses)" in out
    bollesim("report", "sweep", cwd=tmp_path)
    report = (tmp_path / "sweep" / "report.md").read_text(encoding="utf-8")
    assert "close assault" in report.lower() and "narrated bound by bound" in report
    assert "turn by turn" not in report and "victor" not in report


@pytest.mark.parametrize("args, problem", [(["--game"], "Option '--game' requires an argument"),
                                           (["--game", "chess", "policies"], "unknown game")])
def test_a_bad_game_is_one_error_line(args, problem, tmp_path):
    done = subprocess.run([sys.executable, "-m", "bollesim", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and problem in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_rulebook_is_what_the_layers_above_read():
    """declaration.RULEBOOK: READINGS by id (compare and sensitivity look readings up by it)."""
    from bollesim.game.declaration import RULEBOOK
    from bollesim.game.registry import load_game

    rulebook = load_game("balkan-wars").rulebook
    assert all(hasattr(rulebook, name) for name in RULEBOOK)
    assert set(rulebook.READINGS) == set(load_ruleset().readings)
    assert rulebook.READINGS["I-SIX"].default == "modified"


def test_rules_show_prints_the_scenario_and_its_readings(tmp_path):
    out = bollesim("rules", "show", cwd=tmp_path)
    assert "Troop types" in out and "Exact odds" in out and "field_artillery" in out
    out = bollesim("rules", "show", "--reconstructed", "--reading", "I-FIELD-ART=30cm", cwd=tmp_path)
    assert "I-FIELD-ART" in out and "30cm" in out
