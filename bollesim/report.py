"""The balance report of a run or sweep: report.html (self-contained) and report.md.

    from bollesim.report import write_report
    paths = write_report("results/first_fire")      # -> {"html": ..., "markdown": ..., ...}

A run directory holds games.parquet (one row per game, docs/architecture.md §5; a file or a folder
of Parquet files) and manifest.json. The report says what was run, shows the headline
charts, tabulates every rate with its 95% interval, states the findings in plain words
(which trigger is best for each victory type and by how much, how often everything is
won, how often and how the game is lost) and names example games for each outcome, to
replay with `bollesim play --from DIR --game N`.

The content is built once as a list of blocks and rendered twice: HTML with the charts
embedded as base64 PNG, Markdown with the charts as PNG files next to it. Every file is
written atomically (a temporary name in the same folder, then os.replace).
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
import re
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from bollesim import analysis as A
from bollesim import plots

EXAMPLES_PER_OUTCOME = 5
MAX_COMPARED_CELLS = 12  # above this, cells are compared through the trigger charts only
CHART_DPI = 110


# -- content model --------------------------------------------------------------------------
# Text may use **bold** and `code`; both renderers understand these two marks.


@dataclass
class Chart:
    name: str        # file stem: report-<name>.png
    figure: object   # matplotlib Figure
    alt: str         # what the chart shows, one sentence
    png: bytes = b""


@dataclass
class Report:
    title: str
    blocks: list[tuple] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)

    def h(self, level: int, text: str) -> None:
        self.blocks.append(("h", level, text))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def ul(self, items: list[str]) -> None:
        if items:
            self.blocks.append(("ul", items))

    def table(self, header: list[str], rows: list[list[str]],
              right: set[int] | None = None) -> None:
        self.blocks.append(("table", header, rows, right or set()))

    def chart(self, name: str, figure, alt: str) -> None:
        chart = Chart(_slug(name), figure, alt)
        self.charts.append(chart)
        self.blocks.append(("chart", chart))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "chart"


# -- number formatting ----------------------------------------------------------------------


def pct(x: float | None) -> str:
    """0.4123 -> "41.2%"; below 1%, two decimals."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    v = 100.0 * x
    return f"{v:.2f}%" if 0 < abs(v) < 1 else f"{v:.1f}%"


def pct_ci(rate: float, low: float, high: float) -> str:
    """"41.2% (40.3–42.1)": a rate and its 95% interval (two decimals below 1%)."""
    if rate is None or math.isnan(rate):
        return "–"
    digits = 2 if 0 < 100 * rate < 1 or 100 * high < 1 else 1
    return f"{pct(rate)} ({100 * low:.{digits}f}–{100 * high:.{digits}f})"


def points(diff: float) -> str:
    """A difference of two rates in percentage points: 0.077 -> "7.7 points"."""
    v = 100.0 * abs(diff)
    text = f"{v:.2f}" if 0 < v < 1 else f"{v:.1f}"
    return f"{text} point" + ("" if text == "1.0" else "s")


def p_text(p: float | None) -> str:
    if p is None:
        return "not paired"
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.2g}" if p < 0.01 else f"p = {p:.2f}"


def _games(n: int) -> str:
    return f"{n:,} game" + ("" if n == 1 else "s")


# -- loading --------------------------------------------------------------------------------


def load_run(run_dir: str | Path) -> tuple[pl.DataFrame, dict]:
    """(games, manifest) of a run directory; a clear error if either is missing."""
    run_dir = Path(run_dir)
    games_path = run_dir / "games.parquet"
    manifest_path = run_dir / "manifest.json"
    if not games_path.exists():
        raise FileNotFoundError(f"{run_dir}: no games.parquet (is this a run or sweep folder?)")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) \
        if manifest_path.exists() else {}
    games = pl.read_parquet(games_path)
    if "cell" not in games.columns:
        games = games.with_columns(pl.lit(0, dtype=pl.Int32).alias("cell"))
    if "policy" not in games.columns:
        games = games.with_columns(pl.lit(str(manifest.get("policy", "?"))).alias("policy"))
    return games, manifest


