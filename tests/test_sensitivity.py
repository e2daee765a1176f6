"""`bollesim sensitivity SPEC` (bollesim/batch/, stats/ and report/sensitivity.py): an experiment under each
alternative reading on the same seeds, as one sweep, and its report.

Every number of the report is recomputed here from the rows: the alternative of a row is
read from its `ruleset` column and a cell from its policy and parameters (never from the
cell numbering the module lays out), rates and McNemar p-values with plain numpy and
tests/oracles.py."""

from __future__ import annotations

import html
import itertools
import json
import math
import re
from pathlib import Path

import numpy as np
import oracles
import polars as pl
import pytest
from oracles import outcome_hits as hits
from test_report import md_table, page_selftest, page_specs
from test_sweep import assert_one_line_error, invoke, write_spec

import bollesim
from bollesim.batch import runner
from bollesim.batch.partial import interrupted_run
from bollesim.batch.runfolder import open_run
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.bollebank.rules.readings import BY_ID

SPEC = """
name = "sens"
seed = 2
games = 600

[[grid]]
policy = "fire_at_roe"
params = { k = [8, 16, 25], stop_at_tanks = 0 }

[[grid]]
policy = "fire_at_turn"
params = { t = [1, 10], stop_at_tanks = 0 }
"""
ONLY = ("--only", "I-AIR", "--only", "R-TRACK", "--only", "I-DIPLO")
ALTERNATIVES = ["R-TRACK=easier", "R-TRACK=harder", "R-TRACK=tank-6", "R-TRACK=tank-8",
                "I-AIR=ceil", "I-DIPLO=alone"]
"""The variants of the three readings other than their defaults, in docs/readings.md order."""
SETTINGS = {"fire_at_roe": ("k", [8.0, 16.0, 25.0]), "fire_at_turn": ("t", [1.0, 10.0])}
LABEL = {"k": "RoE from which the first Fire order is given",
         "t": "turn from which the first Fire order is given"}
FINDINGS = ("operational", "tactical", "strategic", "political", "defeat")
OUTCOMES = (*FINDINGS[:4], "perfect", "defeat", "no_result")
NAMES = {"operational": "operational victory", "tactical": "tactical victory",
         "strategic": "strategic victory", "political": "political victory",
         "perfect": "perfect (all four victories)", "defeat": "defeat", "no_result": "no result"}


