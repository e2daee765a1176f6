"""The fast engine plays exactly the reference engine's game (docs/architecture.md §2),
deterministically, within the game's invariants, and with the exact chances the ruleset
implies (issue 3 tests)."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest

from bollesim.batch.runner import simulate
from bollesim.bollebank import codes, events, observation
from bollesim.bollebank.engine import layout
from bollesim.bollebank.engine.trace import play_traced_game
from bollesim.bollebank.reference.play import play_game
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.bollebank.rules.readings import READINGS
from bollesim.game.policy import available_policies, from_module, load_policy

RULES = load_ruleset()
SEED = 20260430


def obs_hash_policy():
    """A policy whose every choice hashes the whole observation: any difference in what
    the two engines show a policy changes its choices, and so the game."""
    import importlib.util

    path = Path(__file__).with_name("obs_hash_policy.py")
    spec = importlib.util.spec_from_file_location("obs_hash_policy", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return from_module(module, "obs_hash")


def compare_engines(policy, games: int, rules=RULES, seed: int = SEED) -> None:
    params = policy.param_vector()
    for g in range(games):
        ref_trace: list = []
        ref_row = play_game(rules, policy, params, seed, g, ref_trace)
        fast_trace, fast_row, _ = play_traced_game(rules, policy, params, seed, g)
        assert fast_trace == ref_trace, f"{policy.name} game {g}: traces differ"
        expected = RESULT.ints(ref_row)
        assert list(fast_row) == expected, f"{policy.name} game {g}: rows differ"


GAMES = [300, pytest.param(2000, marks=pytest.mark.slow)]
"""Games per policy of the event-for-event comparison: a few hundred in the default suite,
2,000 in the slow set."""


@pytest.mark.parametrize("games", GAMES)
@pytest.mark.parametrize("name", available_policies(deciding=True))
def test_engines_agree_event_for_event(name, games):
    """Same seeds, same rows and identical event traces."""
    compare_engines(load_policy(name), games)


@pytest.mark.parametrize("games", GAMES)
def test_engines_show_policies_the_same_observation(games):
    compare_engines(obs_hash_policy(), games)


@pytest.mark.parametrize(
    "overrides",
    [
        ['interpretations.target_priority="literal"', "movement.apc_double_move=true"],
        [
            "interpretations.radio_check_per_vehicle=false",
            "interpretations.spent_returns_to_track=true",
            "interpretations.artillery_effects_always=false",
            "game.extend_to_40=true",
        ],
    ],
)
def test_engines_agree_under_other_readings(overrides):
    compare_engines(obs_hash_policy(), 500, rules=load_ruleset(overrides=overrides))


# Settings that make a reading's rare moments common (artillery heavy damage on every hit).
STRESS = {"I-ART-APC": ["artillery.heavy_damage_roll=3"]}
ALTERNATIVES = [(r.id, v.name) for r in READINGS for v in r.alternatives]


@pytest.mark.parametrize("rid, variant", ALTERNATIVES, ids=[f"{r}={v}" for r, v in ALTERNATIVES])
def test_engines_agree_under_every_reading(rid, variant):
    """Every alternative reading, played by a policy that reacts to everything it sees
    and by the historical plan (which reaches Tango 2, tows and calls airstrikes)."""
    rules = load_ruleset(overrides=STRESS.get(rid, []), readings={rid: variant})
    compare_engines(obs_hash_policy(), 30, rules=rules)
    compare_engines(load_policy("historical"), 30, rules=rules)


@pytest.mark.slow
@pytest.mark.parametrize("name", available_policies(deciding=True))
def test_engines_agree_on_100k_games(name):
    """The long version (pytest -m slow): rows of 100,000 games per policy."""
    policy = load_policy(name)
    fast = simulate(policy, 100_000, seed=SEED)
    ref = simulate(policy, 100_000, seed=SEED, engine="reference")
    assert fast.equals(ref)


def test_play_narrates_the_same_game_with_either_engine():
    """`bollesim play --engine fast` tells the same story as the reference engine."""
    from typer.testing import CliRunner

    from bollesim.cli.app import app

    runner = CliRunner()
    args = ["play", "-P", "historical", "--seed", "7", "--index", "3"]
    reference = runner.invoke(app, args)
    fast = runner.invoke(app, [*args, "--engine", "fast"])
    assert reference.exit_code == fast.exit_code == 0
    assert fast.output == reference.output and "Outcome:" in fast.output


def test_rows_do_not_depend_on_threads_or_chunks():
    one = simulate("random", 20_000, seed=3, threads=1, chunk_size=20_000)
    two = simulate("random", 20_000, seed=3, threads=2, chunk_size=3_333)
    assert one.equals(two)
    tail = simulate("random", 5_000, seed=3, first_game=15_000)
    assert tail.equals(one.slice(15_000))


def test_row_invariants_over_100k_fast_games():
    """The generic invariants of a result row, on the fast engine's rows."""
    df = pl.concat([simulate("random", 50_000, seed=11), simulate("historical", 50_000, seed=11)], how="diagonal")
    limit = RULES.p("game", "turn_limit")
    assert df["end_turn"].is_between(1, limit).all()
    assert df["final_roe"].is_between(1, 24).all()
    assert (df["first_fire_roe"].drop_nulls() >= RULES.p("roe", "fire_allowed")).all()
    assert df.filter(pl.col("first_fire_turn").is_null())["first_fire_roe"].null_count() == (
        df["first_fire_turn"].null_count()
    )
    defeats = df.filter(pl.col("defeat"))
    assert (
        not defeats.select(pl.any_horizontal("operational", "tactical", "strategic", "political"))
        .to_series()
        .any()
    )
    assert set(defeats["end_reason"]) <= {"vehicle destroyed", "VL2 commander killed"}
    assert (df.filter(pl.col("end_reason") == "vehicle destroyed")["heavy_damage"] >= 1).all()
    assert (
        (
            df.filter(pl.col("end_reason") == "victory").select(
                pl.col("operational") | pl.col("tactical")
            )
        )
        .to_series()
        .all()
    )
    assert (df["deadline"] <= RULES.p("game", "deadline_max")).all()
    assert (df["tanks_at_t2"] <= int(RULES.is_tank.sum())).all()
    assert (df["chits_drawn"] >= 2).all()


