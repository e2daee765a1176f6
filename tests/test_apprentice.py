"""The apprentice (bollesim/bollebank/apprentice/, policies/bollebank/apprentice.py): its forests are
exported exactly, it sees what features.py says, it plays the same games in both engines,
keeps an imposed first Fire order, and its training is reproducible."""

from dataclasses import replace

import lightgbm as lgb
import numpy as np
import pytest

from bollesim.bollebank import decisions as D
from bollesim.bollebank import observation
from bollesim.bollebank.apprentice import features as X
from bollesim.bollebank.apprentice import model, shipped, train
from bollesim.bollebank.engine import player as engine_player
from bollesim.bollebank.play import play_chunk
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.bollebank.scripted import plan as F
from bollesim.game.policy import load_policy
from bollesim.learn import forest

RULES = load_ruleset()
APPRENTICE = load_policy("apprentice")
pytestmark = pytest.mark.xdist_group("apprentice")  # the labelled games are shared


def test_a_packed_forest_scores_as_lightgbm():
    """Every row's raw score from the packed arrays equals LightGBM's own, to rounding:
    splits on both sides, leaves, the constant LightGBM folds into its first tree."""
    rng = np.random.default_rng(3)
    x = rng.integers(-5, 30, size=(3000, 12)).astype(np.float64)
    y = ((x[:, 0] > 10) ^ (x[:, 3] < 2) | (x[:, 7] == 4)).astype(int)
    booster = lgb.train({"objective": "binary", "num_leaves": 15, "max_depth": 6, "verbose": -1, "seed": 1,
                         "deterministic": True, "num_threads": 1},
                        lgb.Dataset(x, y), num_boost_round=30)
    packed = forest.pack(booster)
    held = rng.integers(-5, 30, size=(2000, 12)).astype(np.float64)
    # and rows on the splits themselves: a value equal to a threshold goes left
    depth = int(packed[2])
    inner = 2**depth - 1
    trees = packed[forest.HEAD:].reshape(30, forest.tree_size(depth))
    pairs = trees[:, :2 * inner]  # (feature, threshold) side by side
    features, thresholds = pairs[:, 0::2].ravel(), pairs[:, 1::2].ravel()
    real = np.isfinite(thresholds)
    splits = np.column_stack([features[real], thresholds[real]])
    on_split = held.copy()
    for row in on_split:
        for feature, threshold in splits[rng.choice(len(splits), 4)]:
            row[int(feature)] = threshold
    for x in (held, on_split):
        expected = booster.predict(x, raw_score=True)
        np.testing.assert_allclose(forest.scores(packed, 0, x), expected, rtol=0, atol=1e-9)
        np.testing.assert_allclose([forest.score(packed, 0, row) for row in x], expected,
                                   rtol=0, atol=1e-9)


@pytest.fixture(scope="module")
def labelled():
    """The order decisions of a few lookahead games (seed 11), with their rows."""
    player = train.expert(RULES)
    games = [player.play(11, g, record=True, observe=True) for g in range(6)]
    return player, games


def restated(obs, options, score):
    """features.table written again from decisions.py and observation.py's layouts: for
    each option, the observation, the option's and the base's blocks, their relations
    (the score gap, the rank), the decision's fields (count, runner-up gap, ties)."""

    def block(code, s):
        mask = code >> 11
        first = (mask & -mask).bit_length() - 1 if mask else -1
        fields = [obs[observation.VEH + observation.V_FIELDS * first + f] if first >= 0 else -9
                  for f in range(X.VEHICLE_FIELDS)]
        return [code == 0, (code & 7) if code else -1, ((code >> 3) & 255) - 1 if code else -2,
                bin(mask).count("1"), first, s, *fields]

    base = int(np.argmax(score))
    others = [s for i, s in enumerate(score) if i != base]
    decision = [len(options), score[base] - max(others), others.count(score[base])]
    rows = []
    for code, s in zip(map(int, options), score, strict=True):
        b = int(options[base])
        rows.append([*obs, *block(code, s), *block(b, score[base]), code == b,
                     (code & 7) == (b & 7), (code >> 11) == (b >> 11),
                     ((code >> 3) & 255) == ((b >> 3) & 255), s - score[base],
                     sum(t > s for t in score), *decision])
    return base, np.array(rows, dtype=np.float64)


def test_features_are_what_the_layout_says(labelled):
    player, games = labelled
    checked = 0
    for _, decisions in games:
        for d in decisions:
            if d.kind != D.ISSUE_ORDER or len(d.options) < 2:
                continue
            table, base = X.table(d.obs, RULES.packed, player._params, d.options, len(d.options))
            plan = F.order_plan(d.obs, RULES.packed, player._params)
            score = [F.order_score(c, d.obs, RULES.packed, plan) for c in d.options]
            expected_base, expected = restated(d.obs, d.options, score)
            assert base == expected_base == d.base_choice
            np.testing.assert_array_equal(table, expected)
            checked += 1
    assert checked >= 20


def test_the_base_choice_is_the_plans(labelled):
    """With a gate that never opens the apprentice plays its base, the plan family at the
    lookahead's expert point, game for game."""
    never = model.with_threshold(shipped.shipped(), np.inf)
    rows = train.play(RULES, never, 21, 300)
    plan = load_policy("plan")
    from bollesim.bollebank.expert import expert_base

    base = play_chunk(RULES, plan, np.tile(plan.param_vector(expert_base()), (300, 1)), 21, 0,
                      "fast")
    np.testing.assert_array_equal(rows, base)