@pytest.fixture(scope="module")
def sens(tmp_path_factory) -> tuple[Path, Path, pl.DataFrame, dict]:
    """(spec, folder, games, --json answer) of the sensitivity run."""
    folder = tmp_path_factory.mktemp("sens")
    spec = write_spec(folder, SPEC)
    result = invoke("sensitivity", spec, *ONLY, "--out", folder / "out", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    answer["printed"] = result.stderr  # the human lines
    return spec, folder / "out", open_run(folder / "out").read(), answer


def cell_rows(games: pl.DataFrame, alternative: str, policy: str, value: float) -> pl.DataFrame:
    """The games of one setting of one policy under one alternative ("" as specified)."""
    param = SETTINGS[policy][0]
    return games.filter((pl.col("ruleset") == alternative) & (pl.col("policy") == policy)
                        & (pl.col(param) == value)).sort("game")


def setting_hits(games, alternative, outcome) -> dict[tuple[str, float], np.ndarray]:
    return {(policy, v): hits(cell_rows(games, alternative, policy, v), outcome)
            for policy, (_, values) in SETTINGS.items() for v in values}


def test_every_cell_under_every_alternative_on_the_same_seeds(sens):
    _, _, games, answer = sens
    assert answer["alternatives"] == ALTERNATIVES
    assert set(games["ruleset"]) == {"", *ALTERNATIVES}
    for alternative in ["", *ALTERNATIVES]:
        for policy, (_, values) in SETTINGS.items():
            for v in values:
                rows = cell_rows(games, alternative, policy, v)
                assert rows["game"].to_list() == list(range(600)), (alternative, policy, v)
    results = [name for name, _ in runner.result_columns("bollebank")]
    for alternative, policy, v in (("R-TRACK=tank-8", "fire_at_turn", 10.0),
                                   ("I-AIR=ceil", "fire_at_roe", 16.0), ("", "fire_at_roe", 8.0)):
        readings = dict([alternative.split("=")]) if alternative else {}
        rules = load_ruleset(readings=readings)
        param = SETTINGS[policy][0]
        expected = bollesim.simulate(policy, 600, seed=2, params={param: v, "stop_at_tanks": 0},
                                     rules=rules)
        rows = cell_rows(games, alternative, policy, v)
        assert rows.select(results).equals(expected.select(results)), (alternative, policy, v)
        assert set(rows["ruleset_hash"]) == {rules.digest}


def expected_effect(games: pl.DataFrame, alternative: str, outcome: str) -> dict:
    """The change over all cells, the game number as the unit."""
    change = np.zeros(600)
    for policy, (_, values) in SETTINGS.items():
        for v in values:
            change += (hits(cell_rows(games, alternative, policy, v), outcome).astype(float)
                       - hits(cell_rows(games, "", policy, v), outcome))
    d = change / 5
    se = d.std(ddof=1) / math.sqrt(len(d))
    z = d.mean() / se if se else (0.0 if d.mean() == 0 else math.inf)
    p = math.erfc(abs(z) / math.sqrt(2))
    rate = {a: np.mean([hits(cell_rows(games, a, pol, v), outcome).mean()
                        for pol, (_, values) in SETTINGS.items() for v in values])
            for a in ("", alternative)}
    return {"diff": d.mean(), "low": d.mean() - 1.96 * se, "high": d.mean() + 1.96 * se,
            "p_value": p, "rate_default": rate[""], "rate_alternative": rate[alternative]}


def test_effects_from_the_rows(sens):
    _, out, games, answer = sens
    effects = pl.read_csv(out / "sensitivity-effects.csv")
    assert effects.select("alternative", "outcome").rows() == list(
        itertools.product(ALTERNATIVES, OUTCOMES))
    for row, said in zip(effects.iter_rows(named=True), answer["effects"], strict=True):
        assert row["alternative"] == said["alternative"] and row["outcome"] == said["outcome"]
        assert row["diff"] == pytest.approx(said["diff"], abs=1e-6)  # the CSV is rounded
    for row in effects.iter_rows(named=True):
        want = expected_effect(games, row["alternative"], row["outcome"])
        for key, value in want.items():
            assert row[key] == pytest.approx(value, abs=1e-6), (row["alternative"],
                                                                row["outcome"], key)
        assert row["significant"] == (want["p_value"] < 0.05)
        assert (row["cells"], row["n"]) == (5, 600)
    assert effects["significant"].any() and not effects["significant"].all()


def pct(x: float) -> str:
    return f"{100 * x:.2f}%" if 0 < 100 * x < 1 else f"{100 * x:.1f}%"


def value_label(policy: str, v: float) -> str:
    return "never" if (policy, v) == ("fire_at_roe", 25.0) else f"{v:g}"


def best_setting(games, alternative, policy, outcome) -> tuple[float, list[float], dict]:
    """(best value, values not significantly different from it, rates by value)."""
    sign = -1 if outcome == "defeat" else 1
    values = SETTINGS[policy][1]
    got = {v: hits(cell_rows(games, alternative, policy, v), outcome) for v in values}
    rate = {v: got[v].mean() for v in values}
    best = max(values, key=lambda v: (sign * rate[v], -values.index(v)))
    tied = [v for v in values if v != best and mcnemar(got[best], got[v]) >= 0.05]
    return best, tied, rate


def mcnemar(a: np.ndarray, b: np.ndarray) -> float:
    return oracles.mcnemar(int((a & ~b).sum()), int((~a & b).sum()))


def ranking(games, alternative, outcome) -> list[tuple[str, float, float]]:
    """(policy, best value, rate) best first, ties by policy name."""
    sign = -1 if outcome == "defeat" else 1
    best = {}
    for policy in SETTINGS:
        value, _, rate = best_setting(games, alternative, policy, outcome)
        best[policy] = (value, rate[value])
    order = sorted(best, key=lambda p: (-sign * best[p][1], p))
    return [(p, *best[p]) for p in order]


def expected_findings(games: pl.DataFrame) -> list[dict]:
    out = []
    for policy, (param, _) in SETTINGS.items():
        for outcome in FINDINGS:
            mine, _, rate = best_setting(games, "", policy, outcome)
            for alternative in ALTERNATIVES:
                best, tied, alt_rate = best_setting(games, alternative, policy, outcome)
                verdict = ("holds" if best == mine else "holds within noise" if mine in tied
                           else "changes")
                sign = -1 if outcome == "defeat" else 1
                gain = sign * (alt_rate[best] - alt_rate[mine])
                p = mcnemar(hits(cell_rows(games, alternative, policy, best), outcome),
                            hits(cell_rows(games, alternative, policy, mine), outcome))
                p_words = ("p < 0.001" if p < 1e-3 else f"p = {p:.2g}" if p < 0.01
                           else f"p = {p:.2f}")
                out.append({
                    "finding": f"best {LABEL[param]} ({policy} {param}) for {NAMES[outcome]}",
                    "alternative": alternative, "verdict": verdict,
                    "as_specified": f"{value_label(policy, mine)} ({pct(rate[mine])})",
                    "answer": f"{value_label(policy, best)} ({pct(alt_rate[best])})",
                    "move": f", where the answer as specified gets {pct(alt_rate[mine])}: "
                            f"{'+' if gain >= 0 else '-'}{100 * abs(gain):.1f} points, {p_words}"})
    for outcome in FINDINGS:
        mine = ranking(games, "", outcome)
        for alternative in ALTERNATIVES:
            theirs = ranking(games, alternative, outcome)
            verdict = "holds"
            if [p for p, _, _ in theirs] != [p for p, _, _ in mine]:
                # two policies: the swapped pair is the two best cells under the alternative
                (p, v, _), (q, w, _) = theirs
                a = hits(cell_rows(games, alternative, p, v), outcome)
                b = hits(cell_rows(games, alternative, q, w), outcome)
                verdict = "changes" if mcnemar(a, b) < 0.05 else "holds within noise"

            def text(order):
                return ", then ".join(f"{p} ({SETTINGS[p][0]}={v:g}"
                                      f"{' (never)' if value_label(p, v) == 'never' else ''}"
                                      f", {pct(r)})" for p, v, r in order)

            out.append({"finding": f"ranking of the policies by {NAMES[outcome]}",
                        "alternative": alternative, "verdict": verdict,
                        "as_specified": text(mine), "answer": text(theirs), "move": ""})
    return out


def test_robustness_from_the_rows(sens):
    _, out, games, answer = sens
    found = pl.read_csv(out / "sensitivity-robustness.csv").select(
        "finding", "alternative", "verdict", "as_specified", "answer")
    expected = [{k: e[k] for k in found.columns} for e in expected_findings(games)]
    assert sorted(found.to_dicts(), key=str) == sorted(expected, key=str)
    assert [r["verdict"] for r in answer["robustness"]] == found["verdict"].to_list()
    verdicts = set(found["verdict"])
    assert verdicts == {"holds", "holds within noise", "changes"}  # the oracle sees each answer


def test_report_tables_and_charts(sens):
    _, out, games, _ = sens
    text = (out / "sensitivity.md").read_text(encoding="utf-8")
    rows = md_table(text, "Do the findings hold?")
    expected = expected_findings(games)
    for row in rows:
        mine = [e for e in expected if e["finding"] == row[0]]
        holds = sum(e["verdict"] == "holds" for e in mine)
        assert row[2] == f"{holds} of {len(ALTERNATIVES)}", row
        changed = [f"`{e['alternative']}`: {e['answer']}" for e in mine
                   if e["verdict"] == "changes"]
        assert row[4] == "; ".join(changed), row
    assert len(rows) == 2 * 5 + 5
    page = (out / "sensitivity.html").read_text(encoding="utf-8")
    specs = page_specs(page)
    assert list(specs) == [f"vis-tornado-{o}" for o in FINDINGS]
    for outcome in FINDINGS:
        bars = next(iter(specs[f"vis-tornado-{outcome}"]["datasets"].values()))
        want = {a: 100 * expected_effect(games, a, outcome)["diff"] for a in ALTERNATIVES}
        assert {b["row"]: b["diff_pts"] for b in bars} == pytest.approx(want, abs=0.0051)
        for b in bars:  # labelled with the reading's meaning, coloured for the player
            rid, name = b["row"].split("=", 1)
            assert b["meaning"] == BY_ID[rid].variant(name).description
            assert b["shown"].startswith(f"{b['row']}: ")
            gains = (b["diff_pts"] > 0) != (outcome == "defeat")
            assert b["for_player"] == ("no clear change" if not b["significant"] else
                                       "better" if gains else "worse"), b
        sizes = [abs(b["diff_pts"]) for b in bars]
        assert sizes == sorted(sizes, reverse=True)  # the largest move on top
    links = re.findall(r"\]\((sensitivity-tornado-\w+\.png)\)", text)
    assert links == [f"sensitivity-tornado-{o}.png" for o in FINDINGS]
    assert all((out / link).exists() for link in links)


def test_the_findings_say_which_findings_move_and_how_far(sens):
    """The summary counts a finding whose answer moves within noise apart from one that
    holds, and names every move: the finding, its answer as specified and under each
    alternative that moves it, and by how much the new answer beats the old one there
    (points, exact McNemar p); the command line prints the same lines."""
    _, out, games, _ = sens
    text = (out / "sensitivity.md").read_text(encoding="utf-8")
    findings = text.split("## Findings")[1].split("\n## ")[0]
    expected = expected_findings(games)
    verdicts: dict[str, set] = {}
    for e in expected:
        verdicts.setdefault(e["finding"], set()).add(e["verdict"])
    changed = sum("changes" in v for v in verdicts.values())
    noisy = sum(v == {"holds", "holds within noise"} or v == {"holds within noise"}
                for v in verdicts.values())
    assert any(e["verdict"] == "holds within noise" for e in expected)  # a move to name
    assert (f"{len(verdicts) - changed - noisy} of {len(verdicts)} findings hold under every "
            f"alternative, {noisy} more within noise") in findings
    for finding, moves in itertools.groupby(
            (e for e in expected if e["verdict"] != "holds"), key=lambda e: e["finding"]):
        moves = list(moves)
        line = html.unescape(next(line for line in findings.splitlines() if f"The {finding}, " in line))
        assert f"{moves[0]['as_specified']} as specified, moves: " in line, line
        for e in moves:
            noise = " (within noise)" if e["verdict"] == "holds within noise" else ""
            assert f"to {e['answer']} under `{e['alternative']}`{e['move']}{noise}" in line, line
        assert f"  - {line.removeprefix('- ')}" in sens[3]["printed"].splitlines()
    assert sens[3]["robustness"][0].keys() >= {"specified_there", "gain", "p_value"}


def test_resume_and_report_of_the_folder(sens, tmp_path, monkeypatch):
    spec, _, games, answer = sens
    out = tmp_path / "out"
    real, calls = runner.play_chunk, []

    def stop_after_twenty(*args, **kwargs):
        calls.append(1)
        if len(calls) > 21:  # the warm-up and twenty chunks
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "play_chunk", stop_after_twenty)
    assert invoke("sensitivity", spec, *ONLY, "--out", out).exit_code == 130
    monkeypatch.setattr(runner, "play_chunk", real)
    assert interrupted_run(out).saved == 20 * 600
    result = invoke("sensitivity", spec, *ONLY, "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert open_run(out).read().sort("cell", "game").equals(games.sort("cell", "game"))
    (out / "sensitivity.md").unlink()
    result = invoke("report", out, "--out", tmp_path / "again", "--json")
    assert result.exit_code == 0, result.output
    again = tmp_path / "again" / "sensitivity.md"
    assert json.loads(result.stdout)["markdown"] == str(again)
    assert "## Do the findings hold?" in again.read_text(encoding="utf-8")


def test_mistakes_are_one_line(tmp_path):
    spec = write_spec(tmp_path, SPEC)
    out = tmp_path / "out"
    assert_one_line_error(invoke("sensitivity", spec, "--only", "I-AIRR", "--out", out),
                          "I-AIRR", "did you mean I-AIR")
    assert_one_line_error(invoke("sensitivity", spec, "--only", "I-ROE0", "--out", out),
                          "I-ROE0 has no alternative")
    axes = write_spec(tmp_path, SPEC + 'rules = { "tracks.tank_to_hit" = [7, 8] }\n', "ax.toml")
    assert_one_line_error(invoke("sensitivity", axes, "--out", out), "ax.toml",
                          "no rules or readings")
    assert not out.exists()


def test_the_page_is_interactive_in_headless_chromium(sens, tmp_path):
    """Offline, in a real browser: every tornado chart draws, and hovering a bar shows
    its alternative, both rates and the change."""
    _, out, _, _ = sens
    harness = """
window.bollesimReady.then(async () => {
  const ids = Object.keys(window.bollesimViews);
  const bar = document.querySelector("#" + ids[0] + " .mark-rect path");
  const box = bar.getBoundingClientRect();
  for (const type of ["pointermove", "mousemove"]) {
    bar.dispatchEvent(new MouseEvent(type, {bubbles: true, clientX: box.x + box.width / 2,
                                            clientY: box.y + box.height / 2}));
  }
  await new Promise(r => setTimeout(r, 300));
  const tip = document.getElementById("vg-tooltip-element");
  document.body.setAttribute("data-selftest", JSON.stringify({
    views: ids, svgs: document.querySelectorAll(".chart svg").length,
    tooltip: tip && tip.classList.contains("visible") ? tip.innerText : null}));
});
"""
    seen = page_selftest(tmp_path, out / "sensitivity.html", harness)
    assert len(seen["views"]) == seen["svgs"] == 5
    assert "difference (points)" in seen["tooltip"] and "=" in seen["tooltip"]


def test_games_played_differently_from_the_rows(sens):
    """The rates table's last column counts, per alternative, the game numbers whose row
    differs from the one as specified in some cell, in any result column (I-DIPLO=alone
    changes only the victory assessment, so its rows differ only where a diplomatic
    victory comes alone)."""
    _, out, games, _ = sens
    rows = {r[0]: r[-1] for r in md_table((out / "sensitivity.md").read_text(encoding="utf-8"),
                                          "Rates under each alternative")}
    columns = [c for c, _ in runner.result_columns("bollebank")]
    for alternative in ALTERNATIVES:
        changed = set()
        for policy, (_, values) in SETTINGS.items():
            for v in values:
                mine = cell_rows(games, alternative, policy, v).select("game", *columns).rows()
                theirs = cell_rows(games, "", policy, v).select("game", *columns).rows()
                changed |= {a[0] for a, b in zip(mine, theirs, strict=True) if a != b}
        n = games["game"].n_unique()
        want = f"none of {n:,}" if not changed else f"{len(changed):,} of {n:,} ({pct(len(changed) / n)})"
        assert rows[f"`{alternative}`"] == want, (alternative, rows)


def test_with_strong_the_strong_player_takes_each_swept_trigger(tmp_path):
    """--strong adds the strong player's cells at the swept trigger values (its trigger
    imposed), and each finding's `for_strong` is the verdict of the policy's answer among
    the strong player's settings, from the rows (McNemar, corrected for choosing the best
    among them)."""
    from bollesim.game.registry import load_game

    game = load_game("bollebank")
    counterpart = {(t.policy, t.param): t.strong for t in game.triggers if t.strong}
    spec = write_spec(tmp_path, SPEC.replace("games = 600", "games = 300"))
    result = invoke("sensitivity", spec, "--only", "I-AIR", "--strong", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    games = open_run(tmp_path / "out").read()
    found = pl.read_csv(tmp_path / "out" / "sensitivity-robustness.csv")
    checked = 0
    for policy, (param, values) in SETTINGS.items():
        imposed = counterpart[policy, param]
        others = [p for (q, _), p in counterpart.items() if p != imposed]
        cells = games.filter((pl.col("ruleset") == "") & (pl.col("policy") == game.strong)
                             & pl.all_horizontal([pl.col(p) == 0 for p in others]))
        assert sorted(cells[imposed].unique().to_list()) == values
        for outcome in FINDINGS:
            sign = -1 if outcome == "defeat" else 1
            got = {v: hits(cells.filter(pl.col(imposed) == v).sort("game"), outcome)
                   for v in values}
            best = max(values, key=lambda v: (sign * got[v].mean(), -values.index(v)))
            tied = [v for v in values if v != best
                    and mcnemar(got[best], got[v]) >= 0.05 / (len(values) - 1)]
            mine, _, _ = best_setting(games, "", policy, outcome)
            verdict = ("holds" if best == mine else "holds within noise" if mine in tied
                       else "changes")
            rows = found.filter(pl.col("finding") ==
                                f"best {LABEL[param]} ({policy} {param}) for {NAMES[outcome]}")
            assert rows.height and set(rows["for_strong"]) == {verdict}, (policy, outcome)
            checked += verdict != "holds"
    assert checked  # the oracle sees a finding that does not simply hold
    assert "For the strong player" in (tmp_path / "out" / "sensitivity.md").read_text()
