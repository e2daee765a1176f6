"""The many-games analysis saved into its run folder (`bollesim analyse --from DIR -n N`:
analysis.json, analysis.md, analysis.html) on the test game Pig race, in this process:
its numbers are the games' own, it is written whole or not at all, under the folder's
lock, and a run that replaces the folder takes it away."""

from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from bollesim.batch import durable
from bollesim.batch.runfolder import WRITTEN, open_run
from bollesim.batch.workspace import Workspace
from bollesim.cli.app import app
from bollesim.report import chartdata, luck
from bollesim.strong.split import variance_split

GAMES = 12
PIG = ("--game", "pig")
ANALYSE = ("--player", "banker", "--rollouts", "16", "--per-draw")  # the chart by kind of draw


def bollesim(*args, code: int = 0) -> str:
    result = CliRunner().invoke(app, [*PIG, *map(str, args)])
    assert result.exit_code == code, result.output
    return result.output


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A run folder of Pig race, its games analysed."""
    out = tmp_path_factory.mktemp("luck") / "run"
    bollesim("run", "-P", "banker", "-n", GAMES, "--seed", 5, "--out", out)
    said = bollesim("analyse", "--from", out, "-n", GAMES, *ANALYSE)
    assert f"wrote analysis-swings.png, analysis.md, analysis.html, analysis.json into {out}" in said
    return out


def doc_of(folder: Path) -> dict:
    return json.loads((folder / "analysis.json").read_text())


def test_the_analysis_is_saved_with_the_games_totals_and_their_split(folder):
    doc = doc_of(folder)
    assert doc["stated_player"] == "banker" and doc["played_by"] == ["banker"]
    assert doc["values"] == "rollouts" and doc["rollouts"] == 16 and doc["learned_value"] is None
    assert doc["data_sha256"] == open_run(folder).manifest["data_sha256"]
    assert [g["game"] for g in doc["games"]] == list(range(GAMES)) and doc["costliest"]
    split = variance_split(pl.DataFrame(doc["games"]), doc["confidence"])
    for k in ("luck", "player", "rest"):
        assert doc["split"][k]["value"] == pytest.approx(getattr(split, k).value, abs=1e-5)
        assert doc["split"][k]["low"] == pytest.approx(getattr(split, k).low, abs=1e-5)
    assert all(WRITTEN.fullmatch(p.name) for p in folder.iterdir())


SHARE = r"(-?\d+)% \((-?\d+)%\.\.(-?\d+)%\)"
SENTENCE = re.compile(rf"Under banker, {SHARE} of the variance of 'target reached' is luck, "
                      rf"{SHARE} the player's \(the errors of banker\), and {SHARE} the rest")


def says_the_split_and_the_costliest_decisions(words: str, doc: dict) -> None:
    """The words give the split of analysis.json, its values and games, and its costliest
    decisions."""
    said = SENTENCE.search(words)
    assert said, words
    s = doc["split"]
    assert [int(x) for x in said.groups()] == [round(100 * s[k][b]) for k in s
                                               for b in ("value", "low", "high")]
    assert "16 rollouts per option and outcome (rollouts only: no learned value)" in words
    assert f"{GAMES} games analysed (games 0..{GAMES - 1} of the run folder" in words
    for c in doc["costliest"]:
        assert f"| {c['game']} | {c['turn']} | roll or bank | {c['taken']} |" in words
    errors = [c["error"] for c in doc["costliest"]]
    assert errors == sorted(errors, reverse=True)


def test_the_words_say_the_split_and_the_costliest_decisions_of_the_json(folder):
    says_the_split_and_the_costliest_decisions((folder / "analysis.md").read_text(),
                                               doc_of(folder))


def test_games_the_stated_player_played_itself_say_that_its_shares_cancel(folder):
    """Played by the stated player itself, each game's errors are its own shortfall: the
    sentence says so; one game where they differ, and it says nothing."""
    doc = doc_of(folder)
    assert all(g["errors"] == g["shortfall"] for g in doc["games"])
    own = "These games were played by banker itself: each game's errors are its own shortfall"
    assert own in luck.sentence(doc) and own in (folder / "analysis.md").read_text()
    other = {**doc, "games": [{**doc["games"][0], "shortfall": doc["games"][0]["errors"] + 0.5},
                              *doc["games"][1:]]}
    assert own not in luck.sentence(other)
    assert own not in luck.sentence({**doc, "games": [{"errors": 0.0}]})  # an older file's rows


def test_the_balance_report_has_the_section_with_the_numbers_of_the_json(folder):
    bollesim("report", folder)
    words, page = (folder / "report.md").read_text(), (folder / "report.html").read_text()
    says_the_split_and_the_costliest_decisions(words, doc_of(folder))
    assert words.count("## Luck and the player") == 1 and "(report-swings.png)" in words
    assert (folder / "report-swings.png").exists() and "vis-swings" in page
    assert SENTENCE.search(page.replace("&#x27;", "'"))


def test_the_files_are_written_all_or_none(tmp_path, monkeypatch):
    """Interrupted while the files are made durable: the old ones stay, no temporary is
    left; interrupted while they are put in place: all are, then the interrupt comes."""
    old = {"a.json": b"old a", "a.md": b"old md"}
    for name, data in old.items():
        (tmp_path / name).write_bytes(data)
    new = {"a.json": b"new a", "a.md": b"new md"}
    real_fsync, calls = os.fsync, []

    def interrupted_fsync(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise KeyboardInterrupt
        real_fsync(fd)

    monkeypatch.setattr(durable.os, "fsync", interrupted_fsync)
    with pytest.raises(KeyboardInterrupt):
        durable.write_together(tmp_path, new)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == old
    monkeypatch.setattr(durable.os, "fsync", real_fsync)
    real_replace = os.replace

    def signalled_replace(a, b):
        signal.raise_signal(signal.SIGINT)  # Ctrl-C between the renames
        real_replace(a, b)

    monkeypatch.setattr(durable.os, "replace", signalled_replace)
    with pytest.raises(KeyboardInterrupt):
        durable.write_together(tmp_path, new)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == new


def test_a_busy_folder_is_refused_in_one_line(folder):
    with Workspace(folder):
        out = bollesim("analyse", "--from", folder, "-n", 2, *ANALYSE, code=2)
    assert out.startswith("error: ") and "in use by another bollesim process" in out
    assert out.count("\n") == 1


def test_a_run_that_replaces_the_folder_takes_the_analysis_away(folder, tmp_path):
    out = tmp_path / "run"
    bollesim("run", "-P", "banker", "-n", 4, "--seed", 5, "--out", out)
    bollesim("analyse", "--from", out, *ANALYSE)
    assert (out / "analysis.json").exists() and luck.read_analysis(out, open_run(out).manifest)
    stale = (out / "analysis.json").read_bytes()
    bollesim("run", "-P", "banker", "-n", 5, "--seed", 5, "--out", out, "--replace")
    assert not [p for p in out.iterdir() if p.name.startswith("analysis")]
    bollesim("report", out)
    assert "Luck and the player" not in (out / "report.md").read_text()  # none, no error
    (out / "analysis.json").write_bytes(stale)
    bollesim("report", out)
    assert "Left out: analysis.json is of other games than the folder's" in (
        out / "report.md").read_text()


def test_the_chart_of_where_results_are_decided_holds_every_draw_and_decision(folder):
    """Its events are the games' draws and decisions (totals), each bar a turn's swing per
    game (a draw's absolute luck, a decision's error), drawn beside as a PNG."""
    doc = doc_of(folder)
    swings = pl.DataFrame(doc["swings"])
    events = dict(swings.group_by("event").agg(pl.col("events").sum()).iter_rows())
    assert events == {"draw": sum(g["draws"] for g in doc["games"]),
                      "decision": sum(g["decisions"] for g in doc["games"])}
    assert set(swings["kind"]) == {"die", "roll or bank"}
    assert set(swings["turn"]) <= set(range(1, 5)) and swings["swing"].min() > -0.5
    chart = chartdata.swings(doc["swings"], doc["n_games"])
    assert chart.series == ("die (draw)", "roll or bank (decision)")
    for turn, series, swing in chart.frame.select("turn", "series", "swing").iter_rows():
        kind = series.split(" (")[0]
        summed = swings.filter((pl.col("turn") == turn) & (pl.col("kind") == kind))["swing"]
        assert swing == pytest.approx(max(0.0, summed.sum() / GAMES))
    assert (folder / "analysis-swings.png").read_bytes().startswith(b"\x89PNG")
    assert "![Where results are decided" in (folder / "analysis.md").read_text()
    assert "Where results are decided, by turn" in (folder / "analysis.html").read_text()
