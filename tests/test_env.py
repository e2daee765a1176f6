"""The step API of any game (strong/state.py) and the Gymnasium environment on it
(strong/env.py), on Operation Bøllebank: random legal play keeps the engine's invariants
and no illegal action is taken; every step is the reference engine's (reference/steps.py,
the game a decision at a time in plain Python); a policy driven step by step plays the
engines' games exactly; a clone plays on apart; anything but an option's index is refused."""

from __future__ import annotations

import numpy as np
import pytest
from test_invariants import Checker, check_row

from bollesim import rng
from bollesim.bollebank import decisions
from bollesim.bollebank.reference.play import play_game
from bollesim.bollebank.reference.steps import GameState
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.errors import IllegalChoice
from bollesim.game.policy import DecidePolicy, load_policy
from bollesim.game.registry import load_game
from bollesim.strong.state import State

gym = pytest.importorskip("gymnasium", reason="install the agents extra: pip install -e '.[agents]'")
from bollesim.strong import env as game_env  # noqa: E402  (needs gymnasium)

GAME = load_game("bollebank")
ENV_ID = game_env.env_id(GAME.name)

SEED = 29041994
MAX_STEPS = 2000  # far above any game's decisions: a game that does not end fails


def refuses(env, action) -> None:
    """An illegal action raises and leaves the position as it was."""
    before = env.unwrapped.state.choices
    with pytest.raises(IllegalChoice, match="is not an option"):
        env.step(action)
    assert env.unwrapped.state.choices == before


def replayed_with_checks(rules, state: State) -> dict:
    """The game of a finished state played again from its choices by the reference engine,
    with test_invariants' Checker after every phase (test_invariants.check_row on its row):
    its row."""
    trace: list = []
    script = iter(state.choices)
    player = DecidePolicy("script", "", (), lambda *_: next(script), game="bollebank")
    reference = GameState(rules, state.seed, state.index, state.choices)
    row = play_game(rules, player, np.zeros(0), state.seed, state.index, trace,
                    after_phase=Checker(rules, trace))
    assert next(script, None) is None and trace == reference.trace
    check_row(rules, reference.game, row, trace)
    return row


def test_random_legal_games_keep_the_invariants():
    """Random legal actions through gymnasium.make's env (with its passive checker): every
    game ends, its row is consistent (test_invariants.check_row) and it keeps every
    invariant after every phase (its choices replayed under test_invariants.Checker), the
    mask marks exactly the options, the observation is in its space, and illegal actions
    are refused."""
    env = gym.make(ENV_ID)
    space = env.observation_space
    obs, info = env.reset(seed=SEED)
    reasons = set()
    for game in range(30):
        if game:
            obs, info = env.reset()
        assert info["game"] == game and info["seed"] == SEED
        for _ in range(MAX_STEPS):
            n = len(info["options"])
            assert n >= 2, "a decision without a choice reached the agent"
            assert info["kind_name"] == decisions.KIND_NAMES[info["kind"]]
            assert info["action_mask"].sum() == n == info["action_mask"][:n].sum()
            assert np.array_equal(info["action_mask"], env.unwrapped.action_masks())
            assert space.contains(obs)
            refuses(env, n)
            refuses(env, -1)
            reference = GameState(env.unwrapped.rules, SEED, game, env.unwrapped.state.choices)
            assert reference.kind == info["kind"] and reference.options == list(info["options"])
            assert np.array_equal(reference.observation, obs)
            obs, reward, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))
            assert not truncated
            if terminated:
                break
            assert reward == 0
        else:
            pytest.fail(f"game {game} did not end in {MAX_STEPS} decisions")
        state = env.unwrapped.state
        row = info["result"]
        assert replayed_with_checks(env.unwrapped.rules, state) == row
        assert reward == game_env.default_reward(GAME.result)(row)
        assert not info["action_mask"].any() and info["kind"] is None
        refuses(env, 0)
        reasons.add(row["end_reason"])
    assert "vehicle destroyed" in reasons


