"""Balkan Wars' declared decisions (bollesim/balkan/positions.py): the attacker's close
assault is asked in both engines, the two engines play the same games under a script of
choices, the primitives keep the protocol (bollesim/game/positions.py), and the lookahead
player (policies/balkan_wars/lookahead.py) plays the games its choices' reference rows say
and is not weaker than the scripted family it looks ahead with."""

from __future__ import annotations

import numpy as np
import pytest

from bollesim.balkan import lookahead as bw_lookahead
from bollesim.balkan import positions
from bollesim.balkan.engine_ask import POINT_WIDTH
from bollesim.balkan.game import GAME
from bollesim.balkan.play import play_chunk
from bollesim.balkan.result import RESULT
from bollesim.game.policy import load_policy
from bollesim.game.positions import point_width

SEED = 7
GAMES = range(24)


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


def pause(prims, rules, base, game, script, to_end=1):
    """(point, row) of the decision after `script` (to_end: the base plays on)."""
    point = np.zeros(point_width(positions), dtype=np.int64)
    row = np.zeros(len(RESULT.columns), dtype=np.int64)
    snapshot = np.zeros(positions.SNAPSHOT_SIZE, dtype=np.int64)
    script = np.asarray(script, dtype=np.int64)
    prims[0](positions.new_work(rules, base), base.decide, base.param_vector(), SEED, game,
             positions.SETUP, script, len(script), to_end, snapshot, point, row)
    return point, row


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


def test_the_family_through_the_primitives_plays_the_shipped_rows(prims, rules, base):
    """No script: the family's decide plays, as play_games plays it compiled in."""
    shipped = play_chunk(rules, base, np.tile(base.param_vector(), (len(GAMES), 1)), SEED, 0, "fast")
    for g in GAMES:
        _, row = pause(prims, rules, base, g, [])
        assert (row == shipped[g]).all(), g


@pytest.mark.parametrize("pattern", ["hold", "assault", "alternate", "random"])
def test_both_engines_play_a_script_the_same(prims, rules, base, pattern):
    rng = np.random.default_rng(len(pattern))
    for g in GAMES:
        script = {"hold": [0] * 12, "assault": [1] * 12, "alternate": [0, 1] * 6,
                  "random": list(rng.integers(0, 2, 12))}[pattern]
        _, row = pause(prims, rules, base, g, script)
        ref = positions.reference_row(rules, base, base.param_vector(), SEED, g, script)
        assert (row == ref).all(), (pattern, g, row, ref)


def test_a_decision_is_put_and_a_choice_changes_the_game(prims, rules, base):
    """The first decision's point: the family's choice, its kind, both options; holding
    instead of assaulting plays a different game in some engagements."""
    differs = 0
    for g in GAMES:
        point, row = pause(prims, rules, base, g, [], to_end=0)
        if point[0] < 0:
            continue
        assert point[1] == 0 and point[2] == 2
        assert list(point[-2:]) == [0, 1]
        assert point[3] >= 1  # the bound
        held = positions.reference_row(rules, base, base.param_vector(), SEED, g, [0])
        went = positions.reference_row(rules, base, base.param_vector(), SEED, g, [1])
        differs += not (held == went).all()
    assert differs >= len(GAMES) // 3


def test_a_rollout_takes_its_option_then_draws_its_own_luck(prims, rules, base):
    """On the game's own tape (r = -1) a rollout is the script plus its option; rollouts
    of other numbers draw other luck."""
    other = 0
    for g in GAMES:
        for option in (0, 1):
            mine = rollout(prims, rules, base, g, [], option, -1)
            ref = positions.reference_row(rules, base, base.param_vector(), SEED, g, [option])
            assert (mine == ref).all(), (g, option)
        rows = {tuple(rollout(prims, rules, base, g, [1], 0, r)) for r in range(4)}
        other += len(rows) > 1
    assert other >= len(GAMES) // 3


def test_lookahead_rows_are_the_reference_rows_of_its_choices(rules):
    player = bw_lookahead.player(rules, np.array([8, 0, 0.0]))
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


def test_the_lookahead_is_not_weaker_than_its_base(rules, base):
    """Paired games (the same seeds): the attack-won rate of the lookahead is not below the
    family's by more than three standard errors of the paired difference."""
    n = 60
    player = bw_lookahead.player(rules, np.array([16, 0, 1.25]))
    mine = np.array([player.play(SEED, g, record=False)[0][0] for g in range(n)], dtype=float)
    theirs = play_chunk(rules, base, np.tile(base.param_vector(), (n, 1)), SEED, 0, "fast")[:, 0]
    d = mine - theirs
    se = d.std(ddof=1) / np.sqrt(n) if d.std() > 0 else 0.0
    assert d.mean() >= -3 * se - 1e-9, (d.mean(), se)


def test_the_step_api_plays_balkan_wars():
    gym = pytest.importorskip("gymnasium")
    from bollesim.strong import env as game_env

    env = gym.make(game_env.env_id("balkan-wars"))
    obs, info = env.reset(seed=SEED)
    assert obs.shape == (positions.OBSERVATION_SIZE,)
    for _ in range(200):
        if info["kind_name"] is None:
            break
        assert info["option_names"] == ["hold", "close assault now"]
        obs, reward, terminated, _, info = env.step(1)
        if terminated:
            assert "result" in info
            break
    else:
        pytest.fail("the game did not end")
