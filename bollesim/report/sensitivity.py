"""The sensitivity report: sensitivity.html, sensitivity.md with a tornado chart per outcome,
sensitivity-effects.csv and sensitivity-robustness.csv (stats/sensitivity.py measures
what they show)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from bollesim.batch.manifest import manifest_game
from bollesim.batch.precision import half_widths
from bollesim.game.declaration import Game
from bollesim.report import chartdata, plots
from bollesim.report.chartdata import signed_ci
from bollesim.report.document import Report, write_pages
from bollesim.stats.naming import pct
from bollesim.stats.sensitivity import (
    AS_SPECIFIED,
    PLAYED,
    effects,
    finding_outcomes,
    layout,
    moved_sentences,
    played_differently,
    robustness,
    steady_sentence,
    strong_sentence,
    with_played,
)


def build_report(games: pl.DataFrame, manifest: dict, run_dir: str | Path,
                 effect: pl.DataFrame, robust: pl.DataFrame, played: pl.DataFrame) -> Report:
    """The sensitivity report: findings, a tornado chart per outcome, the robustness
    table, the rates under each alternative (and the games each played differently:
    played_differently), the alternatives, what was run."""
    game = manifest_game(manifest)
    n_cells, names = layout(manifest)
    name = manifest.get("experiment") or Path(run_dir).name
    title = f"Sensitivity: {name.removesuffix('-sensitivity')} under every alternative reading"
    rep = Report(title)
    rep.h(1, title)
    g = int(effect["n"][0]) if effect.height else 0
    alternatives = "the alternative reading" if len(names) == 2 else \
        f"each of {len(names) - 1} alternative readings"
    rep.p(f"The experiment's {n_cells} cells played as specified and under {alternatives} "
          f"of the rules ({game.readings_page}), "
          f"{g:,} games per cell on the same seeds: {games.height:,} games. "
          + _precision(game, games, effect, g))
    rep.h(2, "Findings")
    items = []
    for o in finding_outcomes(game):
        mine = effect.filter(pl.col("outcome") == o)
        top = mine.sort(pl.col("diff").abs(), descending=True).row(0, named=True)
        moved = int(mine["significant"].sum())
        items.append(f"**{game.result.labels[o][:1].upper() + game.result.labels[o][1:]}** "
                     f"({pct(top['rate_default'])} as specified): `{top['alternative']}` moves "
                     f"it most, to {pct(top['rate_alternative'])} ({100 * top['diff']:+.1f} "
                     f"points); {moved} of {mine.height} alternatives move it significantly.")
    items += _robustness_summary(robust)
    unmet = played.filter(pl.col("changed") == 0)["alternative"].to_list()
    if unmet:
        items.append(f"{len(unmet)} of {played.height} alternatives play every game exactly as "
                     "specified (" + ", ".join(f"`{a}`" for a in unmet) + "): the played "
                     "policies never meet the situation they govern.")
    rep.ul(items)
    rep.h(2, "How far each alternative moves each rate")
    meanings = {alt: _variant(game, alt)[1].description for alt in names[1:]}
    for o in finding_outcomes(game):
        chart = chartdata.tornado(game, effect, o, meanings)
        rep.chart(f"tornado-{o}", plots.draw(chart),
                  f"Change in the {game.result.labels[o]} rate under each alternative reading, over "
                  "all cells on the same seeds, in percentage points with 95% intervals.",
                  chart)
    rep.h(2, "Do the findings hold?")
    _robustness_table(rep, robust, len(names) - 1)
    rep.h(2, "Rates under each alternative")
    _rates_table(game, rep, effect, played)
    rep.h(2, "The alternatives")
    rep.ul(_alternatives_text(game, names[1:]))
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


def _precision(game: Game, games: pl.DataFrame, effect: pl.DataFrame, g: int) -> str:
    if not g or not effect.height:
        return ""
    rates = games.group_by("cell").agg(pl.col(o).mean() for o in finding_outcomes(game))
    widest = float(half_widths(np.asarray(rates.select(finding_outcomes(game)).to_numpy() * g), g)
                   .max())
    change = float(((effect["high"] - effect["low"]) / 2).max())
    return (f"Precision: a cell's rate is known to ±{100 * widest:.1f} points at most (95% "
            f"Wilson interval), a change over all cells to ±{100 * change:.1f} points at most.")


def _robustness_summary(robust: pl.DataFrame) -> list[str]:
    if robust.height == 0:
        return ["No finding to check: the experiment sweeps no trigger and plays one policy."]
    items = [steady_sentence(robust)]
    strong = strong_sentence(robust)
    if strong:
        items.append(strong)
    return items + moved_sentences(robust)


def _robustness_table(rep: Report, robust: pl.DataFrame, n_alternatives: int) -> None:
    if robust.height == 0:
        rep.p("The experiment sweeps no trigger and plays one policy: no finding to check.")
        return
    rep.p("For each finding of the experiment, under how many alternatives it holds, and "
          "where it does not, what comes first instead (with its rate).")
    with_strong = robust["for_strong"].is_not_null().any()
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
        if with_strong:
            first = part.row(0, named=True)
            rows[-1].append("" if first["for_strong"] is None else
                            f"{first['for_strong']} (its best: {first['strong_answer']})")
    heads = ["finding", "as specified", "holds under", "holds within noise under (first "
             "instead)", "changes under (to)"]
    rep.table(heads + (["for the strong player (as specified)"] if with_strong else []), rows,
              right={2})


def _rates_table(game: Game, rep: Report, effect: pl.DataFrame, played: pl.DataFrame) -> None:
    rep.p("Each outcome's rate over all cells, and its change from the rate as specified in "
          "points with its 95% interval; * marks a significant change. \"Games played "
          "differently\": the games whose result row changes in at least one cell, in any "
          "column (an outcome, the end, the number of random draws), which is how often, at "
          "least, the played games met the situation the reading governs; 0 means they never "
          "did, so the reading cannot matter to these policies.")
    differently = {r["alternative"]: r for r in played.iter_rows(named=True)}
    first = effect.filter(pl.col("alternative") == effect["alternative"][0])
    base = {r["outcome"]: r["rate_default"] for r in first.iter_rows(named=True)}
    rows = [[AS_SPECIFIED] + [pct(base[o]) for o in game.result.outcome_names] + ["–"]]
    for name, part in effect.group_by("alternative", maintain_order=True):
        by = {r["outcome"]: r for r in part.iter_rows(named=True)}
        rows.append([f"`{name[0]}`"] + [
            f"{pct(by[o]['rate_alternative'])} "
            f"{signed_ci(by[o]['diff'], by[o]['low'], by[o]['high'])}"
            + (" *" if by[o]["significant"] else "") for o in game.result.outcome_names]
            + [_differently(differently[name[0]])])
    rep.table(["reading"] + [game.result.labels[o] for o in game.result.outcome_names]
              + ["games played differently"], rows,
              right=set(range(1, len(game.result.outcome_names) + 2)))


def _differently(row: dict) -> str:
    if row["changed"] == 0:
        return f"none of {row['games']:,}"
    return f"{row['changed']:,} of {row['games']:,} ({pct(row['share'])})"


def _variant(game: Game, alt: str):
    """(the game's reading, its variant) of an alternative "ID=VARIANT"."""
    reading = game.rulebook.READINGS[alt.split("=", 1)[0]]
    return reading, reading.variant(alt.split("=", 1)[1])


def _alternatives_text(game: Game, alts: list[str]) -> list[str]:
    out = []
    for alt in alts:
        reading, variant = _variant(game, alt)
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


def load_games(run_dir: str | Path, game: Game | None = None) -> tuple[pl.DataFrame, pl.DataFrame, dict]:
    """(games, played, manifest) of a verified sensitivity run (of the game `game`, if
    given): the columns the report reads, and (cell, game, PLAYED) of every row for
    played_differently."""
    from bollesim.batch.runfolder import open_run

    run = open_run(run_dir, game)
    layout(run.manifest)
    result = run.game.result
    dropped = ["ruleset", "ruleset_hash", "seed", *(c for c in result.names if c not in result.flags)]
    played = run.collect(with_played(run.game, run.scan()).select("cell", "game", PLAYED))
    return run.collect(run.scan().drop(dropped, strict=False)), played, run.manifest


def write_sensitivity(run_dir: str | Path, out_dir: str | Path | None = None) -> dict:
    """Write sensitivity.html, sensitivity.md (with its tornado charts),
    sensitivity-effects.csv and sensitivity-robustness.csv of a sensitivity run into
    out_dir (default: the run folder). Returns {"html", "markdown", "charts", "tables",
    "effects", "robustness"}."""
    games, rows, manifest = load_games(run_dir)
    game = manifest_game(manifest)
    effect, robust = effects(game, games, manifest), robustness(game, games, manifest)
    rep = build_report(games, manifest, run_dir, effect, robust, played_differently(rows, manifest))
    paths = write_pages(rep, out_dir if out_dir is not None else run_dir, "sensitivity",
                        {"sensitivity-effects.csv": effect,
                         "sensitivity-robustness.csv": robust})
    return {**paths, "effects": effect, "robustness": robust}
