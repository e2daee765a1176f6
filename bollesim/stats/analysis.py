"""Statistics over a batch's results: rates with 95% intervals, paired comparisons, distributions.

Every function takes the per-game DataFrame of a run or sweep (docs/architecture.md §5, one row per
game) and returns a polars DataFrame. The columns used are:

    game (int)          game index; the same index in two cells means the same seed (common
                        random numbers), so two cells can be compared game by game
    policy (str), cell (int), one column per policy parameter (Int64, a choice's pl.Enum
                        of names or Float64, as declared: columns.typed_params; Float64
                        as games.parquet stores them)
    operational, tactical, strategic, political, defeat (bool)
    end_turn, end_reason, first_fire_turn, first_fire_roe (null: never fired),
    heavy_damage, light_damage (int)
    first_loss_turn (null: no loss), loss_vehicle, loss_cause, loss_place (str, null
                        unless a loss ended the game in defeat)

Two outcomes are derived (`with_outcomes` adds them): `perfect`, all four victories in the
same game, and `no_result`, neither a victory nor a defeat. Rates carry 95% Wilson score
intervals (docs/architecture.md §7).

Each function takes the game first (bollesim.load_game: its outcomes, labels and
policies' declarations), then its games:

    import bollesim
    from bollesim.stats import analysis, paired_tests
    game = bollesim.load_game("bollebank")
    analysis.rates(game, df, by="policy")                    # one row per policy
    paired_tests.paired_comparison(game, df, "historical", "rush")   # one row per outcome
    paired_tests.paired_comparison(game, df, {"k": 12}, {"k": 18}, "strategic")   # two cells
    paired_tests.best_trigger(game, df, "k")                 # one row per outcome
    analysis.distributions(game, df, by="cell"), analysis.summary(game, df)   # end turn, damage
    analysis.end_reasons(game, df), analysis.examples(game, df)   # how games end; to replay
    analysis.defeat_breakdown(game, df, "loss_cause")        # defeats by weapon (or vehicle, ...)
    analysis.turns_by_outcome(game, df)                      # when games of each outcome end

A policy parameter declared with a `never` value (policies/*.py, e.g. fire_at_roe's k = 25)
has that value shown and grouped as "never" by best_trigger, cell_labels and the charts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from bollesim.game.declaration import Game
from bollesim.stats.intervals import Z95, wilson
from bollesim.stats.naming import cell_labels, never_as_null


def outcome_means(game: Game, outcomes: Sequence[str] | None = None) -> list[pl.Expr]:
    """Each outcome's rate (default: the SUMMARY ones) as a polars expression over result rows."""
    outcomes = game.result.summary if outcomes is None else outcomes
    derived = game.result.derived()
    return [(derived[o] if o in derived else pl.col(o)).mean().alias(o) for o in outcomes]


def run_rates(run) -> tuple[int, dict[str, float]]:
    """Games and the SUMMARY rates of a verified run (runfolder.Run, of its game), read
    column by column (a 10-million-game file would take a gigabyte in memory whole)."""
    game = run.game
    row = run.collect(run.scan().select([pl.len().alias("n"), *outcome_means(game)]))
    return int(row["n"][0]), {c: float(row[c][0] or 0.0) for c in game.result.summary}


def cell_rates(run) -> pl.DataFrame:
    """One row per cell of a verified run (runfolder.Run): cell, label, policy, games and
    each SUMMARY rate, aggregated from a lazy scan (memory stays flat)."""

    scan = run.scan()
    first_rows = run.cell_firsts()
    labels = cell_labels(run.game, first_rows) if first_rows.height else None
    table = run.collect(
        scan.group_by("cell").agg(pl.len().alias("games"), *outcome_means(run.game)).sort("cell")
    )
    if labels is None:
        return table.with_columns(pl.lit("").alias("label"), pl.lit("").alias("policy"))
    return labels.join(table, on="cell").sort("cell")


def by_list(by) -> list[str]:
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(by)


