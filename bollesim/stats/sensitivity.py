"""Sensitivity: an experiment played under each alternative reading of the rules, on the
same seeds, and whether its findings still hold.

    bollesim sensitivity experiments/first_fire.toml -n 2000   # -> results/first_fire-sensitivity/
    bollesim sensitivity experiments/first_fire.toml --only I-AIR --only R-TRACK

The run (batch/sensitivity.py) is one sweep, so --resume, --json, the progress bar and the run
folder's checks are a sweep's: the experiment's C cells as specified (cells 0..C-1), then
the same C cells under each alternative in turn (cells v*C .. v*C+C-1 play alternative
v), every cell on the same seeds. An alternative is a variant of a reading
(docs/readings.md) other than the one the experiment plays. The manifest's `sensitivity`
records the layout: {cells_per_ruleset: C, alternatives: ["ID=VARIANT", ...]}.

The report (report/sensitivity.py: sensitivity.html, sensitivity.md with its charts,
sensitivity-effects.csv, sensitivity-robustness.csv; `bollesim report` of the folder
writes it too):

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

import polars as pl

from bollesim.errors import UsageError
from bollesim.game.declaration import Game
from bollesim.stats import analysis, naming, paired_tests
from bollesim.stats.intervals import Z95
from bollesim.stats.naming import pct


def finding_outcomes(game: Game) -> tuple[str, ...]:
    """The game's outcomes whose findings are checked and whose tornado charts are drawn."""
    return game.result.flags


AS_SPECIFIED = "as specified"
"""The name of the experiment's own readings among the alternatives."""


VERDICTS = ("holds", "holds within noise", "changes")


ALPHA = 0.05


def layout(manifest: dict) -> tuple[int, list[str]]:
    """(cells per ruleset, [AS_SPECIFIED, alternative, ...]) of a sensitivity run."""
    info = manifest.get("sensitivity")
    if not isinstance(info, dict):
        raise UsageError("not a sensitivity run (its manifest has no sensitivity layout): "
                         "make one with bollesim sensitivity SPEC")
    return int(info["cells_per_ruleset"]), [AS_SPECIFIED, *info["alternatives"]]


