"""A tunable parameter of a policy: name, default, range, meaning, and, for a categorical
parameter, the names of its values (the TAG way: a parameter's default and search range
are declared together, and the CLI, experiment specs and the search read that one
declaration)."""

from __future__ import annotations

from dataclasses import dataclass

from bollesim.terminal import shown


@dataclass(frozen=True)
class Parameter:
    """A tunable policy parameter: its default, its range and one line of meaning.

    label: a short human name for charts and tables ("RoE of the first Fire order");
    empty means the name. never: the value that means "never" (e.g. a trigger that never
    fires), shown as "never" in charts and reports; None when no value means that.
    setting: what a value means in the game, "{}" standing for the value ("give the first
    Fire order from turn {} on"): the words of the answer of a sweep over it.
    choices: for a categorical parameter, the name of each value: the value is an index
    0 .. len(choices) - 1 (low 0, high len(choices) - 1); None for a number.
    lowest: what the lowest value means in the game, said beside it in a sweep's answer
    ("as soon as the rules allow"); empty: nothing to add.
    """

    name: str
    default: float
    low: float
    high: float
    doc: str
    label: str = ""
    never: float | None = None
    setting: str = ""
    choices: tuple[str, ...] | None = None
    lowest: str = ""

    def __post_init__(self):
        if self.choices is not None and (self.low, self.high) != (0, len(self.choices) - 1):
            raise ValueError(
                f"parameter {self.name!r}: a choice of {len(self.choices)} takes the values"
                f" 0..{len(self.choices) - 1}, not {self.low:g}..{self.high:g}"
            )

    @property
    def whole(self) -> bool:
        """Whether the parameter takes whole numbers: its default and range are whole (a
        choice's are: the index of a value)."""
        return all(float(v).is_integer() for v in (self.default, self.low, self.high))

    @property
    def dtype(self):
        """The polars type of the parameter's column in a table of games handed to people:
        pl.Enum of the names of a choice's values, pl.Int64 for a whole number, pl.Float64
        for a real one. (The engines and games.parquet keep every parameter as float64;
        columns.typed_params gives a frame these types.)"""
        import polars as pl

        if self.choices is not None:
            return pl.Enum(self.choices)
        return pl.Int64 if self.whole else pl.Float64

    @property
    def title(self) -> str:
        """The label, or the name when there is none."""
        return self.label or self.name

    def choice(self, value: float | str) -> str:
        """The name of a categorical parameter's value (its index in choices, or the name
        itself, as a pl.Enum column holds it: Parameter.dtype)."""
        return value if isinstance(value, str) else self.choices[int(value)]

    def value(self, given: float | str) -> float:
        """A value as given: a number, or for a categorical parameter also the name of a
        choice, in any case ("atgm" for "ATGM"). ValueError says why not."""
        if isinstance(given, str):
            names = [c.casefold() for c in self.choices or ()]
            if given.strip().casefold() in names:
                return float(names.index(given.strip().casefold()))
            try:
                return float(given)
            except ValueError:
                allowed = "a number" if self.choices is None else "one of " + ", ".join(self.choices)
                raise ValueError(f"{self.name} = {shown(given)} is not {allowed}") from None
        return float(given)

    def text(self, value: float | str) -> str:
        """A value for people: a choice by its name, a whole number without ".0"."""
        if self.choices is not None:
            return self.choice(value)
        return f"{value:g}"
