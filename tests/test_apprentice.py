"""The apprentice (bollesim/strong/apprentice.py and train.py, written once; Bøllebank's
declaration in bollesim/bollebank/apprentice/; policies/bollebank/apprentice.py): its
forests are exported exactly, it sees what features.py says, its compiled choice is the one
restated here, it plays the same games in both engines, keeps an imposed first Fire order,
and its training is reproducible; `train` refuses a game without an apprentice."""

from dataclasses import replace

import numpy as np
import pytest

from bollesim.bollebank import decisions as D
from bollesim.bollebank import observation
from bollesim.bollebank.apprentice import declaration as OWN
from bollesim.bollebank.apprentice import features as X
from bollesim.bollebank.engine import player as engine_player
from bollesim.bollebank.game import GAME
from bollesim.bollebank.play import play_chunk
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.bollebank.scripted import plan as F
from bollesim.game.policy import load_policy
from bollesim.learn import forest
from bollesim.strong import apprentice as A
from bollesim.strong import train

RULES = load_ruleset()
APPRENTICE = load_policy("apprentice")
pytestmark = pytest.mark.xdist_group("apprentice")  # the labelled games are shared


def test_a_packed_forest_scores_as_lightgbm():
    """Every row's raw score from the packed arrays equals LightGBM's own, to rounding:
    splits on both sides, leaves, the constant LightGBM folds into its first tree."""
    import lightgbm as lgb  # here, not at the top: every worker would import it to collect

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
    player = A.teacher(OWN, RULES)
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
            table, base = A.table(OWN, d.kind, d.obs, RULES.packed, player._params, d.options)
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
    never = A.with_threshold(A.shipped(OWN), np.inf)
    rows = train.play(OWN, GAME, RULES, never, 21, 300)
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
    labels, _, _ = train.label(OWN, RULES, 11, 20)
    again, _, _ = train.label(OWN, RULES, 11, 20)
    assert labels.digest() == again.digest()
    data = train.rows(OWN, labels, RULES)
    a, b = train.fit(OWN, data, 1), train.fit(OWN, train.rows(OWN, again, RULES), 1)
    assert A.digest(a) == A.digest(b)
    assert A.digest(train.fit(OWN, data, 2)) != A.digest(a)
    trained = train.Trained(a, {"model_digest": A.digest(a), "tune_seed": 3, "tune_games": 10,
                                "seconds": 1, "rounds": []})
    train.save(tmp_path / "m.npz", trained, "bollesim train")
    assert A.digest(A.load(tmp_path / "m.npz", X.SIZE)) == A.digest(a)
    assert 'model_digest = "' in (tmp_path / "m.toml").read_text()


def test_a_file_that_is_no_model_is_refused(tmp_path):
    np.savez(tmp_path / "x.npz", model=np.arange(10.0))
    with pytest.raises(ValueError, match="not an apprentice model"):
        A.load(tmp_path / "x.npz", X.SIZE)
    with pytest.raises(ValueError, match="features"):
        A.check(A.shipped(OWN), "m.npz", X.SIZE + 1)


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
    record = A.record(OWN)
    assert record["command"].startswith("bollesim train")
    assert A.digest(A.shipped(OWN)) == record["model_digest"]


def test_the_teacher_is_the_lookahead_over_the_plan_not_over_the_apprentice():
    """`-P lookahead` plays over the apprentice by default; the labels still come from the
    lookahead over the plan family at the expert point, so a model never learns from a
    player that plays an earlier model of itself."""
    from bollesim.bollebank import lookahead

    default = lookahead.player(RULES, load_policy("lookahead").param_vector())
    assert default.base.name == "apprentice"
    teacher = A.teacher(OWN, RULES)
    assert teacher.base.name == "plan"
    names = [p.name for p in teacher.base.parameters]
    expected = {**dict(zip(names, teacher.base.param_vector(), strict=True)), **lookahead.expert_base()}
    assert dict(zip(names, teacher.base_vector, strict=True)) == pytest.approx(expected)


def restated_choice(model, kind, obs, options, vector):
    """The apprentice's choice written again from strong/apprentice.py's docstring: the
    gate on the base's choice, then every option the restriction leaves scored by the
    chooser's first trees, the best few by all of them (ties: the earlier)."""
    family, restriction = vector[:OWN.BASE_SIZE], vector[OWN.BASE_SIZE + 2:]
    table, base = A.table(OWN, kind, obs, RULES.packed, family, options)
    if forest.score(model, int(model[A.HEAD_GATE]), table[base]) <= model[A.HEAD_THRESHOLD]:
        return base
    free = [i for i in range(len(options))
            if i != base and OWN.departs(kind, obs, options, base, i, restriction)]
    if not free:
        return base
    chooser = int(model[A.HEAD_CHOOSER])
    trees = int(model[chooser])
    screen = min(int(model[A.HEAD_SCREEN]), trees)
    first = {i: forest.walk(model, chooser, table[i], 0, screen) for i in free}
    shortlist = sorted(free, key=lambda i: -first[i])[:int(model[A.HEAD_SHORTLIST])]
    totals = [first[i] + forest.walk(model, chooser, table[i], screen, trees) for i in shortlist]
    return shortlist[totals.index(max(totals))]


