"""bollesim.report: report.html and report.md from a synthetic run folder.

The run folders hold the synthetic sweep of test_analysis (known probabilities, common
random numbers) written as the runner writes a run: games.parquet and manifest.json.
The last test opens report.html in a real headless browser (Debian's chromium) when
/usr/bin/chromium exists.
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from test_analysis import make_games, synthetic_policies

from bollesim import analysis as A
from bollesim import report as R
from bollesim.runfolder import RunFolderError, write_games

CHROMIUM = Path("/usr/bin/chromium")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
HASH = "0123456789abcdef" * 4


def write_run(folder: Path, games: pl.DataFrame, **manifest) -> Path:
    cells = A.cell_labels(games)
    info = {"ruleset": "default", "ruleset_hash": HASH, "policy": cells["policy"][0],
            "params": {}, "seed": int(games["seed"][0]),
            "version": "0.1.0", "engine": "fast",
            "timings": {"run_s": 1.5, "games_per_s": 12345.6, "total_s": 2.0},
            "cells": [{"cell": int(c), "policy": p, "params": {}}
                      for c, p in cells.select("cell", "policy").iter_rows()]}
    info.update(manifest)
    write_games(folder, games, **info)
    return folder


@pytest.fixture(scope="module", autouse=True)
def _declared():
    with synthetic_policies():
        yield


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> tuple[Path, pl.DataFrame, dict]:
    games = make_games(n=800, seed=3)
    run = write_run(tmp_path_factory.mktemp("sweep"), games)
    return run, games, R.write_report(run)


def _png_links(markdown: str) -> list[str]:
    return re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", markdown)


def test_report_files_exist(sweep):
    run, _, paths = sweep
    assert paths["html"] == run / "report.html" and paths["html"].stat().st_size > 10_000
    assert paths["markdown"] == run / "report.md" and paths["markdown"].exists()
    names = {p.name for p in paths["charts"]}
    assert names == {"report-trigger-syn-fire-k.png", "report-comparison.png",
                     "report-first-fire-turn.png", "report-first-fire-roe.png"}
    leftovers = [p.name for p in run.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_html_is_self_contained_with_charts(sweep):
    run, _, paths = sweep
    page = paths["html"].read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    images = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == len(paths["charts"]) == 4
    for data in images:
        png = base64.b64decode(data)
        assert png.startswith(PNG_MAGIC) and len(png) > 20_000
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched from elsewhere
    assert "<script" not in page and "<link" not in page


def test_markdown_references_existing_pngs(sweep):
    run, _, paths = sweep
    text = paths["markdown"].read_text(encoding="utf-8")
    links = _png_links(text)
    assert len(links) == 4
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


def test_report_findings(sweep):
    _, games, paths = sweep
    text = paths["markdown"].read_text(encoding="utf-8")
    best = A.best_trigger(games, "k")
    op = best.filter(pl.col("outcome") == "operational").row(0, named=True)
    assert op["best_label"] == "8"
    assert "**Operational victory** is most likely with `k = 8`" in text
    assert R.points(op["gain_vs_worst"]) in text
    assert "than with the default `k = 12`" in text
    assert "**Defeat** is least likely with `k = 8`" in text
    assert "**All four victories** are most likely" in text
    assert "**Everything won**" in text and "**Lost**" in text
    for reason in ("vehicle destroyed", "VL2 commander killed", "turn 40"):
        assert reason in text
    overall = A.rates(games).row(0, named=True)
    assert R.pct_ci(overall["defeat_rate"], overall["defeat_low"], overall["defeat_high"]) in text


def test_rates_table_matches_analysis(sweep):
    _, games, paths = sweep
    text = paths["markdown"].read_text(encoding="utf-8")
    table = A.rates(games, by="cell")
    labels = dict(A.cell_labels(games).select("cell", "label").iter_rows())
    for r in table.iter_rows(named=True):
        cells = [labels[r["cell"]], f"{r['n']:,}"] + [
            R.pct_ci(r[f"{o}_rate"], r[f"{o}_low"], r[f"{o}_high"]) for o in A.OUTCOMES]
        assert "| " + " | ".join(cells) + " |" in text


def test_example_games_have_their_outcome(sweep):
    run, games, paths = sweep
    text = paths["markdown"].read_text(encoding="utf-8")
    commands = re.findall(r"\| ([^|]+) \| [\d,]+ \| [^|]+ \| `bollesim play --from (\S+) "
                          r"--game (\d+) --cell (\d+)` \|", text)
    assert len(commands) >= 8
    masks = A.outcome_masks(games)
    for outcome, where, game, cell in commands:
        assert where == str(run)
        row = A.with_outcomes(games).filter((pl.col("game") == int(game))
                                            & (pl.col("cell") == int(cell)))
        assert row.select(masks[outcome.strip()]).item(), (outcome, game, cell)


def test_out_dir_and_plain_run(tmp_path):
    games = make_games(n=300, seed=8, triggers=(12.0,), hold_fire=False)
    run = write_run(tmp_path / "run", games, params={"k": 12.0, "stop_at_tanks": 3.0},
                    ruleset_source={"file": None, "partial": None,
                                    "overrides": ["roe.fire_allowed=10"]},
                    stopped="every rate within 1.0 points after 300 games")
    out = tmp_path / "elsewhere" / "report"
    paths = R.write_report(run, out)
    assert paths["html"] == out / "report.html" and paths["html"].exists()
    assert not (run / "report.html").exists() and not (run / "report.md").exists()
    text = paths["markdown"].read_text(encoding="utf-8")
    assert "--cell" not in text and f"bollesim play --from {run} --game " in text
    assert "(a plain run)" in text and "**Victories**" in text
    assert "`--set roe.fire_allowed=10`" in text
    assert "| stopped | every rate within 1.0 points after 300 games |" in text
    assert {p.name for p in paths["charts"]} == {"report-first-fire-turn.png",
                                                 "report-first-fire-roe.png"}
    for link in _png_links(text):
        assert (out / link).exists()


def test_run_that_never_fires(tmp_path):
    games = make_games(n=200, seed=4, triggers=(), hold_fire=True)
    assert games["first_fire_turn"].null_count() == games.height
    paths = R.write_report(write_run(tmp_path, games))
    text = paths["markdown"].read_text(encoding="utf-8")
    assert paths["charts"] == [] and "no game gave one" in text
    assert "<img" not in paths["html"].read_text(encoding="utf-8")


def test_load_run_reads_a_verified_folder(tmp_path):
    games = make_games(n=200, seed=5, triggers=(8.0, 16.0), hold_fire=False)
    run = write_run(tmp_path / "run", games)
    loaded, manifest = R.load_run(run)
    assert loaded.height == games.height and manifest["ruleset_hash"] == HASH
    with open(run / "games.parquet", "r+b") as f:  # one byte changed: refused
        f.seek(100)
        byte = f.read(1)
        f.seek(100)
        f.write(bytes([byte[0] ^ 1]))
    with pytest.raises(RunFolderError, match="SHA-256"):
        R.write_report(run)


def test_missing_games_is_a_clear_error(tmp_path):
    with pytest.raises(RunFolderError, match="not a run or sweep folder"):
        R.write_report(tmp_path)


def test_writes_are_atomic(tmp_path, monkeypatch):
    games = make_games(n=200, seed=6, triggers=(8.0, 16.0), hold_fire=False)
    run = write_run(tmp_path, games)
    (run / "report.html").write_text("the previous report", encoding="utf-8")
    real_replace = R.os.replace

    def failing_replace(src, dst):
        if Path(dst).name == "report.html":
            raise OSError("disk full")
        return real_replace(src, dst)

    monkeypatch.setattr(R.os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        R.write_report(run)
    assert (run / "report.html").read_text(encoding="utf-8") == "the previous report"
    assert not [p for p in run.iterdir() if p.name.endswith(".tmp")]


def test_formatting():
    assert R.pct(0.4123) == "41.2%" and R.pct(0.0038) == "0.38%" and R.pct(0.0) == "0.0%"
    assert R.pct_ci(0.5, 0.2366, 0.7634) == "50.0% (23.7–76.3)"
    assert R.points(0.077) == "7.7 points" and R.points(-0.01) == "1.0 point"
    assert R.p_text(1e-9) == "p < 0.0001" and R.p_text(0.25) == "p = 0.25"


def test_report_opens_in_headless_chromium(sweep, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium (Debian: apt-get install -y chromium) - "
                    "report.html was not checked in a real browser")
    from matplotlib.image import imread

    _, _, paths = sweep
    shot = tmp_path / "report.png"
    command = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--no-first-run", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}",
               f"--screenshot={shot}", "--window-size=1200,3000", paths["html"].as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=90,
                          env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert shot.exists(), f"no screenshot (exit {done.returncode}): {done.stderr[-2000:]}"
    assert shot.stat().st_size > 50_000
    pixels = imread(shot)[..., :3]
    assert pixels.shape[:2] == (3000, 1200)
    colours = np.unique((pixels * 255).round().astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 100  # text, tables and charts, not a blank page
    blue = np.array([0, 114, 178]) / 255  # operational victory in every chart
    chart_pixels = (np.abs(pixels - blue).max(axis=-1) < 12 / 255).sum()
    assert chart_pixels > 500, "the embedded charts did not render"
    shutil.rmtree(tmp_path / "profile", ignore_errors=True)
