"""The balance report of a run or sweep: report.html (self-contained) and report.md.

    from bollesim.report.balance import write_report
    paths = write_report("results/first_fire")      # -> {"html": ..., "markdown": ..., ...}

A run directory holds games.parquet (one row per game, docs/architecture.md §5) and
manifest.json. The report leads with the answer: a few short findings and the headline
chart, the controlled chart of the sweep's first trigger (every setting on the same
seeds). Then the other charts, the tables (the best setting of each
trigger for each outcome with its significance, every rate with its 95% interval, paired
differences, how games end), the observational first-fire charts (per policy, saying
why their late end holds survivors), example games to replay with
`bollesim play --from DIR --game N`, and last, what was run.

The content is built once as a list of blocks and rendered twice: HTML, Markdown with the
charts as PNG files next to it. rates.csv beside them holds every rate. Every file is
written atomically (a temporary name in the same folder, then os.replace).
"""

from __future__ import annotations

import html
import io
import json
import math
import os
import re
import secrets
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from bollesim.report import chartdata, plots
from bollesim.report.chartdata import DiffChart, RateChart, pct, signed_ci
from bollesim.stats import analysis as A

EXAMPLES_PER_OUTCOME = 5
MAX_COMPARED_CELLS = 12  # above this, cells are compared through the trigger charts only
CHART_DPI = 110
RATES_CSV = "rates.csv"


# -- content model --------------------------------------------------------------------------
# Text may use **bold** and `code`; both renderers understand these two marks.


@dataclass
class Chart:
    name: str        # file stem: report-<name>.png
    figure: object   # matplotlib Figure
    alt: str         # what the chart shows, one sentence
    data: RateChart | DiffChart  # the numbers and words drawn
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
              right: set[int] | None = None, total: bool = False) -> None:
        """A table; `right`: the columns aligned right (numbers); `total`: the last row
        sums up the others (it stays last when the reader sorts the table)."""
        self.blocks.append(("table", header, rows, right or set(), total))

    def chart(self, name: str, figure, alt: str, data: RateChart | DiffChart) -> None:
        chart = Chart(_slug(name), figure, alt, data)
        self.charts.append(chart)
        self.blocks.append(("chart", chart))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "chart"


# -- number formatting ----------------------------------------------------------------------


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
    """(games, manifest) of a run directory, verified by runfolder.open_run (which raises
    RunFolderError, one line, for a folder it cannot trust)."""
    from bollesim.batch.runfolder import open_run

    run = open_run(run_dir)
    manifest = run.manifest
    games = run.read()
    if "cell" not in games.columns:
        games = games.with_columns(pl.lit(0, dtype=pl.Int32).alias("cell"))
    if "policy" not in games.columns:
        games = games.with_columns(pl.lit(str(manifest.get("policy", "?"))).alias("policy"))
    return games, manifest


# -- the report's sections ------------------------------------------------------------------


def _label_map(games: pl.DataFrame) -> dict[int, str]:
    return dict(A.cell_labels(games).select("cell", "label").iter_rows())


@dataclass(frozen=True)
class Trigger:
    """A swept parameter of one policy (under one ruleset of a sweep whose cells change
    the ruleset): its best-setting table and its chart data."""

    policy: str
    param: str
    best: pl.DataFrame  # analysis.best_trigger
    chart: RateChart    # chartdata.trigger
    ruleset: str = ""   # what the cells change in the ruleset (the rows' `ruleset`)

    @property
    def label(self) -> str:
        return A.parameter_label(self.policy, self.param)

    @property
    def name(self) -> str:
        """The chart's name: policy, parameter and ruleset."""
        return "-".join(x for x in ("trigger", self.policy, self.param, self.ruleset) if x)

    @property
    def under(self) -> str:
        """" under `I-AIR=ceil`" for a trigger of a changed ruleset, else ""."""
        return f" under `{self.ruleset}`" if self.ruleset else ""


