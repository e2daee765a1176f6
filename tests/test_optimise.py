"""`bollesim optimise`: the race finds the optimum a brute force finds on the same seeds,
plays every candidate on the same games, keeps the held-out seed apart, writes best.json
in its contract, scores weighted objectives as the rows say, offers categorical
parameters to the sampler as choices, never ends below the presets it was seeded with,
gives the same result for the same spec, and refuses bad specs in one line."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from bollesim import simulate
from bollesim.cli.app import app
from bollesim.errors import UsageError
from bollesim.game.policy import load_policy
from bollesim.game.registry import load_game
from bollesim.game.result import Objective
from bollesim.search import optimise, optimise_report, optimise_space, optimise_spec, race

cli = CliRunner()

K_SEARCH = """
name = "k_search"
policy = "fire_at_roe"
objective = "operational"
seed = 5
holdout_seed = 6
budget = 36000  # 30,000 to race (the 18 grid points are the seeds: rungs of 500, 1,500, 4,500), 6,000 held out
candidates = 100
trial_games = 4500
eta = 3
finalists = 1
holdout_games = 2000

[search]
k = true
stop_at_tanks = 0
"""


def write(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def k_search(tmp_path_factory):
    folder = tmp_path_factory.mktemp("k_search")
    search = optimise_spec.load_search(write(folder, K_SEARCH), load_game("bollebank"))
    result = optimise.optimise(search)
    optimise_report.write_result(search, result, folder / "out")
    return search, result, folder / "out"


def brute_force(search, games: int) -> dict[float, float]:
    """Every k's operational rate on games 0..games-1 of the search seed, played here."""
    rates = {}
    for k in range(8, 26):
        rows = simulate("fire_at_roe", games, search.seed, params={"k": k, "stop_at_tanks": 0})
        rates[float(k)] = rows["operational"].mean()
    return rates


def test_the_race_finds_the_brute_force_optimum_on_the_same_seeds(k_search):
    search, result, _ = k_search
    rates = brute_force(search, search.trial_games)
    best_k = max(rates, key=rates.get)
    assert result.best["params"]["k"] == best_k
    assert result.best["params"]["stop_at_tanks"] == 0


def test_every_candidate_is_judged_on_the_same_games(k_search):
    """Common random numbers: each estimate of the race is the candidate's mean over games
    0..t-1 of the search seed, as simulate gives them to anyone."""
    search, result, _ = k_search
    first_round = result.trajectory.filter(pl.col("round") == 0)
    t = int(first_round["games"][0])
    for row in first_round.sample(4, seed=0).iter_rows(named=True):
        rows = simulate("fire_at_roe", t, search.seed, params={"k": row["k"], "stop_at_tanks": 0})
        assert row["objective_0"] == pytest.approx(rows["operational"].mean(), abs=1e-12)


def test_the_held_out_games_never_meet_the_search_games(k_search):
    search, result, out = k_search
    held = pl.read_parquet(out / "games.parquet")
    assert held["seed"].unique().to_list() == [search.holdout_seed]
    assert search.holdout_seed != search.seed
    assert held.height == (search.finalists + 1) * search.holdout_games
    (spec := out.parent / "same.toml").write_text(K_SEARCH.replace("holdout_seed = 6",
                                                                   "holdout_seed = 5"))
    with pytest.raises(UsageError, match="holdout_seed"):
        optimise_spec.load_search(spec, load_game("bollebank"))


def test_best_json_is_the_contract(k_search):
    search, result, out = k_search
    best = json.loads((out / "best.json").read_bytes().decode("utf-8"))
    assert isinstance(best, dict) and best["policy"] == "fire_at_roe"
    policy = load_policy(best["policy"])
    assert list(best["params"]) == [p.name for p in policy.parameters]
    assert isinstance(best["params"]["k"], int)
    vector = policy.param_vector(best["params"])
    np.testing.assert_array_equal(vector, result.pool[result.finalists[0]])


def test_the_held_out_report_pairs_the_winner_with_the_defaults(k_search):
    search, result, out = k_search
    held = pl.read_parquet(out / "games.parquet")
    declared = load_policy("fire_at_roe").param_vector()
    last = held.filter(pl.col("cell") == 1).select(p.name for p in search.policy.parameters)
    assert last.unique().rows() == [tuple(declared)]  # the policy's own defaults
    winner = held.filter(pl.col("cell") == 0)["operational"].to_numpy()
    defaults = held.filter(pl.col("cell") == 1)["operational"].to_numpy()
    table = optimise.holdout_table(search, held)
    row = table.filter(pl.col("cell") == 0).row(0, named=True)
    assert row["mean"] == pytest.approx(winner.mean())
    assert row["diff"] == pytest.approx(winner.mean() - defaults.mean())
    assert row["low"] < row["mean"] < row["high"]
    assert "Held-out estimates" in (out / "optimise.md").read_text(encoding="utf-8")


