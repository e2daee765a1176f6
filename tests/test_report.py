"""bollesim.report.balance: report.html and report.md from a synthetic run folder.

The run folders hold the synthetic sweep of test_analysis (known probabilities, common
random numbers) written as the runner writes a run: games.parquet and manifest.json.
The last test opens report.html in a real headless browser (Debian's chromium) when
/usr/bin/chromium exists.
"""

from __future__ import annotations

import html
import json
import math
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import waiting
from oracles import outcome_hits as _hits
from test_analysis import NEVER, make_games, synthetic_policies

from bollesim import files
from bollesim.batch.runfolder import RunFolderError
from bollesim.batch.workspace import write_games
from bollesim.game.registry import load_game
from bollesim.report import balance, chartdata, document
from bollesim.stats import analysis, naming

GAME = load_game("bollebank")

# One worker: the module's fixture writes a whole balance report (about 20 s).
pytestmark = pytest.mark.xdist_group("report")

VICTORIES = ("operational", "tactical", "strategic", "political")
HEADLINE = (*VICTORIES, "perfect", "defeat")
OUTCOMES = (*VICTORIES, "perfect", "defeat", "no_result")
LABELS = {"operational": "operational victory", "tactical": "tactical victory",
          "strategic": "strategic victory", "political": "political victory",
          "perfect": "perfect (all four victories)", "defeat": "defeat", "no_result": "no result"}

CHROMIUM = Path("/usr/bin/chromium")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
HASH = "0123456789abcdef" * 4
LOSS_CHARTS = {"report-defeats-cause.png", "report-defeats-place.png", "report-defeats-turn.png",
               "report-outcome-end-turn.png", "report-outcome-first-loss-turn.png"}
"""The charts of "Why games are lost", in every report of games with a defeat."""


def write_run(folder: Path, games: pl.DataFrame, **manifest) -> Path:
    cells = naming.cell_labels(GAME, games)
    info = {"ruleset": "default", "ruleset_hash": HASH, "policy": cells["policy"][0],
            "params": {}, "seed": int(games["seed"][0]),
            "version": "0.1.0", "engine": "fast",
            "timings": {"run_s": 1.5, "games_per_s": 12345.6, "total_s": 2.0},
            "cells": [{"cell": int(c), "policy": p, "params": {}}
                      for c, p in cells.select("cell", "policy").iter_rows()]}
    info.update(manifest)
    write_games(folder, GAME, games, **info)
    return folder


@pytest.fixture(scope="module", autouse=True)
def _synthetic_policies():
    with synthetic_policies():
        yield


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> tuple[Path, pl.DataFrame, dict]:
    games = make_games(n=800, seed=3)
    run = write_run(tmp_path_factory.mktemp("sweep"), games)
    return run, games, balance.write_report(run)


def _png_links(markdown: str) -> list[str]:
    return re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", markdown)


