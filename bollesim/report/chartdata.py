"""What a chart shows, apart from how it is drawn: a tidy frame and the words around it.

Each function takes the game (its outcomes, labels and policies' declarations) and the
per-game frame of a run or sweep and returns a `RateChart`: a tidy polars frame (one row
per panel, x value and outcome) with a title, the x axis's human name, one sentence of
finding and a note of small print. `bollesim.report.plots` draws it with matplotlib (PNG,
notebooks); `bollesim.report.charts` turns it into an interactive Vega-Lite spec
(report.html). Both draw the same numbers.

    from bollesim.report import chartdata
    c = chartdata.trigger(game, df, "t", policy="fire_at_turn")   # the controlled chart
    c.frame          # panel, x, x_label, outcome, label, n, k, rate, low, high
    c.finding        # "Defeat is least likely at 1 (23.9%) and most likely at 20 (77.5%); ..."

Outcome names, parameter names and "never" values come from the game's result (labels)
and its policies' declared Parameters (label, never), never from code names; a chart
carries the game's result, whose outcomes' colours, markers and dashes draw it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from bollesim.game.declaration import Game
from bollesim.game.result import Result
from bollesim.stats import analysis, naming
from bollesim.stats.intervals import wilson
from bollesim.stats.naming import pct


def drawn(game: Game, outcomes: Sequence[str] | None = None) -> tuple[str, ...]:
    """The outcomes a rate chart draws: `outcomes`, by default the game's wins and loss."""
    return game.result.flags if outcomes is None else tuple(outcomes)


def colours(result: Result) -> dict[str, str]:
    """One colour per outcome of the game's result, the same in every chart (static and
    interactive)."""
    return {o.name: o.colour for o in result.outcomes}


SERIES_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
                  "#000000", "#999999", "#882255", "#44AA99", "#117733")
"""Colours of the bars of a comparison, one per policy or cell, in turn."""

def line_colour(result: Result, outcome: str, i: int) -> str:
    """The colour of a chart's i-th line or bar group: the outcome's own (colours()), else
    the series colours in turn (a chart whose lines are weapons or places)."""
    return colours(result).get(outcome) or SERIES_COLOURS[i % len(SERIES_COLOURS)]


PLAYER_COLOURS = {"better": "#0072B2", "worse": "#D55E00", "no clear change": "#999999"}
"""A paired difference's colour by what it does for the player (Okabe-Ito): more of a
victory or less of a defeat is better; a difference that is not significant, no clear
change."""

PLAYER_NOTE = "blue: better for the player · orange: worse · grey: no clear change"

NEVER_LABEL = "never"

INTERVALS = "bars: 95% Wilson interval"

OBSERVATIONAL = ("Observational: games grouped by when the policy actually fired. Late "
                 "first fires happen only in games that survived that long, so the defeat "
                 "rate there is low by selection, not because firing late is safe.")


@dataclass(frozen=True)
class RateChart:
    """A rate chart's data and words.

    result: the result of the game whose games it shows (its outcomes' colours, markers
    and dashes draw the lines). frame: one row per (panel, x, outcome): `panel` (str: the policy, or "" for one
    panel), `x` (Float64; null for the "never" point), `x_label` (str, as ticked),
    `outcome` (code), `label` (its human name), `n` (games), `k` (games with the
    outcome), `rate`, `low`, `high` (fractions, 95% Wilson interval). Rows are sorted by
    panel, x (never last) and outcome in `outcomes` order.
    kind: "trigger" (controlled: a swept parameter), "observed" (grouped by an outcome
    column such as first_fire_turn) or "comparison" (x is a policy or cell, categorical).
    """

    result: Result
    frame: pl.DataFrame
    title: str
    x_title: str
    outcomes: tuple[str, ...]
    kind: str
    finding: str = ""
    note: str = ""
    dropped: int = 0  # x values left out for having too few games
    outcome_title: str = "outcome"  # what `outcome` stands for: the legend's title

    @property
    def panels(self) -> list[str]:
        return self.frame["panel"].unique(maintain_order=True).to_list()


