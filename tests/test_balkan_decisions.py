"""Balkan Wars' declared decisions (bollesim/balkan/positions.py): each arm's order a
bound and the close assault are asked in both engines, the two engines meet the same
decisions and play the same games under scripts of choices, each order does what the
rules say of it, the primitives keep the protocol (bollesim/game/positions.py), and the
lookahead player (policies/balkan_wars/lookahead.py) plays the games its choices'
reference rows say and is not weaker than the scripted family it looks ahead with."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bollesim.balkan import lookahead as bw_lookahead
from bollesim.balkan import positions, reference, tactics
from bollesim.balkan.engine_ask import POINT_WIDTH
from bollesim.balkan.game import GAME
from bollesim.balkan.play import play_chunk
from bollesim.balkan.result import RESULT
from bollesim.balkan.ruleset import load_ruleset
from bollesim.game.policy import load_policy
from bollesim.game.positions import point_width

SEED = 7
GAMES = range(24)
CROSSING = Path(__file__).resolve().parents[1] / "bollesim" / "balkan" / "scenarios" / "crossing.toml"
OBS = positions.OBSERVATION_SIZE


@pytest.fixture(scope="module")
def rules():
    return GAME.load_ruleset()


@pytest.fixture(scope="module")
def base():
    return load_policy("assault", GAME)


@pytest.fixture(scope="module")
def prims():
    return positions.primitives()


def no_array():
    return np.zeros(0, dtype=np.int64)


def pause(prims, rules, base, game, script, to_end=1, work=None):
    """(point, row) of the decision after `script` (to_end: the base plays on)."""
    point = np.zeros(point_width(positions), dtype=np.int64)
    row = np.zeros(len(RESULT.columns), dtype=np.int64)
    snapshot = np.zeros(positions.SNAPSHOT_SIZE, dtype=np.int64)
    script = np.asarray(script, dtype=np.int64)
    work = positions.new_work(rules, base) if work is None else work
    prims[0](work, base.decide, base.param_vector(), SEED, game,
             positions.SETUP, script, len(script), to_end, snapshot, point, row)
    return point, row


def walk(prims, rules, base, game, choose):
    """The fast engine's game whose decisions choose(kind, n_options) answers: its script,
    each decision met (kind, number of options, observation) and its result row."""
    script, met, work = [], [], positions.new_work(rules, base)
    while True:
        point, row = pause(prims, rules, base, game, script, to_end=0, work=work)
        if point[0] < 0:
            return script, met, row
        kind, n = int(point[1]), int(point[2])
        codes = tuple(point[3 + OBS : 3 + OBS + n])
        assert codes == offered(kind, n, codes)
        met.append((kind, n, tuple(point[3 : 3 + OBS]), codes))
        script.append(choose(kind, n))


def offered(kind, n, codes):
    """The codes a decision may offer: an order's and a close assault's are their indices;
    a digit's the farthest first, the distinct others rising, keeping the digits last."""
    if kind != tactics.DIGIT:
        return tuple(range(n))
    assert 3 <= n <= tactics.N_OPTIONS and codes[0] == tactics.FARTHEST and codes[-1] == tactics.SPARE
    assert list(codes) == sorted(set(codes))
    return codes


def reference_walk(rules, base, game, script):
    """The reference engine's game under `script` (then the base): the decisions it met and
    its result row."""
    met = []

    def decide(kind, obs, r, options, n, params, prng):
        met.append((int(kind), int(n), tuple(obs), tuple(options[:n])))
        i = len(met) - 1
        return script[i] if i < len(script) else base.decide(kind, obs, r, options, n, params, prng)

    row = reference.play(rules, base.kernel_params(base.param_vector()), SEED, game, decide=decide)
    return met, np.array(RESULT.ints(row), dtype=np.int64)