def test_the_compiled_choice_is_the_restated_one(labelled):
    """The apprentice's decide (the generic compiled choice with Bøllebank's features) takes,
    at every order decision of the labelled games, the option restated_choice gives: at
    the shipped threshold, with the gate always open, and with a narrower cascade; free
    and under an imposed first Fire order."""
    shipped = A.shipped(OWN)
    models = (shipped, A.with_threshold(shipped, -np.inf),
              A.with_cascade(A.with_threshold(shipped, -np.inf), 2, 1))
    rows = np.array([[0, 0], [12, 0], [0, 6]], dtype=np.float64)
    prng = np.zeros(2, dtype=np.int64)
    _, games = labelled
    compared = left = 0
    for m in models:
        for vector in A.kernel_rows(OWN, rows, model=m):
            for _, decisions in games:
                for d in decisions:
                    if d.kind != D.ISSUE_ORDER or len(d.options) < 2:
                        continue
                    got = APPRENTICE.decide(d.kind, d.obs, RULES.packed, d.options,
                                            len(d.options), vector, prng)
                    expected = restated_choice(m, d.kind, d.obs, d.options, vector)
                    assert got == expected
                    compared += 1
                    left += got != d.base_choice
    assert compared > 200 and left > 20


def test_the_apprentice_compiles_into_the_disk_cache():
    """numba cannot cache compiled code holding a Python object's address (a game's
    function passed as a value from a global name, not through its apprentice module):
    the apprentice's decide, as the policy and the engine call it, holds none."""
    from bollesim.game.policy import DECIDE_SIGNATURE

    signature = DECIDE_SIGNATURE.args
    APPRENTICE.decide.compile(signature)
    assert not APPRENTICE.decide.overloads[signature].library.has_dynamic_globals


def test_the_labels_digest_counts_kinds_only_where_they_differ():
    """A game that learns one kind hashes its labels as before kinds were kept (the
    shipped record's data digest stays reproducible); mixed kinds count."""
    import hashlib

    def labels(kinds):
        return train.Labels(np.arange(6).reshape(2, 3), np.arange(4), np.array([0, 2, 4]),
                            np.array([0, 1]), np.ones(3), np.array(kinds))

    h = hashlib.sha256()
    one = labels([5, 5])
    for a in (one.obs, one.options, one.starts, one.choice, one.params):
        h.update(np.ascontiguousarray(a).tobytes())
    assert one.digest() == h.hexdigest()[:16] == labels([2, 2]).digest()
    assert labels([5, 6]).digest() != labels([6, 5]).digest()
    assert (one + labels([6, 6])).digest() != (one + one).digest()


def test_the_threshold_is_tuned_on_the_teachers_objective():
    """tune scores a threshold's games by the teacher's objective (operational victory
    minus defeat), to the last bit as the rates' difference."""
    rng = np.random.default_rng(5)
    rows = rng.integers(0, 2, size=(999, len(RESULT.columns)))
    flag = RESULT.flags.index
    expected = rows[:, flag("operational")].mean() - rows[:, flag("defeat")].mean()
    assert train.objective(GAME, A.teacher(OWN, RULES), rows) == expected


def test_a_game_without_an_apprentice_is_refused():
    from types import SimpleNamespace

    from bollesim.errors import UsageError

    game = SimpleNamespace(name="pig", title="Pig race", positions_module=SimpleNamespace())
    with pytest.raises(UsageError, match="Pig race declares no apprentice"):
        A.apprenticeship(game)
    game.positions_module.APPRENTICE = "bollesim.bollebank.apprentice.features"
    with pytest.raises(TypeError, match="lacks POLICY"):
        A.apprenticeship(game)
    game.positions_module.APPRENTICE = OWN.__name__
    assert A.apprenticeship(game) is OWN


@pytest.mark.parametrize("game, why", [
    ("pig", "Pig race declares no apprentice"),
])
def test_train_refuses_a_game_without_an_apprentice(tmp_path, game, why):
    """`bollesim --game G train` for a game whose decision points have no apprentice
    declared (the test game Pig race): one error line naming it, exit 2,
    nothing written; a game without decision points is refused as such."""
    import dataclasses

    from test_sweep import assert_one_line_error, invoke

    from bollesim.errors import UsageError
    from bollesim.game.registry import load_game

    result = invoke("--game", game, "train", "--out", tmp_path / "new" / "m.npz")
    assert_one_line_error(result, why)
    assert not (tmp_path / "new").exists()
    undeclared = dataclasses.replace(load_game(game), positions="")
    with pytest.raises(UsageError, match="declares no decision points"):
        A.apprenticeship(undeclared)


def test_train_checks_its_model_file_before_the_first_game(tmp_path, monkeypatch):
    """A name that is not UTF-8, a folder that takes no file, a link to nothing or a loop,
    a folder as --out, and a file another train is writing: one line each, before any
    game is labelled (the training below would fail the test if it ran)."""
    import os

    from filelock import FileLock
    from test_sweep import assert_one_line_error, invoke

    from bollesim.strong import train as training

    def played(*args, **kwargs):
        raise AssertionError("train labelled games before refusing its --out")

    monkeypatch.setattr(training, "train", played)
    (tmp_path / "dangling.npz").symlink_to(tmp_path / "nowhere.npz")
    (tmp_path / "loop.npz").symlink_to(tmp_path / "loop.npz")
    (tmp_path / "folder.npz").mkdir()
    cases = [(os.fsdecode(bytes(tmp_path) + b"/m\xff.npz"), "not UTF-8"),
             ("/proc/m.npz", "cannot write there"),
             (tmp_path / "dangling.npz", "a link to nothing or a loop"),
             (tmp_path / "loop.npz", "a link to nothing or a loop"),
             (tmp_path / "folder.npz", "a folder, not a file")]
    for out, words in cases:
        assert_one_line_error(invoke("train", "--out", out), words)
    held = FileLock(str(tmp_path / ".m.npz.lock"))
    with held:
        assert_one_line_error(invoke("train", "--out", tmp_path / "m.npz"),
                              "being written by another bollesim train")
    assert not (tmp_path / "m.npz").exists()
