"""How cells, parameter values, rates and p-values are named in tables and charts: a
parameter's declared `never` value, the swept parameters of a sweep, a cell's label.
The functions that read a game's words (its result columns, its policies' declarations)
take the game (bollesim.game.declaration.Game) first."""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from bollesim.game.declaration import Game

ROW_COLUMNS = frozenset({"game", "seed", "policy", "cell", "ruleset", "ruleset_hash"})
"""The columns of every row that are neither results nor parameters (batch/runner.py)."""


def result_columns(game: Game) -> frozenset[str]:
    """The columns of the game's rows that are not policy parameters: ROW_COLUMNS, its
    result columns and its derived outcomes."""
    return frozenset({*ROW_COLUMNS, *game.result.names, *game.result.outcome_names})


def param_columns(game: Game, df: pl.DataFrame) -> list[str]:
    """The policy-parameter columns of a frame of the game's games (numeric columns that
    are not results, and a choice's pl.Enum of names: columns.typed_params)."""
    results = result_columns(game)
    return [c for c, t in df.schema.items()
            if c not in results and (t.is_numeric() or isinstance(t, pl.Enum))]


def never_as_null(column: str, never: float | None = None) -> pl.Expr:
    """The number column with NaN, ±inf (and the value `never`, if given) turned to null,
    so that "never" is one group. A choice's column (pl.Enum) is compared by its values'
    indices."""
    col = pl.col(column)
    number = col.to_physical().cast(pl.Float64)
    keep = number.is_finite()
    if never is not None:
        keep = keep & (number != never)
    return pl.when(keep).then(col).otherwise(None).alias(column)


def setting(column: str, never: float | None = None) -> pl.Expr:
    """A parameter's value as a Float64 setting (never_as_null: "never" is null), a choice
    by the index of its name: what trigger tables and charts sort and compare."""
    return never_as_null(column, never).to_physical().cast(pl.Float64)


def declared_parameter(game: Game, policy: str | None, param: str):
    """The declaration (bollesim.game.policy.Parameter: `name`, `default`, `low`, `high`, `doc`,
    `label`, `never`) of a parameter of the game's policy, read from the policy's module
    (imported, nothing compiled); None when the policy or the parameter is unknown."""
    if not policy:
        return None
    try:
        module = game.policy_module(policy)
    except Exception:  # noqa: BLE001 - a missing or broken policy just means "not declared"
        return None
    for p in getattr(module, "PARAMETERS", ()):
        if getattr(p, "name", None) == param:
            return p
    return None


def never_value(game: Game, policy: str | None, param: str) -> float | None:
    """The parameter value that means "never", as its declaration says (Parameter.never,
    e.g. 25 for fire_at_roe's k); None when no value means that."""
    p = declared_parameter(game, policy, param)
    never = getattr(p, "never", None) if p is not None else None
    return None if never is None else float(never)


def parameter_label(game: Game, policy: str | None, param: str) -> str:
    """The human name of a parameter (Parameter.label), or its name when not declared."""
    p = declared_parameter(game, policy, param)
    return (getattr(p, "label", "") or param) if p is not None else param


def resolve_never(game: Game, never, policy: str | None, param: str) -> float | None:
    """The value meaning "never": as given, or ("auto") as the parameter declares it."""
    if isinstance(never, str):
        if never != "auto":
            raise ValueError(f"never: 'auto', None or a number, not {never!r}")
        return never_value(game, policy, param)
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


def swept_parameters(game: Game, df: pl.DataFrame) -> dict[str, list[str]]:
    """{policy: [parameters that take more than one value among that policy's games]}.

    A parameter belongs to a policy if it is not null in all of the policy's rows; NaN,
    ±inf and null count as one value ("never").
    """
    params = param_columns(game, df)
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


def cell_labels(game: Game, df: pl.DataFrame) -> pl.DataFrame:
    """One row per cell: `cell`, `policy` and a short `label` ("fire_at_roe k=12").

    The label names the policy and the parameters swept for that policy (those that vary
    between its cells); a policy with one cell is labelled by its name alone. A value that
    means "never" (NaN, or declared so, see never_value) reads "k=25 (never)". A cell that
    changes the ruleset (a `ruleset` column) ends with what it changes:
    "fire_at_roe k=12 I-AIR=ceil".
    """
    params = param_columns(game, df)
    rulesets = ["ruleset"] if "ruleset" in df.columns else []
    cells = (df.group_by("cell").agg(pl.col("policy").first(), *[pl.col(p).first() for p in params],
                                     *[pl.col(r).first() for r in rulesets])
             .sort("cell"))
    swept = swept_parameters(game, cells)  # parameters that differ between a policy's cells
    labels = []
    for row in cells.iter_rows(named=True):
        parts = [row["policy"]]
        for p in swept.get(row["policy"], []):
            value, never = row[p], never_value(game, row["policy"], p)
            text = fmt_value(value)
            if never is not None and isinstance(value, int | float) and math.isclose(value, never):
                text += " (never)"
            parts.append(f"{p}={text}")
        if rulesets and row["ruleset"]:
            parts.append(row["ruleset"])
        labels.append(" ".join(parts))
    return cells.select("cell", "policy").with_columns(pl.Series("label", labels, dtype=pl.Utf8))