CHOOSERS = {
    "halt": lambda rng: lambda kind, n: tactics.HALT if kind else tactics.ASSAULT_NOW,
    "part": lambda rng: lambda kind, n: tactics.PART if kind else tactics.HOLD,
    "effective": lambda rng: lambda kind, n: tactics.TO_EFFECTIVE if kind else tactics.ASSAULT_NOW,
    "maximum": lambda rng: lambda kind, n: tactics.TO_MAXIMUM if kind else n - 1,
    "random": lambda rng: lambda kind, n: int(rng.integers(n)),
    "digits": lambda rng: lambda kind, n: (int(rng.integers(1, n)) if kind == tactics.DIGIT
                                           else tactics.FULL if kind else tactics.ASSAULT_NOW),
}
SCENARIOS = {
    "shipped": {},
    "crossing": {"partial": CROSSING},
    "crossing, once, spare to the general": {
        "partial": CROSSING, "readings": {"I-MOVES": "once", "I-SPARE": "general"}},
    "per target": {"readings": {"I-FIREFIGHT": "per-target"}},
}


def rollout(prims, rules, base, game, script, option, r):
    row = np.zeros(len(RESULT.columns), dtype=np.int64)
    script = np.asarray(script, dtype=np.int64)
    prims[1](positions.new_work(rules, base), base.decide, base.param_vector(), SEED, game,
             positions.SETUP, script, len(script), option, r, row)
    return row


def test_the_declaration_is_complete():
    from bollesim.game.positions import POSITIONS

    compiled = {"pause", "rollout", "step", "allowed"}  # primitives(), in that order
    missing = [name for name in POSITIONS if name not in compiled and not hasattr(positions, name)]
    assert not missing
    assert len(positions.primitives()) == len(compiled)
    assert GAME.positions_module is positions
    assert point_width(positions) == POINT_WIDTH
    from bollesim.balkan.primitives import N_RESULTS
    assert N_RESULTS == len(RESULT.columns)


def test_the_fresh_stands_go_in_alone(monkeypatch, base):
    """Move Sequence 5 ('any stands that have won a firefight ... may'): with FRESH only the
    close troops that have lost no figure assault, against as many defenders at most; it
    is offered only when some of them, not all, have lost figures."""
    from bollesim.balkan import reference_fire, ruleset

    rules, last, went = load_ruleset(), [None], []

    def decide(kind, obs, r, options, n, params, prng):
        if kind == tactics.CLOSE_ASSAULT:
            assert (n == 3) == (0 < obs[tactics.O_FRESH] < obs[tactics.O_CANDIDATES])
            last[0] = obs[tactics.O_CANDIDATES], n, obs[tactics.O_FRESH]
            return n - 1
        return tactics.FULL if kind != tactics.DIGIT else 0

    def spy(b, assaulting, defending):
        full = [s.figures == b.rules.attacker[b.attacker.index(s), ruleset.FIGURES] for s in assaulting]
        went.append((last[0], all(full), len(assaulting), len(defending)))
        real(b, assaulting, defending)

    real = reference_fire.assault
    monkeypatch.setattr(reference_fire, "assault", spy)
    for g in range(40):
        reference.play(rules, base.param_vector(), SEED, g, decide=decide)
    fresh = [w for w in went if w[0][1] == 3]
    assert fresh and all(ok and a < candidates and d <= a for (candidates, _, _), ok, a, d in fresh)
    assert all(ok == (k == candidates) for (candidates, n, k), ok, _, _ in went if n == 2)


