"""`bollesim optimise`: the race finds the optimum a brute force finds on the same seeds,
plays every candidate on the same games, keeps the held-out seed apart, writes best.json
in its contract, scores weighted objectives as the rows say, and refuses bad specs in one
line."""

from __future__ import annotations

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
from bollesim.search import optimise as O

cli = CliRunner()

K_SEARCH = """
name = "k_search"
policy = "fire_at_roe"
objective = "operational"
seed = 5
holdout_seed = 6
budget = 34000            # 18 candidates, eta 3, one finalist: rounds of 500 to 13,500 games, then 4,000 held out
candidates = 100
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
    search = O.load_search(write(folder, K_SEARCH))
    result = O.optimise(search)
    O.write_result(search, result, folder / "out")
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
    last = int(result.trajectory["games"].max())
    rates = brute_force(search, last)
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
        O.load_search(spec)


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
    table = O.holdout_table(search, held)
    row = table.filter(pl.col("cell") == 0).row(0, named=True)
    assert row["mean"] == pytest.approx(winner.mean())
    assert row["diff"] == pytest.approx(winner.mean() - defaults.mean())
    assert row["low"] < row["mean"] < row["high"]
    assert "Held-out estimates" in (out / "optimise.md").read_text(encoding="utf-8")


def test_weighted_scores_follow_the_rows():
    rows = simulate("historical", 3000, 2, params={"stop_at_tanks": 0})
    objective = O.Objective({"operational": 2.0, "perfect": 1.0, "defeat": -1.0}, "score")
    expected = []
    for r in rows.iter_rows(named=True):
        perfect = all(r[c] for c in ("operational", "tactical", "strategic", "political"))
        expected.append(2.0 * bool(r["operational"]) + perfect - bool(r["defeat"]))
    np.testing.assert_array_equal(objective.score(rows), np.array(expected))


def test_pareto_ranks_match_a_pairwise_oracle():
    points = np.random.default_rng(3).integers(0, 6, size=(40, 2)).astype(float)
    ranks = O.pareto_ranks(points)
    for i, p in enumerate(points):
        dominators = [q for q in points if np.all(q >= p) and np.any(q > p)]
        assert (ranks[i] == 0) == (not dominators)
        assert all(ranks[j] < ranks[i] for j, q in enumerate(points)
                   if np.all(q >= p) and np.any(q > p))


def test_the_schedule_keeps_to_the_budget():
    for n, eta, finalists, budget in [(18, 3, 1, 30000), (120, 3, 3, 4_000_000), (7, 2, 7, 5000)]:
        plan = O.schedule(n, eta, finalists, budget)
        cost = sum(size * (t - (plan[r - 1][1] if r else 0)) for r, (size, t) in enumerate(plan))
        assert cost <= budget
        assert plan[0][0] == n and plan[-1][0] == finalists
    with pytest.raises(UsageError, match="budget"):
        O.schedule(100, 3, 1, 1000)


def test_pareto_mode_draws_the_front(tmp_path):
    spec = write(tmp_path, """
policy = "fire_at_roe"
pareto = ["operational", "strategic"]
budget = 14000
candidates = 6
finalists = 3
holdout_games = 500
refine = 1
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


def test_a_refining_stage_races_the_finalists_and_the_best_ones_neighbours(k_search):
    search, result, _ = k_search
    pool = np.array([search.base.copy() for _ in range(3)])
    pool[:, 0] = [8.0, 13.0, 25.0]  # k; stop_at_tanks is fixed, so k is the only axis
    grown, entrants = O.with_neighbours(search, pool, [1, 2])
    assert entrants[:2] == [1, 2]
    ks = sorted(grown[i, 0] for i in entrants[2:])
    assert ks == [12.0, 14.0]  # one step either way from the best, k = 13
    again, _ = O.with_neighbours(search, grown, [2])  # k = 25: only 24 is in range
    assert sorted(again[len(grown):, 0]) == [24.0]


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
    monkeypatch.setattr(O, "optimise", lambda *a, **k: pytest.fail("the search ran"))
    result = cli.invoke(app, ["optimise", str(spec), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "not a bollesim run" in result.stderr
    assert (tmp_path / "out" / "thesis.tex").read_text() == "mine"


def test_a_weighted_difference_is_paired_game_by_game(k_search):
    _, _, out = k_search
    held = pl.read_parquet(out / "games.parquet")
    objective = O.Objective({"operational": 1.0, "defeat": -1.0}, "operational less defeat")
    a, b = (held.filter(pl.col("cell") == c).sort("game").iter_rows(named=True) for c in (0, 1))
    diffs = [(ra["operational"] - ra["defeat"]) - (rb["operational"] - rb["defeat"])
             for ra, rb in zip(a, b, strict=True)]
    d = O.paired(objective, held, 0, 1)
    assert d["diff"] == pytest.approx(np.mean(diffs))
    half = 1.96 * np.std(diffs, ddof=1) / np.sqrt(len(diffs))
    assert d["diff_high"] - d["diff"] == pytest.approx(half)


def test_on_a_local_cluster_the_search_is_the_same(tmp_path):
    """`--cluster`: the race and the held-out games played as Dask tasks on worker
    processes give the same trajectory, finalists and held-out rows as played here."""
    from bollesim.batch.cluster import Cluster

    small = K_SEARCH.replace("budget = 34000", "budget = 6600").replace(
        "holdout_games = 2000", "holdout_games = 300")
    search = O.load_search(write(tmp_path, small))
    here = O.optimise(search)
    with Cluster("local", 2, 1) as cluster:
        there = O.optimise(search, cluster=cluster)
    assert there.trajectory.equals(here.trajectory)
    assert there.finalists == here.finalists and there.best == here.best
    assert there.holdout.equals(here.holdout)
