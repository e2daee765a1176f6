"""The balance report of a run or sweep: report.html (self-contained) and report.md.

    from bollesim.report.balance import write_report
    paths = write_report("results/first_fire")      # -> {"html": ..., "markdown": ..., ...}

A run directory holds games.parquet (one row per game, docs/architecture.md §5) and
manifest.json. The report leads with the answer: a few short findings and the headline
chart, the controlled chart of the sweep's first trigger (every setting on the same
seeds). Then the other charts, the tables (the best setting of each
trigger for each outcome with its significance, every rate with its 95% interval, paired
differences, how games end), why games are lost (defeats by weapon, place, vehicle and
turn; when each outcome's games end), the observational first-fire charts (per policy, saying
why their late end holds survivors), example games to replay with
`bollesim play --from DIR --index N`, and last, what was run.

The content is built once as a list of blocks and rendered twice: HTML, Markdown with the
charts as PNG files next to it. rates.csv beside them holds every rate. Every file is
written atomically (a temporary name in the same folder, then os.replace).
"""

from __future__ import annotations

import json
import shlex
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from bollesim.batch.manifest import manifest_game
from bollesim.batch.runfolder import RATES_CSV
from bollesim.game.declaration import Game
from bollesim.report import answer, chartdata, plots
from bollesim.report.chartdata import RateChart, signed_ci
from bollesim.report.document import Report, p_text, pct_ci, points, write_pages
from bollesim.stats import analysis, naming, paired_tests
from bollesim.stats.naming import pct

EXAMPLES_PER_OUTCOME = 5


MAX_COMPARED_CELLS = 12  # above this, cells are compared through the trigger charts only


def _games(n: int) -> str:
    return f"{n:,} game" + ("" if n == 1 else "s")


def load_run(run_dir: str | Path, game: Game | None = None) -> tuple[pl.DataFrame, dict]:
    """(games, manifest) of a run directory, verified by runfolder.open_run (which raises
    RunFolderError, one line, for a folder it cannot trust, or one of another game than
    `game` if given); batch.manifest.manifest_game(manifest) is their game."""
    from bollesim.batch.runfolder import open_run

    run = open_run(run_dir, game)
    manifest = run.manifest
    games = run.read()
    if "cell" not in games.columns:
        games = games.with_columns(pl.lit(0, dtype=pl.Int32).alias("cell"))
    if "policy" not in games.columns:
        games = games.with_columns(pl.lit(str(manifest.get("policy", "?"))).alias("policy"))
    return games, manifest


def _label_map(game: Game, games: pl.DataFrame) -> dict[int, str]:
    return dict(naming.cell_labels(game, games).select("cell", "label").iter_rows())


@dataclass(frozen=True)
class Trigger:
    """A swept parameter of one policy of a game (under one ruleset of a sweep whose cells
    change the ruleset): its best-setting table and its chart data."""

    game: Game
    policy: str
    param: str
    best: pl.DataFrame  # analysis.best_trigger
    chart: RateChart    # chartdata.trigger
    ruleset: str = ""   # what the cells change in the ruleset (the rows' `ruleset`)
    answer: tuple[str, ...] = ()  # answer.sentences

    @property
    def label(self) -> str:
        return naming.parameter_label(self.game, self.policy, self.param)

    @property
    def name(self) -> str:
        """The chart's name: policy, parameter and ruleset."""
        return "-".join(x for x in ("trigger", self.policy, self.param, self.ruleset) if x)

    @property
    def under(self) -> str:
        """" under `I-AIR=ceil`" for a trigger of a changed ruleset, else ""."""
        return f" under `{self.ruleset}`" if self.ruleset else ""