def _triggers(games: pl.DataFrame) -> list[Trigger]:
    """The swept parameters of each policy; in a sweep that varies the ruleset, of each
    ruleset apart (the settings of one ruleset are compared on the same seeds)."""
    rulesets = (games["ruleset"].unique(maintain_order=True).to_list()
                if "ruleset" in games.columns else [""])
    out = []
    for ruleset in rulesets:
        rows = games.filter(pl.col("ruleset") == ruleset) if len(rulesets) > 1 else games
        out += [Trigger(policy, param, A.best_trigger(rows, param, policy=policy),
                        chartdata.trigger(rows, param, policy=policy), ruleset)
                for policy, params in A.swept_parameters(rows).items() for param in params]
    return out


def _chart(rep: Report, name: str, data: RateChart, alt: str) -> None:
    rep.chart(name, plots.draw(data), alt, data)


def _answer(rep: Report, games: pl.DataFrame, triggers: list[Trigger],
            labels: dict[int, str]) -> None:
    """The first screen: a few short sentences, then the headline chart."""
    overall = A.rates(games).row(0, named=True)
    n_cells = games["cell"].n_unique()
    items = []
    for t in triggers:
        n_settings = int(t.best["n_settings"][0])
        items.append(f"**{t.label[:1].upper() + t.label[1:]}** (`{t.policy}`{t.under}, {n_settings} "
                     f"settings on the same seeds): {t.chart.finding}")
    if n_cells == 1:
        wins = ", ".join(f"{A.LABELS[v]} {pct(overall[f'{v}_rate'])}" for v in A.VICTORIES)
        items.append(f"**Victories**: {wins}.")
    items.append(f"**Lost** {pct(overall['defeat_rate'])} of all {_games(overall['n'])}, "
                 f"**no result** {pct(overall['no_result_rate'])}, **all four victories** "
                 f"{pct(overall['perfect_rate'])}.")
    rep.h(2, "Findings")
    rep.ul(items)
    if triggers:
        t = triggers[0]
        _chart(rep, t.name, t.chart,
               f"Outcome rates against the {t.label} ({t.policy}{t.under}), with 95% "
               "intervals; every setting plays the same seeds.")
    elif 2 <= n_cells <= MAX_COMPARED_CELLS:
        data = chartdata.comparison(games, by="cell")
        _chart(rep, "comparison", data, "Outcome rates of each cell side by side, with 95% "
               "intervals.")


def _more_charts(rep: Report, games: pl.DataFrame, triggers: list[Trigger]) -> None:
    n_cells = games["cell"].n_unique()
    rest = triggers[1:]
    compare = bool(triggers) and 2 <= n_cells <= MAX_COMPARED_CELLS
    if not rest and not compare:
        return
    rep.h(2, "More charts")
    for t in rest:
        _chart(rep, t.name, t.chart,
               f"Outcome rates against the {t.label} ({t.policy}{t.under}), with 95% "
               "intervals; every setting plays the same seeds.")
    if compare:
        _chart(rep, "comparison", chartdata.comparison(games, by="cell"),
               "Outcome rates of each cell side by side, with 95% intervals.")


def _trigger_tables(rep: Report, triggers: list[Trigger]) -> None:
    for t in triggers:
        rep.h(3, f"Best {t.label} for each outcome ({t.policy} `{t.param}`{t.under})")
        rows = []
        for r in t.best.iter_rows(named=True):
            paired = r["p_vs_worst"] is not None
            default = "–" if r["default_rate"] is None else (
                "is the best" if r["best_label"] == r["default_label"] else
                f"{r['default_label']}: {pct(r['default_rate'])}, "
                f"{_gap(r['gain_vs_default'], r['goal'])}"
                + (f", {_verdict(r['significant_vs_default'], r['p_vs_default'])}"
                   if paired else ""))
            tied = [x for x in (r["tied"] or []) if x != r["best_label"]]
            rows.append([
                A.LABELS[r["outcome"]],
                r["best_label"], pct_ci(r["best_rate"], r["best_low"], r["best_high"]),
                f"{r['worst_label']}: {pct(r['worst_rate'])}",
                _gap(r["gain_vs_worst"], r["goal"]),
                _verdict(r["significant_vs_worst"], r["p_vs_worst"]) if paired else
                "not paired",
                default,
                ", ".join(tied) if paired else "not paired",
            ])
        rep.table(["outcome", "best setting", "rate (95% CI)", "worst setting", "best vs worst",
                   "significant?", "default setting", "not significantly different from the "
                   "best"], rows, right={2, 4})


