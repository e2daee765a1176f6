"""What a game produces: its result columns and its outcomes, declared once (as the
ruleset is declared in its schema). The engine's result slots, the Parquet schema, the
run-folder checks, the statistics, the charts, the reports and the searches' objectives
all read a `Result`; none of them names a game's columns.

A game's result row is a fixed list of integer slots (`Column`s, in the engine's order):
flags, counts, turns and coded texts. Its outcomes are the flags a player wins or loses
by, plus two derived from them: every win in the same game (`all_wins`) and neither a
win nor a loss (`no_result`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

DTYPES = {"bool": pl.Boolean, "int16": pl.Int16, "int32": pl.Int32, "text": pl.Utf8}
"""The kinds of a result column and their polars types (a text column is coded: the
engine writes an index into the column's `texts`)."""


@dataclass(frozen=True)
class Column:
    """One result column: its name, kind (a key of DTYPES) and meaning.

    label: its plain name on a chart's axis or in a table (empty: the name).
    null_when_zero: the engine writes 0 for "did not happen" (a turn that never came),
    read as null. texts: a text column's values, indexed by the engine's code (code - 1
    when null_when_zero: 0 is null).
    """

    name: str
    kind: str
    meaning: str
    label: str = ""
    null_when_zero: bool = False
    texts: tuple[str, ...] = ()

    def __post_init__(self):
        if self.kind not in DTYPES:
            raise ValueError(f"column {self.name!r}: kind {self.kind!r} is not one of {sorted(DTYPES)}")
        if (self.kind == "text") != bool(self.texts):
            raise ValueError(f"column {self.name!r}: a text column, and only one, has texts")

    @property
    def dtype(self) -> pl.DataType:
        return DTYPES[self.kind]

    @property
    def title(self) -> str:
        return self.label or self.name


@dataclass(frozen=True)
class Outcome:
    """An outcome a rate is reported for: a flag column or a derived one.

    label: its plain name in charts, tables and sentences. better: "high" when a player
    wants more of it, "low" when less. colour, marker, shape and dash draw it the same in
    every chart: a hex colour, a matplotlib marker, a Vega-Lite point shape, a matplotlib
    dash pattern (None: solid).
    """

    name: str
    label: str
    better: str
    colour: str
    marker: str
    shape: str
    dash: tuple | None = None

    def __post_init__(self):
        if self.better not in ("high", "low"):
            raise ValueError(f"outcome {self.name!r}: better is 'high' or 'low', not {self.better!r}")


@dataclass(frozen=True)
class Result:
    """A game's result declaration.

    columns: the result row in the engine's slot order. outcomes: every outcome in the
    order tables show them. wins: the flag columns a player wins by; loss: the one flag
    of a lost game; all_wins, no_result: the names of the two derived outcomes; main: the
    win of the game's main mission (the one a bracket or a headline is about).
    end_reason: the coded text column saying how a game ended; end_turn: the column of
    the turn it ended on; loss_reasons: the values of end_reason that are losses.
    trigger: the result column the game's headline question is about (when the player
    first acted), or "" for none; acted: what a game with a trigger value did, in words.
    distributions: the measures whose distributions reports show, result columns or
    totals. totals: measures summed from result columns, (name, label, (column, ...)).
    loss_factors: the columns that say how a lost game was lost, (what did it, to whom,
    where, when), or () for a game whose result does not say; loss_text: what a loss is,
    in the game's words (reports); no_loss: the value of a loss factor for a defeat that no
    loss ended; first_loss: the column of the turn of a game's first loss ("" for none),
    and never_lost: what a game without one is, in words. draws: the column counting a
    game's random numbers drawn ("" for a game that does not count them; `bench` then has
    no RNG floor). turn: what the game calls one step of its clock, in reports' words
    ("turn", "bound").
    """

    columns: tuple[Column, ...]
    outcomes: tuple[Outcome, ...]
    wins: tuple[str, ...]
    loss: str
    all_wins: str
    no_result: str
    end_reason: str
    end_turn: str
    main: str
    loss_reasons: tuple[str, ...]
    trigger: str = ""
    acted: str = ""
    distributions: tuple[str, ...] = ()
    loss_factors: tuple[str, ...] = ()
    loss_text: str = ""
    no_loss: str = "no loss"
    first_loss: str = ""
    never_lost: str = ""
    totals: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    draws: str = ""
    turn: str = "turn"

    def __post_init__(self):
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            raise ValueError("a result column is declared twice")
        flags = {c.name for c in self.columns if c.kind == "bool"}
        missing = [n for n in (*self.wins, self.loss, self.main) if n not in flags]
        if missing:
            raise ValueError(f"outcome flag {missing[0]!r} is not a bool result column")
        declared = {o.name for o in self.outcomes}
        if declared != {*self.wins, self.loss, self.all_wins, self.no_result}:
            raise ValueError("the outcomes are the wins, the loss, all_wins and no_result, each once")
        if self.loss_factors and len(self.loss_factors) != 4:
            raise ValueError("loss_factors are (what did it, to whom, where, when), or none")
        reasons = self.column(self.end_reason).texts
        if not set(self.loss_reasons) <= set(reasons):
            raise ValueError("a loss reason is not one of the end reasons")

    # --- columns -------------------------------------------------------------------------

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    def slot(self, name: str) -> int:
        """The column's index in the engine's result row."""
        return [c.name for c in self.columns].index(name)

    def title(self, name: str) -> str:
        """A column's, a total's or an outcome's plain name."""
        for total, label, _ in self.totals:
            if total == name:
                return label
        if name in self.outcome_names:
            return self.outcome(name).label
        return self.column(name).title

    def with_totals(self, df: pl.DataFrame, names: Sequence[str]) -> pl.DataFrame:
        """df with the totals among names (those missing)."""
        extra = [pl.sum_horizontal(*parts).alias(total) for total, _, parts in self.totals
                 if total in names and total not in df.columns]
        return df.with_columns(extra) if extra else df

    def ints(self, row: dict) -> list[int]:
        """A result row {column: value} (None for "never", a text for a text column) as
        the integer slots the engine writes."""
        def code(c: Column):
            value = row[c.name]
            if value is None:
                return 0
            if c.texts:
                return c.texts.index(value) + c.null_when_zero
            return int(value)
        return [code(c) for c in self.columns]

    def row(self, values: Sequence[int]) -> dict:
        """The result row {column: value} of the integer slots the engine writes (the
        inverse of ints: None for "never", a text for a text column, a bool for a flag)."""
        def value(c: Column, code: int):
            if c.null_when_zero and code == 0:
                return None
            if c.texts:
                return c.texts[code - c.null_when_zero]
            return bool(code) if c.kind == "bool" else code
        return {c.name: value(c, int(v)) for c, v in zip(self.columns, values, strict=True)}

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @property
    def nullable(self) -> tuple[str, ...]:
        """The columns whose null means "never happened"."""
        return tuple(c.name for c in self.columns if c.null_when_zero)

    @property
    def flags(self) -> tuple[str, ...]:
        """The outcome flags the engine writes: the wins, then the loss."""
        return (*self.wins, self.loss)

    # --- outcomes ------------------------------------------------------------------------

    def outcome(self, name: str) -> Outcome:
        for o in self.outcomes:
            if o.name == name:
                return o
        raise KeyError(name)

    @property
    def outcome_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.outcomes)

    @property
    def headline(self) -> tuple[str, ...]:
        """The outcomes charts draw and searches rank: all but no_result."""
        return tuple(o for o in self.outcome_names if o != self.no_result)

    @property
    def summary(self) -> tuple[str, ...]:
        """The outcomes of a one-line summary: the flags and no_result."""
        return (*self.flags, self.no_result)

    @property
    def labels(self) -> dict[str, str]:
        return {o.name: o.label for o in self.outcomes}

    @property
    def minimise(self) -> frozenset[str]:
        """The outcomes a player wants less of."""
        return frozenset(o.name for o in self.outcomes if o.better == "low")

    def derived(self) -> dict[str, pl.Expr]:
        """The derived outcomes as polars expressions over result rows."""
        wins = [pl.col(w).fill_null(False) for w in self.wins]
        return {self.all_wins: pl.all_horizontal(*wins),
                self.no_result: ~pl.any_horizontal(*wins) & ~pl.col(self.loss).fill_null(False)}

    def with_outcomes(self, df: pl.DataFrame) -> pl.DataFrame:
        """df with the derived outcome columns (those missing)."""
        extra = [e.alias(n) for n, e in self.derived().items() if n not in df.columns]
        return df.with_columns(extra) if extra else df

    def known(self, outcomes: Sequence[str]) -> list[str]:
        """outcomes, checked: a ValueError names the first unknown one."""
        unknown = [o for o in outcomes if o not in self.outcome_names]
        if unknown:
            raise ValueError(f"unknown outcome {unknown[0]!r} (known: {', '.join(self.outcome_names)})")
        return list(outcomes)


