"""Cells compared game by game on common seeds (paired tests: McNemar, Newcombe's
interval), and the best setting of a trigger parameter with the cells that do as well."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from bollesim.game.declaration import Game
from bollesim.stats.analysis import by_list, rates
from bollesim.stats.intervals import Z95, mcnemar_exact, paired_rates
from bollesim.stats.naming import (
    cell_labels,
    declared_parameter,
    fmt_value,
    never_as_null,
    param_columns,
    resolve_never,
    setting,
)


def _select(game: Game, df: pl.DataFrame, spec) -> tuple[pl.DataFrame, str]:
    """Rows picked by a comparison side, and its label. See paired_comparison."""
    if isinstance(spec, pl.Expr):
        return df.filter(spec), str(spec)
    if isinstance(spec, bool):
        raise TypeError("a comparison side is a policy name, a cell number, a dict "
                        "or an expression")
    if isinstance(spec, int | np.integer):
        rows = df.filter(pl.col("cell") == int(spec))
        if rows.height and "policy" in df.columns:
            labels = cell_labels(game, df).filter(pl.col("cell") == int(spec))
            return rows, labels["label"][0]
        return rows, f"cell {int(spec)}"
    if isinstance(spec, str):
        return df.filter(pl.col("policy") == spec), spec
    if isinstance(spec, Mapping):
        cond = pl.lit(True)
        for column, value in spec.items():
            if value is None or (isinstance(value, float) and not math.isfinite(value)):
                kind = df.schema.get(column)  # a text column (how a loss came) has no NaN
                numbers = kind is not None and (kind.is_numeric() or isinstance(kind, pl.Enum))
                cond = cond & (never_as_null(column) if numbers else pl.col(column)).is_null()
            elif isinstance(df.schema.get(column), pl.Enum) and not isinstance(value, str):
                cond = cond & (pl.col(column).to_physical() == value)  # a choice by its index
            else:
                cond = cond & (pl.col(column) == value)
        return df.filter(cond), " ".join(f"{k}={fmt_value(v)}" for k, v in spec.items())
    raise TypeError(f"cannot select games with {spec!r}: give a policy name, a cell number, "
                    "a dict {column: value} or a polars expression")


def _pair(game: Game, df: pl.DataFrame, a, b, on: str, outcomes: Sequence[str]):
    rows_a, label_a = _select(game, df, a)
    rows_b, label_b = _select(game, df, b)
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


def paired_comparison(game: Game, df: pl.DataFrame, a, b, outcome: str | Sequence[str] | None = None,
                      on: str = "game", *, z: float = Z95, alpha: float = 0.05) -> pl.DataFrame:
    """Compare two policies or cells of the game's games game by game on the same seeds
    (common random numbers).

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
    known = game.result.outcome_names
    outcomes = list(known) if outcome is None else by_list(outcome)
    unknown = [o for o in outcomes if o not in known]
    if unknown:
        raise ValueError(f"unknown outcome {unknown[0]!r} (known: {', '.join(known)})")
    joined, label_a, label_b = _pair(game, game.result.with_outcomes(df), a, b, on, outcomes)
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


def best_trigger(game: Game, df: pl.DataFrame, param: str, *, default: float | None = None,
                 policy: str | None = None, never: float | str | None = "auto",
                 outcomes: Sequence[str] | None = None, z: float = Z95,
                 alpha: float = 0.05) -> pl.DataFrame:
    """Which value of a policy parameter is best for each outcome, and by how much.

    df: the games of a sweep; only the games of `policy` (default: the policies for which
    `param` is not always null) are used. NaN, ±inf, null and the value `never` are one
    setting, "never" (never="auto": the value the declaration names, see never_value).
    Victories are maximised; defeat and no result minimised. outcomes: default HEADLINE.
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
        raise ValueError(f"no column {param!r} (parameter columns: {', '.join(param_columns(game, df))})")
    if policy is not None:
        df = df.filter(pl.col("policy") == policy)
    elif "policy" in df.columns:
        owners = df.filter(pl.col(param).is_not_null())["policy"].unique().to_list()
        df = df.filter(pl.col("policy").is_in(owners))
        if len(owners) == 1:
            policy = owners[0]
    if df.height == 0:
        raise ValueError(f"no games for parameter {param!r}")
    never = resolve_never(game, never, policy, param)
    if default is None:
        declared = declared_parameter(game, policy, param)
        default = float(declared.default) if declared is not None else None
    if default is not None and never is not None and math.isclose(default, never):
        default = math.nan
    outcomes = game.result.headline if outcomes is None else outcomes
    minimise = game.result.minimise
    df = game.result.with_outcomes(df).with_columns(
        setting(param, never).alias("_setting"))
    table = rates(game, df, by="_setting", outcomes=outcomes, z=z)
    values = table["_setting"].to_list()
    n = table["n"].to_numpy()
    labels = [fmt_value(v) for v in values]
    ordered = _paired_matrix(df, "_setting", len(values)) if (n == n[0]).all() else None

    rows = []
    for o in outcomes:
        r = table[f"{o}_rate"].to_numpy()
        score = -r if o in minimise else r
        score = np.where(np.isnan(score), -np.inf, score)
        ib = int(np.argmax(score))  # first maximum: the smallest value (never sorts last)
        iw = int(np.argmin(np.where(np.isneginf(score), np.inf, score)))
        sign = -1.0 if o in minimise else 1.0
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
            "outcome": o, "goal": "min" if o in minimise else "max",
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