def test_each_digit_option_names_its_group():
    """Movement Rules ('One digit ... is expended to move: a stand or a group'), as tactics.DIGIT
    reads it: of the able stands short of where they stop, the farthest (the family's,
    the first option), the nearest, the troops' and the guns' farthest, or none (SPARE);
    only the options whose stands differ are offered, and none when one stand is left."""
    gun, t = tactics.ARTILLERY, tactics
    leaders, pick, digit_options = t.leaders.py_func, t.pick.py_func, t.digit_options.py_func  # no compile
    gap, stop = np.array([10, 6, 8, 3, 12]), np.array([2, 2, 8, 2, 2])
    able, weapon = np.array([1, 1, 1, 1, 0]), np.array([0, gun, 0, 0, 0])
    stands = tuple(leaders(gap, stop, able, weapon))
    assert stands == (0, 3, 0, 1)  # the farthest, the nearest, the troops', the guns'
    assert [pick(o, *stands) for o in range(t.N_OPTIONS)] == [0, 3, 0, 1, -1]
    assert t.advance.py_func(gap, stop, able)[0] == stands[0]
    codes = np.zeros(t.N_OPTIONS, dtype=np.int64)
    assert digit_options(*stands, codes) == 4
    assert list(codes[:4]) == [t.FARTHEST, t.NEAREST, t.GUNS_FIRST, t.SPARE]
    assert tuple(t.short_of.py_func(gap, stop, able)) == (3, 3, 10)
    assert digit_options(*leaders(gap, stop, np.array([1, 0, 1, 0, 0]), weapon), codes) == 0
    obs = np.zeros(OBS, dtype=np.int64)
    assert t.family_decide.py_func(t.DIGIT, obs, obs, codes, 4, np.zeros(4), obs) == 0


def test_the_family_through_the_primitives_plays_the_shipped_rows(prims, rules, base):
    """No script: the family's decide plays, as play_games plays it compiled in."""
    shipped = play_chunk(rules, base, np.tile(base.param_vector(), (len(GAMES), 1)), SEED, 0, "fast")
    for g in GAMES:
        _, row = pause(prims, rules, base, g, [])
        assert (row == shipped[g]).all(), g


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("pattern", CHOOSERS)
def test_both_engines_meet_the_same_decisions_under_a_script(prims, base, scenario, pattern):
    """Scripts of every kind's options: each engine meets the same decisions (kind,
    options, observation), one after the other, and ends with the same row."""
    rules = load_ruleset(**SCENARIOS[scenario])
    rng = np.random.default_rng(len(pattern) + 10 * len(scenario))
    kinds = set()
    for g in range(16 if scenario == "shipped" else 8):
        script, met, row = walk(prims, rules, base, g, CHOOSERS[pattern](rng))
        ref_met, ref_row = reference_walk(rules, base, g, script)
        assert ref_met[: len(met)] == met, (scenario, pattern, g)
        assert (row == ref_row).all(), (scenario, pattern, g, row, ref_row)
        kinds |= {kind for kind, _, _, _ in met}
    assert {tactics.TROOPS_ADVANCE, tactics.GUNS_ADVANCE} <= kinds
    assert tactics.DIGIT in kinds or pattern not in ("random", "digits")


def test_a_decision_is_put_and_a_choice_changes_the_game(prims, rules, base):
    """The first decision is the troops' order of bound 1 (the family's: the full move),
    with the arm's stands and gaps seen; the first close assault's point offers hold or
    close assault now. Halting instead of advancing, and holding instead of assaulting,
    play a different game in some engagements."""
    halted = held = 0
    for g in GAMES:
        point, _ = pause(prims, rules, base, g, [], to_end=0)
        assert list(point[:3]) == [tactics.FULL, tactics.TROOPS_ADVANCE, tactics.N_ORDERS]
        obs = point[3 : 3 + OBS]
        assert obs[tactics.O_BOUND] == 1 and obs[tactics.O_MOVABLE] == 9  # troops, not the guns
        assert obs[tactics.O_NEAREST] == obs[tactics.O_FARTHEST] == 24 and obs[tactics.O_DIGITS] >= 2
        full = positions.reference_row(rules, base, base.param_vector(), SEED, g, [tactics.FULL])
        halt = positions.reference_row(rules, base, base.param_vector(), SEED, g, [tactics.HALT])
        halted += not (full == halt).all()
        script, met, _ = walk(prims, rules, base, g, lambda kind, n: 0 if kind == tactics.DIGIT
                              else tactics.FULL if kind else 1)
        at = [i for i, (kind, _, _, _) in enumerate(met) if kind == tactics.CLOSE_ASSAULT]
        if at:
            n, obs = met[at[0]][1], met[at[0]][2]
            assert obs[tactics.O_CANDIDATES] >= 1
            assert n == (3 if 0 < obs[tactics.O_FRESH] < obs[tactics.O_CANDIDATES] else 2)
            went = positions.reference_row(rules, base, base.param_vector(), SEED, g, script[: at[0] + 1])
            hold = positions.reference_row(rules, base, base.param_vector(), SEED, g,
                                           [*script[: at[0]], tactics.HOLD])
            held += not (went == hold).all()
    assert halted >= len(GAMES) // 2 and held >= len(GAMES) // 3