@pytest.mark.parametrize("name", ["historical", "random"])
def test_a_policy_driven_step_by_step_plays_the_engines_games(name):
    """A policy's decide, asked through the env with the engine's arguments (its own
    stream from rng.POLICY), gives the reference engine's rows on the same seed and games."""
    rules = load_ruleset()
    policy = load_policy(name)
    params = policy.kernel_params(policy.param_vector())
    env = game_env.GameEnv(GAME, rules)
    buffer = np.zeros(decisions.MAX_OPTIONS, dtype=np.int64)
    for game in range(6):
        obs, info = env.reset(seed=SEED) if game == 0 else env.reset()
        prng = rng.new_stream(SEED, game, rng.POLICY)
        terminated = False
        while not terminated:
            n = len(info["options"])
            buffer[:n] = info["options"]
            action = policy.decide(info["kind"], obs, rules.packed, buffer, n, params, prng)
            obs, _, terminated, _, info = env.step(action)
        assert info["result"] == play_game(rules, policy, policy.param_vector(), SEED, game), game


def test_clone_plays_on_apart():
    """A clone is the same position; moves on one leave the other as it was, and the same
    choices from a clone end the same game."""
    rules = load_ruleset()
    state = State(GAME, rules, SEED, 3)
    for _ in range(5):
        state.apply(len(state.options) - 1)
    clone = state.clone()
    assert clone.choices == state.choices and clone.kind == state.kind
    assert np.array_equal(clone.observation, state.observation)
    assert np.array_equal(clone.options, state.options)
    first = state
    while not first.is_terminal:
        first = first.child(0)
    assert state.choices == clone.choices  # child() left the position alone
    while not clone.is_terminal:
        clone.apply(0)
    assert clone.result == first.result and clone.choices == first.choices
    assert GameState(rules, SEED, 3, first.choices).result == first.result


def test_an_action_space_too_small_for_a_decision_says_so():
    env = game_env.GameEnv(GAME, max_options=2)
    with pytest.raises(ValueError, match="more than max_options 2"):
        env.reset(seed=SEED)


@pytest.mark.parametrize("action", [2.5, 0.9, "0", True, np.float64(1.7), np.True_, None])
def test_only_a_whole_number_is_an_action(action):
    """2.5 is not option 2, nor True option 1: anything but an integer (Python's or numpy's)
    is refused with the options that exist, and the position does not move."""
    env = game_env.GameEnv(GAME)
    env.reset(seed=SEED)
    refuses(env, action)


def test_numpy_integers_are_actions():
    env = game_env.GameEnv(GAME)
    _, info = env.reset(seed=SEED)
    env.step(np.int64(len(info["options"]) - 1))
    env.step(np.int32(0))
    assert len(env.unwrapped.state.choices) == 2


@pytest.mark.parametrize("options", [{"game": -1}, {"game": 1.5}, {"game": True}, {"game": "2"}])
def test_a_game_that_is_not_a_whole_number_is_refused(options):
    env = game_env.GameEnv(GAME)
    with pytest.raises(IllegalChoice, match="whole number"):
        env.reset(seed=SEED, options=options)


def test_the_result_holds_plain_python_values():
    """info["result"]: bool flags and int counts of Python's own, as the rows' dicts are."""
    env = game_env.GameEnv(GAME)
    _, info = env.reset(seed=SEED)
    terminated = False
    while not terminated:
        _, _, terminated, _, info = env.step(0)
    for name, value in info["result"].items():
        assert value is None or type(value) in (bool, int, str), (name, type(value))


def test_every_game_that_declares_decision_points_has_an_id():
    assert ENV_ID == "bollesim/Bollebank-v0" and ENV_ID in gym.registry
    assert game_env.env_id("balkan-wars") == "bollesim/BalkanWars-v0"