def test_every_chit_in_exactly_one_place_at_the_end():
    """The final state of fast games: pool + tracks + aside + retired car = every chit."""
    policy = load_policy("random")
    everything = list(range(len(RULES.chit_type)))
    for g in range(2000):
        _, _, st = play_traced_game(RULES, policy, policy.param_vector(), SEED, g)
        places = list(st[layout.POOL : layout.POOL + st[layout.X_N_POOL]])
        places += list(st[layout.ASIDE : layout.ASIDE + st[layout.X_N_ASIDE]])
        for t in range(codes.N_TRACKS):
            start = layout.TRACKS + layout.TRACK_CAP * t
            places += list(st[start : start + st[observation.TRACK_LEN + t]])
        if st[layout.X_RETIRED] >= 0:
            places.append(st[layout.X_RETIRED])
        assert sorted(places) == everything, f"game {g}"


# ---------------------------------------------------------------- exact oracles


ORACLE_GAMES = 20_000
"""Games of the random policy whose traces the oracles below read (one pass for all)."""
ATTACK_GAMES = 6_000
"""Of them, the first games whose attacks the to-hit oracle reads."""
oracle_group = pytest.mark.xdist_group("fast-oracles")  # one worker walks the traces once


@pytest.fixture(scope="module")
def oracle_tallies() -> dict:
    """What the oracles count, in one walk over ORACLE_GAMES traced games: turn 1's first
    pair's weapon types, each radio check's (quality, success), and, over the first
    ATTACK_GAMES games, each unmodified tank or HMG attack's (need, hit) and each heavy
    hit's (weapon, location)."""
    chosen = load_policy("random")
    pairs: dict[tuple[int, int], int] = {}
    radio: dict[int, list[int]] = {}
    attacks: dict[int, list[bool]] = {}
    locations: dict[tuple[int, int], int] = {}
    for g in range(ORACLE_GAMES):
        trace = play_traced_game(RULES, chosen, chosen.param_vector(), SEED, g)[0]
        a, b = next(ev[2:4] for ev in trace if ev[1] == events.PAIR)
        key = (int(RULES.chit_type[a]), int(RULES.chit_type[b]))
        pairs[key] = pairs.get(key, 0) + 1
        for ev in trace:
            if ev[1] == events.RADIO and ev[3] > 0:
                radio.setdefault(ev[4], []).append(ev[5])
        if g < ATTACK_GAMES:
            tally_attacks(trace, attacks, locations)
    return {"pairs": pairs, "radio": radio, "attacks": attacks, "locations": locations}