def _games(n: int) -> str:
    return f"{n:,} game" + ("" if n == 1 else "s")


def _point_digits(low: float, high: float) -> int:
    """Two decimals when an interval (and so the difference inside it) is within a
    point of zero, so a small significant difference does not read "+0.0 (+0.0 to +0.0)"."""
    return 2 if max(abs(low), abs(high)) < 0.01 else 1


def signed_interval(low: float, high: float) -> str:
    """An interval of a difference of rates in signed percentage points: "+0.4 to +2.0"."""
    d = _point_digits(low, high)
    return f"{100 * low:+.{d}f} to {100 * high:+.{d}f}"


def signed_ci(diff: float, low: float, high: float) -> str:
    """A difference of rates with its interval in signed points: "+1.2 (+0.4 to +2.0)"."""
    return f"{100 * diff:+.{_point_digits(low, high)}f} ({signed_interval(low, high)})"


def _tidy(game: Game, df: pl.DataFrame, x: str, outcomes: Sequence[str], never: float | None,
          panel: str) -> pl.DataFrame:
    frame = df.select(naming.setting(x, never).alias("_x"), *game.result.flags)
    long = analysis.rates(game, frame, by="_x", outcomes=outcomes, long=True)
    order = {o: i for i, o in enumerate(outcomes)}
    return (long.rename({"_x": "x"})
            .with_columns(pl.lit(panel).alias("panel"),
                          pl.col("x").map_elements(naming.fmt_value, return_dtype=pl.Utf8,
                                                   skip_nulls=False).alias("x_label"),
                          pl.col("outcome").replace_strict(game.result.labels).alias("label"),
                          pl.col("outcome").replace_strict(order, return_dtype=pl.Int32)
                          .alias("_order"))
            .sort("x", "_order", nulls_last=True)
            .select("panel", "x", "x_label", "outcome", "label", "n", "k", "rate", "low",
                    "high"))


def _owners(df: pl.DataFrame, param: str) -> list[str]:
    return df.filter(pl.col(param).is_not_null())["policy"].unique().sort().to_list()


def trigger(game: Game, df: pl.DataFrame, param: str, *, policy: str | None = None,
            outcomes: Sequence[str] | None = None) -> RateChart:
    """Outcome rates (default: drawn()) against a policy parameter swept over the cells of
    a sweep.

    Controlled: every setting plays the same seeds, so the rates differ only through the
    setting. Only the games of `policy` are used (None: the one policy that has `param`;
    ValueError if several do). The declared `never` value is the "never" point. The
    finding names where defeat is least and most likely, and the victory type that moves
    most. If other parameters of the policy vary too, the note says the rates average
    over them.
    """
    if param not in df.columns:
        raise ValueError(f"no column {param!r} (parameters: {', '.join(naming.param_columns(game, df))})")
    if policy is None:
        owners = _owners(df, param)
        if len(owners) != 1:
            raise ValueError(f"{len(owners)} policies have {param!r} ({', '.join(owners)}): "
                             "give policy=")
        policy = owners[0]
    games = df.filter(pl.col("policy") == policy)
    if games.height == 0:
        raise ValueError(f"no games of policy {policy!r}")
    never, outcomes = naming.never_value(game, policy, param), drawn(game, outcomes)
    frame = _tidy(game, games, param, outcomes, never, policy)
    label = naming.parameter_label(game, policy, param)
    per_setting = frame.group_by("x_label").agg(pl.col("n").first())["n"]
    n_text = (f"{_games(int(per_setting[0]))} per setting" if per_setting.n_unique() == 1
              else f"{_games(int(per_setting.min()))} to {int(per_setting.max()):,} per setting")
    others = [p for p in naming.swept_parameters(game, games).get(policy, []) if p != param]
    note = [f"policy {policy}", n_text, "the same seeds at every setting", INTERVALS]
    if others:
        note.append("averaged over " + ", ".join(naming.parameter_label(game, policy, p)
                                                 for p in others))
    return RateChart(game.result, frame, f"Outcomes by the {label}", label, tuple(outcomes),
                     "trigger", _trigger_finding(game, frame, outcomes), " · ".join(note))