# -- the report's sections ------------------------------------------------------------------


def _label_map(games: pl.DataFrame) -> dict[int, str]:
    return dict(A.cell_labels(games).select("cell", "label").iter_rows())


def _what_was_run(rep: Report, games: pl.DataFrame, manifest: dict, run_dir: Path) -> None:
    rep.h(2, "What was run")
    n_cells = games["cell"].n_unique()
    per_cell = games.group_by("cell").len()["len"]
    lo, hi = int(per_cell.min()), int(per_cell.max())
    rows = [["run folder", f"`{run_dir}`"]]
    ruleset = manifest.get("ruleset")
    digest = manifest.get("ruleset_hash", "not recorded")
    rows.append(["ruleset", (f"{ruleset}, " if ruleset else "") + f"sha256 `{digest}`"])
    policies = games["policy"].unique(maintain_order=True).to_list()
    rows.append(["policies", ", ".join(f"`{p}`" for p in policies)])
    rows.append(["cells", f"{n_cells}" + (" (a sweep: the same seeds in every cell)"
                                          if n_cells > 1 else " (a plain run)")])
    rows.append(["games", (f"{lo:,} per cell, " if n_cells > 1 and lo == hi else
                           f"{lo:,} to {hi:,} per cell, " if n_cells > 1 else "")
                 + f"{games.height:,} in all"])
    rows.append(["seed", f"`{manifest.get('seed', 'not recorded')}`"])
    for key, label in (("version", "bollesim version"), ("engine", "engine"),
                       ("created", "created"), ("machine", "machine"), ("threads", "threads")):
        if key in manifest:
            rows.append([label, f"{manifest[key]}"])
    timings = manifest.get("timings")
    if isinstance(timings, dict) and timings:
        parts = []
        if timings.get("run_s") is not None:
            parts.append(f"{timings['run_s']:,} s of play")
        if timings.get("games_per_s"):
            parts.append(f"{timings['games_per_s']:,.0f} games/s")
        if timings.get("total_s") is not None:
            parts.append(f"{timings['total_s']:,} s in all")
        rows.append(["timings", ", ".join(parts) or json.dumps(timings)])
    source = manifest.get("ruleset_source")
    if isinstance(source, dict):
        parts = [f"file `{source['file']}`" if source.get("file") else "",
                 f"partial `{source['partial']}`" if source.get("partial") else "",
                 ", ".join(f"`--set {o}`" for o in source.get("overrides") or [])]
        rows.append(["ruleset source", "; ".join(p for p in parts if p) or "the shipped default"])
    known = {"version", "ruleset", "ruleset_hash", "policy", "params", "seed", "n_games",
             "engine", "timings", "cells", "created", "machine", "threads", "n_cells",
             "games_per_cell", "chunk_size", "ruleset_source", "ruleset_data"}
    for key, value in manifest.items():
        if key not in known and isinstance(value, str | int | float | bool):
            rows.append([key.replace("_", " "), f"{value}"])
    rep.table(["", ""], rows)
    # the policies' parameters: which were swept, which held fixed
    swept = A.swept_parameters(games)
    params = A.param_columns(games)
    lines = []
    for policy in policies:
        mine = games.filter(pl.col("policy") == policy)
        own = [p for p in params if mine[p].null_count() < mine.height]
        fixed = [f"{p}={A.fmt_value(mine[p].drop_nulls()[0])}" for p in own
                 if p not in swept.get(policy, [])]
        varied = [f"**{p}** over " + ", ".join(
            A.fmt_value(v) for v in mine[p].unique().sort(nulls_last=True).to_list())
            for p in swept.get(policy, [])]
        text = f"`{policy}`: " + "; ".join(varied + ([", ".join(fixed)] if fixed else []))
        lines.append(text if own else f"`{policy}`: no parameters")
    rep.p("Policy parameters (swept ones in bold, with the values tried):")
    rep.ul(lines)