def advances(rules, base, game, answer, point=None):
    """The reference engine's game whose arms' orders answer(kind) gives (the family's
    close assaults, at `point`): per bound, each attacking stand's steps advanced, how
    ("road", "further", ...) and where to."""
    from bollesim.balkan.narrate import new_narrated_battle

    b = new_narrated_battle(rules, SEED, game)  # its stands named

    def decide(kind, obs, r, options, n, params, prng):
        ordered = kind in (tactics.TROOPS_ADVANCE, tactics.GUNS_ADVANCE)
        return answer(kind) if ordered else base.decide(kind, obs, r, options, n, params, prng)

    reference.play(rules, base.kernel_params(base.param_vector(point)), SEED, game, b, decide=decide)
    moved = []
    for bound, kind, *facts in b.log:
        if kind == "advance" and facts[1].side == reference.ATTACKER:
            names, head, frm, to, how = facts
            moved += [(bound, name, head.gun, head.move, frm - to, how, to) for name in names]
    return moved


def test_each_order_does_what_it_says():
    """Move Sequence 2 and Movement Rules, as the orders read them: a halted arm's stands
    never move; a part move takes each stand once a bound, half its move at most, and no
    unused digit lengthens it; the full move goes as far as the digits allow."""
    base = load_policy("assault", GAME)
    for rules in (load_ruleset(), load_ruleset(partial=CROSSING)):
        for g in range(6):
            halted = advances(rules, base, g, lambda kind: tactics.HALT if kind == tactics.TROOPS_ADVANCE
                              else tactics.FULL)
            assert halted and all(m[2] for m in halted)
            part = advances(rules, base, g, lambda kind: tactics.PART)
            per_bound = {}
            for bound, name, _, move, steps, how, _ in part:
                assert how != "further" and steps <= move // 2
                per_bound[bound, name] = per_bound.get((bound, name), 0) + 1
            assert part and max(per_bound.values()) == 1
            full = advances(rules, base, g, lambda kind: tactics.FULL)
            assert max(m[4] for m in full) > max(m[4] for m in part)


def test_how_far_is_the_order_whatever_the_family_s_halt():
    """Weapon Ranges as the orders read them (the defender on its line: a troops' stand's
    place is its range): 'to maximum range' keeps the troops at the rifles' 1 km though the
    family would halt at 0.25 km; 'to effective range' brings them to 0.25 km (machine
    guns 0.5) though it would halt at 1 km, as its own full move does."""
    rules, base = load_ruleset(), load_policy("assault", GAME)
    for g in range(4):
        troops = lambda moved: [m[6] for m in moved if not m[2]]  # noqa: E731
        far = troops(advances(rules, base, g, lambda kind: tactics.TO_MAXIMUM))
        assert far and min(far) == 8
        point = bw_lookahead.SEARCHED
        near = troops(advances(rules, base, g, lambda kind: tactics.TO_EFFECTIVE, point))
        assert near and min(near) <= 2
        assert min(troops(advances(rules, base, g, lambda kind: tactics.FULL, point))) == 8


