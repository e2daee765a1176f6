"""Experiments: spec validation, `bollesim sweep` on common random numbers, --precision,
`play --from` (exact replay of a stored row), `report`, and the CLI's one-line errors and
atomic output."""

from __future__ import annotations

import json
from pathlib import Path

import oracles
import polars as pl
import pytest
from typer.testing import CliRunner

from bollesim.batch import runner
from bollesim.batch.replay import replay_from_run
from bollesim.batch.session import run_to_dir
from bollesim.batch.spec import load_experiment
from bollesim.cli.app import app
from bollesim.errors import UsageError
from bollesim.game import columns
from bollesim.game.policy import available_policies, load_policy
from bollesim.game.registry import load_game
from bollesim.stats import naming

GAME = load_game("bollebank")

ROOT = Path(__file__).resolve().parents[1]
OUTCOME_COLUMNS = [name for name, _ in runner.result_columns("bollebank")]
WATCHED = ("operational", "tactical", "strategic", "political", "defeat")
"""The rates --precision watches (docs/usage.md: "Experiments")."""
cli = CliRunner()

SMALL = """
name = "small"
description = "two identical cells, a never cell and historical"
seed = 11
games = 40

[[grid]]
policy = "fire_at_roe"
params = { k = [12, 12, 25] }

[[grid]]
policy = "historical"
params = { stop_at_tanks = 2 }
"""