def _triggers(game: Game, games: pl.DataFrame) -> list[Trigger]:
    """The swept parameters of each policy (answer.swept), with their tables, charts and
    the answer in words."""
    out = []
    for ruleset, rows, policy, param in answer.swept(game, games):
        best = paired_tests.best_trigger(game, rows, param, policy=policy)
        out.append(Trigger(game, policy, param, best,
                           chartdata.trigger(game, rows, param, policy=policy), ruleset,
                           tuple(answer.sentences(game, rows, param, policy=policy, best=best))))
    return out


def _chart(rep: Report, name: str, data: RateChart, alt: str) -> None:
    rep.chart(name, plots.draw(data), alt, data)


def _answer(game: Game, rep: Report, games: pl.DataFrame, triggers: list[Trigger],
            labels: dict[int, str]) -> None:
    """The first screen: the answer in words, the headline chart; then the findings."""
    result = game.result
    overall = analysis.rates(game, games).row(0, named=True)
    n_cells = games["cell"].n_unique()
    items = []
    for t in triggers:
        n_settings = int(t.best["n_settings"][0])
        items.append(f"**{t.label[:1].upper() + t.label[1:]}** (`{t.policy}`{t.under}, {n_settings} "
                     f"settings on the same seeds): {t.chart.finding}")
    if n_cells == 1:
        wins = ", ".join(f"{game.result.labels[v]} {pct(overall[f'{v}_rate'])}" for v in result.wins)
        items.append(f"**Victories**: {wins}.")
    items.append(f"**Lost** {pct(overall[f'{result.loss}_rate'])} of all {_games(overall['n'])}, "
                 f"**{game.result.labels[result.no_result]}** {pct(overall[f'{result.no_result}_rate'])}, "
                 f"**{game.result.labels[result.all_wins]}** {pct(overall[f'{result.all_wins}_rate'])}.")
    for i, t in enumerate(triggers):
        if i == 0:
            rep.h(2, "The answer")
        rep.p(f"**{t.label[:1].upper() + t.label[1:]}** (`{t.policy}` `{t.param}`{t.under}):")
        rep.ul(list(t.answer))
        if i == 0:  # the headline chart, within the first screen
            _chart(rep, t.name, t.chart,
                   f"Outcome rates against the {t.label} ({t.policy}{t.under}), with 95% "
                   "intervals; every setting plays the same seeds.")
    rep.h(2, "Findings")
    rep.ul(items)
    if triggers:
        return
    if 2 <= n_cells <= MAX_COMPARED_CELLS:
        data = chartdata.comparison(game, games, by="cell")
        _chart(rep, "comparison", data, "Outcome rates of each cell side by side, with 95% "
               "intervals.")


def _more_charts(game: Game, rep: Report, games: pl.DataFrame, triggers: list[Trigger]) -> None:
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
        _chart(rep, "comparison", chartdata.comparison(game, games, by="cell"),
               "Outcome rates of each cell side by side, with 95% intervals.")