def test_a_rollout_takes_its_option_then_draws_its_own_luck(prims, rules, base):
    """On the game's own tape (r = -1) a rollout is the script plus its option; rollouts
    of other numbers draw other luck."""
    other = 0
    for g in GAMES:
        for option in (tactics.HALT, tactics.PART, tactics.FULL):
            mine = rollout(prims, rules, base, g, [], option, -1)
            ref = positions.reference_row(rules, base, base.param_vector(), SEED, g, [option])
            assert (mine == ref).all(), (g, option)
        rows = {tuple(rollout(prims, rules, base, g, [1], 0, r)) for r in range(4)}
        other += len(rows) > 1
    assert other >= len(GAMES) // 3


def looking(rules, **params):
    """The lookahead player at these parameters (the rest its defaults)."""
    return bw_lookahead.player(rules, load_policy("lookahead", GAME).param_vector(params))


def test_lookahead_rows_are_the_reference_rows_of_its_choices(rules):
    player = looking(rules, rollouts=8, confidence=0, base="defaults", first=1, screen=6)
    looked = 0
    for g in range(12):
        row, decisions = player.play(SEED, g)
        looked += sum(d.rollouts > 0 for d in decisions)
        assert (row == player.reference_row(SEED, g, decisions)).all(), g
    assert looked > 0


def test_the_lookahead_runs_by_name(rules):
    import bollesim

    df = bollesim.simulate("lookahead", 6, seed=SEED, game="balkan-wars",
                           params={"rollouts": 4})
    ref = bollesim.simulate("lookahead", 6, seed=SEED, game="balkan-wars",
                            params={"rollouts": 4}, engine="reference")
    assert df.height == 6
    columns = [c.name for c in RESULT.columns]
    assert df.select(columns).equals(ref.select(columns))


@pytest.mark.parametrize("which", bw_lookahead.BASES)
def test_the_lookahead_is_not_weaker_than_its_base(rules, base, which):
    """Paired games (the same seeds): the attack-won rate of the lookahead is not below its
    base's (the family at the searched point, or at its defaults) by more than three
    standard errors of the paired difference."""
    n = 60
    player = looking(rules, rollouts=16, base=which, first=1, screen=6)
    point = bw_lookahead.SEARCHED if which == "searched" else {}
    assert (player.base_vector == base.param_vector(point)).all()
    mine = np.array([player.play(SEED, g, record=False)[0][0] for g in range(n)], dtype=float)
    theirs = play_chunk(rules, base, np.tile(base.param_vector(point), (n, 1)), SEED, 0, "fast")[:, 0]
    d = mine - theirs
    se = d.std(ddof=1) / np.sqrt(n) if d.std() > 0 else 0.0
    assert d.mean() >= -3 * se - 1e-9, (d.mean(), se)


def test_the_step_api_plays_balkan_wars():
    """bollesim/BalkanWars-v0 steps through every kind of decision, each option named."""
    gym = pytest.importorskip("gymnasium")
    from bollesim.strong import env as game_env

    env = gym.make(game_env.env_id("balkan-wars"))
    seen = set()
    for seed in (SEED, SEED + 1, SEED + 2):
        obs, info = env.reset(seed=seed)
        assert obs.shape == (positions.OBSERVATION_SIZE,)
        for _ in range(200):
            if info["kind_name"] is None:
                break
            n = len(info["options"])
            names = [positions.OPTIONS[info["kind"]][c] for c in info["options"]]
            assert info["option_names"] == names and n >= 2
            seen.add(info["kind_name"])
            obs, reward, terminated, _, info = env.step(1 if info["kind_name"] == "digit" else n - 1)
            if terminated:
                assert "result" in info
                break
        else:
            pytest.fail("the game did not end")
    assert seen == set(positions.KINDS)