def _trigger_finding(game: Game, frame: pl.DataFrame, outcomes: Sequence[str]) -> str:
    """One sentence: where defeat is least and most likely, and the victory type whose
    rate moves most across the settings, with where it peaks."""
    parts, result = [], game.result
    if result.loss in outcomes:
        d = frame.filter(pl.col("outcome") == result.loss)
        lo, hi = d.sort("rate", maintain_order=True).row(0, named=True), \
            d.sort("rate", descending=True, maintain_order=True).row(0, named=True)
        loss = game.result.labels[result.loss].capitalize()
        parts.append(f"{loss} is least likely at {_at(lo)} ({pct(lo['rate'])}) and most "
                     f"likely at {_at(hi)} ({pct(hi['rate'])})")
    wins = [o for o in outcomes if o in result.wins]
    if wins:
        spread = (frame.filter(pl.col("outcome").is_in(wins)).group_by("outcome")
                  .agg((pl.col("rate").max() - pl.col("rate").min()).alias("spread"))
                  .sort("spread", "outcome", descending=[True, False]))
        top = spread["outcome"][0]
        peak = (frame.filter(pl.col("outcome") == top)
                .sort("rate", descending=True, maintain_order=True).row(0, named=True))
        parts.append(f"{game.result.labels[top]} peaks at {_at(peak)} ({pct(peak['rate'])})")
    if not parts:
        return ""
    sentence = "; ".join(parts)
    return sentence[0].upper() + sentence[1:] + "."


@dataclass(frozen=True)
class XPositions:
    """Where a line chart puts its x values: the finite ones where they are, "never" one
    and a half steps to the right of the last (`never_x`, None without a never point)."""

    finite: list[float]
    never_x: float | None
    step: float


def x_positions(frame: pl.DataFrame, outcomes: Sequence[str]) -> tuple[pl.DataFrame, XPositions]:
    """frame with `pos` (x; never_x for the never rows) and `dodged` (pos, with the never
    rows of each outcome side by side, so no outcome's never point hides another's)."""
    finite = sorted({v for v in frame["x"].to_list() if v is not None})
    step = min(b - a for a, b in zip(finite, finite[1:], strict=False)) if len(finite) > 1 \
        else 1.0
    has_never = frame["x"].null_count() > 0
    never_x = (finite[-1] + 1.5 * step if finite else 0.0) if has_never else None
    slot = {o: (i - (len(outcomes) - 1) / 2) * 0.22 * step for i, o in enumerate(outcomes)}
    pos = pl.col("x").fill_null(never_x if never_x is not None else 0.0)
    frame = frame.with_columns(pos.alias("pos")).with_columns(
        pl.when(pl.col("x").is_null())
        .then(pl.col("pos") + pl.col("outcome").replace_strict(slot, default=0.0,
                                                               return_dtype=pl.Float64))
        .otherwise(pl.col("pos")).alias("dodged"))
    return frame, XPositions(finite, never_x, step)


def _at(row: dict) -> str:
    return f"“{NEVER_LABEL}”" if row["x"] is None else row["x_label"]