def _trigger_findings(games: pl.DataFrame) -> list[tuple[str, str, pl.DataFrame]]:
    """(policy, param, best_trigger table) for every swept parameter."""
    out = []
    for policy, params in A.swept_parameters(games).items():
        for param in params:
            out.append((policy, param, A.best_trigger(games, param, policy=policy)))
    return out


def _sentence(policy: str, param: str, row: dict, n: int) -> str:
    """One finding: the best setting of a trigger for one outcome, and by how much."""
    outcome = A.LABELS[row["outcome"]]
    verb = "are" if outcome.endswith("victories") else "is"
    best = f"`{param} = {row['best_label']}`"
    rate = pct_ci(row["best_rate"], row["best_low"], row["best_high"])
    likely, more = ("most likely", "more") if row["goal"] == "max" else ("least likely", "less")
    if row["gain_vs_worst"] == 0:
        return (f"**{outcome.capitalize()}**: {rate} at every setting of `{param}` "
                "(the same count of games each).")
    head = f"**{outcome.capitalize()}** {verb} {likely} with {best}: {rate}"
    text = (f"{head}; {points(row['gain_vs_worst'])} {more} than with the worst setting, "
            f"`{param} = {row['worst_label']}` ({pct(row['worst_rate'])})")
    tests = [("worst", row["p_vs_worst"], row["significant_vs_worst"])]
    if row["default_rate"] is not None and row["best_label"] == row["default_label"]:
        text += f"; the default `{param} = {row['default_label']}` is the best setting"
    elif row["default_rate"] is not None:
        text += (f", and {points(row['gain_vs_default'])} {more} than with the default "
                 f"`{param} = {row['default_label']}` ({pct(row['default_rate'])})")
        tests.append(("default", row["p_vs_default"], row["significant_vs_default"]))
    if row["p_vs_worst"] is None:
        return text + " (settings not paired game by game: no significance test)."
    said = []
    for verdict in (True, False):
        group = [f"{p_text(p)} vs {which}" for which, p, sig in tests if sig is verdict]
        if group:
            said.append(("significant: " if verdict else "not significant: ") + ", ".join(group))
    text += f" ({'; '.join(said)}; paired over the same {_games(n)} per setting)"
    tied = [t for t in (row.get("tied") or []) if t != row["best_label"]]
    if tied:
        shown = ", ".join(f"`{param} = {t}`" for t in tied[:6])
        shown += f" and {len(tied) - 6} more" if len(tied) > 6 else ""
        text += f". Not significantly different from the best: {shown}"
    return text + "."


