"""The Balkan Wars' apprentice (bollesim/balkan/apprentice/, policies/balkan_wars/
apprentice.py): its features are the observation and the option, its games in the fast
engine are the reference engine's games of its choices, the shipped model is this game's,
and `bollesim --game balkan-wars train` makes one."""

import shlex

import numpy as np
import pytest

from bollesim.balkan import positions, reference, tactics
from bollesim.balkan.apprentice import declaration as D
from bollesim.balkan.game import GAME
from bollesim.balkan.lookahead import SEARCHED
from bollesim.balkan.play import play_chunk
from bollesim.balkan.result import RESULT
from bollesim.balkan.ruleset import load_ruleset
from bollesim.game.policy import load_policy
from bollesim.strong import apprentice as A
from bollesim.strong import train as training

SEED = 31  # no training's: labels of 1001, a threshold tuned on 1000
N = 40


@pytest.fixture(scope="module")
def rules():
    return load_ruleset()


def leaving():
    """The shipped model with its gate always open: at every decision learned the
    chooser's pick among the options other than the base's (the shipped gate opens where
    its teacher would leave its base, in about 1 decision in 60)."""
    return A.with_threshold(A.shipped(D), -np.inf)


def games(rules, model, n=N):
    """(the apprentice's fast rows playing `model`, the base's fast rows, its policy)."""
    policy = training.policy_with(D, GAME.name, model)
    mine = play_chunk(rules, policy, np.zeros((n, 0)), SEED, 0, "fast")
    assault = load_policy("assault", GAME)
    theirs = play_chunk(rules, assault, np.tile(assault.param_vector(SEARCHED), (n, 1)), SEED, 0,
                        "fast")
    return mine, theirs, policy


@pytest.mark.parametrize("which", ["shipped", "leaving"])
def test_the_apprentice_rows_are_the_reference_rows_of_its_choices(rules, which):
    """Game for game, the fast engine's rows of the apprentice are the reference engine's
    playing its decide, and the reference engine's replaying the choices it made there
    (the family `assault` at its base's point playing on); the model counts: the one whose
    gate always opens plays other games than its base."""
    model = A.shipped(D) if which == "shipped" else leaving()
    mine, theirs, policy = games(rules, model)
    vector = policy.kernel_params(np.zeros(0))
    assault = load_policy("assault", GAME)
    departed = 0
    for g in range(N):
        choices, bases = [], []

        def asked(kind, obs, sc, options, n_options, params, prng, choices=choices, bases=bases):
            choice = int(policy.decide(kind, obs, sc, options, n_options, params, prng))
            choices.append(choice)
            bases.append(int(tactics.family_decide(kind, obs, sc, options, n_options, params,
                                                   prng)))
            return choice

        row = RESULT.ints(reference.play(rules, vector, SEED, g, decide=asked))
        assert (mine[g] == row).all(), g
        replayed = positions.reference_row(rules, assault, assault.param_vector(SEARCHED), SEED, g,
                                           choices)
        assert (mine[g] == replayed).all(), g
        departed += choices != bases
        assert choices != bases or (mine[g] == theirs[g]).all(), g  # its base's choices: its game
    if which == "leaving":
        assert departed == N and (mine != theirs).any(axis=1).sum() > N // 4


def test_an_imposed_trigger_is_the_apprentice_s_close_assault(rules):
    """imposed_losses (experiments/balkan_close_assault_strong.toml): the close assault is
    its base's at the imposed trigger (never: none in any engagement; at once: some), the
    same rows in both engines, and the orders stay its own (it plays other games than the
    family at the trigger)."""
    policy, assault = load_policy("apprentice", GAME), load_policy("assault", GAME)
    assaults = [c.name for c in RESULT.columns].index("assaults")

    def rows(engine, n, **imposed):
        return play_chunk(rules, policy, np.tile(policy.param_vector(imposed), (n, 1)), SEED, 0, engine)

    assert not rows("fast", 200, imposed_losses=48)[:, assaults].any()
    at_once = rows("fast", 200, imposed_losses=0)
    assert at_once[:, assaults].any()
    assert (rows("reference", 12, imposed_losses=0) == at_once[:12]).all()
    family = play_chunk(rules, assault, np.tile(assault.param_vector({**SEARCHED, "losses": 0}), (200, 1)),
                        SEED, 0, "fast")
    assert (family != at_once).any()


