"""`bollesim compare A B` (bollesim/stats/compare.py, bollesim/report/compare.py): two
runs, or two cells of a sweep, paired game by game on the same seeds. Every number is
checked against values computed here from the two folders' rows with the formulas of
tests/oracles.py; the refusals are one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import oracles
import polars as pl
import pytest
from oracles import outcome_hits as hits
from test_report import md_table, page_specs
from test_sweep import assert_one_line_error, invoke, write_spec

from bollesim.batch.runfolder import open_run
from bollesim.game.registry import load_game
from bollesim.report import charts

GAME = load_game("bollebank")

RUN = ("run", "-P", "historical", "-n", "1500", "--seed", "3")
VICTORIES = ("operational", "tactical", "strategic", "political")
OUTCOMES = (*VICTORIES, "perfect", "defeat", "no_result")
LABELS = {"operational": "operational victory", "tactical": "tactical victory",
          "strategic": "strategic victory", "political": "political victory",
          "perfect": "perfect (all four victories)", "defeat": "defeat", "no_result": "no result"}
TWO_CELLS = """
name = "two"
seed = 3
games = 800

[[grid]]
policy = "fire_at_roe"
params = { k = [8, 16] }
"""


def expected(a: pl.DataFrame, b: pl.DataFrame, outcome: str) -> dict:
    """B - A on the games both played: rates, counts, Newcombe interval, McNemar p."""
    common = a.join(b.select("game"), on="game")
    x, y = hits(common, outcome), hits(b.join(a.select("game"), on="game"), outcome)
    n11, n10, n01 = int((x & y).sum()), int((x & ~y).sum()), int((~x & y).sum())
    d, low, high = oracles.paired_difference(n11, n01, n10, len(x) - n11 - n10 - n01)
    return {"n": len(x), "rate_a": x.mean(), "rate_b": y.mean(), "diff": d, "diff_low": low,
            "diff_high": high, "only_a": n10, "only_b": n01, "p_value": oracles.mcnemar(n10, n01)}


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> Path:
    """base (historical, 1,500 games, seed 3), tank8 (the same under tracks.tank_to_hit=8),
    short (1,000 games of base), seed4 (seed 4), two (a sweep of two cells)."""
    root = tmp_path_factory.mktemp("compare")
    for name, extra in (("base", ()), ("tank8", ("--set", "tracks.tank_to_hit=8")),
                        ("seed4", ("--seed", "4")), ("short", ("-n", "1000"))):
        result = invoke(*RUN, *extra, "--out", root / name)
        assert result.exit_code == 0, result.output
    result = invoke("sweep", write_spec(root, TWO_CELLS), "--out", root / "two")
    assert result.exit_code == 0, result.output
    return root


def rows_of(folder: Path, cell: int | None = None) -> pl.DataFrame:
    rows = pl.read_parquet(folder / "games.parquet")
    return rows if cell is None else rows.filter(pl.col("cell") == cell)


def compare_json(*args) -> dict:
    result = invoke("compare", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def assert_matches(found: list[dict], a: pl.DataFrame, b: pl.DataFrame) -> None:
    assert [r["outcome"] for r in found] == list(OUTCOMES)
    for row in found:
        want = expected(a, b, row["outcome"])
        for key, value in want.items():
            assert row[key] == pytest.approx(value, abs=1e-9), (row["outcome"], key)
        assert row["significant"] == (want["p_value"] < 0.05), row["outcome"]


def test_two_runs_b_minus_a(folders, tmp_path):
    out = tmp_path / "report"
    data = compare_json(folders / "base", folders / "tank8", "--out", out)
    base, tank8 = rows_of(folders / "base"), rows_of(folders / "tank8")
    assert_matches(data["differences"], base, tank8)
    assert data["paired_games"] == 1500
    assert data["what_differs"] == ["R-TRACK: reconstructed -> tank-8"]
    assert any(r["significant"] for r in data["differences"])  # a real change shows
    # and the other way round, every difference changes sign
    back = compare_json(folders / "tank8", folders / "base", "--out", tmp_path / "back")
    for there, here in zip(back["differences"], data["differences"], strict=True):
        assert there["diff"] == pytest.approx(-here["diff"], abs=1e-12)
        assert (there["only_a"], there["only_b"]) == (here["only_b"], here["only_a"])


def test_two_cells_of_a_sweep(folders, tmp_path):
    two = folders / "two"
    data = compare_json(f"{two}:1", f"{two}:0", "--out", tmp_path / "cells")
    assert_matches(data["differences"], rows_of(two, 1), rows_of(two, 0))
    assert data["what_differs"] == ["k: 16 -> 8"]


def test_a_cell_named_by_its_parameters(folders, tmp_path):
    """DIR:k=16 is the cell with k = 16 (the policy's name and choice names may be
    terms): the same comparison as by number."""
    two = folders / "two"
    by_number = compare_json(f"{two}:1", f"{two}:0", "--out", tmp_path / "n")
    for a, b in ((f"{two}:k=16", f"{two}:k=8"), (f"{two}:fire_at_roe,k=16", f"{two}:k=8,target=ATGM")):
        by_terms = compare_json(a, b, "--out", tmp_path / "t")
        assert by_terms["differences"] == by_number["differences"]
    cases = [
        (f"{two}:k=12", ("no cell of", "k=12", f"bollesim cells {two}")),
        (f"{two}:stop_at_tanks=3", ("names 2 cells", "(0, 1)")),
        (f"{two}:zz=1", ("no cell of", "'zz'", "its parameters: k,")),
        (f"{two}:target=nonsense", ("not one of ATGM",)),
        (f"{two}:policy=historical", ("no cell of", "policy=historical")),
    ]
    for side, words in cases:
        assert_one_line_error(invoke("compare", side, f"{two}:0", "--out", tmp_path / "x"), *words)


def test_the_listing_of_a_folders_cells(folders):
    """`bollesim cells DIR` and bollesim.cells(DIR): one row per cell with its label, its
    games and the parameters it sets, read from the folder's rows."""
    import bollesim

    two = folders / "two"
    table = bollesim.cells(two)
    rows = rows_of(two)
    assert table["cell"].to_list() == [0, 1] and table["k"].to_list() == [8.0, 16.0]
    assert table["label"].to_list() == ["fire_at_roe k=8", "fire_at_roe k=16"]
    for row in table.iter_rows(named=True):
        games = rows.filter(pl.col("cell") == row["cell"])["game"]
        assert (row["games"], row["first_game"], row["last_game"]) == (len(games), games.min(), games.max())
    listed = invoke("cells", two)
    assert listed.exit_code == 0, listed.output
    assert "2 cells, 1,600 games" in listed.stdout
    assert re.search(r"1\s+fire_at_roe k=16\s+800\s+0\.\.799\s+k=16 .*target=ATGM", listed.stdout)
    data = json.loads(invoke("cells", two, "--json").stdout)
    assert [c["k"] for c in data["cells"]] == [8.0, 16.0]
    plain = bollesim.cells(folders / "base")
    assert plain.select("cell", "label", "games").rows() == [(0, "historical", 1500)]
    assert_one_line_error(invoke("cells", folders / "nowhere"), "no such folder")


