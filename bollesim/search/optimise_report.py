"""A search's result folder (a run folder of the held-out games, with the trajectory,
best.json and optimise.md) and its report and charts."""

from __future__ import annotations

import json

import numpy as np
import polars as pl

from bollesim.batch.manifest import play_record, ruleset_record
from bollesim.batch.runfolder import SEARCH_FILE, TRAJECTORY
from bollesim.game.result import Objective
from bollesim.search.optimise import Result, holdout_table, paired
from bollesim.search.optimise_space import Search
from bollesim.search.race import pareto_ranks
from bollesim.stats import naming

BEST = SEARCH_FILE  # it makes a run folder a search's result
REPORT = "optimise.md"
REPORT_HTML = "optimise.html"

# --------------------------------------------------------------------------- the result folder


def held_out_vectors(search: Search, result: Result) -> list[np.ndarray]:
    """The parameter vectors of the held-out cells: the finalists, the best seed when it
    is not one of them, then the defaults."""
    return [vector for _, vector in result.held]


def candidate_label(search: Search, vector: np.ndarray) -> str:
    """The searched parameters' values, e.g. "k=14 stop_at_tanks=2"."""
    return " ".join(f"{a.name}={naming.fmt_value(vector[a.index])}" for a in search.axes)


def write_result(search: Search, result: Result, out) -> dict:
    """Commit the result folder `out` (a run folder of the held-out games, with the
    trajectory, best.json, optimise.md and its charts): all of it or nothing. `out`: the
    folder, or its runfolder.Workspace held by the caller."""
    import io

    from bollesim.batch.runfolder import SEARCH
    from bollesim.batch.workspace import write_games
    from bollesim.report import charts

    table = holdout_table(search, result.holdout)
    cells = [{"cell": i, "policy": search.policy.name,
              "params": {p.name: float(v) for p, v in zip(search.policy.parameters,
                                                          vector, strict=True)}}
             for i, vector in enumerate(held_out_vectors(search, result))]
    trajectory = io.BytesIO()
    result.trajectory.write_parquet(trajectory)
    best = {**result.best, "objectives": [o.describe() for o in search.objectives],
            "held_out": _held_out_record(table, 0)}
    specs = {"trajectory": trajectory_spec(search, result)}
    if search.pareto:
        specs["pareto"] = pareto_spec(search, result, table)
    files = {TRAJECTORY: trajectory.getvalue(),
             BEST: (json.dumps(best, indent=2, ensure_ascii=False) + "\n").encode("utf-8")}
    for name, spec in specs.items():
        files[f"optimise-{name}.png"] = charts.png(spec)
        files[f"optimise-{name}.vl.json"] = json.dumps(spec).encode("utf-8")
    rep = report_blocks(search, result, table)
    files[REPORT] = report_markdown(rep, specs).encode("utf-8")
    files[REPORT_HTML] = report_html(rep, specs).encode("utf-8")
    return write_games(
        out, search.game, result.holdout, files, "bollesim optimise", SEARCH,
        **play_record(search.rules, cells, search.holdout_seed, "fast", result.timings,
                      games_per_cell=search.holdout_games),
        experiment=search.name, description=search.description,
        spec_file=str(search.path) if search.path else None, spec=search.spec,
        **ruleset_record(search.rules, search.ruleset_source))


def _held_out_record(table: pl.DataFrame, cell: int) -> list[dict]:
    keep = ["label", "n", "mean", "low", "high", "diff", "diff_low", "diff_high", "p_value"]
    return table.filter(pl.col("cell") == cell).select(keep).to_dicts()


def trials_table(search: Search, result: Result) -> pl.DataFrame:
    """One row per trial at its last rung, in the order played: the search games spent
    when it ended, its estimate of the first objective on the games it played (in
    points for a rate), how it ended, and the best estimate of a trial played to the end
    so far."""
    scale = 100 if search.objectives[0].is_rate else 1
    ends = (result.trajectory.with_row_index("row").sort("row").group_by("stage", "trial", "candidate")
            .last().sort("row"))
    finished = ends["kept"].to_numpy() & (ends["games"] == search.trial_games).to_numpy()
    estimate = ends["objective_0"].to_numpy() * scale
    best = np.maximum.accumulate(np.where(finished, estimate, -np.inf))
    return ends.select("stage", "trial", "candidate", "games", "spent").with_columns(
        pl.Series("estimate", estimate),
        pl.Series("ended", np.where(finished, "played to the end", "dropped")),
        pl.Series("best", np.where(np.isfinite(best), best, np.nan)).fill_nan(None),
        pl.Series("origin", [result.labels[c] for c in ends["candidate"]]),
        pl.Series("label", [candidate_label(search, result.pool[c]) for c in ends["candidate"]]),
    )


