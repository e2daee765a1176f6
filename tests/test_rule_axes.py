"""Rules as sweep axes (bollesim/batch/spec.py): a grid's `rules` and `readings` make cells
that play their own ruleset on the same seeds as every other cell; the rows and the
manifest say which; the rows do not depend on chunks or threads; --resume is exact;
`play --from` replays a cell under its ruleset; a mistake is one line naming the key.

The oracle of a cell's rows is bollesim.simulate under a ruleset loaded the way the
command line loads one (`--set`, `--reading`), not through the grid."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from test_sweep import assert_one_line_error, invoke, write_spec

import bollesim
from bollesim.batch import runner
from bollesim.batch.partial import interrupted_run
from bollesim.batch.runfolder import open_run
from bollesim.batch.spec import load_experiment
from bollesim.batch.sweeps import sweep_frame
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.game.registry import load_game
from bollesim.stats import naming

GAME = load_game("bollebank")

AXES = """
name = "axes"
seed = 5
games = 300

[[grid]]
policy = "fire_at_roe"
params = { k = [8, 12] }
rules = { "tracks.tank_to_hit" = [7, 8] }
readings = { "I-AIR" = ["floor", "ceil"] }

[[grid]]
policy = "historical"
"""
CHUNK = "128"
EXPECTED = [(k, hit, air) for k in (8.0, 12.0) for hit in (7, 8) for air in ("floor", "ceil")]
"""(k, tank_to_hit, I-AIR) of cells 0..7: params, then rules, then readings, first slowest."""
RESULTS = [name for name, _ in runner.result_columns("bollebank")]


def oracle_rules(hit: int, air: str):
    return load_ruleset(overrides=[f"tracks.tank_to_hit={hit}"], readings={"I-AIR": air})


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> tuple[Path, Path, pl.DataFrame, dict]:
    """(spec, folder, games, manifest) of the AXES sweep on the command line."""
    folder = tmp_path_factory.mktemp("axes")
    spec = write_spec(folder, AXES)
    out = folder / "out"
    result = invoke("sweep", spec, "--out", out, "--chunk", CHUNK)
    assert result.exit_code == 0, result.output
    run = open_run(out)
    return spec, out, run.read(), run.manifest


def test_grid_cells_and_their_rulesets(swept):
    experiment = load_experiment(swept[0])
    cells = experiment.cells
    assert len(cells) == 9
    for cell, (k, hit, air) in zip(cells, EXPECTED, strict=False):
        assert cell.param_dict()["k"] == k
        assert cell.rule_values == {"tracks.tank_to_hit": hit}
        assert cell.readings == {"I-AIR": air}
        assert cell.ruleset.data["tracks"]["tank_to_hit"] == hit
        assert cell.ruleset.readings["I-AIR"] == air
        assert cell.ruleset.digest == oracle_rules(hit, air).digest
    assert cells[8].policy.name == "historical" and cells[8].ruleset is None


def test_each_cell_plays_its_own_ruleset_on_common_seeds(swept):
    _, _, games, _ = swept
    for cell, (k, hit, air) in enumerate(EXPECTED):
        rules = oracle_rules(hit, air)
        expected = bollesim.simulate("fire_at_roe", 300, seed=5, params={"k": k}, rules=rules)
        rows = games.filter(pl.col("cell") == cell).sort("game")
        assert rows.select(RESULTS).equals(expected.select(RESULTS)), cell
        assert rows["seed"].to_list() == expected["seed"].to_list()
        assert set(rows["ruleset"]) == {f"tracks.tank_to_hit={hit} I-AIR={air}"}
        assert set(rows["ruleset_hash"]) == {rules.digest}
    historical = games.filter(pl.col("cell") == 8)
    assert set(historical["ruleset"]) == {""}
    assert set(historical["ruleset_hash"]) == {load_ruleset().digest}
    # the rule axis changes what is played: cells that differ by it alone differ
    by_cell = {c: games.filter(pl.col("cell") == c).sort("game").select(RESULTS)
               for c in range(8)}
    assert not by_cell[0].equals(by_cell[2]) and not by_cell[0].equals(by_cell[1])


def test_manifest_and_labels_name_each_cells_ruleset(swept):
    _, _, games, manifest = swept
    for record, key, (k, hit, air) in zip(manifest["cells"], manifest["plan"]["cells"], EXPECTED,
                                          strict=False):
        digest = oracle_rules(hit, air).digest
        assert record["params"]["k"] == key["params"]["k"] == k
        assert record["rules"] == {"tracks.tank_to_hit": hit}
        assert record["readings"] == {"I-AIR": air}
        assert record["ruleset_hash"] == key["ruleset_hash"] == digest
    assert "rules" not in manifest["cells"][8] and "ruleset_hash" not in manifest["plan"]["cells"][8]
    assert manifest["ruleset_hash"] == load_ruleset().digest  # the experiment's own ruleset
    labels = naming.cell_labels(GAME, games)["label"].to_list()
    assert labels == [f"fire_at_roe k={k:g} tracks.tank_to_hit={hit} I-AIR={air}"
                      for k, hit, air in EXPECTED] + ["historical"]


def test_rows_do_not_depend_on_chunks_threads_or_memory(swept, tmp_path):
    spec, _, games, _ = swept
    out = tmp_path / "other"
    result = invoke("sweep", spec, "--out", out, "--chunk", "77", "--threads", "1")
    assert result.exit_code == 0, result.output
    ordered = games.sort("cell", "game")  # rows come in chunk order
    assert open_run(out).read().sort("cell", "game").equals(ordered)
    assert sweep_frame(spec).sort("cell", "game").equals(ordered)


def test_resume_is_exact_and_refuses_other_rules(swept, tmp_path, monkeypatch):
    spec, _, _, manifest = swept
    out = tmp_path / "out"
    real, calls = runner.play_chunk, []

    def stop_after_ten(*args, **kwargs):
        calls.append(1)
        if len(calls) > 11:  # the warm-up and ten chunks
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "play_chunk", stop_after_ten)
    assert invoke("sweep", spec, "--out", out, "--chunk", CHUNK).exit_code == 130
    monkeypatch.setattr(runner, "play_chunk", real)
    assert interrupted_run(out).saved > 0
    edited = write_spec(tmp_path, AXES.replace("[7, 8]", "[7, 9]"), "edited.toml")
    assert_one_line_error(invoke("sweep", edited, "--out", out, "--resume"), "other cells")
    result = invoke("sweep", spec, "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert open_run(out).manifest["data_sha256"] == manifest["data_sha256"]


def test_replay_a_cell_under_its_ruleset(swept):
    _, out, games, _ = swept
    for cell in (3, 8):
        result = invoke("play", "--from", out, "--index", 17, "--cell", cell)
        assert result.exit_code == 0, result.output
        assert "The replay matches the stored row of game 17" in result.stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["cells"][3]["readings"] == {"I-AIR": "ceil"}


BAD_AXES = {  # what to change in AXES -> the key the one-line error must name
    "unknown rule key": ('"tracks.tank_to_hit"', '"tracks.tank_to_hti"',
                         "grid[0].rules.tracks.tank_to_hti: unknown key"),
    "rule value out of range": ("[7, 8]", "[7, 14]", "grid[0].rules.tracks.tank_to_hit[1]"),
    "a list key swept flat": ('"tracks.tank_to_hit" = [7, 8]', '"tracks.hmg_to_hit" = [12, 11]',
                              "list of lists"),
    "rules not a table": ('rules = { "tracks.tank_to_hit" = [7, 8] }', "rules = 3",
                          "grid[0].rules"),
    "empty rule list": ("[7, 8]", "[]", "grid[0].rules.tracks.tank_to_hit"),
    "unknown reading": ('"I-AIR" =', '"I-AIRR" =', "grid[0].readings.I-AIRR"),
    "unknown variant": ('["floor", "ceil"]', '["floor", "round"]', "grid[0].readings.I-AIR[1]"),
    "unplayable combination": ('"tracks.tank_to_hit" = [7, 8]', '"roe.start" = [1, 24], '
                               '"roe.max" = [24, 20]', "grid[0].rules"),
    "unknown top-level reading": ('seed = 5', 'seed = 5\nreadings = { "I-NOPE" = "x" }',
                                  "readings.I-NOPE: unknown reading"),
}


@pytest.mark.parametrize("case", BAD_AXES, ids=list(BAD_AXES))
def test_rule_axis_mistakes_are_one_line(tmp_path, case):
    old, new, key = BAD_AXES[case]
    assert AXES.count(old) == 1
    spec = write_spec(tmp_path, AXES.replace(old, new), "bad.toml")
    line = assert_one_line_error(invoke("sweep", spec, "--out", tmp_path / "out"), "bad.toml", key)
    assert not (tmp_path / "out").exists(), line


def test_nested_rule_tables_and_a_fixed_reading(tmp_path):
    text = AXES.replace('rules = { "tracks.tank_to_hit" = [7, 8] }',
                        "rules = { tracks = { tank_to_hit = 8 } }").replace(
        'readings = { "I-AIR" = ["floor", "ceil"] }', 'readings = { "I-AIR" = "ceil" }')
    cells = load_experiment(write_spec(tmp_path, text)).cells
    assert len(cells) == 3
    assert cells[0].ruleset.digest == oracle_rules(8, "ceil").digest
    assert cells[0].ruleset_text() == "tracks.tank_to_hit=8 I-AIR=ceil"


def test_report_compares_triggers_within_each_ruleset(swept, tmp_path):
    from test_report import md_table

    from bollesim.report.balance import write_report

    _, out, games, _ = swept
    text = write_report(out, tmp_path)["markdown"].read_text(encoding="utf-8")
    for k_hit, air in ((7, "floor"), (7, "ceil"), (8, "floor"), (8, "ceil")):
        ruleset = f"tracks.tank_to_hit={k_hit} I-AIR={air}"
        rows = md_table(text, f"Best RoE from which the first Fire order is given for each "
                              f"outcome (fire_at_roe `k` under `{ruleset}`)")
        mine = games.filter(pl.col("ruleset") == ruleset)
        defeat = {k: mine.filter(pl.col("k") == k)["defeat"].mean() for k in (8.0, 12.0)}
        best = min(defeat, key=lambda k: (defeat[k], k))
        assert rows[-1][0] == "defeat" and rows[-1][1] == f"{best:g}", (ruleset, rows[-1])
        assert f"(`fire_at_roe` under `{ruleset}`, 2 settings on the same seeds)" in text