def tagged(game: Game, games: pl.DataFrame, manifest: dict) -> pl.DataFrame:
    """The games with `variant` (AS_SPECIFIED or "ID=VARIANT"), `variant_index` (0 for
    AS_SPECIFIED) and `cell` the experiment's cell (0..C-1), the derived outcomes added,
    the ruleset columns dropped."""
    n, names = layout(manifest)
    index = (pl.col("cell") // n).cast(pl.Int64)
    return (game.result.with_outcomes(games).drop("ruleset", "ruleset_hash", strict=False)
            .with_columns(index.alias("variant_index"),
                          index.replace_strict(dict(enumerate(names)), return_dtype=pl.Utf8)
                          .alias("variant"),
                          (pl.col("cell") % n).alias("cell")))


def effects(game: Game, games: pl.DataFrame, manifest: dict,
            outcomes: Sequence[str] | None = None) -> pl.DataFrame:
    """How far each alternative moves each outcome's rate (default: OUTCOMES) over all the
    cells: one row per (alternative, outcome) with `alternative`, `outcome`, `cells`, `n`
    (games per cell), `rate_default` (as specified), `rate_alternative`, `diff` (alternative
    minus as specified), `low`, `high` (95% interval, the game number as the unit),
    `p_value` (two-sided z test) and `significant` (p < 0.05)."""
    n_cells, names = layout(manifest)
    outcomes = game.result.outcome_names if outcomes is None else outcomes
    rows = tagged(game, games, manifest)
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


PLAYED = "played"
"""A column of one hash per game's result row (every result column, random draws
included): two rows with the same hash played the game the same way (`with_played`)."""


def with_played(game: Game, frame: pl.LazyFrame | pl.DataFrame):
    """The rows with PLAYED, the hash of every result column of the game's rows."""
    return frame.with_columns(pl.struct(*game.result.names).hash(seed=0).alias(PLAYED))


def played_differently(rows: pl.DataFrame, manifest: dict) -> pl.DataFrame:
    """How often each alternative met a situation it governs, as far as the rows can tell:
    one row per alternative with `alternative`, `games` (game numbers), `changed` (game
    numbers whose result row differs from the one as specified in at least one cell, in
    any column: an outcome, the end, the draws) and `share`. A reading whose situation
    never arises in the played games changes no row; one that arises without changing
    anything a row records is not counted, so `changed` is a lower bound."""
    n_cells, names = layout(manifest)
    rows = rows.select("cell", "game", PLAYED).with_columns(
        (pl.col("cell") // n_cells).alias("variant_index"), (pl.col("cell") % n_cells).alias("cell"))
    base = rows.filter(pl.col("variant_index") == 0).drop("variant_index")
    out = []
    for v, name in enumerate(names[1:], 1):
        pairs = rows.filter(pl.col("variant_index") == v).join(base, on=["cell", "game"], suffix="_as")
        per_game = pairs.group_by("game").agg((pl.col(PLAYED) != pl.col(f"{PLAYED}_as")).any().alias("d"))
        changed = int(per_game["d"].sum())
        out.append({"alternative": name, "games": per_game.height, "changed": changed,
                    "share": changed / per_game.height if per_game.height else 0.0})
    return pl.DataFrame(out, schema={"alternative": pl.Utf8, "games": pl.Int64,
                                     "changed": pl.Int64, "share": pl.Float64})


def robustness(game: Game, games: pl.DataFrame, manifest: dict) -> pl.DataFrame:
    """Whether each finding holds under each alternative: one row per (finding,
    alternative) with `finding`, `kind` ("trigger" or "ranking"), `outcome`,
    `alternative`, `verdict` (one of VERDICTS), `as_specified` (the experiment's answer)
    and `answer` (the alternative's); for a trigger whose question the run also puts to the
    strong player (strong_counterpart, its cells swept in the same run), `for_strong`: the
    verdict of the experiment's answer among the strong player's settings as specified
    (null otherwise), and `strong_answer`, the strong player's own best setting. For a
    trigger, how far it moves: `specified_there`, the rate the experiment's answer gets
    under the alternative, `gain`, by how much the alternative's answer beats it there
    (points as a fraction, positive = better for the outcome's goal), and `p_value`, the
    exact McNemar test of the two on the same games (null for a ranking)."""
    _, names = layout(manifest)
    rows = tagged(game, games, manifest)
    parts = [rows.filter(pl.col("variant_index") == v) for v in range(len(names))]
    found = []
    swept = naming.swept_parameters(game, parts[0])
    outcomes = finding_outcomes(game)

    def best_in(part, policy, param, default=None):
        own = naming.own_cells(part, policy, param, swept[policy])
        return paired_tests.best_trigger(game, own, param, policy=policy, outcomes=outcomes,
                                         default=default)

    best_of = {(policy, param): best_in(parts[0], policy, param)
               for policy, params in swept.items() for param in params}
    for policy, params in swept.items():
        for param in params:
            label = naming.parameter_label(game, policy, param)
            strong = best_of.get(strong_counterpart(game, policy, param))
            for i, o in enumerate(outcomes):
                mine = best_of[policy, param].row(i, named=True)
                by_strong = strong.row(i, named=True) if strong is not None else None
                specified = math.nan if mine["best"] is None else mine["best"]
                for v in range(1, len(names)):
                    # the alternative's best, and the as-specified answer's rate under it
                    theirs = best_in(parts[v], policy, param, default=specified).row(i, named=True)
                    found.append({
                        "finding": f"best {label} ({policy} {param}) for {game.result.labels[o]}",
                        "kind": "trigger", "outcome": o, "alternative": names[v],
                        "verdict": trigger_verdict(mine, theirs),
                        "as_specified": _setting(mine), "answer": _setting(theirs),
                        "specified_there": theirs["default_rate"], "gain": theirs["gain_vs_default"],
                        "p_value": theirs["p_vs_default"],
                        "for_strong": None if by_strong is None
                        else trigger_verdict(mine, by_strong),
                        "strong_answer": None if by_strong is None else _setting(by_strong)})
    if parts[0]["policy"].n_unique() > 1:
        labels = dict(naming.cell_labels(game, parts[0]).select("cell", "label").iter_rows())
        for o in outcomes:
            mine = ranking(game, parts[0], o)
            for v in range(1, len(names)):
                theirs = ranking(game, parts[v], o)
                found.append({
                    "finding": f"ranking of the policies by {game.result.labels[o]}", "kind": "ranking",
                    "outcome": o, "alternative": names[v],
                    "verdict": ranking_verdict(game, mine, theirs, parts[v], o),
                    "as_specified": _order(mine, labels), "answer": _order(theirs, labels),
                    "specified_there": None, "gain": None, "p_value": None,
                    "for_strong": None, "strong_answer": None})
    return pl.DataFrame(found, schema={"finding": pl.Utf8, "kind": pl.Utf8, "outcome": pl.Utf8,
                                       "alternative": pl.Utf8, "verdict": pl.Utf8,
                                       "as_specified": pl.Utf8, "answer": pl.Utf8,
                                       "specified_there": pl.Float64, "gain": pl.Float64,
                                       "p_value": pl.Float64,
                                       "for_strong": pl.Utf8, "strong_answer": pl.Utf8})


def strong_counterpart(game: Game, policy: str, param: str) -> tuple[str, str] | None:
    """(the game's strong player, its parameter) imposing the trigger `policy`'s `param`
    sets (game.declaration.Trigger.strong), or None."""
    for t in game.triggers:
        if (t.policy, t.param) == (policy, param) and t.strong and game.strong:
            return game.strong, t.strong
    return None


def by_finding(robust: pl.DataFrame) -> pl.DataFrame:
    """One row per finding of a robustness table: `finding`, `changes` (how many
    alternatives change it) and `within_noise` (under how many another answer comes
    first, within noise)."""
    return robust.group_by("finding", maintain_order=True).agg(
        (pl.col("verdict") == "changes").sum().alias("changes"),
        (pl.col("verdict") == "holds within noise").sum().alias("within_noise"))


def steady_sentence(robust: pl.DataFrame) -> str:
    """How many findings hold under every alternative, how many only within noise (their
    answer moves under some) and how many change, in words (the report's and the
    command line's summary)."""
    per = by_finding(robust)
    changed = per.filter(pl.col("changes") > 0).height
    noisy = per.filter((pl.col("changes") == 0) & (pl.col("within_noise") > 0)).height
    steady = per.height - changed - noisy
    return (f"{steady} of {per.height} findings hold under every alternative, {noisy} more "
            f"within noise (another answer comes first under some, not significantly "
            f"better), {changed} change{'s' if changed == 1 else ''}.")


def moved_sentences(robust: pl.DataFrame) -> list[str]:
    """One sentence per finding another answer replaces under some alternative: the
    alternatives, the answer under each and by how much it beats the experiment's answer
    there (a trigger), in words (the report's and the command line's list)."""
    out = []
    moved = robust.filter(pl.col("verdict") != "holds")
    for finding, part in moved.group_by("finding", maintain_order=True):
        out.append(f"The {finding[0]}, {part['as_specified'][0]} as specified, moves: "
                   + "; ".join(_move(r) for r in part.iter_rows(named=True)) + ".")
    return out


def _move(r: dict) -> str:
    text = f"to {r['answer']} under `{r['alternative']}`"
    if r["gain"] is not None and r["specified_there"] is not None:
        sign = "+" if r["gain"] >= 0 else "-"
        paired = "" if r["p_value"] is None else f", {naming.p_text(r['p_value'])}"
        text += (f", where the answer as specified gets {pct(r['specified_there'])}: "
                 f"{sign}{100 * abs(r['gain']):.1f} points{paired}")
    return text + (" (within noise)" if r["verdict"] != "changes" else "")


def strong_sentence(robust: pl.DataFrame) -> str:
    """How many findings hold for the strong player (for_strong, as specified), and which
    do not, in words ("" when the run did not put the question to it)."""
    per = (robust.filter(pl.col("for_strong").is_not_null())
           .group_by("finding", maintain_order=True).first())
    if per.height == 0:
        return ""
    moved = per.filter(pl.col("for_strong") != "holds")
    text = (f"For the strong player, {per.height - moved.height} of {per.height} findings "
            "hold as specified")
    if moved.height:
        text += ": " + "; ".join(
            f"the {r['finding']} is {r['as_specified']} for the policy, {r['strong_answer']} "
            f"for the strong player" + (" (within noise)" if r["for_strong"] != "changes" else "")
            for r in moved.iter_rows(named=True))
    return text + "."


def trigger_verdict(mine: dict, theirs: dict) -> str:
    """A best-setting finding (rows of analysis.best_trigger) under an alternative."""
    if theirs["best_label"] == mine["best_label"]:
        return "holds"
    if theirs["tied"] is not None and mine["best_label"] in theirs["tied"]:
        return "holds within noise"
    return "changes"


def _setting(row: dict) -> str:
    return f"{row['best_label']} ({pct(row['best_rate'])})"


def ranking(game: Game, rows: pl.DataFrame, outcome: str) -> list[dict]:
    """The policies, best first, by the rate of their best cell for `outcome` (ties by
    name): [{policy, cell, rate}]."""
    rates = analysis.rates(game, rows, by=["policy", "cell"], outcomes=[outcome])
    sign = -1.0 if outcome in game.result.minimise else 1.0
    best = {}
    for r in rates.sort("cell").iter_rows(named=True):
        score = sign * r[f"{outcome}_rate"]
        if r["policy"] not in best or score > best[r["policy"]][0]:
            best[r["policy"]] = (score, r["cell"], r[f"{outcome}_rate"])
    order = sorted(best, key=lambda p: (-best[p][0], p))
    return [{"policy": p, "cell": best[p][1], "rate": best[p][2]} for p in order]


def ranking_verdict(game: Game, mine: list[dict], theirs: list[dict], rows: pl.DataFrame,
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
        cmp = paired_tests.paired_comparison(game, rows, int(cell[p]), int(cell[q]), outcome).row(0, named=True)
        if cmp["p_value"] < ALPHA:
            return "changes"
    return "holds within noise"


def _order(order: list[dict], labels: dict[int, str]) -> str:
    def one(r: dict) -> str:
        setting = labels[r["cell"]].removeprefix(r["policy"]).strip()
        return f"{r['policy']} ({setting + ', ' if setting else ''}{pct(r['rate'])})"

    return ", then ".join(one(r) for r in order)