def trajectory_spec(search: Search, result: Result) -> dict:
    """The search's trajectory: every trial's estimate of the first objective (on the
    games it played) against the search games spent when it ended, and the best trial
    played to the end so far."""
    import altair as alt

    data = trials_table(search, result).to_dicts()
    unit = " (%)" if search.objectives[0].is_rate else ""
    base = alt.Chart(alt.Data(values=data))
    points = base.mark_point(opacity=0.5, size=18).encode(
        x=alt.X("spent:Q", title="search games spent"),
        y=alt.Y("estimate:Q", title=search.objectives[0].label + unit, scale=alt.Scale(zero=False)),
        color=alt.Color("ended:N", title="trial"),
        shape=alt.Shape("stage:N", title="stage (0 seeds, 1 sampler)"),
        tooltip=["origin:N", "label:N", "games:Q", alt.Tooltip("estimate:Q", format=".2f")],
    )
    line = base.mark_line(color="#d62728", interpolate="step-after").encode(x="spent:Q", y="best:Q")
    chart = (points + line).properties(
        width=640, height=320,
        title={"text": f"The search: {search.name}",
               "subtitle": ["dots: each trial's estimate on the games it played; "
                            "red: the best trial played to the end so far"]})
    return chart.to_dict()


def pareto_spec(search: Search, result: Result, table: pl.DataFrame) -> dict:
    """The two objectives of every candidate at its last round (grey) and the finalists'
    held-out estimates with their intervals, the front joined by a line."""
    import altair as alt

    x_label, y_label = (o.label for o in search.objectives)
    last = (result.trajectory.sort("round").group_by("candidate").last()
            .with_columns((pl.col("objective_0") * 100).alias("x"),
                          (pl.col("objective_1") * 100).alias("y")))
    wide = (table.filter(pl.col("objective") == 0).select("cell", "defaults", x="mean",
                                                          x_low="low", x_high="high")
            .join(table.filter(pl.col("objective") == 1)
                  .select("cell", y="mean", y_low="low", y_high="high"), on="cell"))
    vectors = held_out_vectors(search, result)
    wide = wide.with_columns(
        *(pl.col(c) * 100 for c in ("x", "x_low", "x_high", "y", "y_low", "y_high")),
        pl.Series("label", [candidate_label(search, vectors[c]) for c in wide["cell"]]),
    ).sort("x")
    points = wide.select("x", "y").to_numpy()
    front = wide.filter(pl.Series(pareto_ranks(points) == 0)).sort("x")
    searched = alt.Chart(alt.Data(values=last.to_dicts())).mark_point(color="#bbbbbb").encode(
        x=alt.X("x:Q", title=f"{x_label} (%)", scale=alt.Scale(zero=False)),
        y=alt.Y("y:Q", title=f"{y_label} (%)", scale=alt.Scale(zero=False)),
        tooltip=["candidate:N", "games:Q"])
    base = alt.Chart(alt.Data(values=wide.to_dicts()))
    held = base.mark_point(filled=True, size=70).encode(
        x="x:Q", y="y:Q", color=alt.Color("defaults:N", title="defaults"),
        tooltip=["label:N", alt.Tooltip("x:Q", format=".2f"), alt.Tooltip("y:Q", format=".2f")])
    x_bars = base.mark_rule().encode(x="x_low:Q", x2="x_high:Q", y="y:Q")
    y_bars = base.mark_rule().encode(x="x:Q", y="y_low:Q", y2="y_high:Q")
    line = alt.Chart(alt.Data(values=front.to_dicts())).mark_line(color="#d62728").encode(x="x:Q", y="y:Q")
    chart = (searched + line + x_bars + y_bars + held).properties(
        width=640, height=400,
        title={"text": f"Pareto front: {x_label} against {y_label}",
               "subtitle": ["grey: every candidate's search estimate at its last round; "
                            "dots: held-out estimates with 95% intervals; red: the front"]})
    return chart.to_dict()


CHART_ALT = {"pareto": "the Pareto front", "trajectory": "the search's trajectory"}


def report_markdown(rep, specs: dict[str, dict], stem: str = "optimise",
                    alts: dict[str, str] = CHART_ALT) -> str:
    """STEM.md: the report's blocks, then its charts (STEM-NAME.png, `alts` their
    captions) as PNG links."""
    from bollesim.report.document import render_markdown

    images = [f"![{alts[name]}]({stem}-{name}.png)" for name in sorted(specs)]
    return render_markdown(rep, {}) + "\n" + "\n\n".join(images) + "\n"


def report_html(rep, specs: dict[str, dict], alts: dict[str, str] = CHART_ALT) -> str:
    """The same report in one page that works offline, its charts interactive
    (report.render_html's page, charts.page_script's Vega-Lite)."""
    from bollesim.report import charts
    from bollesim.report.document import render_html

    drawn = {name: charts.figure(name, specs[name], alts[name]) for name in sorted(specs)}
    figures = "".join(figure for figure, _ in drawn.values())
    script = charts.page_script({f"vis-{name}": spec for name, (_, spec) in drawn.items()})
    return render_html(rep).replace("</body>", figures + "\n" + script + "\n</body>", 1)