def _findings(rep: Report, games: pl.DataFrame, triggers, labels: dict[int, str]) -> None:
    rep.h(2, "Findings")
    overall = A.rates(games).row(0, named=True)
    by_cell = A.rates(games, by="cell")
    n_cells = by_cell.height
    for policy, param, table in triggers:
        n = int(table["n_min"][0])
        rep.p(f"**Trigger `{param}` of `{policy}`** ({table['n_settings'][0]} settings, "
              f"common random numbers):")
        rep.ul([_sentence(policy, param, row, n) for row in table.iter_rows(named=True)])
    items = []
    perfect = pct_ci(overall["perfect_rate"], overall["perfect_low"], overall["perfect_high"])
    if overall["perfect_k"] == 0:
        items.append(f"**Everything won**: no game won all four victories (0 of "
                     f"{_games(overall['n'])}; 95% CI up to {pct(overall['perfect_high'])}).")
    elif n_cells == 1:
        items.append(f"**Everything won** (all four victories in one game): {perfect} of "
                     f"{_games(overall['n'])}.")
    else:
        best = by_cell.sort("perfect_rate", descending=True).row(0, named=True)
        items.append(f"**Everything won** (all four victories in one game): {perfect} of all "
                     f"{_games(overall['n'])}; most often with {labels[best['cell']]}: "
                     + pct_ci(best["perfect_rate"], best["perfect_low"], best["perfect_high"])
                     + ".")
    reasons = A.end_reasons(games).filter(pl.col("defeat"))
    how = ", ".join(f"{r['end_reason']} {pct(r['rate'])}" for r in reasons.iter_rows(named=True))
    defeat = pct_ci(overall["defeat_rate"], overall["defeat_low"], overall["defeat_high"])
    lost = f"**Lost**: {defeat} of games" + (f" ({how} of all games)." if how else ".")
    if n_cells > 1:
        ordered = by_cell.sort("defeat_rate")
        low, high = ordered.row(0, named=True), ordered.row(-1, named=True)
        lost += (f" Across cells from {pct(low['defeat_rate'])} ({labels[low['cell']]}) to "
                 f"{pct(high['defeat_rate'])} ({labels[high['cell']]}).")
    items.append(lost)
    items.append("**No result** (neither a victory nor a defeat): "
                 + pct_ci(overall["no_result_rate"], overall["no_result_low"],
                          overall["no_result_high"]) + " of games.")
    if n_cells == 1:
        wins = ", ".join(f"{v} {pct(overall[f'{v}_rate'])}" for v in A.VICTORIES)
        items.insert(0, f"**Victories** in {_games(overall['n'])}: {wins}.")
    fired = games["first_fire_turn"].drop_nulls()
    never = games.height - fired.len()
    if fired.len():
        roe = games["first_fire_roe"].drop_nulls()
        items.append(f"**First Fire order**: given in {pct(fired.len() / games.height)} of games, "
                     f"on turn {fired.median():g} and at RoE {roe.median():g} (medians); "
                     f"{pct(never / games.height)} never fired.")
    else:
        items.append("**First Fire order**: no game gave one.")
    rep.p("**Overall**" + (f" (all {n_cells} cells together)" if n_cells > 1 else "") + ":")
    rep.ul(items)


def _best_cells(rep: Report, games: pl.DataFrame, labels: dict[int, str]) -> None:
    """Best and worst cell for each outcome, paired comparison between them."""
    by_cell = A.rates(games, by="cell")
    if by_cell.height < 2:
        return
    rows = []
    for o in A.HEADLINE:
        ordered = by_cell.sort(f"{o}_rate", descending=o not in A.MINIMISE)
        best, worst = ordered.row(0, named=True), ordered.row(-1, named=True)
        try:
            cmp = A.paired_comparison(games, int(best["cell"]), int(worst["cell"]), o).row(
                0, named=True)
            sig = ("yes" if cmp["significant"] else "no") + f" ({p_text(cmp['p_value'])})"
        except ValueError:
            sig = "not paired"
        rows.append([A.LABELS[o], labels[best["cell"]],
                     pct_ci(best[f"{o}_rate"], best[f"{o}_low"], best[f"{o}_high"]),
                     labels[worst["cell"]], pct(worst[f"{o}_rate"]),
                     points(best[f"{o}_rate"] - worst[f"{o}_rate"]), sig])
    rep.h(3, "Best and worst cell for each outcome")
    rep.table(["outcome", "best cell", "rate (95% CI)", "worst cell", "rate", "gap",
               "significant"], rows, right={2, 4, 5})


