"""Pig race's rules (bollesim.game.declaration.RULEBOOK): four whole numbers in one
table, checked against their ranges, and one reading."""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from bollesim.errors import RulesetError
from bollesim.game.declaration import ruleset_digest
from bollesim.game.readings import Reading, Variant, parse_choices
from bollesim.game.readings import ids_hint as _hint

KEYS = {"target": (5, 100), "turns": (1, 10), "busts_to_lose": (1, 10), "bust_faces": (1, 5)}
"""game.KEY: its range."""
DEFAULT = {"name": "pig", "game": {"target": 20, "turns": 6, "busts_to_lose": 3, "bust_faces": 1}}

KEYS_OF_READINGS = ("game.bust_faces",)
READINGS = {"I-BUST": Reading(
    "I-BUST", "which faces lose the turn's points", "the rules say a one", "one",
    (Variant("one-or-two", "a one or a two", {"game.bust_faces": 2}),))}

__all__ = ["READINGS", "apply_readings", "build", "ids_hint", "load_ruleset", "locate",
           "parse_choices", "reading_keys", "set_value"]


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
        """The variant of each reading whose values this ruleset holds, else "custom"."""
        return {rid: next((v.name for v in r.variants() if all(
            self.data["game"][key.partition(".")[2]] == value
            for key, value in variant_values(v).items())), "custom")
            for rid, r in READINGS.items()}


def variant_values(variant: Variant) -> dict[str, object]:
    """The values a variant sets; the default's are the shipped ruleset's."""
    if variant.values is not None:
        return variant.values
    return {key: DEFAULT["game"][key.partition(".")[2]] for key in KEYS_OF_READINGS}


def locate(data: dict, key: str, source: str):
    table, _, name = key.partition(".")
    if table != "game" or name not in KEYS:
        raise RulesetError(source, key, f"unknown key (keys: {', '.join('game.' + k for k in KEYS)})")
    return data.setdefault("game", {}), name, KEYS[name]


def set_value(data: dict, key: str, value, source: str = "--set") -> dict:
    out = copy.deepcopy(data)
    node, name, (low, high) = locate(out, key, source)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise RulesetError(source, key, f"must be a whole number {low}..{high}, got {value!r}")
    node[name] = value
    return out


def build(data: dict, source: str = "ruleset") -> Ruleset:
    for key in (data.get("game") or {}):
        locate(copy.deepcopy(data), f"game.{key}", source)
    values = {}
    for name, (low, high) in KEYS.items():
        value = (data.get("game") or {}).get(name)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise RulesetError(source, f"game.{name}", f"must be a whole number {low}..{high}")
        values[name] = value
    return Ruleset(str(data.get("name", "ruleset")), ruleset_digest(data), data, **values)


def reading_keys(reading: Reading) -> list[str]:
    return list(KEYS_OF_READINGS)


def apply_readings(data: dict, chosen: dict[str, str], source: str = "--reading") -> dict:
    out = data
    for rid, name in chosen.items():
        if rid not in READINGS:
            raise RulesetError(source, rid, "unknown reading; " + ids_hint(rid))
        try:
            variant = READINGS[rid].variant(name)
        except KeyError as exc:
            raise RulesetError(source, rid, exc.args[0]) from None
        for key, value in variant_values(variant).items():
            out = set_value(out, key, value, source)
    return out


def ids_hint(rid: str) -> str:
    return _hint(rid, READINGS)


def load_ruleset(path=None, overrides=None, partial=None, readings=None) -> Ruleset:
    data = copy.deepcopy(DEFAULT)
    for extra in (path, partial):
        if extra is not None:
            try:
                data["game"].update(tomllib.loads(Path(extra).read_text()).get("game", {}))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise RulesetError(str(extra), None, str(exc)) from None
    for assignment in overrides or []:
        key, _, raw = assignment.partition("=")
        data = set_value(data, key.strip(), int(raw) if raw.strip().isdigit() else raw)
    return build(apply_readings(data, readings or {}), str(path or "pig"))
