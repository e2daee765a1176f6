"""Statistics over a batch's results: rates with 95% intervals, paired comparisons, distributions.

Every function takes the per-game DataFrame of a run or sweep (docs/architecture.md §5, one row per
game) and returns a polars DataFrame. The columns used are:

    game (int)          game index; the same index in two cells means the same seed (common
                        random numbers), so two cells can be compared game by game
    policy (str), cell (int), one Float64 column per policy parameter
    operational, tactical, strategic, political, defeat (bool)
    end_turn, end_reason, first_fire_turn, first_fire_roe (null: never fired),
    heavy_damage, light_damage (int)
    first_loss_turn (null: no loss), loss_vehicle, loss_cause, loss_place (str, null
                        unless a loss ended the game in defeat)

Two outcomes are derived (`with_outcomes` adds them): `perfect`, all four victories in the
same game, and `no_result`, neither a victory nor a defeat. Rates carry 95% Wilson score
intervals (docs/architecture.md §7).

    from bollesim.stats import analysis
    analysis.rates(df, by="policy")                          # one row per policy
    analysis.paired_comparison(df, "historical", "rush")     # one row per outcome
    analysis.paired_comparison(df, {"k": 12}, {"k": 18}, "strategic")   # two cells of a sweep
    analysis.best_trigger(df, "k")                           # one row per outcome
    analysis.distributions(df, by="cell"), analysis.summary(df)   # end turn, first fire, damage
    analysis.end_reasons(df), analysis.examples(df)          # how games end; games to replay
    analysis.defeat_breakdown(df, "loss_cause")              # defeats by weapon (or vehicle, place, turn)
    analysis.turns_by_outcome(df)                            # when games of each outcome end

A policy parameter declared with a `never` value (policies/*.py, e.g. fire_at_roe's k = 25)
has that value shown and grouped as "never" by best_trigger, cell_labels and the charts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from bollesim.game.declaration import declared
from bollesim.stats.intervals import Z95, mcnemar_exact, paired_rates, wilson

GAME = declared()
RESULT = GAME.result

VICTORIES = RESULT.wins
"""The outcome flags a player wins by (Bøllebank: the four victory types of §8)."""


OUTCOMES = RESULT.outcome_names
"""Every outcome a rate is reported for: the wins, all of them, the loss, no result."""


HEADLINE = RESULT.headline
"""The outcomes drawn in the charts and ranked by best_trigger."""


SUMMARY = RESULT.summary
"""The outcomes of a run's or a cell's one-line summary (the command line's)."""


LABELS = RESULT.labels
"""Plain names for the outcomes (charts, tables, findings)."""


MINIMISE = RESULT.minimise
"""Outcomes a player wants less of."""


RESULT_COLUMNS = frozenset({"game", "seed", "policy", "cell", *RESULT.names, *OUTCOMES,
                            "ruleset", "ruleset_hash"})
"""The columns of a result row that are not policy parameters."""


LOSS_FACTORS = RESULT.loss_factors
"""What `defeat_breakdown` breaks losses down by (the weapon, the vehicle lost, where it
stood and the turn, for this game)."""


DISTRIBUTION_VARIABLES = RESULT.distributions
"""What `distributions` counts: measures of a game (result columns or their totals)."""


with_outcomes = RESULT.with_outcomes
"""with_outcomes(df): df with the derived outcome columns (those missing)."""


def outcome_means(outcomes: Sequence[str] = SUMMARY) -> list[pl.Expr]:
    """Each outcome's rate as a polars expression over result rows."""
    derived = RESULT.derived()
    return [(derived[o] if o in derived else pl.col(o)).mean().alias(o) for o in outcomes]


def run_rates(run) -> tuple[int, dict[str, float]]:
    """Games and the SUMMARY rates of a verified run (runfolder.Run), read column by column
    (a 10-million-game file would take a gigabyte in memory whole)."""
    row = run.collect(run.scan().select([pl.len().alias("n"), *outcome_means()]))
    return int(row["n"][0]), {c: float(row[c][0] or 0.0) for c in SUMMARY}


def cell_rates(run) -> pl.DataFrame:
    """One row per cell of a verified run (runfolder.Run): cell, label, policy, games and
    each SUMMARY rate, aggregated from a lazy scan (memory stays flat)."""
    scan = run.scan()
    first_rows = run.collect(scan.group_by("cell").agg(pl.all().first()))  # one row per cell
    labels = cell_labels(first_rows) if first_rows.height else None
    table = run.collect(
        scan.group_by("cell").agg(pl.len().alias("games"), *outcome_means()).sort("cell")
    )
    if labels is None:
        return table.with_columns(pl.lit("").alias("label"), pl.lit("").alias("policy"))
    return labels.join(table, on="cell").sort("cell")


def _by_list(by) -> list[str]:
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


def param_columns(df: pl.DataFrame) -> list[str]:
    """The policy-parameter columns of a result frame (numeric columns that are not results)."""
    return [c for c, t in df.schema.items() if c not in RESULT_COLUMNS and t.is_numeric()]


def never_as_null(column: str, never: float | None = None) -> pl.Expr:
    """The column with NaN, ±inf (and the value `never`, if given) turned to null, so that
    "never" is one group."""
    col = pl.col(column)
    if column in RESULT.nullable and never is None:
        return col
    keep = col.cast(pl.Float64).is_finite()
    if never is not None:
        keep = keep & (col != never)
    return pl.when(keep).then(col).otherwise(None).alias(column)


def declared_parameter(policy: str | None, param: str):
    """The declaration (bollesim.game.policy.Parameter: `name`, `default`, `low`, `high`, `doc`,
    `label`, `never`) of a policy parameter, read from the policy's module
    (imported, nothing compiled); None when the policy or the parameter is unknown."""
    if not policy:
        return None
    try:
        module = GAME.policy_module(policy)
    except Exception:  # noqa: BLE001 - a missing or broken policy just means "not declared"
        return None
    for p in getattr(module, "PARAMETERS", ()):
        if getattr(p, "name", None) == param:
            return p
    return None


def never_value(policy: str | None, param: str) -> float | None:
    """The parameter value that means "never", as its declaration says (Parameter.never,
    e.g. 25 for fire_at_roe's k); None when no value means that."""
    p = declared_parameter(policy, param)
    never = getattr(p, "never", None) if p is not None else None
    return None if never is None else float(never)


def parameter_label(policy: str | None, param: str) -> str:
    """The human name of a parameter (Parameter.label), or its name when not declared."""
    p = declared_parameter(policy, param)
    return (getattr(p, "label", "") or param) if p is not None else param


def _resolve_never(never, policy: str | None, param: str) -> float | None:
    if isinstance(never, str):
        if never != "auto":
            raise ValueError(f"never: 'auto', None or a number, not {never!r}")
        return never_value(policy, param)
    return None if never is None else float(never)


def p_text(p: float | None) -> str:
    """A p-value for people: "p < 0.001", "p = 0.0042", "p = 0.42"; "not paired" for none."""
    if p is None:
        return "not paired"
    return "p < 0.001" if p < 1e-3 else f"p = {p:.2g}" if p < 0.01 else f"p = {p:.2f}"


def pct(x: float | None) -> str:
    """0.4123 -> "41.2%"; below 1%, two decimals; "–" for no value."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    v = 100.0 * x
    return f"{v:.2f}%" if 0 < abs(v) < 1 else f"{v:.1f}%"


def fmt_value(value) -> str:
    """A parameter or group value for people: 12.0 -> "12", None/NaN -> "never"."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "never"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def swept_parameters(df: pl.DataFrame) -> dict[str, list[str]]:
    """{policy: [parameters that take more than one value among that policy's games]}.

    A parameter belongs to a policy if it is not null in all of the policy's rows; NaN,
    ±inf and null count as one value ("never").
    """
    params = param_columns(df)
    if "policy" not in df.columns:
        return {}
    stats = df.group_by("policy", maintain_order=True).agg(
        pl.len().alias("_n"),
        *[pl.col(p).null_count().alias(f"{p}__nulls") for p in params],
        *[never_as_null(p).n_unique().alias(f"{p}__values") for p in params],
    )
    out: dict[str, list[str]] = {}
    for row in stats.iter_rows(named=True):
        out[str(row["policy"])] = [p for p in params if row[f"{p}__nulls"] < row["_n"]
                                   and row[f"{p}__values"] > 1]
    return out


def own_cells(games: pl.DataFrame, policy: str, param: str, params: Sequence[str]) -> pl.DataFrame:
    """The policy's games in which `param` is swept: where its other swept parameters keep
    the values under which `param` takes the most settings (a grid that sweeps one imposed
    trigger at the other's "not imposed", say), so its settings are played on the same
    games and compared pair by pair."""
    games = games.filter(pl.col("policy") == policy)
    others = [p for p in params if p != param]
    if not others:
        return games
    blocks = (games.group_by(others, maintain_order=True)
              .agg(never_as_null(param).n_unique().alias("_settings")))
    block = blocks.sort("_settings", descending=True, maintain_order=True).row(0, named=True)
    return games.filter(pl.all_horizontal([pl.col(p).eq_missing(block[p]) for p in others]))


def cell_labels(df: pl.DataFrame) -> pl.DataFrame:
    """One row per cell: `cell`, `policy` and a short `label` ("fire_at_roe k=12").

    The label names the policy and the parameters swept for that policy (those that vary
    between its cells); a policy with one cell is labelled by its name alone. A value that
    means "never" (NaN, or declared so, see never_value) reads "k=25 (never)". A cell that
    changes the ruleset (a `ruleset` column) ends with what it changes:
    "fire_at_roe k=12 I-AIR=ceil".
    """
    params = param_columns(df)
    rulesets = ["ruleset"] if "ruleset" in df.columns else []
    cells = (df.group_by("cell").agg(pl.col("policy").first(), *[pl.col(p).first() for p in params],
                                     *[pl.col(r).first() for r in rulesets])
             .sort("cell"))
    swept = swept_parameters(cells)  # parameters that differ between a policy's cells
    labels = []
    for row in cells.iter_rows(named=True):
        parts = [row["policy"]]
        for p in swept.get(row["policy"], []):
            value, never = row[p], never_value(row["policy"], p)
            text = fmt_value(value)
            if never is not None and value is not None and math.isclose(value, never):
                text += " (never)"
            parts.append(f"{p}={text}")
        if rulesets and row["ruleset"]:
            parts.append(row["ruleset"])
        labels.append(" ".join(parts))
    return cells.select("cell", "policy").with_columns(pl.Series("label", labels, dtype=pl.Utf8))


def rates(df: pl.DataFrame, by: str | Sequence[str] | None = None, *,
          outcomes: Sequence[str] = OUTCOMES, long: bool = False, z: float = Z95) -> pl.DataFrame:
    """Rate of each outcome with its 95% Wilson interval, per group.

    by: None (the whole frame), a column name or a list of them. Null is a group of its
    own (e.g. first_fire_turn null: never fired); in float columns NaN and ±inf join the
    null group (a trigger value meaning "never"). Groups are sorted, nulls last.

    Wide (default): one row per group with the `by` columns, `n` (games), then for each
    outcome o of `outcomes`: `o_k` (games with it), `o_rate`, `o_low`, `o_high` (fractions
    in 0..1).
    long=True: one row per (group, outcome) with the `by` columns, `outcome`, `n`, `k`,
    `rate`, `low`, `high`; tidy for charts.
    """
    keys = _by_list(by)
    df = _never_groups(with_outcomes(df), keys)
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


def end_reasons(df: pl.DataFrame, by: str | Sequence[str] | None = None, *,
                z: float = Z95) -> pl.DataFrame:
    """How games end: one row per (group, end_reason) with `n` (games in the group), `k`,
    `rate`, `low`, `high` and `defeat` (whether that reason is a defeat). Sorted by group,
    then by k descending."""
    keys = _by_list(by)
    df = _never_groups(df, keys)
    totals = df.group_by(keys).agg(pl.len().alias("n")) if keys else df.select(pl.len().alias("n"))
    counts = df.group_by([*keys, RESULT.end_reason]).agg(pl.len().alias("k"))
    table = counts.join(totals, on=keys, how="left", nulls_equal=True) if keys else \
        counts.with_columns(pl.lit(df.height).alias("n"))
    low, high = wilson(table["k"].to_numpy(), table["n"].to_numpy(), z)
    return (table.with_columns((pl.col("k") / pl.col("n")).alias("rate"), pl.Series("low", low),
                               pl.Series("high", high),
                               pl.col(RESULT.end_reason).is_in(RESULT.loss_reasons).alias(RESULT.loss))
            .with_columns(pl.col("n").cast(pl.Int64), pl.col("k").cast(pl.Int64))
            .sort([*keys, "k"], descending=[False] * len(keys) + [True], nulls_last=True)
            .select(*keys, RESULT.end_reason, RESULT.loss, "n", "k", "rate", "low", "high"))


def defeat_breakdown(df: pl.DataFrame, factor: str | Sequence[str],
                     by: str | Sequence[str] | None = None, *, z: float = Z95) -> pl.DataFrame:
    """Defeats broken down by how they came: `factor` is one of LOSS_FACTORS or a list of
    them (e.g. ["loss_cause", "end_turn"]).

    One row per (group, factor values) with at least one defeat: the `by` columns, the
    factor columns (null for a defeat no loss ended: turn 40 under the optional rule, §8),
    `games` (games in the group), `defeats` (defeats in the group), `k` (defeats with these
    values), `share` (k / defeats), `rate` (k / games), `low`, `high` (rate's 95% Wilson
    interval). Sorted by group, then by k descending (by the turn, for end_turn alone).
    """
    keys, factors = _by_list(by), _by_list(factor)
    unknown = [f for f in factors if f not in LOSS_FACTORS]
    if unknown or not factors:
        raise ValueError(f"cannot break defeats down by {unknown or factors!r} "
                         f"(known: {', '.join(LOSS_FACTORS)})")
    df = _never_groups(df, keys)
    totals = df.group_by(keys).agg(pl.len().alias("games"),
                                   pl.col(RESULT.loss).fill_null(False).sum().alias("defeats")) \
        if keys else df.select(pl.len().alias("games"),
                               pl.col(RESULT.loss).fill_null(False).sum().alias("defeats"))
    counts = df.filter(pl.col(RESULT.loss)).group_by([*keys, *factors]).agg(pl.len().alias("k"))
    table = counts.join(totals, on=keys, how="left", nulls_equal=True) if keys else \
        counts.join(totals, how="cross")
    table = table.with_columns(pl.col("games", "defeats", "k").cast(pl.Int64))
    low, high = wilson(table["k"].to_numpy(), table["games"].to_numpy(), z)
    order = ([RESULT.end_turn], [False]) if factors == [RESULT.end_turn] else (["k", *factors],
                                                                     [True] + [False] * len(factors))
    return (table.with_columns((pl.col("k") / pl.col("defeats")).alias("share"),
                               (pl.col("k") / pl.col("games")).alias("rate"),
                               pl.Series("low", low, dtype=pl.Float64),
                               pl.Series("high", high, dtype=pl.Float64))
            .sort([*keys, *order[0]], descending=[False] * len(keys) + order[1], nulls_last=True)
            .select(*keys, *factors, "games", "defeats", "k", "share", "rate", "low", "high"))


def turns_by_outcome(df: pl.DataFrame, column: str = RESULT.end_turn,
                     by: str | Sequence[str] | None = None, *,
                     outcomes: Sequence[str] = OUTCOMES, z: float = Z95) -> pl.DataFrame:
    """When the games of each outcome end (column "end_turn"), or suffer their first loss
    ("first_loss_turn"): one row per (group, outcome, turn) among the games with that
    outcome: the `by` columns, `outcome`, `turn` (Int64; null: the column is null, e.g. no
    loss), `n` (games with the outcome in the group), `k` (those at this turn), `share`
    (k / n), `low`, `high` (95% Wilson interval). Outcomes no game had are left out."""
    keys = _by_list(by)
    frame = _never_groups(with_outcomes(df), keys)
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


def _select(df: pl.DataFrame, spec) -> tuple[pl.DataFrame, str]:
    """Rows picked by a comparison side, and its label. See paired_comparison."""
    if isinstance(spec, pl.Expr):
        return df.filter(spec), str(spec)
    if isinstance(spec, bool):
        raise TypeError("a comparison side is a policy name, a cell number, a dict "
                        "or an expression")
    if isinstance(spec, int | np.integer):
        rows = df.filter(pl.col("cell") == int(spec))
        if rows.height and "policy" in df.columns:
            labels = cell_labels(df).filter(pl.col("cell") == int(spec))
            return rows, labels["label"][0]
        return rows, f"cell {int(spec)}"
    if isinstance(spec, str):
        return df.filter(pl.col("policy") == spec), spec
    if isinstance(spec, Mapping):
        cond = pl.lit(True)
        for column, value in spec.items():
            if value is None or (isinstance(value, float) and not math.isfinite(value)):
                cond = cond & never_as_null(column).is_null()
            else:
                cond = cond & (pl.col(column) == value)
        return df.filter(cond), " ".join(f"{k}={fmt_value(v)}" for k, v in spec.items())
    raise TypeError(f"cannot select games with {spec!r}: give a policy name, a cell number, "
                    "a dict {column: value} or a polars expression")


def _pair(df: pl.DataFrame, a, b, on: str, outcomes: Sequence[str]):
    rows_a, label_a = _select(df, a)
    rows_b, label_b = _select(df, b)
    for rows, label in ((rows_a, label_a), (rows_b, label_b)):
        if rows.height == 0:
            raise ValueError(f"no games match {label!r}")
        if rows[on].n_unique() != rows.height:
            raise ValueError(f"{label!r} matches several games with the same {on!r} "
                             "(several cells?); narrow it down, e.g. with a cell number or a dict "
                             "of parameters")
    keep = [on] + (["seed"] if "seed" in df.columns and on != "seed" else []) + list(outcomes)
    joined = rows_a.select(keep).join(rows_b.select(keep), on=on, how="inner", suffix="_b")
    if joined.height == 0:
        raise ValueError(f"{label_a!r} and {label_b!r} share no {on!r} values: nothing to pair")
    if "seed" in keep and (joined["seed"] != joined["seed_b"]).any():
        raise ValueError(f"{label_a!r} and {label_b!r} pair games with different seeds: "
                         "not common random numbers")
    return joined, label_a, label_b


def paired_comparison(df: pl.DataFrame, a, b, outcome: str | Sequence[str] | None = None,
                      on: str = "game", *, z: float = Z95, alpha: float = 0.05) -> pl.DataFrame:
    """Compare two policies or cells game by game on the same seeds (common random numbers).

    a, b: which games each side is: a policy name (str), a cell number (int), a dict
    {column: value} (e.g. {"policy": "fire_at_roe", "k": 12.0}; None or NaN match
    "never") or a polars expression. Each side must hold at most one game per `on` value;
    games are paired on `on` and only games present on both sides count.
    outcome: one outcome name, a list, or None for all of OUTCOMES.

    Returns one row per outcome: `outcome`, `a`, `b` (labels), `n` (pairs), `rate_a`,
    `a_low`, `a_high`, `rate_b`, `b_low`, `b_high`, `diff` (rate_a - rate_b), `diff_low`,
    `diff_high` (95% interval of the paired difference, Newcombe's method 10: exact
    marginals plus the correlation of the pairs, sound even when few games differ),
    `only_a`, `only_b` (games where only one side got the outcome), `p_value` (exact
    McNemar test on only_a vs only_b), `significant` (p_value < alpha).
    """
    outcomes = list(OUTCOMES) if outcome is None else _by_list(outcome)
    unknown = [o for o in outcomes if o not in OUTCOMES]
    if unknown:
        raise ValueError(f"unknown outcome {unknown[0]!r} (known: {', '.join(OUTCOMES)})")
    joined, label_a, label_b = _pair(with_outcomes(df), a, b, on, outcomes)
    rows = []
    for o in outcomes:
        stats = paired_rates(joined[o].fill_null(False).to_numpy(),
                         joined[f"{o}_b"].fill_null(False).to_numpy(), z, alpha)
        rows.append({"outcome": o, "a": label_a, "b": label_b, **stats})
    return pl.DataFrame(rows, schema_overrides={"a_low": pl.Float64, "a_high": pl.Float64,
                                                "b_low": pl.Float64, "b_high": pl.Float64})


def larger_change(a_new: np.ndarray, a_old: np.ndarray, b_new: np.ndarray,
                  b_old: np.ndarray, z: float = Z95) -> dict:
    """Whose rate moved more between two settings, side a's (a_old -> a_new) or side b's,
    all four outcome vectors on the same games: `more`, |change of b| - |change of a| in
    points of rate, its 95% interval (`low`, `high`; the game-by-game differences, paired)
    and `which` moved more: "a", "b", or "neither" when the interval holds 0. Each side's
    change is signed by its own mean, so a change of either sign counts by its size."""
    da = np.asarray(a_new, dtype=np.float64) - np.asarray(a_old, dtype=np.float64)
    db = np.asarray(b_new, dtype=np.float64) - np.asarray(b_old, dtype=np.float64)
    per_game = np.sign(db.mean() or 1.0) * db - np.sign(da.mean() or 1.0) * da
    n = len(per_game)
    more = float(per_game.mean()) if n else 0.0
    half = z * float(per_game.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
    which = "b" if more - half > 0 else "a" if more + half < 0 else "neither"
    return {"more": more, "low": more - half, "high": more + half, "which": which}


def distributions(df: pl.DataFrame, by: str | Sequence[str] | None = None, *,
                  variables: Sequence[str] = DISTRIBUTION_VARIABLES) -> pl.DataFrame:
    """How often each value of end_turn, first_fire_turn, first_fire_roe and damage occurs.

    Long format, one row per (group, variable, value): the `by` columns, `variable`,
    `value` (Int64; null for first_fire_* means the game never fired), `n` (games with that
    value), `share` (n / games in the group) and `cumulative` (running share in value order,
    never-fired last). `damage` is heavy_damage + light_damage. Use `summary` for means
    and quantiles.
    """
    keys = _by_list(by)
    frame = RESULT.with_totals(df, variables)
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


def summary(df: pl.DataFrame, by: str | Sequence[str] | None = None, *,
            variables: Sequence[str] = DISTRIBUTION_VARIABLES) -> pl.DataFrame:
    """Mean, median, 10th and 90th percentile of each distribution variable, per group.

    One row per (group, variable): the `by` columns, `variable`, `n` (games with a value;
    a never-fired game has no first-fire value), `never` (games without one), `mean`,
    `p10`, `median`, `p90`.
    """
    keys = _by_list(by)
    frame = RESULT.with_totals(df, variables)
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


def best_trigger(df: pl.DataFrame, param: str, *, default: float | None = None,
                 policy: str | None = None, never: float | str | None = "auto",
                 outcomes: Sequence[str] = HEADLINE, z: float = Z95,
                 alpha: float = 0.05) -> pl.DataFrame:
    """Which value of a policy parameter is best for each outcome, and by how much.

    df: the games of a sweep; only the games of `policy` (default: the policies for which
    `param` is not always null) are used. NaN, ±inf, null and the value `never` are one
    setting, "never" (never="auto": the value the declaration names, see never_value).
    Victories are maximised; defeat and no result minimised.
    default: the parameter's default (None: the policy module's declared default, if any).

    One row per outcome: `outcome`, `goal` ("max"/"min"), `best`, `worst`, `default`
    (Float64 values, null for never) with `best_label`, `worst_label`, `default_label`
    (strings), `best_rate`, `best_low`, `best_high`, `worst_rate`, `default_rate`,
    `gain_vs_worst`, `gain_vs_default` (rate differences, positive = better for the
    goal), `p_vs_worst`, `p_vs_default` (exact McNemar over the same games; null when the
    games cannot be paired one to one), `significant_vs_worst`, `significant_vs_default`,
    `tied` (labels of the other settings not significantly different from the best, at
    alpha divided by the number of other settings: the best was chosen among them on these
    same games; null when unpaired), `n_min` (fewest games behind one setting) and `n_settings`.
    Ties go to the smaller parameter value.
    """
    if param not in df.columns:
        raise ValueError(f"no column {param!r} (parameter columns: {', '.join(param_columns(df))})")
    if policy is not None:
        df = df.filter(pl.col("policy") == policy)
    elif "policy" in df.columns:
        owners = df.filter(pl.col(param).is_not_null())["policy"].unique().to_list()
        df = df.filter(pl.col("policy").is_in(owners))
        if len(owners) == 1:
            policy = owners[0]
    if df.height == 0:
        raise ValueError(f"no games for parameter {param!r}")
    never = _resolve_never(never, policy, param)
    if default is None:
        declared = declared_parameter(policy, param)
        default = float(declared.default) if declared is not None else None
    if default is not None and never is not None and math.isclose(default, never):
        default = math.nan
    df = with_outcomes(df).with_columns(
        never_as_null(param, never).cast(pl.Float64).alias("_setting"))
    table = rates(df, by="_setting", outcomes=outcomes, z=z)
    values = table["_setting"].to_list()
    n = table["n"].to_numpy()
    labels = [fmt_value(v) for v in values]
    ordered = _paired_matrix(df, "_setting", len(values)) if (n == n[0]).all() else None

    rows = []
    for o in outcomes:
        r = table[f"{o}_rate"].to_numpy()
        score = -r if o in MINIMISE else r
        score = np.where(np.isnan(score), -np.inf, score)
        ib = int(np.argmax(score))  # first maximum: the smallest value (never sorts last)
        iw = int(np.argmin(np.where(np.isneginf(score), np.inf, score)))
        sign = -1.0 if o in MINIMISE else 1.0
        idef = None
        if default is not None:
            for i, v in enumerate(values):
                if (v is None and not math.isfinite(default)) or (
                        v is not None and math.isclose(v, default)):
                    idef = i
        if ordered is not None:
            m = ordered[o].fill_null(False).to_numpy().reshape(len(values), -1)
            only_best = (m[ib][None, :] & ~m).sum(axis=1)
            only_other = (~m[ib][None, :] & m).sum(axis=1)
            p = [mcnemar_exact(int(b), int(c)) for b, c in zip(only_best, only_other, strict=True)]
            # the best was chosen among the settings on these same games: each other
            # setting is tested against it at alpha / (settings - 1) (Bonferroni)
            chosen_alpha = alpha / max(1, len(values) - 1)
            tied = [labels[i] for i in range(len(values)) if i != ib and p[i] >= chosen_alpha]
        else:
            p, tied = None, None
        p_w = p[iw] if p is not None else None
        p_d = p[idef] if p is not None and idef is not None else None
        rows.append({
            "outcome": o, "goal": "min" if o in MINIMISE else "max",
            "best": values[ib], "best_label": labels[ib],
            "best_rate": float(r[ib]), "best_low": float(table[f"{o}_low"][ib]),
            "best_high": float(table[f"{o}_high"][ib]),
            "worst": values[iw], "worst_label": labels[iw], "worst_rate": float(r[iw]),
            "gain_vs_worst": sign * float(r[ib] - r[iw]),
            "default": default if default is not None and math.isfinite(default) else None,
            "default_label": fmt_value(default) if default is not None else None,
            "default_rate": float(r[idef]) if idef is not None else None,
            "gain_vs_default": sign * float(r[ib] - r[idef]) if idef is not None else None,
            "p_vs_worst": p_w, "p_vs_default": p_d,
            "significant_vs_worst": None if p_w is None else p_w < alpha,
            "significant_vs_default": None if p_d is None else p_d < alpha,
            "tied": tied,
            "n_min": int(n.min()), "n_settings": len(values),
        })
    schema = {"best": pl.Float64, "worst": pl.Float64, "default": pl.Float64,
              "default_label": pl.Utf8, "default_rate": pl.Float64, "gain_vs_default": pl.Float64,
              "p_vs_worst": pl.Float64, "p_vs_default": pl.Float64,
              "significant_vs_worst": pl.Boolean, "significant_vs_default": pl.Boolean,
              "tied": pl.List(pl.Utf8)}
    return pl.DataFrame(rows, schema_overrides=schema)


def _paired_matrix(df: pl.DataFrame, key: str, n_keys: int) -> pl.DataFrame | None:
    """df sorted by (key, game) if every key value holds the same games once each (so
    that a column reshapes to a (n_keys, games) matrix, game by game); None otherwise."""
    ordered = df.sort([key, "game"], nulls_last=True)
    if n_keys == 0 or ordered.height % n_keys:
        return None
    games = ordered["game"].to_numpy().reshape(n_keys, -1)
    if not (games == games[0]).all() or len(np.unique(games[0])) != games.shape[1]:
        return None
    keys = ordered[key].to_list()[:: games.shape[1]]
    if len(set(keys)) != n_keys:
        return None
    return ordered


def outcome_masks(df: pl.DataFrame) -> dict[str, pl.Expr]:
    """{label: boolean expression} for every outcome a designer may want to replay: each
    victory type, all four, no result, and each way of losing ("defeat: turn 40")."""
    masks = {LABELS[o]: pl.col(o).fill_null(False) for o in OUTCOMES if o != RESULT.loss}
    for reason in RESULT.loss_reasons:
        lost = pl.col(RESULT.loss).fill_null(False) & (pl.col(RESULT.end_reason) == reason)
        masks[f"{LABELS[RESULT.loss]}: {reason}"] = lost
    return masks


def examples(df: pl.DataFrame, k: int = 5) -> pl.DataFrame:
    """A few games of each outcome, to replay with `bollesim play --from DIR --game N`.

    One row per outcome label of `outcome_masks`: `outcome`, `count` (games with it),
    `games` (list of up to k distinct game indices, lowest first) and `cells` (the cell
    of each, the lowest cell where that game had the outcome; all 0 for a plain run).
    Outcomes no game reached are left out.
    """
    df = with_outcomes(df)
    has_cell = "cell" in df.columns
    n_cells = df["cell"].n_unique() if has_cell else 1  # a game is in at most n_cells rows
    rows = []
    for label, mask in outcome_masks(df).items():
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