def observed(game: Game, df: pl.DataFrame, column: str, *, policy: str | None = None,
             outcomes: Sequence[str] | None = None, min_games: int = 20) -> RateChart:
    """Outcome rates (default: drawn()) against what happened in a game (e.g.
    first_fire_turn), one panel per policy: pooling policies would mix their reasons for
    firing when they did.

    Observational: the note says so on the chart's face, and why the late values hold
    survivors. Values with fewer than `min_games` games are left out (`dropped` counts
    them); null (never fired) is the "never" point.
    """
    policies = [policy] if policy is not None else \
        df["policy"].unique(maintain_order=True).to_list()
    parts, dropped, outcomes = [], 0, drawn(game, outcomes)
    for name in policies:
        frame = _tidy(game, df.filter(pl.col("policy") == name), column, outcomes, None, name)
        small = frame.filter(pl.col("n") < min_games)["x_label"].n_unique()
        dropped += small
        parts.append(frame.filter(pl.col("n") >= min_games))
    frame = pl.concat(parts) if parts else _tidy(game, df.head(0), column, outcomes, None, "")
    name = game.result.title(column)
    note = [OBSERVATIONAL, INTERVALS]
    if dropped:
        note.append(f"{dropped} values with fewer than {min_games} games not drawn")
    return RateChart(game.result, frame, f"Outcomes by the {name}", name, tuple(outcomes),
                     "observed", "", " · ".join(note), dropped)


def comparison(game: Game, df: pl.DataFrame, by: str = "policy", *, outcomes: Sequence[str] | None = None,
               labels: dict | None = None) -> RateChart:
    """Outcome rates (default: drawn()) of each policy (by="policy") or cell (by="cell",
    labelled as analysis.cell_labels) side by side; x is categorical, `x_label` the group's name."""
    outcomes = drawn(game, outcomes)
    table = analysis.rates(game, df, by=by, outcomes=outcomes, long=True)
    if labels is None and by == "cell" and "policy" in df.columns:
        labels = dict(naming.cell_labels(game, df).select("cell", "label").iter_rows())
    keys = table[by].unique(maintain_order=True).to_list()
    names = {k: str((labels or {}).get(k, k)) for k in keys}
    order = {o: i for i, o in enumerate(outcomes)}
    frame = (table.with_columns(
        pl.lit("").alias("panel"),
        pl.col(by).replace_strict({k: float(i) for i, k in enumerate(keys)},
                                  return_dtype=pl.Float64).alias("x"),
        pl.col(by).replace_strict(names, return_dtype=pl.Utf8).alias("x_label"),
        pl.col("outcome").replace_strict(game.result.labels).alias("label"),
        pl.col("outcome").replace_strict(order, return_dtype=pl.Int32).alias("_order"))
        .sort("x", "_order")
        .select("panel", "x", "x_label", "outcome", "label", "n", "k", "rate", "low", "high"))
    kind = "cell" if by == "cell" else by
    plural = {"policy": "policies", "cell": "cells"}.get(kind, kind + "s")
    note = [f"{len(keys)} {plural if len(keys) != 1 else kind}", INTERVALS]
    if by == "cell" or ("game" in df.columns and _same_games(df, by)):
        note.insert(1, "the same seeds in each")
    return RateChart(game.result, frame, f"Outcomes by {kind}", kind, tuple(outcomes),
                     "comparison", "", " · ".join(note))


def _same_games(df: pl.DataFrame, by: str) -> bool:
    sets = df.group_by(by).agg(pl.col("game").sort())["game"].to_list()
    return len(sets) > 1 and all(s == sets[0] for s in sets)


# -- paired differences ---------------------------------------------------------------------

DIFFERENCE_COLUMNS = ("row", "outcome", "diff", "low", "high", "significant", "rate_a",
                      "rate_b", "n")


@dataclass(frozen=True)
class DiffChart:
    """A chart of paired differences: one horizontal bar per row, from 0 to the difference
    of two rates on the same games, with its 95% interval.

    result: the result of the game whose games it compares. frame: one row per bar, top
    to bottom: `row` (what the bar stands for), `shown` (its label on the axis), `meaning`
    (its words, on hover), `outcome` (code), `diff` (rate of the second minus rate of the
    first, a fraction), `low`, `high` (its 95% interval), `significant` (bool),
    `for_player` (a key of PLAYER_COLOURS: the bar's colour), `rate_a`, `rate_b` (the two
    rates) and `n` (games paired).
    """

    result: Result
    frame: pl.DataFrame
    title: str
    x_title: str
    finding: str = ""
    note: str = ""
    kind: str = "difference"