def assert_close(count: int, n: int, p: Fraction, what: str) -> None:
    """count/n is within 4.5 standard errors of the exact probability p."""
    assert n > 0, what
    p = float(p)
    se = max((p * (1 - p) / n) ** 0.5, 1e-12)
    assert abs(count / n - p) <= 4.5 * se, f"{what}: {count}/{n} = {count / n:.4f}, exact {p:.4f}"


def first_pair_distribution() -> dict[tuple[int, int], Fraction]:
    """Exact law of the weapon types of turn 1's first valid pair (§5.3): two chits from the
    pool; the civilian car retires itself and the other chit, and two more are drawn."""
    counts = {t: int((RULES.chit_type[: RULES.n_pool_chits] == t).sum()) for t in range(5)}
    law: dict[tuple[int, int], Fraction] = {}

    def draw(pool: dict[int, int], weight: Fraction) -> None:
        total = sum(pool.values())
        for a, b in itertools.product(pool, repeat=2):
            na = pool[a]
            nb = pool[b] - (a == b)
            if na <= 0 or nb <= 0:
                continue
            w = weight * Fraction(na, total) * Fraction(nb, total - 1)
            if codes.CAR in (a, b):
                rest = dict(pool)
                rest[a] -= 1
                rest[b] -= 1
                draw(rest, w)
            else:
                law[(a, b)] = law.get((a, b), 0) + w

    draw(counts, Fraction(1))
    return law


@oracle_group
def test_oracle_first_pair_of_turn_one(oracle_tallies):
    law = first_pair_distribution()
    assert sum(law.values()) == 1
    seen, n = oracle_tallies["pairs"], ORACLE_GAMES
    for key, p in law.items():
        assert_close(seen.get(key, 0), n, p, f"first pair {key}")
    fire = sum(p for (a, b), p in law.items() if RULES.matrix_fire[a, b])
    assert_close(
        sum(c for (a, b), c in seen.items() if RULES.matrix_fire[a, b]),
        n,
        fire,
        "a Fire order is available from the first pair",
    )


def two_d6_at_least(need: int) -> Fraction:
    return Fraction(sum(1 for x in range(1, 7) for y in range(1, 7) if x + y >= need), 36)


def tally_attacks(trace, attacks: dict, locations: dict) -> None:
    """Tank and HMG attacks with no modifier (no Draw their fire that turn): (need, hit)
    into attacks, a heavy hit's (weapon, location) into locations."""
    dtf_turns = {
        ev[0]
        for ev in trace
        if ev[1] == events.ABILITY
        and ev[3] == events.ABILITY_USED
        and RULES.ability_sides[ev[2], ev[4]] == codes.DRAW_THEIR_FIRE
    }
    for i, (turn, kind, weapon, _, roll, need) in enumerate(trace):
        if kind != events.ATTACK or weapon == codes.ATGM or turn in dtf_turns:
            continue
        attacks.setdefault(need, []).append(roll >= need)
        if roll >= need and trace[i + 1][1] == events.HEAVY_DAMAGE:
            loc = trace[i + 1][3]
            locations[(weapon, loc)] = locations.get((weapon, loc), 0) + 1


@oracle_group
def test_oracle_attack_hits_and_locations(oracle_tallies):
    """Tank and HMG attacks with no modifier: hit iff the 2d6 meet the track's to-hit
    number; hit locations follow PAS4 (R-HIT)."""
    attacks, locations = oracle_tallies["attacks"], oracle_tallies["locations"]
    assert len(attacks) >= 3
    for need, hits in attacks.items():
        assert_close(sum(hits), len(hits), two_d6_at_least(need), f"to-hit {need}")
    for weapon in (codes.TANK, codes.HMG):
        n = sum(c for (w, _), c in locations.items() if w == weapon)
        for loc in range(3):
            exact = Fraction(int((RULES.hit_table[weapon] == loc).sum()), 6)
            assert_close(
                locations.get((weapon, loc), 0),
                n,
                exact,
                f"{codes.WEAPON_NAMES[weapon]} location {loc}",
            )


@oracle_group
def test_oracle_radio_check(oracle_tallies):
    """§5.1: a link with damaged radios gets through on a d6 at most its quality."""
    checks = oracle_tallies["radio"]
    assert checks, "no radio roll in the sample"
    for quality, ok in checks.items():
        assert_close(
            sum(ok), len(ok), Fraction(min(max(quality, 0), 6), 6), f"radio quality {quality}"
        )