def _trigger_tables(game: Game, rep: Report, triggers: list[Trigger]) -> None:
    for t in triggers:
        rep.h(3, f"Best {t.label} for each outcome ({t.policy} `{t.param}`{t.under})")
        rows = []
        for r in t.best.iter_rows(named=True):
            paired = r["p_vs_worst"] is not None
            default = "–" if r["default_rate"] is None else (
                "is the best" if r["best_label"] == r["default_label"] else
                f"{r['default_label']}: {pct(r['default_rate'])} (the best: "
                f"{_gap(r['gain_vs_default'], r['goal'])}"
                + (f", {_verdict(r['significant_vs_default'], r['p_vs_default'])}"
                   if paired else "") + ")")
            tied = [x for x in (r["tied"] or []) if x != r["best_label"]]
            rows.append([
                game.result.labels[r["outcome"]],
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


def _best_cells(game: Game, rep: Report, games: pl.DataFrame, labels: dict[int, str]) -> None:
    """Best and worst cell for each outcome, paired comparison between them."""
    by_cell = analysis.rates(game, games, by="cell")
    if by_cell.height < 2:
        return
    rows = []
    for o in game.result.headline:
        ordered = by_cell.sort(f"{o}_rate", descending=o not in game.result.minimise, maintain_order=True)
        best, worst = ordered.row(0, named=True), ordered.row(-1, named=True)
        try:
            cmp = paired_tests.paired_comparison(game, games, int(best["cell"]), int(worst["cell"]), o).row(
                0, named=True)
            sig = _verdict(cmp["significant"], cmp["p_value"])
        except ValueError:
            sig = "not paired"
        rows.append([game.result.labels[o], labels[best["cell"]],
                     pct_ci(best[f"{o}_rate"], best[f"{o}_low"], best[f"{o}_high"]),
                     labels[worst["cell"]], pct(worst[f"{o}_rate"]),
                     points(best[f"{o}_rate"] - worst[f"{o}_rate"]), sig])
    rep.h(3, "Best and worst cell for each outcome")
    rep.table(["outcome", "best cell", "rate (95% CI)", "worst cell", "rate", "gap",
               "significant?"], rows, right={2, 4, 5})


def _rates_table(game: Game, rep: Report, games: pl.DataFrame, labels: dict[int, str]) -> None:
    result = game.result
    rep.h(3, "Rates with 95% intervals")
    table = analysis.rates(game, games, by="cell")
    header = ["cell", "games"] + [game.result.labels[o] for o in game.result.outcome_names]
    rows = []
    for r in table.iter_rows(named=True):
        rows.append([labels[r["cell"]], f"{r['n']:,}"]
                    + [pct_ci(r[f"{o}_rate"], r[f"{o}_low"], r[f"{o}_high"]) for o in game.result.outcome_names])
    if table.height > 1:
        r = analysis.rates(game, games).row(0, named=True)
        rows.append(["**all cells**", f"{r['n']:,}"]
                    + [pct_ci(r[f"{o}_rate"], r[f"{o}_low"], r[f"{o}_high"]) for o in game.result.outcome_names])
    rep.p("Share of games with each outcome, 95% Wilson interval in brackets. A game can win "
          "in several ways, so a row's wins and losses can add up to more than 100%; "
          f"\"{game.result.labels[result.all_wins]}\" counts games that won every one, "
          f"\"{game.result.labels[result.no_result]}\" games with neither a win nor a loss. The "
          f"same numbers, with counts, are in `{RATES_CSV}`.")
    rep.table(header, rows, right=set(range(1, len(header))), total=table.height > 1)


def _paired_table(game: Game, rep: Report, games: pl.DataFrame, labels: dict[int, str]) -> None:
    cells = sorted(games["cell"].unique().to_list())
    if not 2 <= len(cells) <= MAX_COMPARED_CELLS:
        return
    policies = dict(naming.cell_labels(game, games).select("cell", "policy").iter_rows())
    base = next((c for c in cells if policies[c] == game.baseline), cells[0])
    rows = []
    for c in cells:
        if c == base:
            continue
        try:
            cmp = paired_tests.paired_comparison(game, games, int(c), int(base),
                                                 list(game.result.headline))
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
    rep.table(["cell"] + [game.result.labels[o] for o in game.result.headline], rows,
              right=set(range(1, len(game.result.headline) + 1)))


def _endings(game: Game, rep: Report, games: pl.DataFrame) -> None:
    result = game.result
    rep.h(3, "How games end")
    table = analysis.end_reasons(game, games)
    rows = [[r[result.end_reason], game.result.labels[result.loss] if r[result.loss] else "", f"{r['k']:,}",
             pct_ci(r["rate"], r["low"], r["high"])] for r in table.iter_rows(named=True)]
    rep.table(["end reason", "", "games", "share (95% CI)"], rows, right={2, 3})
    summary = analysis.summary(game, games)
    rows = []
    for r in summary.iter_rows(named=True):
        if r["n"] == 0:
            rows.append([result.title(r["variable"]), "0", "–", "–", "–", "–"])
            continue
        rows.append([result.title(r["variable"]), f"{r['n']:,}", f"{r['mean']:.2f}", f"{r['p10']:g}",
                     f"{r['median']:g}", f"{r['p90']:g}"])
    never = ", ".join(result.title(c) for c in result.nullable if c in result.distributions)
    if result.trigger:
        acted = games[result.trigger].drop_nulls().len()
        rep.p(f"Distributions over all games; {pct(acted / games.height)} of games "
              f"{result.acted} (a game that did not has no {never}):")
    else:
        rep.p("Distributions over all games:")
    rep.table(["", "games", "mean", "10th pct", "median", "90th pct"], rows,
              right={1, 2, 3, 4, 5})


def _losses(game: Game, rep: Report, games: pl.DataFrame) -> None:
    """Why games are lost: defeats by the weapon, the vehicle, the place and the turn of
    the loss that ended them, and when the games of each outcome end (all games)."""
    result = game.result
    rep.h(2, "Why games are lost")
    defeats = int(games[result.loss].fill_null(False).sum())
    rep.p(f"{_games(defeats)} of {games.height:,} were lost. {result.loss_text}".strip())
    if defeats and result.loss_factors:
        cause, vehicle, place, _ = result.loss_factors  # what did it, to whom, where, when
        for factor in (cause, place):
            data = chartdata.defeats_by(game, games, factor)
            _chart(rep, f"defeats-{factor.removeprefix('loss_')}", data,
                   f"Share of all games lost, by {chartdata.loss_name(game, factor)}, with 95% "
                   "intervals.")
        _chart(rep, "defeats-turn", chartdata.defeats_by_turn(game, games),
               "Share of all games lost on each turn, one line per weapon, with 95% intervals.")
        table = analysis.defeat_breakdown(game, games, vehicle)
        rep.table([result.title(vehicle), "defeats", "share of defeats", "share of games (95% CI)"],
                  [[r[vehicle] or chartdata.no_loss(game), f"{r['k']:,}", pct(r["share"]),
                    pct_ci(r["rate"], r["low"], r["high"])] for r in table.iter_rows(named=True)],
                  right={1, 2, 3})
    for column in filter(None, (result.end_turn, result.first_loss)):
        _chart(rep, f"outcome-{column.replace('_', '-')}", chartdata.turns_by_outcome(game, games, column),
               f"For each outcome, how its games spread over the {result.title(column)}, "
               "with 95% intervals.")


def _observational(game: Game, rep: Report, games: pl.DataFrame) -> None:
    result = game.result
    if not result.trigger:
        return
    drawn = []
    for policy in games["policy"].unique(maintain_order=True).to_list():
        data = chartdata.observed(game, games.filter(pl.col("policy") == policy), result.trigger)
        if data.frame.filter(pl.col("x").is_not_null()).height:
            drawn.append((policy, data))
    if not drawn:
        return
    when = result.title(result.trigger)
    rep.h(2, f"Outcomes by the {when} each game actually had (observational)")
    rep.p(f"These charts group each policy's games by the {when} that came, not by a setting "
          "chosen in advance: games that last long enough for a late one are the survivors, "
          "so the late end of each chart shows survivors' rates. For the effect of a later "
          "setting, read the trigger charts above.")
    for policy, data in drawn:
        _chart(rep, f"{result.trigger.replace('_', '-')}-{policy}", data,
               f"Outcome rates of {policy} against the {when} of each game "
               "(observational), with 95% intervals.")


def _examples(game: Game, rep: Report, games: pl.DataFrame, run_dir: Path, labels: dict[int, str]) -> None:
    result = game.result
    rep.h(2, "Example games to replay")
    multi = games["cell"].n_unique() > 1
    ex = analysis.examples(game, games, k=EXAMPLES_PER_OUTCOME)

    def command(index: int, cell: int) -> str:
        return replay_command(run_dir, index, cell if multi else None)

    rows = []
    for r in ex.iter_rows(named=True):
        shown = ", ".join(f"{g}" + (f" ({labels[c]})" if multi else "")
                          for g, c in zip(r["games"], r["cells"], strict=True))
        rows.append([r["outcome"], f"{r['count']:,}", shown,
                     f"`{command(r['games'][0], r['cells'][0])}`"])
    rep.p("A few games of each outcome (lowest game numbers first). Each replays exactly, "
          f"narrated {result.turn} by {result.turn}, from its run folder" + (" and cell" if multi else "") + ":")
    rep.table(["outcome", "games", "examples", "replay the first"], rows, right={1})


def replay_command(run_dir: str | Path, index: int, cell: int | None = None) -> str:
    """The shell command that replays game number `index` (of its folder's game), its
    folder quoted for the shell."""
    return (f"bollesim play --from {shlex.quote(str(run_dir))} --index {int(index)}"
            + (f" --cell {int(cell)}" if cell is not None else ""))


def _what_was_run(game: Game, rep: Report, games: pl.DataFrame, manifest: dict, run_dir: Path) -> None:
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
    swept = naming.swept_parameters(game, games)
    params = naming.param_columns(game, games)
    lines = []
    for policy in policies:
        mine = games.filter(pl.col("policy") == policy)
        own = [p for p in params if mine[p].null_count() < mine.height]
        fixed = [f"{p}={naming.fmt_value(mine[p].drop_nulls()[0])}" for p in own
                 if p not in swept.get(policy, [])]
        varied = [f"**{p}** over " + ", ".join(
            naming.fmt_value(v) for v in mine[p].unique().sort(nulls_last=True).to_list())
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
    """The report's content (blocks and charts) for a run's games and manifest (which
    names their game): the findings and the headline chart first, then tables, then what
    was run."""
    run_dir = Path(run_dir)
    game = manifest_game(manifest)
    games = game.result.with_outcomes(games)
    labels = _label_map(game, games)
    title = report_title(manifest, run_dir)
    rep = Report(title)
    rep.h(1, title)
    description = str(manifest.get("description") or "").strip()
    if description:
        rep.p(description)
    rep.p(f"{game.title}, {_games(games.height)}, "
          f"written {time.strftime('%Y-%m-%d %H:%M')} by bollesim.")
    triggers = _triggers(game, games)
    _answer(game, rep, games, triggers, labels)
    _more_charts(game, rep, games, triggers)
    rep.h(2, "Tables")
    _trigger_tables(game, rep, triggers)
    _best_cells(game, rep, games, labels)
    _rates_table(game, rep, games, labels)
    _paired_table(game, rep, games, labels)
    _endings(game, rep, games)
    _losses(game, rep, games)
    _observational(game, rep, games)
    _examples(game, rep, games, run_dir, labels)
    _what_was_run(game, rep, games, manifest, run_dir)
    _method(rep)
    return rep


def rates_frame(game: Game, games: pl.DataFrame) -> pl.DataFrame:
    """Every cell and outcome, tidy: `cell`, `label`, `policy`, the parameter columns,
    `outcome`, `games`, `games_with` (games with the outcome), `rate`, `low`, `high` (95%
    Wilson interval). What rates.csv holds."""
    games = game.result.with_outcomes(games)
    cells = naming.cell_labels(game, games)
    params = naming.param_columns(game, games)
    values = games.group_by("cell").agg(*[pl.col(p).first() for p in params])
    long = analysis.rates(game, games, by="cell", long=True).rename({"n": "games", "k": "games_with"})
    return (long.join(cells, on="cell").join(values, on="cell")
            .select("cell", "label", "policy", *params, "outcome", "games", "games_with", "rate",
                    "low", "high")
            .sort("cell", maintain_order=True))


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
    paths = write_pages(rep, out, "report", {RATES_CSV: rates_frame(manifest_game(manifest), games)})
    return {**paths, "rates": out / RATES_CSV}