def test_the_features_are_the_observation_and_the_option(rules):
    """Every option's row (the table training fits on, the same prepare and fill the
    apprentice plays with): the observation, the decision, the base's choice, the arm's
    gaps to the base's halt or the close assault's odds, then the option's own slots."""
    rng = np.random.default_rng(5)
    params = D.family()
    halts = {tactics.TROOPS_ADVANCE: params[tactics.ADVANCE_TO],
             tactics.GUNS_ADVANCE: params[tactics.GUNS_TO], tactics.DIGIT: params[tactics.ADVANCE_TO]}
    asked = {tactics.CLOSE_ASSAULT: ((0, 1), (0, 1, 2)), tactics.DIGIT: ((0, 3, 4), (0, 1, 2, 4))}
    for kind in D.KINDS:
        for codes in asked.get(kind, (range(tactics.N_ORDERS),)):  # as the engines ask
            obs = rng.integers(0, 40, tactics.OBSERVATION_SIZE)
            options, n = np.array(codes, dtype=np.int64), len(codes)
            table, base = A.table(D, kind, obs, D.rules_vector(rules), params, options)
            assert base == tactics.family_decide(kind, obs, rules.scalars, options, n, params,
                                                 options)
            assert table.shape == (n, D.FEATURES)
            assert (table[:, :D.OBS] == obs).all()
            assert (table[:, D.KIND] == kind).all() and (table[:, D.N_OPTIONS] == n).all()
            assert (table[:, D.BASE_CHOICE] == options[base]).all()
            if kind == tactics.CLOSE_ASSAULT:
                gaps = (0, 0, obs[tactics.O_CANDIDATES] - obs[tactics.O_DEFENDING])
            else:
                gaps = (obs[tactics.O_NEAREST] - halts[kind],
                        obs[tactics.O_FARTHEST] - halts[kind], 0)
            assert (table[:, [D.NEAR_HALT, D.FAR_HALT, D.ODDS]] == gaps).all()
            assert (table[:, D.OPTION] == options).all()
            assert (table[:, D.SAME] == (options == options[base])).all()
            assert (table[:, D.STEP] == options - options[base]).all()


def test_the_shipped_model_is_this_games():
    """The game names its apprentice; the shipped model loads for its features, its
    digest is its record's and the record's command trains this game."""
    assert A.apprenticeship(GAME) is D
    model = A.shipped(D)
    assert model[A.HEAD_FEATURES] == D.FEATURES
    record = A.record(D)
    assert A.digest(model) == record["model_digest"]
    words = shlex.split(record["command"])
    assert words[:3] == ["bollesim", "--game", "balkan-wars"] and "train" in words
    assert record["rounds"][0]["decisions"] > record["rounds"][0]["left"] > 0


def test_train_on_a_tiny_budget_makes_a_model_file(tmp_path):
    """`bollesim --game balkan-wars train` on 2 games (in them the lookahead leaves its
    base twice) writes a model of this game's features and its record, which
    the policy plays."""
    from test_sweep import invoke

    out = tmp_path / "m.npz"
    result = invoke("--game", "balkan-wars", "train", "--seed", "1", "--games", "2",
                    "--tune-games", "50", "--out", out)
    assert result.exit_code == 0, result.output
    model = A.load(out, D.FEATURES)
    record = (tmp_path / "m.toml").read_text()
    assert f'model_digest = "{A.digest(model)}"' in record and "left = 2" in record
    rows = play_chunk(load_ruleset(), training.policy_with(D, GAME.name, model), np.zeros((5, 0)),
                      SEED, 0, "fast")
    assert rows.shape == (5, len(RESULT.columns))