def test_pairs_the_games_both_played(folders, tmp_path):
    data = compare_json(folders / "base", folders / "short", "--out", tmp_path / "short")
    assert data["paired_games"] == 1000
    assert_matches(data["differences"], rows_of(folders / "base"), rows_of(folders / "short"))
    assert all(r["diff"] == 0 and r["only_a"] == r["only_b"] == 0 for r in data["differences"])


def test_the_report(folders, tmp_path):
    out = tmp_path / "report"
    result = invoke("compare", folders / "base", folders / "tank8", "--out", out)
    assert result.exit_code == 0, result.output
    printed = [line for line in result.stdout.splitlines() if line.startswith("  ")]
    assert len(printed) == len(OUTCOMES)
    for line in printed:  # a p-value as the report writes it, never 1.5e-172
        assert re.search(r"[ *] p (< 0\.001|= 0\.00\d+|= [01]\.\d\d)$", line), line
    assert sorted(p.name for p in out.iterdir()) == [
        "compare-differences.png", "compare.csv", "compare.html", "compare.md"]
    base, tank8 = rows_of(folders / "base"), rows_of(folders / "tank8")
    text = (out / "compare.md").read_text(encoding="utf-8")
    rows = md_table(text, "Paired differences (B − A)")
    assert [r[0] for r in rows] == [LABELS[o] for o in OUTCOMES]
    for row, outcome in zip(rows, OUTCOMES, strict=True):
        want = expected(base, tank8, outcome)
        shown = re.fullmatch(r"([+-]\d+\.\d+) \(([+-]\d+\.\d+) to ([+-]\d+\.\d+)\)", row[3])
        assert shown, row
        for got, value in zip(shown.groups(), ("diff", "diff_low", "diff_high"), strict=True):
            assert abs(float(got) - 100 * want[value]) <= 0.05 + 1e-9, (outcome, row)
        assert row[4:6] == [f"{want['only_a']:,}", f"{want['only_b']:,}"], (outcome, row)
        assert row[6].startswith("significant (" if want["p_value"] < 0.05 else
                                 "not significant ("), (outcome, row)
    assert "`R-TRACK: reconstructed -> tank-8`" in text  # a code span shows its text as written
    csv = pl.read_csv(out / "compare.csv")
    assert csv["diff"].to_list() == pytest.approx(
        [expected(base, tank8, o)["diff"] for o in OUTCOMES], abs=1e-6)
    page = (out / "compare.html").read_text(encoding="utf-8")
    spec = page_specs(page)["vis-differences"]
    assert charts.png(spec).startswith(b"\x89PNG")  # a spec Vega-Lite draws
    bars = next(iter(spec["datasets"].values()))
    assert [b["row"] for b in bars] == [LABELS[o] for o in OUTCOMES]
    for bar, outcome in zip(bars, OUTCOMES, strict=True):
        assert bar["diff_pts"] == pytest.approx(100 * expected(base, tank8, outcome)["diff"],
                                                abs=0.0051)