def for_player(game: Game) -> pl.Expr:
    """Whether a significant difference (`diff` of `outcome`) is better or worse for the
    player: PLAYER_COLOURS' keys."""
    gains = (pl.col("diff") > 0) != pl.col("outcome").is_in(list(game.result.minimise))
    return (pl.when(~pl.col("significant")).then(pl.lit("no clear change"))
            .when(gains).then(pl.lit("better")).otherwise(pl.lit("worse")).alias("for_player"))


SHOWN_MEANING = 48
"""Characters of a tornado row's meaning shown on its axis label (all of it on hover)."""


def compared(game: Game, table: pl.DataFrame, a: str, b: str) -> DiffChart:
    """The chart of a comparison (bollesim.stats.compare.differences): one bar per outcome, the
    rate of B minus the rate of A on the same games."""
    frame = table.select(
        pl.col("outcome").replace_strict(game.result.labels).alias("row"), "outcome", "diff",
        pl.col("diff_low").alias("low"), pl.col("diff_high").alias("high"), "significant",
        "rate_a", "rate_b", "n").with_columns(
        pl.col("row").alias("shown"), pl.col("row").alias("meaning"), for_player(game))
    n = int(table["n"][0]) if table.height else 0
    return DiffChart(game.result, frame, f"{b} against {a}", f"difference in percentage points ({b} − {a})",
                     "", f"{_games(n)} paired on the same seeds · bars: 95% interval "
                     f"(Newcombe) · {PLAYER_NOTE} (exact McNemar, p < 0.05)")


def tornado(game: Game, effects: pl.DataFrame, outcome: str,
            meanings: dict[str, str] | None = None) -> DiffChart:
    """One outcome's tornado chart of a sensitivity run (bollesim.stats.sensitivity.effects):
    one bar per alternative reading, the largest move at the top, labelled with its
    meaning (`meanings`: alternative -> words), coloured by what it does for the player."""
    meanings = meanings or {}
    rows = (effects.filter(pl.col("outcome") == outcome)
            .with_columns(pl.col("diff").abs().alias("_size"))
            .sort("_size", "alternative", descending=[True, False]))
    meaning = [meanings.get(a, a) for a in rows["alternative"].to_list()]
    shown = [f"{a}: {textwrap.shorten(m, SHOWN_MEANING, placeholder='…')}" if a in meanings else a
             for a, m in zip(rows["alternative"].to_list(), meaning, strict=True)]
    frame = rows.select(pl.col("alternative").alias("row"), "outcome", "diff", "low", "high",
                        "significant", pl.col("rate_default").alias("rate_a"),
                        pl.col("rate_alternative").alias("rate_b"), "n").with_columns(
        pl.Series("shown", shown, dtype=pl.Utf8), pl.Series("meaning", meaning, dtype=pl.Utf8),
        for_player(game))
    label = game.result.labels[outcome]
    finding = ""
    if frame.height:
        top = frame.row(0, named=True)
        finding = (f"{top['row']} moves the {label} rate most: {pct(top['rate_a'])} → "
                   f"{pct(top['rate_b'])} ({100 * top['diff']:+.1f} points).")
    return DiffChart(game.result, frame,
                     f"How far each alternative reading moves the {label} rate",
                     "change in percentage points (alternative − as specified)", finding,
                     "every cell of the experiment, the same seeds under every reading · "
                     f"bars: 95% interval · {PLAYER_NOTE}")


# -- why games are lost ---------------------------------------------------------------------