def _charts(rep: Report, games: pl.DataFrame, triggers) -> None:
    rep.h(2, "Charts")
    for policy, param, _ in triggers:
        rep.chart(f"trigger-{policy}-{param}", plots.rates_by_trigger(games, param, policy=policy),
                  f"Outcome rates against the {param} setting of {policy}, with 95% intervals.")
    n_cells = games["cell"].n_unique()
    if 2 <= n_cells <= MAX_COMPARED_CELLS:
        rep.chart("comparison", plots.policy_comparison(games, by="cell"),
                  "Outcome rates of each cell side by side, with 95% intervals.")
    if games["first_fire_turn"].drop_nulls().len():
        rep.chart("first-fire-turn", plots.rates_by_first_fire_turn(games),
                  "Outcome rates against the turn of the first Fire order, with 95% intervals.")
        rep.chart("first-fire-roe", plots.rates_by_first_fire_roe(games),
                  "Outcome rates against the RoE at the first Fire order, with 95% intervals.")
        rep.p("The first-fire charts are observational: the policy chose when to fire in answer "
              "to the game's events, so the games at one turn or RoE are not a random sample. "
              "The trigger charts of a sweep are the controlled comparison (the same seeds in "
              "every cell).")


def _rates_table(rep: Report, games: pl.DataFrame, labels: dict[int, str]) -> None:
    rep.h(2, "Rates with 95% intervals")
    table = A.rates(games, by="cell")
    header = ["cell", "games"] + [A.LABELS[o] for o in A.OUTCOMES]
    rows = []
    for r in table.iter_rows(named=True):
        rows.append([labels[r["cell"]], f"{r['n']:,}"]
                    + [pct_ci(r[f"{o}_rate"], r[f"{o}_low"], r[f"{o}_high"]) for o in A.OUTCOMES])
    if table.height > 1:
        r = A.rates(games).row(0, named=True)
        rows.append(["**all cells**", f"{r['n']:,}"]
                    + [pct_ci(r[f"{o}_rate"], r[f"{o}_low"], r[f"{o}_high"]) for o in A.OUTCOMES])
    rep.p("Share of games with each outcome, and its 95% Wilson interval in brackets (percent). "
          "A game can win several victory types; \"all four victories\" counts games that won "
          "every one, \"no result\" games with neither a victory nor a defeat.")
    rep.table(header, rows, right=set(range(1, len(header))))


def _paired_table(rep: Report, games: pl.DataFrame, labels: dict[int, str]) -> None:
    cells = sorted(games["cell"].unique().to_list())
    if not 2 <= len(cells) <= MAX_COMPARED_CELLS:
        return
    policies = dict(A.cell_labels(games).select("cell", "policy").iter_rows())
    base = next((c for c in cells if policies[c] == "historical"), cells[0])
    rows = []
    for c in cells:
        if c == base:
            continue
        try:
            cmp = A.paired_comparison(games, int(c), int(base), list(A.HEADLINE))
        except ValueError:
            continue
        cells_text = []
        for r in cmp.iter_rows(named=True):
            mark = " *" if r["significant"] else ""
            cells_text.append(f"{100 * r['diff']:+.1f} ({100 * r['diff_low']:+.1f} to "
                              f"{100 * r['diff_high']:+.1f}){mark}")
        rows.append([labels[c]] + cells_text)
    if not rows:
        return
    rep.h(3, f"Paired differences from {labels[base]}")
    rep.p(f"Rate of each cell minus the rate of {labels[base]} on the same games, in "
          "percentage points, with its 95% interval (Newcombe's paired method); * marks a "
          "significant difference (exact McNemar test, p < 0.05).")
    rep.table(["cell"] + [A.LABELS[o] for o in A.HEADLINE], rows,
              right=set(range(1, len(A.HEADLINE) + 1)))


def _endings(rep: Report, games: pl.DataFrame) -> None:
    rep.h(2, "How games end")
    table = A.end_reasons(games)
    rows = [[r["end_reason"], "defeat" if r["defeat"] else "", f"{r['k']:,}",
             pct_ci(r["rate"], r["low"], r["high"])] for r in table.iter_rows(named=True)]
    rep.table(["end reason", "", "games", "share (95% CI)"], rows, right={2, 3})
    summary = A.summary(games)
    names = {"end_turn": "end turn", "first_fire_turn": "turn of the first Fire order",
             "first_fire_roe": "RoE at the first Fire order", "heavy_damage": "heavy damage",
             "light_damage": "light damage", "damage": "damage, heavy + light"}
    rows = []
    for r in summary.iter_rows(named=True):
        if r["n"] == 0:
            rows.append([names[r["variable"]], "0", "–", "–", "–", "–"])
            continue
        rows.append([names[r["variable"]], f"{r['n']:,}", f"{r['mean']:.2f}", f"{r['p10']:g}",
                     f"{r['median']:g}", f"{r['p90']:g}"])
    rep.p("Distributions over all games (a game that never fired has no first-fire values):")
    rep.table(["", "games", "mean", "10th pct", "median", "90th pct"], rows,
              right={1, 2, 3, 4, 5})