def test_report_files_exist(sweep):
    run, _, paths = sweep
    assert paths["html"] == run / "report.html" and paths["html"].stat().st_size > 10_000
    assert paths["markdown"] == run / "report.md" and paths["markdown"].exists()
    names = {p.name for p in paths["charts"]}
    assert names == {"report-trigger-syn-fire-k.png", "report-comparison.png",
                     "report-first-fire-turn-syn-fire.png", *LOSS_CHARTS}
    assert paths["rates"] == run / "rates.csv"
    leftovers = [p.name for p in run.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def page_specs(page: str) -> dict:
    """The Vega-Lite specs a report page embeds, by element id."""
    found = re.search(r"const bollesimSpecs = (.*?);\n", page)
    return json.loads(found.group(1).replace("<\\/", "</"))


def test_html_is_self_contained_with_interactive_charts(sweep):
    run, games, paths = sweep
    page = paths["html"].read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert not re.search(r"<script[^>]+src=", page) and "<link" not in page
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched from elsewhere
    assert "vegaEmbed" in page and "<table class=sortable>" in page
    specs = page_specs(page)
    assert list(specs) == [f"vis-{p.stem.removeprefix('report-')}" for p in paths["charts"]]
    headline = specs["vis-trigger-syn-fire-k"]
    rows = next(iter(headline["datasets"].values()))
    settings = by_setting(games)
    assert len(rows) == len(settings) * 5
    for row in rows:
        setting = settings[row["x_label"]]
        assert row["rate_pct"] == pytest.approx(100 * share(setting, row["outcome"]), abs=0.0051)
        assert row["n"] == setting.height and row["k"] == int(_hits(setting, row["outcome"]).sum())
    lines, whiskers, points = (layer["encoding"] for layer in headline["layer"])
    assert lines["y"]["field"] == points["y"]["field"] == "rate_pct"
    assert (whiskers["y"]["field"], whiskers["y2"]["field"]) == ("low_pct", "high_pct")
    assert lines["color"]["field"] == points["color"]["field"] == "label"  # outcome names
    assert {t["title"] for t in points["tooltip"]} >= {"rate (%)", "95% interval", "games"}


def test_markdown_references_existing_pngs(sweep):
    run, _, paths = sweep
    text = paths["markdown"].read_text(encoding="utf-8")
    links = _png_links(text)
    assert len(links) == 3 + len(LOSS_CHARTS)
    for link in links:
        target = run / link
        assert target.exists() and target.read_bytes().startswith(PNG_MAGIC), link
    assert {run / link for link in links} == set(paths["charts"])


def test_report_says_what_was_run(sweep):
    _, games, paths = sweep
    for page in (paths["html"].read_text(encoding="utf-8"),
                 paths["markdown"].read_text(encoding="utf-8")):
        assert HASH in page
        assert "syn_fire" in page and "syn_hold" in page
        assert f"{games.height:,} in all" in page and "800 per cell" in page
        assert "12,346 games/s" in page
        assert "k</strong> over 8, 12, 16, 20, 24, 25" in page or "**k** over 8, 12" in page


# -- an independent oracle: rates, Wilson intervals and McNemar p-values from the rows -----


def share(rows: pl.DataFrame, outcome: str) -> float:
    return float(_hits(rows, outcome).mean())


def pct_text(p: float) -> str:
    return f"{100 * p:.2f}%" if 0 < 100 * p < 1 else f"{100 * p:.1f}%"


def wilson_text(hits: np.ndarray) -> str:
    """"41.2% (40.3–42.1)", the Wilson interval by its formula (z = 1.96)."""
    n, k = len(hits), int(hits.sum())
    p, z = k / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low, high = (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)
    digits = 2 if 0 < 100 * p < 1 or 100 * high < 1 else 1
    rate = f"{100 * p:.2f}%" if 0 < 100 * p < 1 else f"{100 * p:.1f}%"
    return f"{rate} ({100 * low:.{digits}f}–{100 * high:.{digits}f})"


def mcnemar(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided exact McNemar p-value of paired booleans, as a binomial sum."""
    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    m = only_a + only_b
    if m == 0:
        return 1.0
    tail = sum(math.comb(m, i) for i in range(min(only_a, only_b) + 1)) / 2 ** m
    return min(1.0, 2 * tail)


def md_table(text: str, heading: str) -> list[list[str]]:
    """The rows of the first table after a heading that starts with `heading`."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.lstrip("#").strip()
                 .startswith(heading))
    rows, seen = [], False
    for line in lines[start + 1:]:
        if line.startswith("|"):
            seen = True
            cells = [html.unescape(c.strip().replace("\\|", "|"))
                     for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif seen:
            break
    return rows[1:]  # without the header


def by_setting(games: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """{setting label: its games sorted by game} for syn_fire's k (25 is "never")."""
    fire = games.filter(pl.col("policy") == "syn_fire")
    return {("never" if k == NEVER else f"{k:g}"): fire.filter(pl.col("k") == k).sort("game")
            for k in sorted(fire["k"].unique().to_list())}


def test_findings_follow_the_answer_and_the_headline_chart(sweep):
    _, games, paths = sweep
    text = paths["markdown"].read_text(encoding="utf-8")
    findings = text.split("## Findings")[1].split("## ")[0]
    settings = by_setting(games)
    defeat = {s: share(rows, "defeat") for s, rows in settings.items()}
    low, high = min(defeat, key=defeat.get), max(defeat, key=defeat.get)
    quoted = {s: ("“never”" if s == "never" else s) for s in settings}
    assert (f"Defeat is least likely at {quoted[low]} ({100 * defeat[low]:.1f}%) and most "
            f"likely at {quoted[high]} ({100 * defeat[high]:.1f}%)") in findings
    spread = {v: max(share(r, v) for r in settings.values())
              - min(share(r, v) for r in settings.values()) for v in VICTORIES}
    top = max(spread, key=spread.get)
    peak = max(settings, key=lambda s: share(settings[s], top))
    assert (f"{LABELS[top]} peaks at {quoted[peak]} "
            f"({100 * share(settings[peak], top):.1f}%)") in findings
    everything = GAME.result.with_outcomes(games)
    assert f"**Lost** {100 * share(everything, 'defeat'):.1f}% of all 5,600 games" in findings
    assert f"**no result** {pct_text(share(everything, 'no_result'))}, **perfect (all four victories)** " \
        f"{pct_text(share(everything, 'perfect'))}." in findings
    # the answer in words, then the headline chart, then the findings, before every table
    assert text.index("## The answer") < text.index("![") < text.index("## Findings") \
        < text.index("## Tables") < text.index("## What was run")


def test_the_answer_opens_the_report(sweep):
    """The report opens with the answer of report.answer (its sentences are checked
    against counted rates in tests/test_answer.py)."""
    from bollesim.report import answer

    _, games, paths = sweep
    opening = paths["markdown"].read_text(encoding="utf-8").split("## The answer")[1].split("![")[0]
    said = answer.sentences(GAME, games, "k", policy="syn_fire")
    assert said and all(f"- {s}" in opening for s in said), (said, opening)
    headline = paths["markdown"].read_text(encoding="utf-8").split("## Findings")[0]
    assert "(report-trigger-syn-fire-k.png)" in headline  # the chart before the findings


def test_best_setting_table(sweep):
    _, games, paths = sweep
    rows = md_table(paths["markdown"].read_text(encoding="utf-8"), "Best RoE of the first")
    settings = by_setting(games)
    names = list(settings)
    assert [r[0] for r in rows] == [LABELS[o] for o in HEADLINE]
    for row, outcome in zip(rows, HEADLINE, strict=True):
        sign = -1 if outcome == "defeat" else 1
        score = {s: sign * share(settings[s], outcome) for s in names}
        best = max(names, key=lambda s: (score[s], -names.index(s)))
        worst = min(names, key=lambda s: (score[s], names.index(s)))
        hits = {s: _hits(settings[s], outcome) for s in names}
        p_worst = mcnemar(hits[best], hits[worst])
        tied = [s for s in names if s != best and mcnemar(hits[best], hits[s]) >= 0.05]
        gap = abs(share(settings[best], outcome) - share(settings[worst], outcome))
        assert row[1] == best and row[2] == wilson_text(hits[best]), (outcome, row)
        assert row[3] == f"{worst}: {pct_text(share(settings[worst], outcome))}", (outcome, row)
        assert row[4].startswith(f"{100 * gap:.1f} point"), (outcome, row)
        assert row[5].startswith("significant (" if p_worst < 0.05 else "not significant ("), \
            (outcome, row, p_worst)
        default = "is the best" if best == "12" else f"12: {pct_text(share(settings['12'], outcome))}"
        assert row[6].startswith(default), (outcome, row)
        if best != "12":
            p_default = mcnemar(hits[best], hits["12"])
            assert ("not significant (" in row[6]) == (p_default >= 0.05), (outcome, row)
        assert row[7] == ", ".join(tied), (outcome, row, tied)
    assert any(r[7] for r in rows)  # the synthetic sweep has ties to list


def test_rates_table(sweep):
    _, games, paths = sweep
    rows = md_table(paths["markdown"].read_text(encoding="utf-8"), "Rates with 95% intervals")
    labels = ["syn_fire k=8", "syn_fire k=12", "syn_fire k=16", "syn_fire k=20",
              "syn_fire k=24", "syn_fire k=25 (never)", "syn_hold"]
    assert [r[0] for r in rows] == labels + ["**all cells**"]
    for row, cell in zip(rows, range(len(labels)), strict=False):
        cell_games = games.filter(pl.col("cell") == cell)
        assert row[1] == f"{cell_games.height:,}"
        assert row[2:] == [wilson_text(_hits(cell_games, o)) for o in OUTCOMES], row[0]
    assert rows[-1][2:] == [wilson_text(_hits(games, o)) for o in OUTCOMES]


def test_best_and_worst_cell_table(sweep):
    _, games, paths = sweep
    rows = md_table(paths["markdown"].read_text(encoding="utf-8"), "Best and worst cell")
    labels = ["syn_fire k=8", "syn_fire k=12", "syn_fire k=16", "syn_fire k=20",
              "syn_fire k=24", "syn_fire k=25 (never)", "syn_hold"]
    cells = {c: games.filter(pl.col("cell") == c).sort("game") for c in range(7)}
    assert [r[0] for r in rows] == [LABELS[o] for o in HEADLINE]
    for row, outcome in zip(rows, HEADLINE, strict=True):
        sign = -1 if outcome == "defeat" else 1
        order = sorted(cells, key=lambda c: (-sign * share(cells[c], outcome), c))
        best, worst = order[0], order[-1]
        gap = abs(share(cells[best], outcome) - share(cells[worst], outcome))
        p = mcnemar(_hits(cells[best], outcome), _hits(cells[worst], outcome))
        assert row[1:6] == [labels[best], wilson_text(_hits(cells[best], outcome)),
                            labels[worst], pct_text(share(cells[worst], outcome)),
                            f"{100 * gap:.1f} points"], (outcome, row)
        assert row[6].startswith("significant (" if p < 0.05 else "not significant ("), row


def test_endings_table(sweep):
    _, games, paths = sweep
    text = paths["markdown"].read_text(encoding="utf-8")
    rows = md_table(text, "How games end")
    reasons = games["end_reason"].to_numpy()
    assert {r[0] for r in rows} == set(reasons)
    counts = [int((reasons == r[0]).sum()) for r in rows]
    assert counts == sorted(counts, reverse=True)
    for row, count in zip(rows, counts, strict=True):
        defeat = row[0] in ("vehicle destroyed", "VL2 commander killed", "turn 40")
        assert row[1:] == ["defeat" if defeat else "", f"{count:,}",
                           wilson_text(reasons == row[0])], row
    fired = games["first_fire_turn"].drop_nulls().len() / games.height
    assert f"; {pct_text(fired)} of games gave a Fire order" in text


def test_why_games_are_lost(sweep):
    """The section's table and charts, counted here from the rows: the vehicle lost,
    defeats by weapon and place (share of all games), by turn and weapon, and each
    outcome's games by the turn they ended."""
    run, games, paths = sweep
    text = paths["markdown"].read_text(encoding="utf-8")
    defeats = games.filter(pl.col("defeat"))
    rows = md_table(text, "Why games are lost")
    assert "| the vehicle lost | defeats |" in text  # the result column's own label
    vehicles = defeats["loss_vehicle"].fill_null(chartdata.no_loss(GAME)).to_list()
    assert sorted(r[0] for r in rows) == sorted(set(vehicles))
    for row in rows:
        k = vehicles.count(row[0])
        hits = np.array([v == row[0] for v in vehicles] + [False] * (games.height - len(vehicles)))
        assert row[1:] == [f"{k:,}", pct_text(k / len(vehicles)), wilson_text(hits)], row
    loaded, manifest = balance.load_run(run)
    charts = {c.name: c.data for c in balance.build_report(loaded, manifest, run).charts}
    for name, column in (("defeats-cause", "loss_cause"), ("defeats-place", "loss_place")):
        values = defeats[column].fill_null(chartdata.no_loss(GAME)).to_list()
        frame = charts[name].frame
        assert dict(frame.select("outcome", "k").iter_rows()) == {v: values.count(v) for v in values}
        assert frame["k"].to_list() == sorted(frame["k"].to_list(), reverse=True)
        assert (frame["n"] == games.height).all()
    by_turn = charts["defeats-turn"].frame
    pairs = list(zip(defeats["loss_cause"].fill_null(chartdata.no_loss(GAME)).to_list(),
                     defeats["end_turn"].to_list(), strict=True))
    for cause, turn, k in by_turn.select("outcome", "x", "k").iter_rows():
        assert k == pairs.count((cause, int(turn))), (cause, turn)
    assert by_turn["k"].sum() == defeats.height
    ends = charts["outcome-end-turn"].frame
    cells = [games.filter(pl.col("cell") == c).sort("game") for c in games["cell"].unique()]
    for outcome, turn, n, k in ends.select("outcome", "x", "n", "k").iter_rows():
        mine = [(_hits(c, outcome), c["end_turn"].to_numpy()) for c in cells]
        assert n == sum(int(h.sum()) for h, _ in mine)
        assert k == sum(int((h & (t == turn)).sum()) for h, t in mine), (outcome, turn)
    assert "report-defeats-cause.png" in _png_links(text)


def test_paired_differences_table(sweep):
    _, games, paths = sweep
    rows = md_table(paths["markdown"].read_text(encoding="utf-8"), "Paired differences from")
    base = games.filter(pl.col("cell") == 0).sort("game")
    assert len(rows) == 6
    for row, cell in zip(rows, range(1, 7), strict=True):
        other = games.filter(pl.col("cell") == cell).sort("game")
        for text, outcome in zip(row[1:], HEADLINE, strict=True):
            diff = 100 * (share(other, outcome) - share(base, outcome))
            shown = float(text.split(" ")[0])
            assert abs(shown - diff) <= 0.05 + 1e-9 and (shown == 0 or shown * diff > 0), \
                (cell, outcome, text, diff)
            significant = mcnemar(_hits(other, outcome), _hits(base, outcome)) < 0.05
            assert text.endswith(" *") == significant, (cell, outcome, text)


def test_headline_chart_data(sweep):
    """The headline chart's lines, read back from the figure, are the rates per setting."""
    run, games, _ = sweep
    loaded, manifest = balance.load_run(run)
    rep = balance.build_report(loaded, manifest, run)
    ax = rep.charts[0].figure.axes[0]
    settings = by_setting(games)
    for outcome in (*VICTORIES, "defeat"):
        line = next(x for x in ax.get_lines() if x.get_label() == LABELS[outcome])
        expected = [100 * share(settings[s], outcome) for s in settings if s != "never"]
        np.testing.assert_allclose(line.get_ydata(), expected, err_msg=outcome)


def test_example_games_have_their_outcome(sweep):
    run, games, paths = sweep
    text = paths["markdown"].read_text(encoding="utf-8")
    commands = re.findall(r"\| ([^|]+) \| [\d,]+ \| [^|]+ \| `bollesim play --from (\S+) "
                          r"--index (\d+) --cell (\d+)` \|", text)
    assert len(commands) >= 8
    masks = analysis.outcome_masks(GAME, games)
    for outcome, where, game, cell in commands:
        assert where == str(run)
        row = GAME.result.with_outcomes(games).filter((pl.col("game") == int(game))
                                            & (pl.col("cell") == int(cell)))
        assert row.select(masks[outcome.strip()]).item(), (outcome, game, cell)


def test_out_dir_and_plain_run(tmp_path):
    games = make_games(n=300, seed=8, triggers=(12.0,), hold_fire=False)
    run = write_run(tmp_path / "run", games, params={"k": 12.0, "stop_at_tanks": 3.0},
                    ruleset_source={"file": None, "partial": None,
                                    "overrides": ["roe.fire_allowed=10"]},
                    stopped="every rate within 1.0 points after 300 games")
    out = tmp_path / "elsewhere" / "report"
    paths = balance.write_report(run, out)
    assert paths["html"] == out / "report.html" and paths["html"].exists()
    assert not (run / "report.html").exists() and not (run / "report.md").exists()
    text = paths["markdown"].read_text(encoding="utf-8")
    assert "--cell" not in text and f"bollesim play --from {run} --index " in text
    assert "(a plain run)" in text
    wins = ", ".join(f"{LABELS[v]} {pct_text(share(games, v))}" for v in VICTORIES)
    assert f"**Victories**: {wins}." in text
    assert "`--set roe.fire_allowed=10`" in text
    assert "| stopped | every rate within 1.0 points after 300 games |" in text
    assert {p.name for p in paths["charts"]} == {"report-first-fire-turn-syn-fire.png",
                                                  *LOSS_CHARTS}
    for link in _png_links(text):
        assert (out / link).exists()


def test_run_that_never_fires(tmp_path):
    games = make_games(n=200, seed=4, triggers=(), hold_fire=True)
    assert games["first_fire_turn"].null_count() == games.height
    paths = balance.write_report(write_run(tmp_path, games))
    text = paths["markdown"].read_text(encoding="utf-8")
    assert {p.name for p in paths["charts"]} == LOSS_CHARTS
    assert "0.0% of games gave a Fire order" in text
    assert "(observational)" not in text
    assert "first-fire-turn" not in paths["html"].read_text(encoding="utf-8")


def test_load_run_reads_a_verified_folder(tmp_path):
    games = make_games(n=200, seed=5, triggers=(8.0, 16.0), hold_fire=False)
    run = write_run(tmp_path / "run", games)
    loaded, manifest = balance.load_run(run)
    assert loaded.height == games.height and manifest["ruleset_hash"] == HASH
    with open(run / "games.parquet", "r+b") as f:  # one byte changed: refused
        f.seek(100)
        byte = f.read(1)
        f.seek(100)
        f.write(bytes([byte[0] ^ 1]))
    with pytest.raises(RunFolderError, match="SHA-256"):
        balance.write_report(run)


def test_missing_games_is_a_clear_error(tmp_path):
    with pytest.raises(RunFolderError, match="not a run or sweep folder"):
        balance.write_report(tmp_path)


def test_writes_are_atomic(tmp_path, monkeypatch):
    games = make_games(n=200, seed=6, triggers=(8.0, 16.0), hold_fire=False)
    run = write_run(tmp_path, games)
    (run / "report.html").write_text("the previous report", encoding="utf-8")
    real_replace = files.os.replace

    def failing_replace(src, dst):
        if Path(dst).name == "report.html":
            raise OSError("disk full")
        return real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        balance.write_report(run)
    assert (run / "report.html").read_text(encoding="utf-8") == "the previous report"
    assert not [p for p in run.iterdir() if p.name.endswith(".tmp")]


def test_formatting():
    assert chartdata.pct(0.4123) == "41.2%" and chartdata.pct(0.0038) == "0.38%" and chartdata.pct(0.0) == "0.0%"
    assert document.pct_ci(0.5, 0.2366, 0.7634) == "50.0% (23.7–76.3)"
    assert document.points(0.077) == "7.7 points" and document.points(-0.01) == "1.0 point"
    assert document.p_text(1e-9) == "p < 0.001" and document.p_text(0.25) == "p = 0.25"
    assert document.p_text(0.0023) == "p = 0.0023"
    # a difference within a point of zero keeps two decimals, so it never reads +0.0
    assert chartdata.signed_ci(0.012, 0.004, 0.02) == "+1.2 (+0.4 to +2.0)"
    assert chartdata.signed_ci(0.0004, 0.0001, 0.0007) == "+0.04 (+0.01 to +0.07)"
    assert chartdata.signed_ci(-0.003, -0.012, 0.006) == "-0.3 (-1.2 to +0.6)"


HARNESS = """
window.bollesimReady.then(async () => {
  const out = {}, pause = ms => new Promise(r => setTimeout(r, ms));
  const ids = Object.keys(window.bollesimViews);
  out.views = ids;
  out.svgs = document.querySelectorAll(".chart svg").length;
  out.headline_bottom = document.querySelector("figure").getBoundingClientRect().bottom;
  const svg = document.querySelector("#" + ids[0] + " svg");
  const point = svg.querySelectorAll(".mark-symbol path")[0], box = point.getBoundingClientRect();
  for (const type of ["pointermove", "mousemove"]) {
    point.dispatchEvent(new MouseEvent(type, {bubbles: true, clientX: box.x + box.width / 2,
                                              clientY: box.y + box.height / 2}));
  }
  await pause(300);
  const tip = document.getElementById("vg-tooltip-element");
  out.tooltip = tip && tip.classList.contains("visible") ? tip.innerText : null;
  const labels = svg.querySelectorAll(".role-legend-label text");
  out.legend = Array.from(labels).map(t => t.textContent);
  labels[1].dispatchEvent(new MouseEvent("click", {bubbles: true}));
  await pause(300);
  out.picked = window.bollesimViews[ids[0]].data("pick_store").map(d => d.values[0]);
  out.line_opacity = Array.from(svg.querySelectorAll(".mark-line path"))
    .map(p => parseFloat(p.getAttribute("opacity") || "1"));
  const table = Array.from(document.querySelectorAll("table.sortable"))
    .find(t => t.tHead.rows[0].cells[0].textContent.startsWith("cell")
          && t.tHead.textContent.includes("no result"));
  const th = Array.from(table.tHead.rows[0].cells).find(c => c.textContent.startsWith("strategic"));
  const column = () => Array.from(table.tBodies[0].rows).map(r => r.cells[0].textContent);
  th.click();
  out.ascending = column();
  th.click();
  out.descending = column();
  document.body.setAttribute("data-selftest", JSON.stringify(out));
});
"""


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium (Debian: apt-get install -y chromium) - "
                    "report.html was not checked in a real browser")
    command = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--no-first-run", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}",
               "--window-size=1200,900", "--virtual-time-budget=15000", *args]
    done = waiting.run(command, capture_output=True, text=True, seconds=120,
                          env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    shutil.rmtree(tmp_path / "profile", ignore_errors=True)
    return done


def page_selftest(tmp_path: Path, page: Path, harness: str) -> dict:
    """Open page in headless Chromium with harness appended; what the harness recorded in
    the body's data-selftest attribute (JSON)."""
    head, tail = page.read_text(encoding="utf-8").rsplit("</body>", 1)
    probe = tmp_path / "probe.html"
    probe.write_text(f"{head}<script>{harness}</script></body>{tail}", encoding="utf-8")
    done = _chromium(tmp_path, "--dump-dom", probe.as_uri())
    found = re.search(r'data-selftest="([^"]*)"', done.stdout)
    assert found, f"the page's scripts did not finish (exit {done.returncode}): {done.stderr[-1500:]}"
    return json.loads(html.unescape(found.group(1)))


def test_report_is_interactive_in_headless_chromium(sweep, tmp_path):
    """Offline, in a real browser: every chart draws; hovering a point shows its rate,
    interval and games; a click on the legend picks an outcome; a click on a header sorts
    the rates table; the headline chart ends within the first screen (900 pixels)."""
    _, games, paths = sweep
    out = page_selftest(tmp_path, paths["html"], HARNESS)
    assert len(out["views"]) == out["svgs"] == len(paths["charts"])
    assert out["headline_bottom"] < 900
    k8 = games.filter(pl.col("cell") == 0)
    tip = " ".join(out["tooltip"].split())
    assert "operational victory" in tip and "8" in tip
    assert f"{100 * share(k8, 'operational'):.1f}" in tip
    assert f"{int(_hits(k8, 'operational').sum())}" in tip and f"{k8.height}" in tip
    assert out["legend"] == [LABELS[o] for o in (*VICTORIES, "defeat")]
    assert out["picked"] == ["tactical victory"]
    assert sorted(out["line_opacity"]) == [0.12] * 4 + [1.0]
    labels = ["syn_fire k=8", "syn_fire k=12", "syn_fire k=16", "syn_fire k=20",
              "syn_fire k=24", "syn_fire k=25 (never)", "syn_hold"]
    strategic = [share(games.filter(pl.col("cell") == c), "strategic") for c in range(7)]
    ascending = [labels[c] for c in sorted(range(7), key=lambda c: strategic[c])]
    assert ascending != labels  # so that sorting shows
    assert out["ascending"][:-1] == ascending and out["ascending"][-1] == "all cells"
    assert [strategic[labels.index(x)] for x in out["descending"][:-1]] \
        == sorted(strategic)[::-1]


def test_report_screenshot_in_headless_chromium(sweep, tmp_path):
    from matplotlib.image import imread

    _, _, paths = sweep
    shot = tmp_path / "report.png"
    done = _chromium(tmp_path, f"--screenshot={shot}", paths["html"].as_uri())
    assert shot.exists(), f"no screenshot (exit {done.returncode}): {done.stderr[-2000:]}"
    pixels = imread(shot)[..., :3]
    assert pixels.shape[:2] == (900, 1200)
    blue = np.array([0, 114, 178]) / 255  # operational victory in the headline chart
    chart_pixels = (np.abs(pixels - blue).max(axis=-1) < 12 / 255).sum()
    assert chart_pixels > 300, "the headline chart is not drawn on the first screen"


def test_untrusted_text_is_escaped_and_commands_quoted(tmp_path):
    games = make_games(n=120, seed=9, triggers=(8.0, 16.0), hold_fire=False)
    run = write_run(tmp_path / "my run's <b>", games, experiment="<img src=x onerror=alert(1)>",
                    description="## <script>alert('spec')</script>\n<iframe>",
                    spec_file="<b>manifest</b>")
    paths = balance.write_report(run)
    text = paths["markdown"].read_text(encoding="utf-8")
    page = paths["html"].read_text(encoding="utf-8")
    outside_code = re.sub(r"`[^`]*`", "", text)  # a code span shows its text as it is
    for raw in ("<img src=x", "<script>alert", "<iframe", "<b>"):
        assert raw not in outside_code, raw
        assert raw not in page.split("<body>")[1].split("<script")[0], raw
    assert "# Balance report: &lt;img src=x onerror=alert(1)&gt;" in text
    assert "\n## &lt;script" not in text  # the description's "##" starts no heading
    commands = re.findall(r"`(bollesim play --from .*?)`", text)
    assert commands
    for command in commands:
        words = shlex.split(command)  # not entities: Markdown shows a code span as written
        assert words[:3] == ["bollesim", "play", "--from"] and words[3] == str(run)


def test_rates_csv(sweep):
    run, games, paths = sweep
    rates = pl.read_csv(paths["rates"])
    assert rates.columns == ["cell", "label", "policy", "k", "stop_at_tanks", "outcome", "games",
                             "games_with", "rate", "low", "high"]
    assert rates.height == games["cell"].n_unique() * len(OUTCOMES)
    for row in rates.iter_rows(named=True):
        rows = games.filter(pl.col("cell") == row["cell"])
        hits = _hits(rows, row["outcome"])
        assert (row["games"], row["games_with"]) == (rows.height, int(hits.sum()))
        assert row["rate"] == pytest.approx(hits.mean(), abs=1e-6)
        assert f"{row['low'] * 100:.1f}" in wilson_text(hits) or hits.mean() < 0.01