def test_both_engines_play_the_same_games():
    rows = np.zeros((4, 2))
    rows[2:] = (12, 0)  # two of them restricted
    fast = play_chunk(RULES, APPRENTICE, rows.copy(), 7, 0, "fast")
    reference = play_chunk(RULES, APPRENTICE, rows.copy(), 7, 0, "reference")
    np.testing.assert_array_equal(fast, reference)


def test_the_kernel_plays_the_apprentice_as_its_decide_does():
    """The fast engine calls the apprentice compiled in (engine/player.py: APPRENTICE,
    the scripted family's shortcuts at every other decision); through its decide's
    pointer, listing every decision's options, it plays the same games."""
    assert APPRENTICE.compiled_in == engine_player.APPRENTICE
    rows = np.zeros((400, 2))
    rows[200:] = (12, 0)
    compiled = play_chunk(RULES, APPRENTICE, rows.copy(), 17, 0, "fast")
    listed = play_chunk(RULES, replace(APPRENTICE, compiled_in=engine_player.DECIDE), rows.copy(), 17, 0,
                        "fast")
    np.testing.assert_array_equal(compiled, listed)


@pytest.mark.parametrize("roe,turn", [(12, 0), (0, 6), (18, 3)])
def test_an_imposed_first_fire_order_is_kept(roe, turn):
    """No first Fire order before the trigger; at it, the same first Fire order as the
    base under the same trigger (the first chance), in every game that fires."""
    rows = np.tile([roe, turn], (3000, 1)).astype(np.float64)
    out = play_chunk(RULES, APPRENTICE, rows, 13, 0, "fast")
    names = [c.name for c in RESULT.columns]
    fire_roe = out[:, names.index("first_fire_roe")]
    fire_turn = out[:, names.index("first_fire_turn")]
    fired = fire_roe > 0
    assert fired.sum() > 100
    assert (fire_roe[fired] >= roe).all() and (fire_turn[fired] >= turn).all()


def test_training_is_reproducible(labelled, tmp_path):
    """The same labels and seed give the same model digest; another seed another."""
    labels, _ = train.label(RULES, 11, 20)
    again, _ = train.label(RULES, 11, 20)
    assert labels.digest() == again.digest()
    data = train.rows(labels, RULES)
    a, b = train.fit(data, 1), train.fit(train.rows(again, RULES), 1)
    assert model.digest(a) == model.digest(b)
    assert model.digest(train.fit(data, 2)) != model.digest(a)
    trained = train.Trained(a, {"model_digest": model.digest(a), "tune_seed": 3, "tune_games": 10,
                            "seconds": 1, "rounds": []})
    train.save(tmp_path / "m.npz", trained, "bollesim train")
    assert model.digest(model.load(tmp_path / "m.npz")) == model.digest(a)
    assert 'model_digest = "' in (tmp_path / "m.toml").read_text()


def test_a_file_that_is_no_model_is_refused(tmp_path):
    np.savez(tmp_path / "x.npz", model=np.arange(10.0))
    with pytest.raises(ValueError, match="not an apprentice model"):
        model.load(tmp_path / "x.npz")


@pytest.mark.parametrize("args,words", [
    (["--out", "model.txt"], ["--out", ".npz"]),
    (["--set", "tracks.tank_to_hitt=8"], ["tank_to_hitt"]),
    (["--reading", "I-AIR=nope"], ["I-AIR"]),
    (["--rounds", "0"], ["--rounds"]),
    (["--games", "0"], ["--games"]),
    (["--tune-games", "0"], ["--tune-games"]),
    (["--seed", "-3"], ["--seed"]),
])
def test_train_refuses_bad_input_in_one_line_before_playing(args, words, tmp_path):
    from test_sweep import assert_one_line_error, invoke

    out = ["--out", str(tmp_path / "m.npz")] if "--out" not in args else []
    assert_one_line_error(invoke("train", *out, *args), *words)
    assert not list(tmp_path.iterdir())  # nothing written


def test_the_shipped_model_is_the_one_its_record_names():
    """shipped.toml (written by the command it holds) names the shipped model's digest."""
    record = shipped.record()
    assert record["command"].startswith("bollesim train")
    assert model.digest(shipped.shipped()) == record["model_digest"]


def test_the_teacher_is_the_lookahead_over_the_plan_not_over_the_apprentice():
    """`-P lookahead` plays over the apprentice by default; the labels still come from the
    lookahead over the plan family at the expert point, so a model never learns from a
    player that plays an earlier model of itself."""
    from bollesim.bollebank import lookahead

    default = lookahead.player(RULES, load_policy("lookahead").param_vector())
    assert default.base.name == "apprentice"
    teacher = train.expert(RULES)
    assert teacher.base.name == "plan"
    names = [p.name for p in teacher.base.parameters]
    expected = {**dict(zip(names, teacher.base.param_vector(), strict=True)), **lookahead.expert_base()}
    assert dict(zip(names, teacher.base_vector, strict=True)) == pytest.approx(expected)
