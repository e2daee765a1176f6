"""What the batch commands print: --json (one object on stdout, the human lines on stderr),
the sweep's table (with its "no result" column and why a row can pass 100%), --version
and shell completion."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import waiting
from typer.testing import CliRunner

from bollesim.cli.app import app

SPEC = """
name = "tiny"
description = "fire early, fire never"
seed = 5
games = 60

[[grid]]
policy = "fire_at_roe"
params = { k = [8, 25] }
"""
OUTCOMES = ("operational", "tactical", "strategic", "political", "defeat")


def invoke(*args) -> object:
    return CliRunner().invoke(app, [str(a) for a in args])


def shares(rows: pl.DataFrame) -> dict[str, float]:
    """Each outcome's share of the rows, computed here with numpy."""
    got = {o: rows[o].to_numpy().astype(bool) for o in OUTCOMES}
    won = np.any([got[o] for o in OUTCOMES[:4]], axis=0)
    out = {o: float(got[o].mean()) for o in OUTCOMES}
    out["no_result"] = float((~won & ~got["defeat"]).mean())
    return out


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> tuple[Path, object]:
    folder = tmp_path_factory.mktemp("tiny")
    (folder / "tiny.toml").write_text(SPEC, encoding="utf-8")
    result = invoke("sweep", folder / "tiny.toml", "--out", folder / "out", "--json")
    assert result.exit_code == 0, result.output
    return folder / "out", result


def test_sweep_json_and_table(swept):
    out, result = swept
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1  # nothing but the JSON object on stdout
    answer = json.loads(lines[0])
    games = pl.read_parquet(out / "games.parquet")
    assert answer["command"] == "sweep" and answer["out"] == str(out)
    assert answer["games_per_cell"] == 60 and answer["games"] == 120
    assert [c["label"] for c in answer["cells"]] == ["fire_at_roe k=8", "fire_at_roe k=25 (never)"]
    for cell in answer["cells"]:
        expected = shares(games.filter(pl.col("cell") == cell["cell"]))
        assert cell["games"] == 60
        for outcome, rate in expected.items():
            assert cell[outcome] == pytest.approx(rate), (cell["cell"], outcome)
    human = result.stderr
    header = next(line for line in human.splitlines() if line.strip().startswith("cell"))
    assert header.split()[-2:] == ["no", "result"] and "more than 100%" in human
    for cell in answer["cells"]:
        row = next(line for line in human.splitlines() if cell["label"] in line)
        assert row.split()[-1] == f"{100 * cell['no_result']:.1f}%"


def test_report_json(swept, tmp_path):
    out, _ = swept
    result = invoke("report", out, "--out", tmp_path, "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["html"] == str(tmp_path / "report.html")
    assert Path(answer["rates"]).exists() and all(Path(p).exists() for p in answer["charts"])
    assert "wrote" in result.stderr


def test_run_json(tmp_path):
    result = invoke("run", "-P", "fire_at_roe", "-p", "k=25", "-n", 50, "--seed", 3,
                    "--out", tmp_path, "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    expected = shares(pl.read_parquet(tmp_path / "games.parquet"))
    assert answer["games"] == 50 and answer["seed"] == 3
    assert answer["rates"] == pytest.approx(expected)
    assert "no result" in result.stderr


def test_version_and_completion(monkeypatch):
    import os
    import sys

    from bollesim import __version__

    result = invoke("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"bollesim {__version__}"
    bollesim = Path(sys.executable).with_name("bollesim")
    env = {**os.environ, "_BOLLESIM_COMPLETE": "complete_bash", "COMP_WORDS": "bollesim sw",
           "COMP_CWORD": "1"}
    done = waiting.run([bollesim], env=env, capture_output=True, text=True, seconds=60)
    assert done.stdout.split() == ["sweep"], done.stderr
    # --show-completion takes the shell from the process's ancestors, which a detached
    # test run does not have (its script then says "Shell  not supported."): bash is given
    monkeypatch.setattr("typer.completion._get_shell_name", lambda: "bash")
    script = invoke("--show-completion")
    assert "_BOLLESIM_COMPLETE" in script.stdout


def test_sweep_frame_is_the_sweeps_rows(swept, tmp_path):
    """The in-memory sweep gives the rows `bollesim sweep` wrote, with a moving bar."""
    import bollesim

    out, _ = swept
    (tmp_path / "tiny.toml").write_text(SPEC, encoding="utf-8")
    frame = bollesim.sweep_frame(tmp_path / "tiny.toml")
    from bollesim.batch.runfolder import open_run

    written = open_run(out).read()  # its parameter columns typed as sweep_frame's are
    assert frame.columns == written.columns
    assert frame.sort("cell", "game").equals(written.sort("cell", "game"))
    assert "sweep_frame" in dir(bollesim) and "simulate" in bollesim.__all__


def test_simulate_progress_moves_within_a_chunk():
    import bollesim

    steps = []
    df = bollesim.simulate("historical", 5_000, progress=steps.append)
    plain = bollesim.simulate("historical", 5_000, seed=1)
    assert df.equals(plain)  # seed 1 is the default; pieces do not change the rows
    assert sum(steps) == 5_000 and len(steps) >= 2


def test_a_run_under_one_chunk_still_moves_its_bar(tmp_path):
    from bollesim.batch.runner import progress_chunk

    assert 200_000 // progress_chunk(200_000) >= 50  # a 200,000-game run: 50+ steps
    assert progress_chunk(10_000_000) == 100_000 and progress_chunk(10) == 2_000
    result = invoke("run", "-P", "historical", "-n", 4_100, "--out", tmp_path, "--json")
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert result.exit_code == 0 and manifest["chunk_size"] == 2_000


def test_off_a_terminal_long_work_says_it_started_and_how_far_it_is(tmp_path, monkeypatch):
    """Into a pipe or a CI log (CliRunner's stderr is no terminal): a line when the run
    starts, progress lines at the interval, one when it is done; --quiet: none."""
    from bollesim.cli import running

    monkeypatch.setattr(running.PlainProgress, "INTERVAL", 0.0)  # a line at every step
    result = invoke("run", "-P", "historical", "-n", 3_000, "--chunk", 1_000, "--out", tmp_path / "a")
    lines = result.stderr.splitlines()
    assert result.exit_code == 0, result.output
    assert lines[0] == "historical (fast): started", lines
    assert any(line.startswith("historical (fast): 2,000 of 3,000 (67%) after ") for line in lines)
    assert any(line.startswith("historical (fast): done, 3,000 of 3,000 (100%) in ") for line in lines)
    assert all(running.PROGRESS_LINE.fullmatch(line) for line in lines[:-1]), lines
    for own in ("error: out/manifest.json: edited after the run (its fields do not match)",
                "interrupted: 8,192 of 24,000 games are saved after 2m 05s", "note: x: started"):
        assert not running.PROGRESS_LINE.fullmatch(own), own  # a command's own word stays
    monkeypatch.setattr(running.PlainProgress, "INTERVAL", 3600.0)  # no line between
    report = invoke("report", tmp_path / "a").stderr.splitlines()
    assert report[:1] == [f"report {tmp_path / 'a'}: started"], report
    assert [line for line in report if "done in" in line] == [report[1]], report
    quiet = invoke("--quiet", "run", "-P", "historical", "-n", 3_000, "--out", tmp_path / "b")
    assert quiet.exit_code == 0 and "started" not in quiet.stderr and "done" not in quiet.stderr