def _examples(rep: Report, games: pl.DataFrame, run_dir: Path, labels: dict[int, str]) -> None:
    rep.h(2, "Example games to replay")
    multi = games["cell"].n_unique() > 1
    ex = A.examples(games, k=EXAMPLES_PER_OUTCOME)
    where = str(run_dir)

    def command(game: int, cell: int) -> str:
        return f"bollesim play --from {where} --game {game}" + (f" --cell {cell}" if multi else "")

    rows = []
    for r in ex.iter_rows(named=True):
        shown = ", ".join(f"{g}" + (f" ({labels[c]})" if multi else "")
                          for g, c in zip(r["games"], r["cells"], strict=True))
        rows.append([r["outcome"], f"{r['count']:,}", shown,
                     f"`{command(r['games'][0], r['cells'][0])}`"])
    rep.p("A few games of each outcome (lowest game numbers first). Each replays exactly, "
          "narrated turn by turn, from its run folder" + (" and cell" if multi else "") + ":")
    rep.table(["outcome", "games", "examples", "replay the first"], rows, right={1})


def _method(rep: Report) -> None:
    rep.h(2, "How to read this report")
    rep.ul([
        "A rate is the share of games with the outcome; the interval is the 95% Wilson score "
        "interval, so the true rate lies inside it in 95 runs out of 100.",
        "Cells of a sweep play the same seeds (common random numbers): game N faces the same "
        "luck in every cell as far as the decisions allow, so two cells are compared game by "
        "game (paired interval by Newcombe's method, exact McNemar test, significant at "
        "p < 0.05).",
        "\"Points\" are percentage points: 45% against 40% is 5 points.",
    ])


def build_report(games: pl.DataFrame, manifest: dict, run_dir: str | Path) -> Report:
    """The report's content (blocks and charts) for a run's games and manifest."""
    run_dir = Path(run_dir)
    games = A.with_outcomes(games)
    labels = _label_map(games)
    title = f"Balance report: {run_dir.resolve().name or run_dir}"
    rep = Report(title)
    rep.h(1, title)
    rep.p(f"Operation Bøllebank, {_games(games.height)}, "
          f"written {time.strftime('%Y-%m-%d %H:%M')} by bollesim.")
    triggers = _trigger_findings(games)
    _what_was_run(rep, games, manifest, run_dir)
    _findings(rep, games, triggers, labels)
    _best_cells(rep, games, labels)
    _charts(rep, games, triggers)
    _rates_table(rep, games, labels)
    _paired_table(rep, games, labels)
    _endings(rep, games)
    _examples(rep, games, run_dir, labels)
    _method(rep)
    return rep


# -- rendering ------------------------------------------------------------------------------


def _inline_html(text: str) -> str:
    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222;
       max-width: 1150px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
