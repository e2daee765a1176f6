"""Sensitivity: an experiment played under each alternative reading of the rules, on the
same seeds, and whether its findings still hold.

    bollesim sensitivity experiments/first_fire.toml -n 2000   # -> results/first_fire-sensitivity/
    bollesim sensitivity experiments/first_fire.toml --only I-AIR --only R-TRACK

The run is one sweep (experiment.py), so --resume, --json, the progress bar and the run
folder's checks are a sweep's: the experiment's C cells as specified (cells 0..C-1), then
the same C cells under each alternative in turn (cells v*C .. v*C+C-1 play alternative
v), every cell on the same seeds. An alternative is a variant of a reading
(docs/readings.md) other than the one the experiment plays. The manifest's `sensitivity`
records the layout: {cells_per_ruleset: C, alternatives: ["ID=VARIANT", ...]}.

The report (sensitivity.html, sensitivity.md with its charts, sensitivity-effects.csv,
sensitivity-robustness.csv; `bollesim report` of the folder writes it too):

- how far each alternative moves each outcome's rate (`effects`): its rate over all the
  experiment's cells under the alternative minus as specified, game by game. The games of
  one game number share their seed in every cell, so the game number is the unit: with
  d_g the mean over the cells of game g's change, the difference is the mean of d_g, its
  95% interval the mean ± 1.96 sd(d_g) / sqrt(G), and it is significant when a two-sided
  z test gives p < 0.05. A tornado chart per outcome shows them, largest first.
- whether each finding holds under each alternative (`robustness`): the best setting of
  each swept trigger for each victory type and defeat (analysis.best_trigger) and, with
  several policies, their ranking by the best of their cells. A finding *holds* when the
  alternative gives the same answer, *holds within noise* when another answer comes
  first but the exact McNemar test cannot tell it from the experiment's (p >= 0.05, game
  by game), and *changes* otherwise; the table says what replaces it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from bollesim.batch.experiment import Cell, Experiment, changed_ruleset, half_widths
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.errors import UsageError
from bollesim.report import chartdata, plots
from bollesim.report.balance import Report, write_pages
from bollesim.report.chartdata import pct, signed_ci
from bollesim.stats import analysis as A

FINDING_OUTCOMES = chartdata.DRAWN
"""The outcomes whose findings are checked and whose tornado charts are drawn."""
AS_SPECIFIED = "as specified"
"""The name of the experiment's own readings among the alternatives."""
VERDICTS = ("holds", "holds within noise", "changes")
ALPHA = 0.05
Z95 = 1.96


# --------------------------------------------------------------------------- the run


def alternatives(rules: Ruleset, only: Sequence[str] | None = None) -> list[tuple[str, str]]:
    """(reading id, variant) of every variant other than the one `rules` plays, readings
    in declaration order (only the ids in `only`, if given; UsageError for an unknown id
    or one without alternatives)."""
    from bollesim.bollebank.rules.readings import BY_ID, READINGS, _ids_hint

    for rid in only or ():
        if rid not in BY_ID:
            raise UsageError(f"--only {rid}: unknown reading; {_ids_hint(rid)}")
        if not BY_ID[rid].alternatives:
            raise UsageError(f"--only {rid}: {rid} has no alternative ({BY_ID[rid].fixed})")
    chosen = [r for r in READINGS if only is None or r.id in only]
    return [(r.id, v.name) for r in chosen if r.alternatives
            for v in r.variants() if v.name != rules.readings[r.id]]


def sensitivity_experiment(experiment: Experiment, only: Sequence[str] | None = None
                           ) -> Experiment:
    """The experiment's cells as specified, then under each alternative (module docstring),
    as one experiment named NAME-sensitivity."""
    if any(c.changes_rules for c in experiment.cells):
        raise UsageError(
            f"{experiment.path}: sensitivity plays every cell under each reading: give a spec "
            "whose grids have no rules or readings (fix them at its top: overrides, readings)")
    alts = alternatives(experiment.rules, only)
    if not alts:
        raise UsageError("no alternative reading to play (every reading asked is the one "
                         "the experiment plays)")
    n = len(experiment.cells)
    cells = list(experiment.cells)
    for v, (rid, variant) in enumerate(alts, 1):
        ruleset = changed_ruleset(experiment.rules, {}, {rid: variant})
        cells += [Cell(v * n + c.cell, c.policy, c.params, {}, {rid: variant}, ruleset)
                  for c in experiment.cells]
    layout = {"cells_per_ruleset": n, "alternatives": [f"{r}={v}" for r, v in alts]}
    return Experiment(
        name=f"{experiment.name}-sensitivity",
        description=f"{experiment.name} under each alternative reading of the rules"
        + (f": {experiment.description}" if experiment.description else ""),
        seed=experiment.seed, games=experiment.games, cells=tuple(cells),
        rules=experiment.rules, ruleset_source=experiment.ruleset_source,
        path=experiment.path, spec=experiment.spec, sensitivity=layout)