def loss_name(game: Game, factor: str) -> str:
    """What a loss column (one of the loss factors) says, for chart titles."""
    return game.result.title(factor)


def cause(game: Game) -> str:
    """The loss column of what did it (the first loss factor, as the declaration orders them)."""
    factors = game.result.loss_factors
    return factors[0] if factors else ""


def no_loss(game: Game) -> str:
    """The name of a defeat that no loss ended (the game's result declaration)."""
    return game.result.no_loss


def defeats_by(game: Game, df: pl.DataFrame, factor: str) -> RateChart:
    """Bars: the share of all games lost by each value of a loss column (`factor`, one of
    the loss factors), most first, with 95% intervals (analysis.defeat_breakdown); a comparison
    chart whose groups are the values, one bar of all games each."""
    table = analysis.defeat_breakdown(game, df, factor)
    none = no_loss(game)
    names = [none if v is None else str(v) for v in table[factor].to_list()]
    frame = table.select(
        pl.lit("").alias("panel"), pl.lit(0.0).alias("x"), pl.lit("all games").alias("x_label"),
        pl.Series("outcome", names, dtype=pl.Utf8), pl.Series("label", names, dtype=pl.Utf8),
        pl.col("games").alias("n"), "k", "rate", "low", "high")
    name = loss_name(game, factor)
    finding = ""
    if table.height:
        top = table.row(0, named=True)
        finding = (f"{names[0]} ends the most defeats: {pct(top['share'])} of "
                   f"{top['defeats']:,}, {pct(top['rate'])} of all games.")
    note = [f"defeats by {name}", f"share of all {_games(df.height)}", INTERVALS]
    return RateChart(game.result, frame, f"Defeats by {name}", "games", tuple(names),
                     "comparison", finding, " · ".join(note), outcome_title=name)


def defeats_by_turn(game: Game, df: pl.DataFrame) -> RateChart:
    """Lines: the share of all games lost on each turn, one line per cause that ended
    them (analysis.defeat_breakdown by cause() and the end turn), zero where none was."""
    result, cause_col = game.result, cause(game)
    table = analysis.defeat_breakdown(game, df, [cause_col, result.end_turn])
    causes = (table.group_by(cause_col).agg(pl.col("k").sum())
              .sort("k", cause_col, descending=[True, False], nulls_last=True))
    none = no_loss(game)
    names = [none if c is None else c for c in causes[cause_col].to_list()]
    turns = list(range(1, int(table[result.end_turn].max() or 0) + 1))
    grid = pl.DataFrame({cause_col: causes[cause_col].to_list()}, schema={cause_col: pl.Utf8}).join(
        pl.DataFrame({result.end_turn: turns}, schema={result.end_turn: table.schema[result.end_turn]}),
        how="cross")
    filled = grid.join(table.select(cause_col, result.end_turn, "k"), on=[cause_col, result.end_turn],
                       how="left", nulls_equal=True).with_columns(pl.col("k").fill_null(0))
    low, high = wilson(filled["k"].to_numpy(), df.height)
    name_of = dict(zip(causes[cause_col].to_list(), names, strict=True))
    frame = filled.select(
        pl.lit("").alias("panel"), pl.col(result.end_turn).cast(pl.Float64).alias("x"),
        pl.col(result.end_turn).cast(pl.Utf8).alias("x_label"),
        pl.col(cause_col).replace_strict(name_of, return_dtype=pl.Utf8).alias("outcome"),
        pl.col(cause_col).replace_strict(name_of, return_dtype=pl.Utf8).alias("label"),
        pl.lit(df.height, dtype=pl.Int64).alias("n"), pl.col("k").cast(pl.Int64),
        (pl.col("k") / df.height).alias("rate"), pl.Series("low", low, dtype=pl.Float64),
        pl.Series("high", high, dtype=pl.Float64))
    frame = frame.with_columns(pl.col("outcome").replace_strict(
        {n: i for i, n in enumerate(names)}, return_dtype=pl.Int32).alias("_order")) \
        .sort("x", "_order").drop("_order")
    finding = ""
    if table.height:
        peak = (table.group_by(result.end_turn).agg(pl.col("k").sum())
                .sort("k", result.end_turn, descending=[True, False]).row(0, named=True))
        finding = (f"Most defeats come on {result.turn} {peak[result.end_turn]} ({pct(peak['k'] / df.height)} "
                   f"of all games); {names[0]} ends most of them overall.")
    note = ["one line per weapon that ended the game", f"share of all {_games(df.height)}",
            INTERVALS]
    return RateChart(result, frame, f"Defeats by {result.turn} and the weapon that did it",
                     result.turn, tuple(names), "trigger", finding, " · ".join(note),
                     outcome_title=loss_name(game, cause_col))