@dataclass(frozen=True)
class Objective:
    """What a game is worth to a player: a weighted sum of outcomes, {outcome: weight}.
    A search maximises its mean over games, a lookahead player its mean over rollouts.
    A rate is the objective of one outcome, weight 1."""

    label: str
    weights: dict[str, float]

    @property
    def is_rate(self) -> bool:
        return len(self.weights) == 1 and next(iter(self.weights.values())) == 1.0

    @property
    def weights_text(self) -> str:
        """The weights in words: "operational +1, defeat -1"."""
        return ", ".join(f"{name} {w:+g}" for name, w in self.weights.items() if w)

    def over(self, names: Sequence[str]) -> np.ndarray:
        """The weights as a vector over the outcome columns `names` (0 for the others);
        every weighted outcome must be one of them."""
        unknown = set(self.weights) - set(names)
        if unknown:
            raise ValueError(f"objective {self.label!r}: {sorted(unknown)[0]} is not one of {', '.join(names)}")
        return np.array([float(self.weights.get(n, 0.0)) for n in names])

    def score(self, games: pl.DataFrame, result: Result) -> np.ndarray:
        """Each game's score (float64), from its outcome columns (derived ones included)."""
        games = result.with_outcomes(games)
        out = np.zeros(games.height)
        for column, weight in self.weights.items():
            out += weight * games[column].fill_null(False).cast(pl.Float64).to_numpy()
        return out

    def describe(self) -> dict:
        return {"label": self.label, "weights": dict(self.weights)}