def test_weighted_scores_follow_the_rows():
    rows = simulate("historical", 3000, 2, params={"stop_at_tanks": 0})
    objective = Objective("score", {"operational": 2.0, "perfect": 1.0, "defeat": -1.0})
    expected = []
    for r in rows.iter_rows(named=True):
        perfect = all(r[c] for c in ("operational", "tactical", "strategic", "political"))
        expected.append(2.0 * bool(r["operational"]) + perfect - bool(r["defeat"]))
    np.testing.assert_array_equal(objective.score(rows, load_game("bollebank").result),
                                  np.array(expected))


def test_pareto_ranks_match_a_pairwise_oracle():
    points = np.random.default_rng(3).integers(0, 6, size=(40, 2)).astype(float)
    ranks = race.pareto_ranks(points)
    for i, p in enumerate(points):
        dominators = [q for q in points if np.all(q >= p) and np.any(q > p)]
        assert (ranks[i] == 0) == (not dominators)
        assert all(ranks[j] < ranks[i] for j, q in enumerate(points)
                   if np.all(q >= p) and np.any(q > p))


def test_the_rungs_grow_by_eta_to_the_trial_games(k_search):
    search, _, _ = k_search
    for trial_games, eta in [(4500, 3), (20000, 3), (27000, 3), (1000, 2), (300, 3)]:
        plan = race.rungs(dataclasses.replace(search, trial_games=trial_games, eta=eta))
        assert plan[-1] == trial_games and plan == sorted(set(plan))
        assert all(t % race.UNIT == 0 and t >= race.FIRST_GAMES for t in plan[:-1])
        assert all(b // a in (eta, eta + 1) for a, b in zip(plan, plan[1:], strict=False))
    assert race.rungs(dataclasses.replace(search, trial_games=20000)) == [700, 2200, 6600, 20000]
    with pytest.raises(UsageError, match="budget"):
        race.check_budget(dataclasses.replace(search, budget=10000), 18)


def test_pareto_mode_draws_the_front(tmp_path):
    spec = write(tmp_path, """
policy = "fire_at_roe"
pareto = ["operational", "strategic"]
budget = 8500
candidates = 6
trial_games = 1000
finalists = 3
holdout_games = 500
[search]
k = [10, 25]
""")
    result = cli.invoke(app, ["optimise", str(spec), "--out", str(tmp_path / "out"), "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert answer["best"]["policy"] == "fire_at_roe"
    assert (tmp_path / "out" / "optimise-pareto.png").stat().st_size > 1000
    assert "(optimise-pareto.png)" in (tmp_path / "out" / "optimise.md").read_text(encoding="utf-8")
    page = (tmp_path / "out" / "optimise.html").read_text(encoding="utf-8")
    assert 'id="vis-pareto"' in page and "Held-out estimates" in page
    assert len(answer["held_out"]) == 2  # both objectives of the winner
    stages = pl.read_parquet(tmp_path / "out" / "trajectory.parquet")["stage"].unique()
    assert stages.to_list() == [0, 1]


TINY_PLAN = """
policy = "plan"
objective = "operational"
seed = 5
holdout_seed = 6
budget = 42000
candidates = 12
trial_games = 1500
finalists = 2
holdout_games = 500

[search]
fire_roe = [8, 12]
stop_at_tanks = [0, 1]
vl2_post = true
"""


@pytest.fixture(scope="module")
def tiny_plan(tmp_path_factory):
    search = optimise_spec.load_search(write(tmp_path_factory.mktemp("tiny_plan"), TINY_PLAN),
                                       load_game("bollebank"))
    return search, optimise.optimise(search)


def test_categorical_parameters_are_offered_as_choices(tiny_plan):
    from optuna.distributions import CategoricalDistribution, IntDistribution

    from bollesim.bollebank.scripted.space import POSTS, TANGO2, VL2_POST

    search, result = tiny_plan
    space = optimise_space.distributions(search)
    assert space["vl2_post"] == CategoricalDistribution(POSTS)
    assert space["fire_roe"] == IntDistribution(8, 12)
    vector = optimise_space.vector_of(search, {"vl2_post": "Tango 2", "fire_roe": 9, "stop_at_tanks": 1})
    assert vector[VL2_POST] == TANGO2
    assert optimise_space.params_of(search, vector)["vl2_post"] == "Tango 2"
    tried = set(result.trajectory["vl2_post"].to_list())
    assert len(tried) > 1 and tried <= set(range(len(POSTS)))  # the sampler moved the post


def test_the_presets_in_the_space_are_seeds_and_the_winner_is_no_worse(tiny_plan):
    """The search starts from fire_at_roe k=8..12 at stop_at_tanks 0 and 1 (points of the
    family in this space) and ends with a winner whose mean on the search games is at
    least each of theirs, as simulate plays them."""
    search, result = tiny_plan
    labels = set(result.labels)
    assert {f"fire_at_roe k={k} stop_at_tanks={t}" for k in range(9, 13) for t in (0, 1)} <= labels
    winner = result.best["params"]
    rows = simulate("plan", search.trial_games, search.seed, params=winner)
    best = rows["operational"].mean()
    for k in range(8, 13):
        for t in (0, 1):
            preset = simulate("fire_at_roe", search.trial_games, search.seed,
                              params={"k": k, "stop_at_tanks": t})
            assert best >= preset["operational"].mean(), (k, t)


def test_the_same_spec_gives_the_same_search(tiny_plan):
    search, result = tiny_plan
    again = optimise.optimise(search)
    assert again.trajectory.equals(result.trajectory)
    assert again.best == result.best and again.holdout.equals(result.holdout)


BAD = [
    ("budgett = 5", "budgett", "budget"),
    ('objective = "operationl"', "objective", "operational"),
    ("[search]\nkk = 3", "search.kk", "'k'"),
    ("[search]\nk = [8, 99]", "search.k", "25"),
    ('pareto = ["operational", "strategic"]', "objective", "either"),
    ("holdout_seed = 1", "holdout_seed", "differ"),
    ("[objective]\nweights = { operational = 1 }\nlable = 'x'", "objective.lable", "label"),
]


@pytest.mark.parametrize(("extra", "key", "hint"), BAD)
def test_a_bad_spec_is_one_error_line(tmp_path, extra, key, hint):
    base = 'policy = "fire_at_roe"\nseed = 1\n'
    if not extra.startswith(("pareto", "[objective]")) and "objective" not in extra:
        base += 'objective = "operational"\n'
    if extra.startswith("pareto"):
        base += 'objective = "operational"\n'
    spec = write(tmp_path, base + extra + "\n")
    result = cli.invoke(app, ["optimise", str(spec), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert f": {key}:" in lines[0] and hint in lines[0]
    assert not (tmp_path / "out").exists()


def test_a_folder_that_cannot_take_the_result_is_refused_before_the_search(tmp_path, monkeypatch):
    spec = write(tmp_path, K_SEARCH)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "thesis.tex").write_text("mine")
    monkeypatch.setattr(optimise, "optimise", lambda *a, **k: pytest.fail("the search ran"))
    result = cli.invoke(app, ["optimise", str(spec), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "not a bollesim run" in result.stderr
    assert (tmp_path / "out" / "thesis.tex").read_text() == "mine"


def test_a_weighted_difference_is_paired_game_by_game(k_search):
    _, _, out = k_search
    held = pl.read_parquet(out / "games.parquet")
    objective = Objective("operational less defeat", {"operational": 1.0, "defeat": -1.0})
    a, b = (held.filter(pl.col("cell") == c).sort("game").iter_rows(named=True) for c in (0, 1))
    diffs = [(ra["operational"] - ra["defeat"]) - (rb["operational"] - rb["defeat"])
             for ra, rb in zip(a, b, strict=True)]
    d = optimise.paired(load_game("bollebank"), objective, held, 0, 1)
    assert d["diff"] == pytest.approx(np.mean(diffs))
    half = 1.96 * np.std(diffs, ddof=1) / np.sqrt(len(diffs))
    assert d["diff_high"] - d["diff"] == pytest.approx(half)


def test_on_a_local_cluster_the_search_is_the_same(tmp_path):
    """`--cluster`: the race and the held-out games played as Dask tasks on worker
    processes give the same trajectory, finalists and held-out rows as played here."""
    from bollesim.batch.cluster import Cluster

    small = K_SEARCH.replace("trial_games = 4500", "trial_games = 1500").replace(
        "holdout_games = 2000", "holdout_games = 300")
    search = optimise_spec.load_search(write(tmp_path, small), load_game("bollebank"))
    here = optimise.optimise(search)
    with Cluster("local", 2, 1) as cluster:
        there = optimise.optimise(search, cluster=cluster)
    assert there.trajectory.equals(here.trajectory)
    assert there.finalists == here.finalists and there.best == here.best
    assert there.holdout.equals(here.holdout)


def test_the_budget_holds_when_the_seeds_alone_could_exceed_it(tmp_path):
    """A budget just above the smallest one (which the refusal names): the 18 seeds cannot
    all play their second rung, so the best of them go on and the search, the held-out
    games included, stays within the budget."""
    import re

    spec = write(tmp_path, K_SEARCH.replace("holdout_games = 2000", "holdout_games = 500"))
    refused = cli.invoke(app, ["optimise", str(spec), "--budget", "1000", "--out", str(tmp_path / "o")])
    assert refused.exit_code == 2 and "smallest this spec accepts is 14,500 (" in refused.stderr
    assert "1,500 held-out games, then the 18 seeds' first 500 games each" in refused.stderr
    budget = 14500 + 3000
    result = cli.invoke(app, ["optimise", str(spec), "--budget", str(budget), "--out",
                              str(tmp_path / "o"), "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert answer["search_games"] + answer["holdout_games"] <= budget
    assert answer["search_games"] >= 18 * 500 + 4000  # the seeds' first rung and one to the end
    shown = CliRunner(env={"COLUMNS": "2000"}).invoke(app, ["optimise", "--help"]).output
    assert re.search(r"The smallest it accepts is \(finalists \+ 2\) x holdout_games", shown)