def _gap(gain: float, goal: str) -> str:
    return f"{points(gain)} {'more' if goal == 'max' else 'less'}"


def _verdict(significant: bool | None, p: float | None) -> str:
    return ("significant" if significant else "not significant") + f" ({p_text(p)})"


def _best_cells(rep: Report, games: pl.DataFrame, labels: dict[int, str]) -> None:
    """Best and worst cell for each outcome, paired comparison between them."""
    by_cell = A.rates(games, by="cell")
    if by_cell.height < 2:
        return
    rows = []
    for o in A.HEADLINE:
        ordered = by_cell.sort(f"{o}_rate", descending=o not in A.MINIMISE, maintain_order=True)
        best, worst = ordered.row(0, named=True), ordered.row(-1, named=True)
        try:
            cmp = A.paired_comparison(games, int(best["cell"]), int(worst["cell"]), o).row(
                0, named=True)
            sig = _verdict(cmp["significant"], cmp["p_value"])
        except ValueError:
            sig = "not paired"
        rows.append([A.LABELS[o], labels[best["cell"]],
                     pct_ci(best[f"{o}_rate"], best[f"{o}_low"], best[f"{o}_high"]),
                     labels[worst["cell"]], pct(worst[f"{o}_rate"]),
                     points(best[f"{o}_rate"] - worst[f"{o}_rate"]), sig])
    rep.h(3, "Best and worst cell for each outcome")
    rep.table(["outcome", "best cell", "rate (95% CI)", "worst cell", "rate", "gap",
               "significant?"], rows, right={2, 4, 5})


def _rates_table(rep: Report, games: pl.DataFrame, labels: dict[int, str]) -> None:
    rep.h(3, "Rates with 95% intervals")
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
    rep.p("Share of games with each outcome, 95% Wilson interval in brackets. A game can win "
          "several victory types, so a row's victories and defeat can add up to more than "
          "100%; \"all four victories\" counts games that won every one, \"no result\" games "
          "with neither a victory nor a defeat. The same numbers, with counts, are in "
          f"`{RATES_CSV}`.")
    rep.table(header, rows, right=set(range(1, len(header))), total=table.height > 1)


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
            cells_text.append(signed_ci(r["diff"], r["diff_low"], r["diff_high"]) + mark)
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
    rep.h(3, "How games end")
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
    fired = games["first_fire_turn"].drop_nulls().len()
    rep.p(f"Distributions over all games; {pct(fired / games.height)} of games gave a Fire "
          "order (a game that never fired has no first-fire values):")
    rep.table(["", "games", "mean", "10th pct", "median", "90th pct"], rows,
              right={1, 2, 3, 4, 5})


def _observational(rep: Report, games: pl.DataFrame) -> None:
    drawn = []
    for policy in games["policy"].unique(maintain_order=True).to_list():
        data = chartdata.observed(games.filter(pl.col("policy") == policy), "first_fire_turn")
        if data.frame.filter(pl.col("x").is_not_null()).height:
            drawn.append((policy, data))
    if not drawn:
        return
    rep.h(2, "When the first Fire order was actually given (observational)")
    rep.p("These charts group each policy's games by when its first Fire order came, not by "
          "a setting chosen in advance: games that last long enough to fire late are the "
          "survivors, so the late end of each chart shows survivors' rates. For the effect "
          "of firing later, read the trigger charts above.")
    for policy, data in drawn:
        _chart(rep, f"first-fire-turn-{policy}", data,
               f"Outcome rates of {policy} against the turn its first Fire order was given "
               "(observational), with 95% intervals.")


