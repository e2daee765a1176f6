"""A reading: a value a game's rules do not print, or an interpretation of ambiguous text,
with its default and the plausible alternatives as named variants a user can switch on
(`--reading ID=VARIANT`). A variant is a set of ruleset values (key path -> value)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bollesim.errors import RulesetError

Values = dict[str, object] | Callable[[dict], dict[str, object]]


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    values: Values = None  # key path -> value; a function of the shipped default's data
    gives_up: str = ""  # the printed number it no longer reproduces, if any


@dataclass(frozen=True)
class Reading:
    id: str
    meaning: str  # one line
    text: str  # what the rules say and why the default reads it so (docs)
    default: str  # the default variant's name: the values of the shipped ruleset
    alternatives: tuple[Variant, ...] = ()
    keys: tuple[str, ...] = ()  # keys holding its value when no alternative names them
    fixed: str = ""  # why no alternative is declared

    def variant(self, name: str) -> Variant:
        for v in self.variants():
            if v.name == name:
                return v
        known = ", ".join(v.name for v in self.variants())
        raise KeyError(f"{self.id}: unknown variant {name!r} (variants: {known})")

    def variants(self) -> tuple[Variant, ...]:
        return (Variant(self.default, "the default"), *self.alternatives)


def ids_hint(rid: str, readings: Mapping[str, Reading]) -> str:
    """What to say after an unknown reading id: the nearest known one, then every id."""
    from difflib import get_close_matches

    guess = get_close_matches(rid, list(readings), n=1)
    hint = f"did you mean {guess[0]}? " if guess else ""
    return f"{hint}(readings: {', '.join(readings) or 'none'})"


def parse_choices(items: list[str], source: str = "--reading") -> dict[str, str]:
    """`ID=VARIANT` strings as a dict (the command line's --reading)."""
    out = {}
    for item in items:
        rid, sep, name = (part.strip() for part in item.partition("="))
        if not sep or not rid or not name:
            raise RulesetError(source, item, "expected ID=VARIANT: a reading and one of its variants")
        if rid in out:
            raise RulesetError(source, item, f"{rid} is given twice ({rid}={out[rid]} and "
                               f"{rid}={name}): give it once")
        out[rid] = name
    return out