def test_the_folder_is_whole_or_absent(folders, tmp_path, monkeypatch):
    """Cut short after its first files, a comparison leaves no folder; it replaces an
    earlier comparison whole, and refuses a folder holding other files (untouched)."""
    from bollesim.report import document

    out = tmp_path / "cmp"
    sides = folders / "base", folders / "tank8"
    def disk_full(rep):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(document, "render_html", disk_full)  # the last file written
        assert_one_line_error(invoke("compare", *sides, "--out", out), "No space left")
    beside = [p.name for p in tmp_path.iterdir()]
    assert beside in ([], [".cmp.lock"])  # the lock every writing command takes, beside OUT
    assert invoke("compare", *sides, "--out", out).exit_code == 0
    (out / "compare.csv").write_text("stale")
    assert invoke("compare", *sides[::-1], "--out", out).exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix != ".lock") == ["cmp"]
    assert "diff" in pl.read_csv(out / "compare.csv").columns
    (out / "notes.txt").write_text("mine")
    assert_one_line_error(invoke("compare", *sides, "--out", out), "notes.txt", "empty or new")
    assert (out / "notes.txt").read_text() == "mine" and (out / "compare.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix != ".lock") == ["cmp"]


def test_refusals_are_one_line(folders, tmp_path):
    out = tmp_path / "out"
    base, two = folders / "base", folders / "two"
    cases = [
        ((base, folders / "seed4"), ("different seeds", "--seed 3")),
        ((base, two), ("sweep of 2 cells", f"{two}:CELL")),
        ((f"{two}:5", base), ("no cell 5", "cells 0..1")),
        ((base, f"{base}:0"), ("same games",)),
        ((base, tmp_path / "nowhere"), ("no such folder",)),
    ]
    for args, words in cases:
        assert_one_line_error(invoke("compare", *args, "--out", out), *words)
    assert not out.exists()
    damaged = tmp_path / "damaged"
    invoke(*RUN[:3], "-n", "50", "--seed", "3", "--out", damaged)
    with open(damaged / "games.parquet", "r+b") as f:
        f.seek(40)
        f.write(b"\0")
    assert_one_line_error(invoke("compare", base, damaged, "--out", out), "SHA-256")
    assert open_run(base).n_games == 1500  # the sides are only read


def test_difference_chart_draws_each_difference(folders):
    from matplotlib.colors import to_rgba
    from test_plots import assert_clean

    from bollesim.report import chartdata, plots
    from bollesim.report.compare import open_side
    from bollesim.stats.compare import differences

    a, b = open_side(str(folders / "base")), open_side(str(folders / "tank8"))
    fig = plots.draw(chartdata.compared(GAME, differences(a, b), "A", "B"))
    assert_clean(fig)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [LABELS[o] for o in OUTCOMES]
    base, tank8 = rows_of(folders / "base"), rows_of(folders / "tank8")
    for bar, outcome in zip(ax.patches, OUTCOMES, strict=True):
        want = expected(base, tank8, outcome)
        assert bar.get_width() == pytest.approx(100 * want["diff"], abs=1e-9), outcome
        gains = (want["diff"] > 0) != (outcome in ("defeat", "no_result"))
        effect = ("no clear change" if want["p_value"] >= 0.05 else
                  "better" if gains else "worse")
        assert bar.get_facecolor() == to_rgba(chartdata.PLAYER_COLOURS[effect]), outcome


def test_a_folder_another_command_writes_is_refused(folders, tmp_path):
    """compare takes the folder lock every writing command takes (runfolder.Workspace):
    while a run or a report holds OUT, the comparison is refused and writes nothing."""
    from bollesim.batch.workspace import Workspace

    out = tmp_path / "busy"
    with Workspace(out):
        assert_one_line_error(invoke("compare", folders / "base", folders / "tank8", "--out", out),
                              "in use by another bollesim process")
        assert not out.exists()
    assert invoke("compare", folders / "base", folders / "tank8", "--out", out).exit_code == 0