def turns_by_outcome(game: Game, df: pl.DataFrame, column: str | None = None,
                     outcomes: Sequence[str] | None = None) -> RateChart:
    """Lines: for each outcome (default: the SUMMARY ones), the share of its games that
    ended (the end-turn column, the default) or suffered their first loss
    (RESULT.first_loss) on each turn (analysis.turns_by_outcome), zero where none did; a
    game with no loss is the "never" point."""
    result = game.result
    column = result.end_turn if column is None else column
    outcomes = result.summary if outcomes is None else outcomes
    table = analysis.turns_by_outcome(game, df, column, outcomes=outcomes)
    present = [o for o in outcomes if o in set(table["outcome"].to_list())]
    last = int(table["turn"].max() or 0)
    turns = [*range(1, last + 1), *([None] if table["turn"].null_count() else [])]
    grid = pl.DataFrame({"outcome": present}).join(
        pl.DataFrame({"turn": turns}, schema={"turn": pl.Int64}), how="cross")
    totals = table.group_by("outcome").agg(pl.col("n").first())
    filled = (grid.join(table.select("outcome", "turn", "k"), on=["outcome", "turn"], how="left",
                        nulls_equal=True)
              .join(totals, on="outcome").with_columns(pl.col("k").fill_null(0)))
    low, high = wilson(filled["k"].to_numpy(), filled["n"].to_numpy())
    order = {o: i for i, o in enumerate(present)}
    frame = (filled.select(
        pl.lit("").alias("panel"), pl.col("turn").cast(pl.Float64).alias("x"),
        pl.col("turn").map_elements(naming.fmt_value, return_dtype=pl.Utf8,
                                    skip_nulls=False).alias("x_label"),
        "outcome", pl.col("outcome").replace_strict(game.result.labels).alias("label"),
        pl.col("n").cast(pl.Int64), pl.col("k").cast(pl.Int64),
        (pl.col("k") / pl.col("n")).alias("rate"), pl.Series("low", low, dtype=pl.Float64),
        pl.Series("high", high, dtype=pl.Float64))
        .with_columns(pl.col("outcome").replace_strict(order, return_dtype=pl.Int32).alias("_o"))
        .sort("x", "_o", nulls_last=True).drop("_o"))
    name = result.title(column)
    medians = (df.pipe(game.result.with_outcomes)
               .select(*[pl.col(column).filter(pl.col(o).fill_null(False)).median().alias(o)
                         for o in present]).row(0, named=True))
    finding = "; ".join(f"{game.result.labels[o]} {naming.fmt_value(medians[o])}"
                        for o in present if medians[o] is not None)
    finding = f"Median {name}: {finding}." if finding else ""
    note = [f"each line: the share of that outcome's games at each {result.turn}", INTERVALS]
    if column == result.first_loss:
        note.insert(1, f"“{NEVER_LABEL}”: {result.never_lost}")
    return RateChart(result, frame, f"The {name}, by outcome", result.turn, tuple(present),
                     "trigger", finding, " · ".join(note))