def layout(manifest: dict) -> tuple[int, list[str]]:
    """(cells per ruleset, [AS_SPECIFIED, alternative, ...]) of a sensitivity run."""
    info = manifest.get("sensitivity")
    if not isinstance(info, dict):
        raise UsageError("not a sensitivity run (its manifest has no sensitivity layout): "
                         "make one with bollesim sensitivity SPEC")
    return int(info["cells_per_ruleset"]), [AS_SPECIFIED, *info["alternatives"]]


def tagged(games: pl.DataFrame, manifest: dict) -> pl.DataFrame:
    """The games with `variant` (AS_SPECIFIED or "ID=VARIANT"), `variant_index` (0 for
    AS_SPECIFIED) and `cell` the experiment's cell (0..C-1), the derived outcomes added,
    the ruleset columns dropped."""
    n, names = layout(manifest)
    index = (pl.col("cell") // n).cast(pl.Int64)
    return (A.with_outcomes(games).drop("ruleset", "ruleset_hash", strict=False)
            .with_columns(index.alias("variant_index"),
                          index.replace_strict(dict(enumerate(names)), return_dtype=pl.Utf8)
                          .alias("variant"),
                          (pl.col("cell") % n).alias("cell")))


# --------------------------------------------------------------------------- the effects


def effects(games: pl.DataFrame, manifest: dict,
            outcomes: Sequence[str] = A.OUTCOMES) -> pl.DataFrame:
    """How far each alternative moves each outcome's rate over all the cells: one row per
    (alternative, outcome) with `alternative`, `outcome`, `cells`, `n` (games per cell),
    `rate_default` (as specified), `rate_alternative`, `diff` (alternative minus as
    specified), `low`, `high` (95% interval, the game number as the unit), `p_value`
    (two-sided z test) and `significant` (p < 0.05)."""
    n_cells, names = layout(manifest)
    rows = tagged(games, manifest)
    sums = rows.group_by("variant_index", "game").agg(
        pl.col(o).cast(pl.Int64).sum() for o in outcomes)
    base = sums.filter(pl.col("variant_index") == 0).drop("variant_index")
    out = []
    for v, name in enumerate(names[1:], 1):
        pairs = sums.filter(pl.col("variant_index") == v).join(base, on="game", suffix="_as")
        g = pairs.height
        for o in outcomes:
            moved = (pairs[o] - pairs[f"{o}_as"]).to_numpy() / n_cells  # d_g of each game
            diff = float(moved.mean())
            se = float(moved.std(ddof=1)) / math.sqrt(g) if g > 1 else 0.0
            z = diff / se if se > 0 else (0.0 if diff == 0 else math.inf)
            p = math.erfc(abs(z) / math.sqrt(2))
            out.append({
                "alternative": name, "outcome": o, "cells": n_cells, "n": g,
                "rate_default": float(pairs[f"{o}_as"].sum()) / (n_cells * g),
                "rate_alternative": float(pairs[o].sum()) / (n_cells * g),
                "diff": diff, "low": diff - Z95 * se, "high": diff + Z95 * se,
                "p_value": p, "significant": p < ALPHA,
            })
    return pl.DataFrame(out, schema_overrides={"n": pl.Int64, "cells": pl.Int64})


# --------------------------------------------------------------------------- the findings


def robustness(games: pl.DataFrame, manifest: dict) -> pl.DataFrame:
    """Whether each finding holds under each alternative: one row per (finding,
    alternative) with `finding`, `kind` ("trigger" or "ranking"), `outcome`,
    `alternative`, `verdict` (one of VERDICTS), `as_specified` (the experiment's answer)
    and `answer` (the alternative's)."""
    _, names = layout(manifest)
    rows = tagged(games, manifest)
    parts = [rows.filter(pl.col("variant_index") == v) for v in range(len(names))]
    found = []
    for policy, params in A.swept_parameters(parts[0]).items():
        for param in params:
            label = A.parameter_label(policy, param)
            best = [A.best_trigger(part, param, policy=policy, outcomes=FINDING_OUTCOMES)
                    for part in parts]
            for i, o in enumerate(FINDING_OUTCOMES):
                mine = best[0].row(i, named=True)
                for v in range(1, len(names)):
                    theirs = best[v].row(i, named=True)
                    found.append({
                        "finding": f"best {label} ({policy} {param}) for {A.LABELS[o]}",
                        "kind": "trigger", "outcome": o, "alternative": names[v],
                        "verdict": trigger_verdict(mine, theirs),
                        "as_specified": _setting(mine), "answer": _setting(theirs)})
    if parts[0]["policy"].n_unique() > 1:
        labels = dict(A.cell_labels(parts[0]).select("cell", "label").iter_rows())
        for o in FINDING_OUTCOMES:
            mine = ranking(parts[0], o)
            for v in range(1, len(names)):
                theirs = ranking(parts[v], o)
                found.append({
                    "finding": f"ranking of the policies by {A.LABELS[o]}", "kind": "ranking",
                    "outcome": o, "alternative": names[v],
                    "verdict": ranking_verdict(mine, theirs, parts[v], o),
                    "as_specified": _order(mine, labels), "answer": _order(theirs, labels)})
    return pl.DataFrame(found, schema={"finding": pl.Utf8, "kind": pl.Utf8, "outcome": pl.Utf8,
                                       "alternative": pl.Utf8, "verdict": pl.Utf8,
                                       "as_specified": pl.Utf8, "answer": pl.Utf8})


def trigger_verdict(mine: dict, theirs: dict) -> str:
    """A best-setting finding (rows of analysis.best_trigger) under an alternative."""
    if theirs["best_label"] == mine["best_label"]:
        return "holds"
    if theirs["tied"] is not None and mine["best_label"] in theirs["tied"]:
        return "holds within noise"
    return "changes"


def _setting(row: dict) -> str:
    return f"{row['best_label']} ({pct(row['best_rate'])})"


def ranking(rows: pl.DataFrame, outcome: str) -> list[dict]:
    """The policies, best first, by the rate of their best cell for `outcome` (ties by
    name): [{policy, cell, rate}]."""
    rates = A.rates(rows, by=["policy", "cell"], outcomes=[outcome])
    sign = -1.0 if outcome in A.MINIMISE else 1.0
    best = {}
    for r in rates.sort("cell").iter_rows(named=True):
        score = sign * r[f"{outcome}_rate"]
        if r["policy"] not in best or score > best[r["policy"]][0]:
            best[r["policy"]] = (score, r["cell"], r[f"{outcome}_rate"])
    order = sorted(best, key=lambda p: (-best[p][0], p))
    return [{"policy": p, "cell": best[p][1], "rate": best[p][2]} for p in order]


def ranking_verdict(mine: list[dict], theirs: list[dict], rows: pl.DataFrame,
                    outcome: str) -> str:
    """A ranking under an alternative: "holds within noise" when each pair of policies
    it puts the other way round has best cells the exact McNemar test cannot tell apart."""
    before = [r["policy"] for r in mine]
    after = [r["policy"] for r in theirs]
    if before == after:
        return "holds"
    cell = {r["policy"]: r["cell"] for r in theirs}
    swapped = [(p, q) for i, p in enumerate(before) for q in before[i + 1:]
               if after.index(q) < after.index(p)]
    for p, q in swapped:
        cmp = A.paired_comparison(rows, int(cell[p]), int(cell[q]), outcome).row(0, named=True)
        if cmp["p_value"] < ALPHA:
            return "changes"
    return "holds within noise"


def _order(order: list[dict], labels: dict[int, str]) -> str:
    def one(r: dict) -> str:
        setting = labels[r["cell"]].removeprefix(r["policy"]).strip()
        return f"{r['policy']} ({setting + ', ' if setting else ''}{pct(r['rate'])})"

    return ", then ".join(one(r) for r in order)


# --------------------------------------------------------------------------- the report


def build_report(games: pl.DataFrame, manifest: dict, run_dir: str | Path,
                 effect: pl.DataFrame, robust: pl.DataFrame) -> Report:
    """The sensitivity report: findings, a tornado chart per outcome, the robustness
    table, the rates under each alternative, the alternatives, what was run."""
    n_cells, names = layout(manifest)
    name = manifest.get("experiment") or Path(run_dir).name
    title = f"Sensitivity: {name.removesuffix('-sensitivity')} under every alternative reading"
    rep = Report(title)
    rep.h(1, title)
    g = int(effect["n"][0]) if effect.height else 0
    rep.p(f"The experiment's {n_cells} cells played as specified and under each of "
          f"{len(names) - 1} alternative readings of the rules (docs/readings.md), "
          f"{g:,} games per cell on the same seeds: {games.height:,} games. "
          + _precision(games, effect, g))
    rep.h(2, "Findings")
    items = []
    for o in FINDING_OUTCOMES:
        mine = effect.filter(pl.col("outcome") == o)
        top = mine.sort(pl.col("diff").abs(), descending=True).row(0, named=True)
        moved = int(mine["significant"].sum())
        items.append(f"**{A.LABELS[o][:1].upper() + A.LABELS[o][1:]}** "
                     f"({pct(top['rate_default'])} as specified): `{top['alternative']}` moves "
                     f"it most, to {pct(top['rate_alternative'])} ({100 * top['diff']:+.1f} "
                     f"points); {moved} of {mine.height} alternatives move it significantly.")
    items += _robustness_summary(robust)
    rep.ul(items)
    rep.h(2, "How far each alternative moves each rate")
    for o in FINDING_OUTCOMES:
        chart = chartdata.tornado(effect, o)
        rep.chart(f"tornado-{o}", plots.draw(chart),
                  f"Change in the {A.LABELS[o]} rate under each alternative reading, over "
                  "all cells on the same seeds, in percentage points with 95% intervals.",
                  chart)
    rep.h(2, "Do the findings hold?")
    _robustness_table(rep, robust, len(names) - 1)
    rep.h(2, "Rates under each alternative")
    _rates_table(rep, effect)
    rep.h(2, "The alternatives")
    rep.ul(_alternatives_text(names[1:]))
    rep.h(2, "What was run")
    _what_was_run(rep, games, manifest, run_dir, n_cells, len(names))
    rep.h(2, "How to read this report")
    rep.ul([
        "An outcome's rate here is its share over every game of every cell of the "
        "experiment; a change is the rate under the alternative minus the rate as "
        "specified, on the same games.",
        "Game g has the same seed in every cell and under every reading, so its cells move "
        "together: the interval of a change takes each game number as one unit (the mean "
        "over games of each game's change across the cells, ± 1.96 standard errors), and a "
        "change is significant when its interval leaves out 0 (p < 0.05).",
        "A finding *holds* under an alternative when it gives the same answer, *holds within "
        "noise* when another answer comes first but the exact McNemar test over the same "
        "games cannot tell it from the experiment's answer (p ≥ 0.05), and *changes* "
        "otherwise.",
        "\"Points\" are percentage points: 45% against 40% is 5 points.",
    ])
    return rep


def _precision(games: pl.DataFrame, effect: pl.DataFrame, g: int) -> str:
    if not g or not effect.height:
        return ""
    rates = games.group_by("cell").agg(pl.col(o).mean() for o in FINDING_OUTCOMES)
    widest = float(half_widths(np.asarray(rates.select(FINDING_OUTCOMES).to_numpy() * g), g)
                   .max())
    change = float(((effect["high"] - effect["low"]) / 2).max())
    return (f"Precision: a cell's rate is known to ±{100 * widest:.1f} points at most (95% "
            f"Wilson interval), a change over all cells to ±{100 * change:.1f} points at most.")


def _robustness_summary(robust: pl.DataFrame) -> list[str]:
    if robust.height == 0:
        return ["No finding to check: the experiment sweeps no trigger and plays one policy."]
    per = robust.group_by("finding", maintain_order=True).agg(
        (pl.col("verdict") == "changes").sum().alias("changes"),
        pl.col("alternative").filter(pl.col("verdict") == "changes").alias("under"))
    steady = per.filter(pl.col("changes") == 0).height
    items = [f"**{steady} of {per.height} findings** hold under every alternative (within "
             "noise at worst)."]
    for r in per.filter(pl.col("changes") > 0).iter_rows(named=True):
        items.append(f"The {r['finding']} changes under "
                     + ", ".join(f"`{a}`" for a in r["under"]) + ".")
    return items


def _robustness_table(rep: Report, robust: pl.DataFrame, n_alternatives: int) -> None:
    if robust.height == 0:
        rep.p("The experiment sweeps no trigger and plays one policy: no finding to check.")
        return
    rep.p("For each finding of the experiment, under how many alternatives it holds, and "
          "where it does not, what comes first instead (with its rate).")
    rows = []
    for finding, part in robust.group_by("finding", maintain_order=True):
        holds = int((part["verdict"] == "holds").sum())
        noise = part.filter(pl.col("verdict") == "holds within noise")
        change = part.filter(pl.col("verdict") == "changes")
        rows.append([
            finding[0], part["as_specified"][0], f"{holds} of {n_alternatives}",
            "; ".join(f"`{r['alternative']}`: {r['answer']}" for r in noise.iter_rows(named=True)),
            "; ".join(f"`{r['alternative']}`: {r['answer']}" for r in change.iter_rows(named=True)),
        ])
    rep.table(["finding", "as specified", "holds under", "holds within noise under (first "
               "instead)", "changes under (to)"], rows, right={2})


def _rates_table(rep: Report, effect: pl.DataFrame) -> None:
    rep.p("Each outcome's rate over all cells, and its change from the rate as specified in "
          "points with its 95% interval; * marks a significant change.")
    first = effect.filter(pl.col("alternative") == effect["alternative"][0])
    base = {r["outcome"]: r["rate_default"] for r in first.iter_rows(named=True)}
    rows = [[AS_SPECIFIED] + [pct(base[o]) for o in A.OUTCOMES]]
    for name, part in effect.group_by("alternative", maintain_order=True):
        by = {r["outcome"]: r for r in part.iter_rows(named=True)}
        rows.append([f"`{name[0]}`"] + [
            f"{pct(by[o]['rate_alternative'])} "
            f"{signed_ci(by[o]['diff'], by[o]['low'], by[o]['high'])}"
            + (" *" if by[o]["significant"] else "") for o in A.OUTCOMES])
    rep.table(["reading"] + [A.LABELS[o] for o in A.OUTCOMES], rows,
              right=set(range(1, len(A.OUTCOMES) + 1)))


def _alternatives_text(alts: list[str]) -> list[str]:
    from bollesim.bollebank.rules.readings import BY_ID

    out = []
    for alt in alts:
        rid, name = alt.split("=", 1)
        reading, variant = BY_ID[rid], BY_ID[rid].variant(name)
        text = f"`{alt}` ({reading.meaning}; as specified: {reading.default}): {variant.description}"
        if variant.gives_up:
            text += f". Gives up {variant.gives_up}"
        out.append(text + ".")
    return out


def _what_was_run(rep: Report, games: pl.DataFrame, manifest: dict, run_dir, n_cells: int,
                  n_rulesets: int) -> None:
    t = manifest.get("timings") or {}
    rows = [["run folder", f"`{run_dir}`"],
            ["spec", f"`{manifest.get('spec_file')}`"],
            ["cells", f"{n_cells} × {n_rulesets} rulesets (as specified and each alternative)"
                      f" = {n_cells * n_rulesets:,}"],
            ["games", f"{manifest.get('games_per_cell', 0):,} per cell, {games.height:,} in all"],
            ["seed", f"`{manifest.get('seed')}`"],
            ["ruleset as specified", f"{manifest.get('ruleset')}, sha256 "
                                     f"`{manifest.get('ruleset_hash')}`"],
            ["bollesim version", str(manifest.get("version"))],
            ["engine", str(manifest.get("engine"))],
            ["machine", str(manifest.get("machine"))],
            ["timings", f"{t.get('run_s', 0):,} s of play, {t.get('games_per_s') or 0:,.0f} "
                        f"games/s, {t.get('total_s', 0):,} s in all"]]
    rep.table(["", ""], rows)


def load_games(run_dir: str | Path) -> tuple[pl.DataFrame, dict]:
    """(games, manifest) of a verified sensitivity run: the columns the report reads."""
    from bollesim.batch.runfolder import open_run

    run = open_run(run_dir)
    layout(run.manifest)
    keep = ["ruleset", "ruleset_hash", "end_turn", "end_reason", "first_fire_turn",
            "first_fire_roe", "final_roe", "deadline", "tanks_at_t2", "airstrike_turn",
            "heavy_damage", "light_damage", "chits_drawn", "random_draws", "seed"]
    return run.collect(run.scan().drop(keep, strict=False)), run.manifest


def write_sensitivity(run_dir: str | Path, out_dir: str | Path | None = None) -> dict:
    """Write sensitivity.html, sensitivity.md (with its tornado charts),
    sensitivity-effects.csv and sensitivity-robustness.csv of a sensitivity run into
    out_dir (default: the run folder). Returns {"html", "markdown", "charts", "tables",
    "effects", "robustness"}."""
    games, manifest = load_games(run_dir)
    effect, robust = effects(games, manifest), robustness(games, manifest)
    rep = build_report(games, manifest, run_dir, effect, robust)
    paths = write_pages(rep, out_dir if out_dir is not None else run_dir, "sensitivity",
                        {"sensitivity-effects.csv": effect,
                         "sensitivity-robustness.csv": robust})
    return {**paths, "effects": effect, "robustness": robust}
