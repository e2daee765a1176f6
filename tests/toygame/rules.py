"""Pig race's rules (bollesim.game.declaration.RULEBOOK): its schema, four whole numbers
in one table, one reading and the build; loading, settings and readings are any game's
(bollesim/game/rulebook.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from bollesim.game.declaration import ruleset_digest
from bollesim.game.reader import Reader
from bollesim.game.readings import Reading, Variant
from bollesim.game.rulebook import Rulebook
from bollesim.game.schema import Int, Key, Schema, Table, Text

SCHEMA = Schema((
    Key("name", Text(), "the ruleset's name"),
    Table("game", "the rules of Pig race", (
        Key("target", Int(5, 100), "banked points that win"),
        Key("turns", Int(1, 10), "turns in a game"),
        Key("busts_to_lose", Int(1, 10), "busted turns that lose"),
        Key("bust_faces", Int(1, 5), "the faces up to this lose the turn's points (I-BUST)"),
    )),
))
KEYS = ("target", "turns", "busts_to_lose", "bust_faces")

BUST = Reading("I-BUST", "which faces lose the turn's points", "the rules say a one", "one",
               (Variant("one-or-two", "a one or a two", {"game.bust_faces": 2}),))


@dataclass(frozen=True)
class Ruleset:
    name: str
    digest: str
    data: dict = field(repr=False)
    target: int
    turns: int
    busts_to_lose: int
    bust_faces: int

    @cached_property
    def readings(self) -> dict[str, str]:
        return BOOK.active_variants(self.data)


def build(data: dict, source: str = "ruleset") -> Ruleset:
    r = Reader(data, source, SCHEMA)
    unknown = SCHEMA.unknown_keys(data)
    if unknown:
        r.fail(*unknown)
    values = {name: r.value(f"game.{name}") for name in KEYS}
    return Ruleset(r.value("name"), ruleset_digest(data), data, **values)


BOOK = Rulebook(SCHEMA, Path(__file__).with_name("pig.toml"), (BUST,), build)
load_ruleset, locate, set_value, apply_readings = (
    BOOK.load_ruleset, BOOK.locate, BOOK.set_value, BOOK.apply_readings)
READINGS, reading_keys, ids_hint, parse_choices = (
    BOOK.READINGS, BOOK.reading_keys, BOOK.ids_hint, BOOK.parse_choices)
DEFAULT_PATH = BOOK.default_path