h1 { border-bottom: 2px solid #0072B2; padding-bottom: .2em; }
h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: .8em 0; font-size: .88em; }
th, td { border: 1px solid #ddd; padding: .3em .6em; vertical-align: top; }
th { background: #f3f6f9; text-align: left; }
td.num { text-align: right; white-space: nowrap; }
tr:nth-child(even) td { background: #fafafa; }
code { background: #f3f3f3; padding: 0 .25em; border-radius: 3px; font-size: .92em; }
figure { margin: 1.2em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: .9em; }
"""


def render_html(rep: Report) -> str:
    """One self-contained HTML page: inline CSS, charts as base64 PNG."""
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{html.escape(rep.title)}</title>", f"<style>{CSS}</style>", "</head>",
             "<body>"]
    for block in rep.blocks:
        kind = block[0]
        if kind == "h":
            parts.append(f"<h{block[1]}>{_inline_html(block[2])}</h{block[1]}>")
        elif kind == "p":
            parts.append(f"<p>{_inline_html(block[1])}</p>")
        elif kind == "ul":
            items = "".join(f"<li>{_inline_html(i)}</li>" for i in block[1])
            parts.append(f"<ul>{items}</ul>")
        elif kind == "table":
            _, header, rows, right = block
            head = "".join(f"<th>{_inline_html(h)}</th>" for h in header) if any(header) else ""
            body = "".join(
                "<tr>" + "".join(f'<td{" class=num" if i in right else ""}>{_inline_html(c)}</td>'
                                 for i, c in enumerate(row)) + "</tr>"
                for row in rows)
            parts.append('<div class="scroll"><table>'
                         + (f"<thead><tr>{head}</tr></thead>" if head else "")
                         + f"<tbody>{body}</tbody></table></div>")
        elif kind == "chart":
            chart = block[1]
            data = base64.b64encode(chart.png).decode("ascii")
            parts.append(f'<figure id="{chart.name}"><img src="data:image/png;base64,{data}" '
                         f'alt="{html.escape(chart.alt)}"><figcaption>'
                         f"{html.escape(chart.alt)}</figcaption></figure>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(rep: Report, chart_files: dict[str, str]) -> str:
    """Markdown with the charts as image links to the PNG files (names in chart_files)."""
    out: list[str] = []
    for block in rep.blocks:
        kind = block[0]
        if kind == "h":
            out += ["#" * block[1] + " " + block[2], ""]
        elif kind == "p":
            out += [block[1], ""]
        elif kind == "ul":
            out += [f"- {i}" for i in block[1]] + [""]
        elif kind == "table":
            _, header, rows, right = block
            out.append("| " + " | ".join(_md_cell(h) for h in header) + " |")
            out.append("|" + "|".join(" ---: " if i in right else " --- "
                                      for i in range(len(header))) + "|")
            out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
            out.append("")
        elif kind == "chart":
            chart = block[1]
            out += [f"![{chart.alt}]({chart_files[chart.name]})", "", f"*{chart.alt}*", ""]
    return "\n".join(out)


def _atomic_write(path: Path, data: bytes) -> None:
    """Write data to path atomically: a temporary file in the same folder, then rename.
    The file gets the usual permissions (0666 less the umask)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=CHART_DPI, facecolor="white")
    return buffer.getvalue()


def write_report(run_dir: str | Path, out_dir: str | Path | None = None) -> dict:
    """Write report.html, report.md and the charts (report-*.png) of a run or sweep.

    run_dir: the folder with games.parquet and manifest.json. out_dir: where to write
    (default: run_dir; created if missing). Returns {"html": Path, "markdown": Path,
    "charts": [Path, ...]}. report.html is self-contained (charts embedded as base64 PNG);
    report.md links the PNG files written next to it.
    """
    run_dir = Path(run_dir)
    out = Path(out_dir) if out_dir is not None else run_dir
    out.mkdir(parents=True, exist_ok=True)
    games, manifest = load_run(run_dir)
    rep = build_report(games, manifest, run_dir)
    files: dict[str, str] = {}
    paths = []
    for chart in rep.charts:
        chart.png = _png(chart.figure)
        name = f"report-{chart.name}.png"
        _atomic_write(out / name, chart.png)
        files[chart.name] = name
        paths.append(out / name)
    _atomic_write(out / "report.md", render_markdown(rep, files).encode("utf-8"))
    _atomic_write(out / "report.html", render_html(rep).encode("utf-8"))
    return {"html": out / "report.html", "markdown": out / "report.md", "charts": paths}