def write_spec(folder: Path, text: str, name: str = "spec.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def invoke(*args: str):
    return cli.invoke(app, [str(a) for a in args])


def assert_one_line_error(result, *words: str) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> tuple[Path, pl.DataFrame, dict]:
    """A small sweep on the CLI: (folder, games, manifest)."""
    folder = tmp_path_factory.mktemp("small")
    spec = write_spec(folder, SMALL)
    out = folder / "out"
    result = invoke("sweep", spec, "--out", out)
    assert result.exit_code == 0, result.output
    assert "4 cells x 40 games" in result.stdout
    return (
        out,
        pl.read_parquet(out / "games.parquet"),
        json.loads((out / "manifest.json").read_text()),
    )


# --------------------------------------------------------------------------- specs


def test_shipped_specs():
    ff = load_experiment(ROOT / "experiments" / "first_fire.toml")
    ks = [c.param_dict()["k"] for c in ff.cells if c.policy.name == "fire_at_roe"]
    ts = [c.param_dict()["t"] for c in ff.cells if c.policy.name == "fire_at_turn"]
    assert ks == list(range(8, 26)) and ts == list(range(1, 21))
    assert [c.cell for c in ff.cells] == list(range(38))
    assert naming.never_value(GAME, "fire_at_roe", "k") == 25  # the sentinel is the policy's "never"
    pol = load_experiment(ROOT / "experiments" / "policies.toml")
    assert sorted(c.policy.name for c in pol.cells) == available_policies(deciding=True)
    for c in pol.cells:  # each at its declared defaults
        assert c.param_dict() == {p.name: p.default for p in c.policy.parameters}


BAD_SPECS = {  # what to change in SMALL -> the key the one-line error must name
    "unknown key": ("seed = 11", "seed = 11\ngmaes = 3", "gmaes"),
    "games not a number": ("games = 40", 'games = "many"', "games"),
    "games negative": ("games = 40", "games = -1", "games"),
    "no games": ("games = 40", "", "games"),
    "bad seed": ("seed = 11", "seed = 1.5", "seed"),
    "unknown policy": ('policy = "historical"', 'policy = "nope"', "grid[1].policy"),
    "out of range": ("k = [12, 12, 25]", "k = [12, 7, 25]", "grid[0].params.k[1]"),
    "unknown parameter": ("stop_at_tanks = 2", "kk = 2", "grid[1].params.kk"),
    "empty list": ("k = [12, 12, 25]", "k = []", "grid[0].params.k"),
    "not a number": ("stop_at_tanks = 2", 'stop_at_tanks = "two"', "grid[1].params.stop_at_tanks"),
    "not a choice": ("stop_at_tanks = 2", 'target = "tnk"', "grid[1].params.target"),
    "unknown grid key": (
        'policy = "historical"',
        'policy = "historical"\npolcy = 1',
        "grid[1].polcy",
    ),
    "bad override": ("games = 40", 'games = 40\noverrides = ["roe.nope=3"]', "overrides"),
    "missing ruleset": ("games = 40", 'games = 40\nruleset = "nowhere.toml"', "ruleset"),
    "bad name": ('name = "small"', 'name = "a b/c"', "name"),
    "not toml": ("games = 40", "games = = 40", "not valid TOML"),
}


@pytest.mark.parametrize("case", BAD_SPECS, ids=list(BAD_SPECS))
def test_spec_errors_are_one_line(tmp_path, case):
    old, new, key = BAD_SPECS[case]
    assert SMALL.count(old) == 1
    spec = write_spec(tmp_path, SMALL.replace(old, new), "bad.toml")
    result = invoke("sweep", spec, "--out", tmp_path / "out")
    line = assert_one_line_error(result, "bad.toml", key)
    assert not (tmp_path / "out").exists(), line  # nothing run, nothing written


def test_spec_without_grid_and_missing_file(tmp_path):
    spec = write_spec(tmp_path, 'name = "x"\ngames = 5\n', "nogrid.toml")
    assert_one_line_error(invoke("sweep", spec), "nogrid.toml", "grid")
    assert_one_line_error(invoke("sweep", tmp_path / "absent.toml"), "absent.toml")


# --------------------------------------------------------------------------- sweeping


def test_common_random_numbers(small):
    _, games, manifest = small
    assert games.height == 4 * 40
    per_cell = {c: g["game"].to_list() for (c,), g in games.sort("game").group_by("cell")}
    assert sorted(per_cell) == [0, 1, 2, 3]
    assert all(v == list(range(40)) for v in per_cell.values())  # same game indices...
    assert games.group_by("game").agg(pl.col("seed").n_unique())["seed"].max() == 1  # ...same seeds
    a = games.filter(pl.col("cell") == 0).sort("game").drop("cell")
    b = games.filter(pl.col("cell") == 1).sort("game").drop("cell")
    assert a.equals(b)  # identical parameters: identical rows
    # the same rows as a plain run of that cell (the seed scheme is the runner's)
    alone = runner.simulate("fire_at_roe", 40, seed=11, params={"k": 12})
    assert a.select(OUTCOME_COLUMNS).equals(alone.select(OUTCOME_COLUMNS))
    never = games.filter(pl.col("cell") == 2)
    assert never["first_fire_turn"].null_count() == 40  # k=25: never fires
    assert manifest["seed"] == 11 and manifest["games_per_cell"] == 40


def test_dataset_and_manifest(small):
    out, games, manifest = small
    assert games.filter(pl.col("policy") == "historical")["k"].null_count() == 40
    assert games.filter(pl.col("policy") == "historical")["stop_at_tanks"].unique().to_list() == [2]
    assert [c["cell"] for c in manifest["cells"]] == [0, 1, 2, 3]
    defaults = {p.name: p.default for p in load_policy("fire_at_roe").parameters}
    assert manifest["cells"][2] == {
        "cell": 2,
        "policy": "fire_at_roe",
        "params": {**defaults, "k": 25.0},
    }
    assert manifest["spec"]["name"] == "small" and manifest["experiment"] == "small"
    assert manifest["n_games"] == 160 and manifest["ruleset_hash"]
    assert sorted(p.name for p in out.iterdir()) == ["games.parquet", "manifest.json"]


def test_precision_stops_when_reached(tmp_path):
    out = tmp_path / "p"
    result = invoke(
        "run", "-P", "historical", "-n", "50", "--seed", "3", "--precision", "0.05", "--out", out
    )
    assert result.exit_code == 0, result.output
    assert "precision reached" in result.stdout
    games = pl.read_parquet(out / "games.parquet")
    n = games.height
    assert n > 50 and games["game"].to_list() == list(range(n))  # continued game indices
    assert max(half_widths(games).values()) <= 0.05
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["precision"]["reached"] is True and manifest["n_games"] == n
    # the first n games of a bigger run are the same games
    assert columns.typed_params(games, load_game("bollebank")).equals(
        runner.simulate("historical", n, seed=3))


def test_precision_sentence_counts_its_points():
    from bollesim.batch.precision import Outcome

    def said(precision: float) -> str:
        return Outcome(3000, 1, precision, True, 0.0093, None, "defeat").sentence()

    assert "is at most 1 point after 3,000 games" in said(0.01)
    assert "is at most 5 points after" in said(0.05) and "at most 0.5 points" in said(0.005)


def half_widths(games: pl.DataFrame) -> dict[str, float]:
    """The 95% Wilson half-width of each watched rate over these games (oracles.py)."""
    counts = games.select(pl.col(WATCHED).sum()).row(0, named=True)
    return {o: oracles.half_width(k, games.height) for o, k in counts.items()}


PRECISION_GAMES, PRECISION_SEED = 300, 4


@pytest.fixture(scope="module")
def first_games() -> dict[str, float]:
    """The half-widths of the first PRECISION_GAMES historical games of PRECISION_SEED."""
    return half_widths(runner.simulate("historical", PRECISION_GAMES, seed=PRECISION_SEED))


def run_with_precision(folder: Path, precision: float) -> pl.DataFrame:
    out = folder / f"p{precision:.6f}"
    result = invoke("run", "-P", "historical", "-n", PRECISION_GAMES, "--seed", PRECISION_SEED,
                    "--precision", f"{precision:.6f}", "--out", out)
    assert result.exit_code == 0, result.output
    return pl.read_parquet(out / "games.parquet")


def test_precision_met_by_the_first_games_adds_none(first_games, tmp_path):
    """Every watched half-width of the first games is within the asked one: the run stops
    there, not at a narrower width."""
    asked = max(first_games.values()) * 1.001
    assert len(run_with_precision(tmp_path, asked)) == PRECISION_GAMES


def test_precision_watches_every_rate(first_games, tmp_path):
    """Asked a width that one rate meets and another does not, the run adds games until
    all five meet it (the widest is not the operational rate, so a rule watching that one
    alone would stop early)."""
    widest = max(first_games, key=first_games.get)
    assert widest != "operational"
    asked = (first_games["operational"] + first_games[widest]) / 2
    games = run_with_precision(tmp_path, asked)
    assert len(games) > PRECISION_GAMES
    assert max(half_widths(games).values()) <= asked
    assert columns.typed_params(games, load_game("bollebank")).equals(
        runner.simulate("historical", len(games), seed=PRECISION_SEED))


def test_sweep_precision_holds_in_every_cell(tmp_path):
    """Each cell of a sweep meets the asked width on its own games."""
    spec = write_spec(tmp_path, SMALL)
    out = tmp_path / "sweep"
    result = invoke("sweep", spec, "-n", "40", "--precision", "0.08", "--out", out)
    assert result.exit_code == 0, result.output
    games = pl.read_parquet(out / "games.parquet")
    sizes = games.group_by("cell").len()["len"].unique().to_list()
    assert len(sizes) == 1 and sizes[0] > 40  # the same games in every cell
    for (cell,), rows in games.group_by("cell"):
        assert max(half_widths(rows).values()) <= 0.08, cell


def test_precision_stops_at_the_cap(small, tmp_path):
    spec = write_spec(tmp_path, SMALL)
    out = tmp_path / "cap"
    result = invoke(
        "sweep", spec, "-n", "30", "--precision", "0.001", "--max-games", "70", "--out", out
    )
    assert result.exit_code == 0, result.output
    assert "game cap reached: 70 games per cell" in result.stdout
    games = pl.read_parquet(out / "games.parquet")
    assert games.group_by("cell").len()["len"].to_list() == [70] * 4
    # the cells' first 40 games are the 40 games of the plain sweep
    head = games.filter(pl.col("game") < 40).sort("cell", "game")
    assert head.equals(small[1].sort("cell", "game"))
    precision = json.loads((out / "manifest.json").read_text())["precision"]
    assert precision["reached"] is False and precision["max_games"] == 70
    assert precision["largest_half_width"] > 0.001


# --------------------------------------------------------------------------- play --from


def test_play_from_replays_the_row_exactly(small):
    out, games, _ = small
    fired = games.filter((pl.col("cell") == 0) & pl.col("first_fire_turn").is_not_null())
    picks = [(fired["game"][0], 0), (games.filter(pl.col("cell") == 3)["game"][7], 3)]
    for game, cell in picks:
        result = invoke("play", "--from", out, "--index", game, "--cell", cell)
        assert result.exit_code == 0, result.output
        assert "matches the stored row" in result.stdout and "Outcome:" in result.stdout
        replay = replay_from_run(out, game, cell)
        assert replay.differences == []
        stored = games.filter((pl.col("game") == game) & (pl.col("cell") == cell))
        assert replay.stored == stored.row(0, named=True)


def test_play_from_a_cell_named_by_its_parameters(small):
    """--cell takes the cell's parameters (a policy's name, a value meaning never) as
    `bollesim cells` lists them; two identical cells are refused by name."""
    out, games, _ = small
    for cell, terms in ((3, "historical"), (2, "k=never"), (2, "fire_at_roe,k=25")):
        result = invoke("play", "--from", out, "--index", 5, "--cell", terms)
        assert result.exit_code == 0, result.output
        assert f"game 5, cell {cell} of" in result.stdout
        assert replay_from_run(out, 5, terms).stored == replay_from_run(out, 5, cell).stored
    assert_one_line_error(invoke("play", "--from", out, "--index", 5, "--cell", "k=12"),
                          "names 2 cells", "(0, 1)")


def test_play_from_a_run_with_overrides(tmp_path):
    out = tmp_path / "run"
    result = invoke(
        "run",
        "-P",
        "fire_at_roe",
        "-p",
        "k=10",
        "-n",
        "20",
        "--seed",
        "5",
        "--set",
        "roe.fire_allowed=10",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["ruleset_source"]["overrides"] == ["roe.fire_allowed=10"]
    replay = replay_from_run(out, 13)
    assert replay.differences == [] and replay.stored["k"] == 10


def test_play_from_errors(small):
    out, _, _ = small
    assert_one_line_error(
        invoke("play", "--from", out, "--index", 40, "--cell", 0), "game 40 is not in", "0..39"
    )
    assert_one_line_error(invoke("play", "--from", out, "--index", 3), "--cell")
    assert_one_line_error(invoke("play", "--from", out, "--index", 3, "--cell", 9), "cell 9")
    assert_one_line_error(
        invoke("play", "--from", out, "--index", 3, "--cell", 0, "-P", "rush"), "-P"
    )
    assert_one_line_error(invoke("play", "--from", out.parent, "--index", 3), "games.parquet")


# --------------------------------------------------------------------------- report


def test_report_writes_both_files(small, tmp_path):
    out, _, _ = small
    result = invoke("report", out, "--out", tmp_path / "rep")
    assert result.exit_code == 0, result.output
    for name in ("report.html", "report.md"):
        assert (tmp_path / "rep" / name).stat().st_size > 1000
        assert name in result.stdout


def test_report_needs_games(tmp_path):
    assert_one_line_error(invoke("report", tmp_path), "games.parquet")
    assert_one_line_error(invoke("report", tmp_path / "absent"), "absent")


# --------------------------------------------------------------------------- CLI errors


def test_run_negative_games_is_one_line():
    assert_one_line_error(invoke("run", "-P", "historical", "-n", "-5"), "-5")
    assert_one_line_error(invoke("run", "-P", "historical", "--max-games", "9"), "--precision")
    assert_one_line_error(invoke("run", "-P", "historical", "--precision", "0.7"), "--precision")


def test_unwritable_out_is_one_line(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    spec = write_spec(tmp_path, SMALL)
    assert_one_line_error(invoke("sweep", spec, "--out", blocker / "out"), "cannot write")
    assert_one_line_error(
        invoke("run", "-P", "historical", "-n", "5", "--out", blocker / "o"), "cannot write"
    )
    assert blocker.read_text() == "not a folder"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "spec.toml"]


def test_interrupted_sweep_leaves_nothing_half_written(tmp_path, monkeypatch):
    spec = write_spec(tmp_path, SMALL)
    out = tmp_path / "out"
    assert invoke("sweep", spec, "-n", "10", "--out", out).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) > 3:  # warm-up, then cells 0 and 1 are played; cell 2 fails
            raise KeyboardInterrupt
        return play_chunk(*args, **kwargs)

    play_chunk = runner.play_chunk
    monkeypatch.setattr(runner, "play_chunk", failing)
    result = invoke("sweep", spec, "-n", "20", "--out", out)
    assert result.exit_code != 0 and len(calls) == 4
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # the old run, untouched


def test_interrupted_run_leaves_nothing_half_written(tmp_path, monkeypatch):
    out = tmp_path / "out"
    assert invoke("run", "-P", "historical", "-n", "10", "--out", out).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) > 2:  # warm-up, then chunk 0 is played and written; chunk 1 fails
            raise KeyboardInterrupt
        return play_chunk(*args, **kwargs)

    play_chunk = runner.play_chunk
    monkeypatch.setattr(runner, "play_chunk", failing)
    result = invoke("run", "-P", "historical", "-n", "20", "--chunk", "10", "--out", out)
    assert result.exit_code != 0 and len(calls) == 3
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # the old run, untouched


def test_manifest_names_the_parameters_or_says_they_vary(tmp_path):
    same = run_to_dir(tmp_path / "same", "fire_at_roe", 4, params={"k": 12})
    assert same["params"]["k"] == 12.0 and same["params"]["stop_at_tanks"] == 3.0
    varied = run_to_dir(tmp_path / "varied", "fire_at_roe", 4, params={"k": [12, 12, 12, 18]})
    assert varied["params"] == "per game (see the parameter columns)"
    games = pl.read_parquet(tmp_path / "varied" / "games.parquet")
    assert games["k"].to_list() == [12.0, 12.0, 12.0, 18.0]


@pytest.mark.parametrize("values", [3, [3, 3, 3, 3]])
def test_an_unknown_parameter_is_named(values):
    """One value or one per game: the error names the parameter and the policy's own."""
    with pytest.raises(UsageError, match="'random' has no parameter 'stop_at_tanks'.*none"):
        runner.simulate("random", 4, params={"stop_at_tanks": values})