def _examples(rep: Report, games: pl.DataFrame, run_dir: Path, labels: dict[int, str]) -> None:
    rep.h(2, "Example games to replay")
    multi = games["cell"].n_unique() > 1
    ex = A.examples(games, k=EXAMPLES_PER_OUTCOME)

    def command(game: int, cell: int) -> str:
        return replay_command(run_dir, game, cell if multi else None)

    rows = []
    for r in ex.iter_rows(named=True):
        shown = ", ".join(f"{g}" + (f" ({labels[c]})" if multi else "")
                          for g, c in zip(r["games"], r["cells"], strict=True))
        rows.append([r["outcome"], f"{r['count']:,}", shown,
                     f"`{command(r['games'][0], r['cells'][0])}`"])
    rep.p("A few games of each outcome (lowest game numbers first). Each replays exactly, "
          "narrated turn by turn, from its run folder" + (" and cell" if multi else "") + ":")
    rep.table(["outcome", "games", "examples", "replay the first"], rows, right={1})


def replay_command(run_dir: str | Path, game: int, cell: int | None = None) -> str:
    """The shell command that replays one game, its folder quoted for the shell."""
    return (f"bollesim play --from {shlex.quote(str(run_dir))} --game {int(game)}"
            + (f" --cell {int(cell)}" if cell is not None else ""))


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
                 ", ".join(f"`--set {o}`" for o in source.get("overrides") or []),
                 ", ".join(f"`--reading {r}`" for r in _readings(source.get("readings")))]
        rows.append(["ruleset source", "; ".join(p for p in parts if p) or "the shipped default"])
    if "ruleset" in games.columns:
        changed = games.select("ruleset", "ruleset_hash").unique(maintain_order=True)
        rows.append(["cells' rulesets", "; ".join(
            f"{f'`{text}`' if text else 'unchanged'} (sha256 `{digest[:12]}…`)"
            for text, digest in changed.iter_rows())])
    known = {"version", "ruleset", "ruleset_hash", "policy", "params", "seed", "n_games",
             "engine", "timings", "cells", "created", "machine", "threads", "n_cells",
             "games_per_cell", "chunk_size", "ruleset_source", "ruleset_data"}
    for key, value in manifest.items():
        if key not in known and isinstance(value, str | int | float | bool):
            rows.append([key.replace("_", " "), f"{value}"])
    rep.table(["", ""], rows)
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


def _readings(readings) -> list[str]:
    """`ID=VARIANT` of a ruleset source's readings (a table, or a list of such strings)."""
    if isinstance(readings, dict):
        return [f"{k}={v}" for k, v in readings.items()]
    return [str(r) for r in readings or []]


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


def report_title(manifest: dict, run_dir: Path) -> str:
    """The experiment's name, else the policy's, else the folder's."""
    name = manifest.get("experiment") or manifest.get("policy") or run_dir.resolve().name
    return f"Balance report: {name}"


def build_report(games: pl.DataFrame, manifest: dict, run_dir: str | Path) -> Report:
    """The report's content (blocks and charts) for a run's games and manifest: the
    findings and the headline chart first, then tables, then what was run."""
    run_dir = Path(run_dir)
    games = A.with_outcomes(games)
    labels = _label_map(games)
    title = report_title(manifest, run_dir)
    rep = Report(title)
    rep.h(1, title)
    description = str(manifest.get("description") or "").strip()
    if description:
        rep.p(description)
    rep.p(f"Operation Bøllebank, {_games(games.height)}, "
          f"written {time.strftime('%Y-%m-%d %H:%M')} by bollesim.")
    triggers = _triggers(games)
    _answer(rep, games, triggers, labels)
    _more_charts(rep, games, triggers)
    rep.h(2, "Tables")
    _trigger_tables(rep, triggers)
    _best_cells(rep, games, labels)
    _rates_table(rep, games, labels)
    _paired_table(rep, games, labels)
    _endings(rep, games)
    _observational(rep, games)
    _examples(rep, games, run_dir, labels)
    _what_was_run(rep, games, manifest, run_dir)
    _method(rep)
    return rep