def _never_groups(df: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Float group columns with NaN and ±inf made null: one "never" group, not three; a
    column of whole numbers then as integers (a parameter t = 1, not 1.0)."""
    floats = [k for k in keys if df.schema[k].is_float()]
    if not floats:
        return df
    df = df.with_columns([never_as_null(k) for k in floats])
    whole = [k for k in floats if (df[k].drop_nulls() % 1 == 0).all()]
    return df.with_columns([pl.col(k).cast(pl.Int64) for k in whole])


def rates(game: Game, df: pl.DataFrame, by: str | Sequence[str] | None = None, *,
          outcomes: Sequence[str] | None = None, long: bool = False, z: float = Z95) -> pl.DataFrame:
    """Rate of each outcome with its 95% Wilson interval, per group.

    by: None (the whole frame), a column name or a list of them. Null is a group of its
    own (e.g. first_fire_turn null: never fired); in float columns NaN and ±inf join the
    null group (a trigger value meaning "never"). Groups are sorted, nulls last.

    Wide (default): one row per group with the `by` columns, `n` (games), then for each
    outcome o of `outcomes` (default: OUTCOMES): `o_k` (games with it), `o_rate`, `o_low`,
    `o_high` (fractions in 0..1).
    long=True: one row per (group, outcome) with the `by` columns, `outcome`, `n`, `k`,
    `rate`, `low`, `high`; tidy for charts.
    """
    keys = by_list(by)
    outcomes = game.result.outcome_names if outcomes is None else outcomes
    df = _never_groups(game.result.with_outcomes(df), keys)
    aggs = [pl.len().alias("n")] + [pl.col(o).fill_null(False).sum().alias(f"{o}_k")
                                    for o in outcomes]
    if keys:
        counts = df.group_by(keys).agg(aggs).sort(keys, nulls_last=True)
    else:
        counts = df.select(aggs)
    n = counts["n"].to_numpy()
    columns = []
    for o in outcomes:
        k = counts[f"{o}_k"].to_numpy()
        low, high = wilson(k, n, z)
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.where(n > 0, k / np.maximum(n, 1), np.nan)
        columns += [pl.Series(f"{o}_rate", rate), pl.Series(f"{o}_low", low),
                    pl.Series(f"{o}_high", high)]
    counts = counts.with_columns(pl.col("n").cast(pl.Int64),
                                 *[pl.col(f"{o}_k").cast(pl.Int64) for o in outcomes])
    wide = counts.with_columns(columns).select(
        *keys, "n", *[c for o in outcomes for c in (f"{o}_k", f"{o}_rate", f"{o}_low", f"{o}_high")]
    )
    if not long:
        return wide
    parts = [
        wide.select(*keys, pl.lit(o).alias("outcome"), "n", pl.col(f"{o}_k").alias("k"),
                    pl.col(f"{o}_rate").alias("rate"), pl.col(f"{o}_low").alias("low"),
                    pl.col(f"{o}_high").alias("high"))
        for o in outcomes
    ]
    return pl.concat(parts)


def end_reasons(game: Game, df: pl.DataFrame, by: str | Sequence[str] | None = None, *,
                z: float = Z95) -> pl.DataFrame:
    """How games end: one row per (group, end_reason) with `n` (games in the group), `k`,
    `rate`, `low`, `high` and `defeat` (whether that reason is a defeat). Sorted by group,
    then by k descending."""
    keys, result = by_list(by), game.result
    df = _never_groups(df, keys)
    totals = df.group_by(keys).agg(pl.len().alias("n")) if keys else df.select(pl.len().alias("n"))
    counts = df.group_by([*keys, result.end_reason]).agg(pl.len().alias("k"))
    table = counts.join(totals, on=keys, how="left", nulls_equal=True) if keys else \
        counts.with_columns(pl.lit(df.height).alias("n"))
    low, high = wilson(table["k"].to_numpy(), table["n"].to_numpy(), z)
    return (table.with_columns((pl.col("k") / pl.col("n")).alias("rate"), pl.Series("low", low),
                               pl.Series("high", high),
                               pl.col(result.end_reason).is_in(result.loss_reasons).alias(result.loss))
            .with_columns(pl.col("n").cast(pl.Int64), pl.col("k").cast(pl.Int64))
            .sort([*keys, "k"], descending=[False] * len(keys) + [True], nulls_last=True)
            .select(*keys, result.end_reason, result.loss, "n", "k", "rate", "low", "high"))


def defeat_breakdown(game: Game, df: pl.DataFrame, factor: str | Sequence[str],
                     by: str | Sequence[str] | None = None, *, z: float = Z95) -> pl.DataFrame:
    """Defeats broken down by how they came: `factor` is one of LOSS_FACTORS or a list of
    them (e.g. ["loss_cause", "end_turn"]).

    One row per (group, factor values) with at least one defeat: the `by` columns, the
    factor columns (null for a defeat no loss ended: turn 40 under the optional rule, §8),
    `games` (games in the group), `defeats` (defeats in the group), `k` (defeats with these
    values), `share` (k / defeats), `rate` (k / games), `low`, `high` (rate's 95% Wilson
    interval). Sorted by group, then by k descending (by the turn, for end_turn alone).
    """
    keys, factors, result = by_list(by), by_list(factor), game.result
    unknown = [f for f in factors if f not in game.result.loss_factors]
    if unknown or not factors:
        raise ValueError(f"cannot break defeats down by {unknown or factors!r} "
                         f"(known: {', '.join(game.result.loss_factors)})")
    df = _never_groups(df, keys)
    totals = df.group_by(keys).agg(pl.len().alias("games"),
                                   pl.col(result.loss).fill_null(False).sum().alias("defeats")) \
        if keys else df.select(pl.len().alias("games"),
                               pl.col(result.loss).fill_null(False).sum().alias("defeats"))
    counts = df.filter(pl.col(result.loss)).group_by([*keys, *factors]).agg(pl.len().alias("k"))
    table = counts.join(totals, on=keys, how="left", nulls_equal=True) if keys else \
        counts.join(totals, how="cross")
    table = table.with_columns(pl.col("games", "defeats", "k").cast(pl.Int64))
    low, high = wilson(table["k"].to_numpy(), table["games"].to_numpy(), z)
    order = ([result.end_turn], [False]) if factors == [result.end_turn] else (["k", *factors],
                                                                     [True] + [False] * len(factors))
    return (table.with_columns((pl.col("k") / pl.col("defeats")).alias("share"),
                               (pl.col("k") / pl.col("games")).alias("rate"),
                               pl.Series("low", low, dtype=pl.Float64),
                               pl.Series("high", high, dtype=pl.Float64))
            .sort([*keys, *order[0]], descending=[False] * len(keys) + order[1], nulls_last=True)
            .select(*keys, *factors, "games", "defeats", "k", "share", "rate", "low", "high"))


def turns_by_outcome(game: Game, df: pl.DataFrame, column: str | None = None,
                     by: str | Sequence[str] | None = None, *,
                     outcomes: Sequence[str] | None = None, z: float = Z95) -> pl.DataFrame:
    """When the games of each outcome (default: OUTCOMES) end (column "end_turn", the
    default), or suffer their first loss ("first_loss_turn"): one row per (group,
    outcome, turn) among the games with that outcome: the `by` columns, `outcome`, `turn`
    (Int64; null: the column is null, e.g. no loss), `n` (games with the outcome in the
    group), `k` (those at this turn), `share` (k / n), `low`, `high` (95% Wilson
    interval). Outcomes no game had are left out."""
    keys = by_list(by)
    column = game.result.end_turn if column is None else column
    outcomes = game.result.outcome_names if outcomes is None else outcomes
    frame = _never_groups(game.result.with_outcomes(df), keys)
    parts = []
    for o in outcomes:
        rows = frame.filter(pl.col(o).fill_null(False))
        if rows.height == 0:
            continue
        counts = rows.group_by([*keys, column]).agg(pl.len().alias("k"))
        totals = rows.group_by(keys).agg(pl.len().alias("n")) if keys else \
            rows.select(pl.len().alias("n"))
        joined = counts.join(totals, on=keys, how="left", nulls_equal=True) if keys else \
            counts.join(totals, how="cross")
        parts.append(joined.select(*keys, pl.lit(o).alias("outcome"),
                                   pl.col(column).cast(pl.Int64).alias("turn"),
                                   pl.col("n").cast(pl.Int64), pl.col("k").cast(pl.Int64)))
    if not parts:
        return pl.DataFrame(schema={**{k: df.schema[k] for k in keys}, "outcome": pl.Utf8,
                                    "turn": pl.Int64, "n": pl.Int64, "k": pl.Int64,
                                    "share": pl.Float64, "low": pl.Float64, "high": pl.Float64})
    order = {o: i for i, o in enumerate(outcomes)}
    table = pl.concat(parts).with_columns(
        pl.col("outcome").replace_strict(order, return_dtype=pl.Int32).alias("_order"))
    table = table.sort([*keys, "_order", "turn"], nulls_last=True).drop("_order")
    low, high = wilson(table["k"].to_numpy(), table["n"].to_numpy(), z)
    return table.with_columns((pl.col("k") / pl.col("n")).alias("share"),
                              pl.Series("low", low, dtype=pl.Float64),
                              pl.Series("high", high, dtype=pl.Float64))


def distributions(game: Game, df: pl.DataFrame, by: str | Sequence[str] | None = None, *,
                  variables: Sequence[str] | None = None) -> pl.DataFrame:
    """How often each value of end_turn, first_fire_turn, first_fire_roe and damage occurs.

    Long format, one row per (group, variable, value): the `by` columns, `variable`,
    `value` (Int64; null for first_fire_* means the game never fired), `n` (games with that
    value), `share` (n / games in the group) and `cumulative` (running share in value order,
    never-fired last). `damage` is heavy_damage + light_damage. Use `summary` for means
    and quantiles.
    """
    keys = by_list(by)
    variables = game.result.distributions if variables is None else variables
    frame = game.result.with_totals(df, variables)
    parts = []
    for v in variables:
        counts = (frame.group_by([*keys, v]).agg(pl.len().alias("n"))
                  .select(*keys, pl.lit(v).alias("variable"),
                          pl.col(v).cast(pl.Int64).alias("value"), pl.col("n").cast(pl.Int64)))
        parts.append(counts)
    table = pl.concat(parts).sort([*keys, "variable", "value"], nulls_last=True)
    group = [*keys, "variable"]
    return table.with_columns(
        (pl.col("n") / pl.col("n").sum().over(group)).alias("share"),
    ).with_columns(pl.col("share").cum_sum().over(group).alias("cumulative"))


def summary(game: Game, df: pl.DataFrame, by: str | Sequence[str] | None = None, *,
            variables: Sequence[str] | None = None) -> pl.DataFrame:
    """Mean, median, 10th and 90th percentile of each distribution variable, per group.

    One row per (group, variable): the `by` columns, `variable`, `n` (games with a value;
    a never-fired game has no first-fire value), `never` (games without one), `mean`,
    `p10`, `median`, `p90`.
    """
    keys = by_list(by)
    variables = game.result.distributions if variables is None else variables
    frame = game.result.with_totals(df, variables)
    parts = []
    for v in variables:
        col = pl.col(v).cast(pl.Float64)
        aggs = [col.count().cast(pl.Int64).alias("n"),
                col.null_count().cast(pl.Int64).alias("never"),
                col.mean().alias("mean"), col.quantile(0.1, "nearest").alias("p10"),
                col.median().alias("median"), col.quantile(0.9, "nearest").alias("p90")]
        stats = frame.group_by(keys).agg(aggs) if keys else frame.select(aggs)
        parts.append(stats.select(*keys, pl.lit(v).alias("variable"), "n", "never", "mean",
                                  "p10", "median", "p90"))
    return pl.concat(parts).sort([*keys], nulls_last=True) if keys else pl.concat(parts)


def outcome_masks(game: Game, df: pl.DataFrame) -> dict[str, pl.Expr]:
    """{label: boolean expression} for every outcome a designer may want to replay: each
    victory type, all four, no result, and each way of losing ("defeat: turn 40")."""
    result, labels = game.result, game.result.labels
    masks = {labels[o]: pl.col(o).fill_null(False) for o in result.outcome_names if o != result.loss}
    for reason in result.loss_reasons:
        lost = pl.col(result.loss).fill_null(False) & (pl.col(result.end_reason) == reason)
        masks[f"{labels[result.loss]}: {reason}"] = lost
    return masks


def examples(game: Game, df: pl.DataFrame, k: int = 5) -> pl.DataFrame:
    """A few games of each outcome, to replay with `bollesim play --from DIR --index N`.

    One row per outcome label of `outcome_masks`: `outcome`, `count` (games with it),
    `games` (list of up to k distinct game indices, lowest first) and `cells` (the cell
    of each, the lowest cell where that game had the outcome; all 0 for a plain run).
    Outcomes no game reached are left out.
    """
    df = game.result.with_outcomes(df)
    has_cell = "cell" in df.columns
    n_cells = df["cell"].n_unique() if has_cell else 1  # a game is in at most n_cells rows
    rows = []
    for label, mask in outcome_masks(game, df).items():
        hits = df.filter(mask)
        if hits.height == 0:
            continue
        keys = ["game", "cell"] if has_cell else ["game"]
        first = (hits.select(keys).bottom_k(k * n_cells, by=keys).sort(keys)
                 .unique("game", keep="first", maintain_order=True).head(k))
        cells = first["cell"].cast(pl.Int64).to_list() if has_cell else [0] * first.height
        rows.append({"outcome": label, "count": hits.height,
                     "games": first["game"].cast(pl.Int64).to_list(), "cells": cells})
    return pl.DataFrame(rows, schema={"outcome": pl.Utf8, "count": pl.Int64,
                                      "games": pl.List(pl.Int64), "cells": pl.List(pl.Int64)})