def report_blocks(search: Search, result: Result, table: pl.DataFrame):
    """The report's content (report.Report): the winner, the held-out estimates and
    differences, the winner against the best seed, the search."""
    from bollesim.report.document import Report
    from bollesim.stats.naming import pct

    rep = Report(f"Policy search: {search.name}")
    rep.h(1, rep.title)
    if search.description:
        rep.p(search.description)
    goal = " and ".join(o.label for o in search.objectives)
    mode = "Pareto front of" if search.pareto else "maximising"
    trials = result.trajectory.select("stage", "trial", "candidate").unique()
    n_seeds = trials.filter(pl.col("stage") == 0).height
    rep.p(f"Family `{search.policy.name}`, {mode} {goal}. {n_seeds} seeds (the defaults and "
          f"the presets in the space), then {trials.height - n_seeds} trials of optuna's TPE "
          f"sampler, each played on the same games of seed {search.seed} in growing blocks "
          f"(up to {search.trial_games:,}) and dropped once clearly worse than the best so "
          f"far on the same games: {result.games_searched:,} games in all. The "
          f"{len(result.held)} cells below then replayed on {search.holdout_games:,} "
          f"held-out games of seed {search.holdout_seed}, never used in the search.")
    winner = result.pool[result.finalists[0]]
    rep.p(f"Best (the search's first finalist, chosen on the search games): "
          f"`{candidate_label(search, winner)}` (best.json, from "
          f"{result.labels[result.finalists[0]]}).")
    rep.h(2, "Held-out estimates")
    header = ["cell", "candidate", "objective", "estimate (95% interval)",
              "difference from the defaults (95% interval)", "p"]
    rows = []
    for row in table.iter_rows(named=True):
        who, vector = result.held[row["cell"]]
        estimate, diff = _estimate_and_difference(search.objectives[row["objective"]], row)
        p = "–" if row["p_value"] is None or row["defaults"] else naming.p_text(row["p_value"]).removeprefix("p = ")
        rows.append([who, candidate_label(search, vector), row["label"], estimate,
                     "–" if row["defaults"] else diff, p])
    rep.table(header, rows, right={3, 4, 5})
    objective = search.objectives[0]
    scale, unit = (100, " points") if objective.is_rate else (1, "")
    seed_cell = (result.finalists.index(result.best_seed) if result.best_seed in result.finalists
                 else len(result.finalists))
    if result.finalists[0] == result.best_seed:
        rep.p(f"The winner is the best seed ({result.labels[result.best_seed]}): no trial of "
              "the sampler beat it on the search games.")
    else:
        d = paired(search.game, objective, result.holdout, 0, seed_cell)
        verdict = ("The best seed beats the winner on the held-out games: the search's "
                   "choice did not carry over." if d["diff_high"] < 0 else "")
        rep.p(f"The winner against the best seed ({result.labels[result.best_seed]}), game by "
              f"game on the held-out seeds: {scale * d['diff']:+.2f}{unit} of {objective.label} "
              f"(95% interval {scale * d['diff_low']:+.2f} to {scale * d['diff_high']:+.2f}). "
              + verdict)
    if len(result.finalists) > 1:
        d = paired(search.game, objective, result.holdout, 0, 1)
        rep.p(f"Finalist 1 against finalist 2, game by game on the held-out seeds: "
              f"{scale * d['diff']:+.2f}{unit} of {objective.label} (95% interval "
              f"{scale * d['diff_low']:+.2f} to {scale * d['diff_high']:+.2f}).")
    rep.p("Rates have Wilson intervals and paired differences Newcombe's interval with an "
          "exact McNemar p; a weighted score has a normal interval of its mean and of the "
          "paired per-game difference. Every rate of every cell: `bollesim report OUT`.")
    rep.h(2, "The search")
    header = ["stage", "rung", "trials", "games each", "dropped there", "leader",
              "leader's estimate"]
    rows = []
    for (stage, r), g in sorted(result.trajectory.group_by("stage", "round"), key=lambda kv: kv[0]):
        top = g.sort("objective_0", descending=True).row(0, named=True)
        rows.append([("seeds", "sampler")[stage], str(r), str(g.height), f"{top['games']:,}",
                     str(g.filter(~pl.col("kept")).height),
                     candidate_label(search, result.pool[top["candidate"]]),
                     pct(top["objective_0"]) if objective.is_rate else f"{top['objective_0']:.4f}"])
    rep.table(header, rows, right={1, 2, 3, 4, 6})
    t = result.timings
    rep.p(f"Search {t['search_s']:.0f} s, held-out {t['holdout_s']:.0f} s "
          f"({t['games_per_s']:,} games/s). Every rung of every trial: {TRAJECTORY}.")
    return rep


def _estimate_and_difference(objective: Objective, row: dict) -> tuple[str, str]:
    from bollesim.report.document import pct_ci

    if objective.is_rate:
        return (pct_ci(row["mean"], row["low"], row["high"]),
                f"{100 * row['diff']:+.2f} points ({100 * row['diff_low']:+.2f} to "
                f"{100 * row['diff_high']:+.2f})")
    return (f"{row['mean']:.4f} ({row['low']:.4f} to {row['high']:.4f})",
            f"{row['diff']:+.4f} ({row['diff_low']:+.4f} to {row['diff_high']:+.4f})")