def rates_frame(games: pl.DataFrame) -> pl.DataFrame:
    """Every cell and outcome, tidy: `cell`, `label`, `policy`, the parameter columns,
    `outcome`, `games`, `games_with` (games with the outcome), `rate`, `low`, `high` (95%
    Wilson interval). What rates.csv holds."""
    games = A.with_outcomes(games)
    cells = A.cell_labels(games)
    params = A.param_columns(games)
    values = games.group_by("cell").agg(*[pl.col(p).first() for p in params])
    long = A.rates(games, by="cell", long=True).rename({"n": "games", "k": "games_with"})
    return (long.join(cells, on="cell").join(values, on="cell")
            .select("cell", "label", "policy", *params, "outcome", "games", "games_with", "rate",
                    "low", "high")
            .sort("cell", maintain_order=True))


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
.chart { min-height: 420px; overflow-x: auto; }
figcaption { color: #555; font-size: .9em; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th::after { content: " ↕"; color: #aaa; font-size: .85em; }
table.sortable th[aria-sort=ascending]::after { content: " ▲"; color: #0072B2; }
table.sortable th[aria-sort=descending]::after { content: " ▼"; color: #0072B2; }
#vg-tooltip-element { font-size: 13px; }
"""


SORT_SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(th => {
  th.tabIndex = 0;
  const sort = () => {
    const table = th.closest("table"), body = table.tBodies[0], column = th.cellIndex;
    const down = th.getAttribute("aria-sort") === "ascending";
    table.querySelectorAll("th").forEach(h => h.removeAttribute("aria-sort"));
    th.setAttribute("aria-sort", down ? "descending" : "ascending");
    const key = row => {
      const text = row.cells[column].textContent.trim();
      const number = text.replace(/,/g, "").match(/^[+-]?\\d+(\\.\\d+)?/);
      return number ? parseFloat(number[0]) : text;
    };
    const compare = (a, b) => {
      const x = key(a), y = key(b);
      if (typeof x === "number" && typeof y === "number") return x - y;
      if (typeof x !== typeof y) return typeof x === "number" ? -1 : 1;
      return x.localeCompare(y, undefined, {numeric: true});
    };
    const rows = Array.from(body.rows), total = rows.filter(r => r.classList.contains("total"));
    rows.filter(r => !total.includes(r)).sort((a, b) => (down ? -1 : 1) * compare(a, b))
      .concat(total).forEach(r => body.appendChild(r));
  };
  th.addEventListener("click", sort);
  th.addEventListener("keydown", e => { if (e.key === "Enter") sort(); });
});
"""


def render_html(rep: Report) -> str:
    """One self-contained HTML page that works offline: inline CSS, interactive charts
    (Vega-Lite, its JavaScript inlined; hover a point for its rate, interval and games,
    click the legend to show one outcome), tables sorted by a click on their header."""
    from bollesim.report import charts

    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{html.escape(rep.title)}</title>", f"<style>{CSS}</style>", "</head>",
             "<body>"]
    specs = {}
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
            _, header, rows, right, total = block
            head = "".join(f"<th>{_inline_html(h)}</th>" for h in header) if any(header) else ""
            body = "".join(
                ('<tr class="total">' if total and r == len(rows) - 1 else "<tr>")
                + "".join(f'<td{" class=num" if i in right else ""}>{_inline_html(c)}</td>'
                          for i, c in enumerate(row)) + "</tr>"
                for r, row in enumerate(rows))
            parts.append(f'<div class="scroll"><table{" class=sortable" if head else ""}>'
                         + (f"<thead><tr>{head}</tr></thead>" if head else "")
                         + f"<tbody>{body}</tbody></table></div>")
        elif kind == "chart":
            chart = block[1]
            specs[f"vis-{chart.name}"] = charts.spec(chart.data)
            alt = html.escape(chart.alt)
            parts.append(f'<figure id="{chart.name}"><div class="chart" id="vis-{chart.name}" '
                         f'role="img" aria-label="{alt}"></div><figcaption>{alt}</figcaption>'
                         "</figure>")
    if specs:
        parts.append(charts.page_script(specs))
    parts += [f"<script>{SORT_SCRIPT}</script>", "</body>", "</html>", ""]
    return "\n".join(parts)


def _md(text: str) -> str:
    """Text for Markdown: HTML special characters as entities (no raw HTML from a spec or
    manifest reaches report.md), newlines as spaces (no stray block), `|` escaped."""
    return html.escape(str(text), quote=False).replace("\n", " ").replace("|", "\\|")


def _md_paragraph(text: str) -> str:
    """_md, with a leading block marker (#, >, -, +, =, "1.") escaped: a paragraph stays
    a paragraph whatever a spec's description starts with."""
    out = _md(text).lstrip()
    return "\\" + out if re.match(r"([#>+=-]|\d+[.)])", out) else out


def render_markdown(rep: Report, chart_files: dict[str, str]) -> str:
    """Markdown with the charts as image links to the PNG files (names in chart_files)."""
    out: list[str] = []
    for block in rep.blocks:
        kind = block[0]
        if kind == "h":
            out += ["#" * block[1] + " " + _md(block[2]), ""]
        elif kind == "p":
            out += [_md_paragraph(block[1]), ""]
        elif kind == "ul":
            out += [f"- {_md_paragraph(i)}" for i in block[1]] + [""]
        elif kind == "table":
            _, header, rows, right, _ = block
            out.append("| " + " | ".join(_md(h) for h in header) + " |")
            out.append("|" + "|".join(" ---: " if i in right else " --- "
                                      for i in range(len(header))) + "|")
            out += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
            out.append("")
        elif kind == "chart":
            chart = block[1]
            alt = _md(chart.alt).replace("[", "(").replace("]", ")")
            out += [f"![{alt}]({chart_files[chart.name]})", "", f"*{alt}*", ""]
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
    """Write report.html, report.md, the charts (report-*.png) and rates.csv of a run or
    sweep.

    run_dir: the folder with games.parquet and manifest.json. out_dir: where to write
    (default: run_dir; created if missing). Returns {"html": Path, "markdown": Path,
    "rates": Path, "charts": [Path, ...]}. report.html is one self-contained file;
    report.md links the PNG files written next to it; rates.csv holds every cell's rate of
    every outcome with its interval and counts (`rates_frame`).
    """
    run_dir = Path(run_dir)
    out = Path(out_dir) if out_dir is not None else run_dir
    games, manifest = load_run(run_dir)
    rep = build_report(games, manifest, run_dir)
    paths = write_pages(rep, out, "report", {RATES_CSV: rates_frame(games)})
    return {**paths, "rates": out / RATES_CSV}


def write_pages(rep: Report, out: str | Path, stem: str,
                tables: dict[str, pl.DataFrame] | None = None) -> dict:
    """Write a Report into the folder `out` (created if missing), each file atomically:
    STEM-<chart>.png for every chart, the CSV files of `tables` ({file name: frame}),
    STEM.md (linking the PNGs) and STEM.html (self-contained). Returns {"html": Path,
    "markdown": Path, "charts": [Path, ...], "tables": [Path, ...]}."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    paths = []
    for chart in rep.charts:
        chart.png = _png(chart.figure)
        name = f"{stem}-{chart.name}.png"
        _atomic_write(out / name, chart.png)
        files[chart.name] = name
        paths.append(out / name)
    for name, frame in (tables or {}).items():
        buffer = io.BytesIO()
        frame.write_csv(buffer, float_precision=6)
        _atomic_write(out / name, buffer.getvalue())
    _atomic_write(out / f"{stem}.md", render_markdown(rep, files).encode("utf-8"))
    _atomic_write(out / f"{stem}.html", render_html(rep).encode("utf-8"))
    return {"html": out / f"{stem}.html", "markdown": out / f"{stem}.md", "charts": paths,
            "tables": [out / name for name in tables or {}]}
