"""A game's rulebook, from its declaration: load a ruleset (the shipped file, a partial
TOML merged over it, `KEY=VALUE` settings, readings), find and set one key, and the
readings' values (declaration.RULEBOOK: what the layers above the engine use).

A game gives its declaration (a game/schema.py Schema), its shipped ruleset file, its
readings and `build(data, source)`, which checks the merged data and returns the game's
Ruleset; `Rulebook` does the rest. A bad file raises RulesetError naming the file, the
key and the problem, so the command line can print one line and exit 2.

A reading's variant is a set of ruleset values (key path -> value). Switching a reading
on writes its values over the ruleset after every other setting; the default variant's
values are those of the shipped file. The variant a ruleset plays is the one whose values
it holds (`active_variants`), so a run's manifest, which records the ruleset data,
records its readings too.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any

from bollesim.errors import RulesetError
from bollesim.game import schema as S
from bollesim.game.reader import locate, read_toml
from bollesim.game.readings import Reading, Variant, parse_choices
from bollesim.game.readings import ids_hint as _hint


def merge(base: dict, override: dict) -> dict:
    """Deep-merge a partial ruleset into a full one (tables merge, values replace)."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


class Rulebook:
    """A game's rules as the layers above its engine use them: the names of
    declaration.RULEBOOK, from the game's schema, shipped file, readings and build."""

    def __init__(self, schema: S.Schema, default_path: Path, readings: tuple[Reading, ...],
                 build: Callable[[dict, str], Any]):
        self.schema, self.default_path, self.readings = schema, default_path, readings
        self.build = build
        self.READINGS = {r.id: r for r in readings}
        self.parse_choices = parse_choices

    @cached_property
    def default_data(self) -> dict:
        """The shipped ruleset's data (do not change it: copy it)."""
        return read_toml(self.default_path)

    def locate(self, data: dict, key: str, source: str, create: bool = True):
        """(the dict holding the key's value, the key's last name, its declaration)."""
        return locate(self.schema, data, key, source, create)

    def apply_setting(self, data: dict, assignment: str, source: str = "--set") -> dict:
        """Apply one `KEY=VALUE` override: `roe.fire_allowed=10`, `tracks.tank_to_hit=8`,
        `map.positions[K2].fp=4` (a row by its id or index), `chits.groups[3].count=2`.

        VALUE is read as a TOML value (numbers, true/false, [lists], "strings"); a bare word
        that is not valid TOML is taken as a string. The key must be declared and the value
        fit its kind, else RulesetError names the key and what is allowed.
        """
        if "=" not in assignment:
            raise RulesetError(source, assignment, "expected KEY=VALUE, e.g. table.key=10")
        from bollesim.inputs import LimitError, loads_toml

        key, raw = (part.strip() for part in assignment.split("=", 1))
        try:
            value = loads_toml(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        except LimitError as exc:
            raise RulesetError(source, key, exc.problem) from None
        return self.set_value(data, key, value, source)

    def set_value(self, data: dict, key: str, value, source: str = "--set") -> dict:
        """A copy of data with one declared key (a path as for apply_setting) set to a value
        (a TOML value: int, float, bool, str, list, table); RulesetError names the key and what
        is allowed if the value does not fit its kind."""
        out = copy.deepcopy(data)
        node, name, decl = self.locate(out, key, source)
        if isinstance(decl, S.Key):
            try:
                decl.kind.read(value)
            except S.Fail as exc:
                raise RulesetError(source, key + exc.where, exc.problem) from None
        node[name] = copy.deepcopy(value)
        return out

    def load_ruleset(
        self,
        path: str | Path | None = None,
        overrides: list[str] | None = None,
        partial: str | Path | None = None,
        readings: dict[str, str] | None = None,
    ):
        """Read a ruleset (default: the shipped one), merge a partial TOML, apply `KEY=VALUE`
        overrides and then readings ({"I-AIR": "ceil"}), validate the result and build it."""
        source = str(path) if path is not None else self.default_path.name
        data = read_toml(Path(path) if path is not None else self.default_path)
        if partial is not None:
            extra = read_toml(Path(partial))
            unknown = self.schema.unknown_keys(extra)
            if unknown:
                raise RulesetError(str(partial), *unknown)
            data = merge(data, extra)
            source = f"{source} + {partial}"
        for assignment in overrides or []:
            data = self.apply_setting(data, assignment)
        if overrides:
            source += " + --set"
        if readings:
            data = self.apply_readings(data, readings)
            source += " + --reading"
        return self.build(data, source)

    # ------------------------------------------------------------------ readings

    def variant_values(self, reading: Reading, variant: Variant) -> dict[str, object]:
        """Every value the reading decides (the union over its variants), as this variant
        sets it: its own values, the default's elsewhere."""
        default = self.default_data
        own = _values(variant, default)
        out = {}
        for path in self.reading_keys(reading):
            out[path] = own[path] if path in own else self.get_path(default, path)
        return out

    def reading_keys(self, reading: Reading) -> list[str]:
        """The key paths a reading's variants set (or, with none, the keys that hold it)."""
        default = self.default_data
        keys = list(reading.keys)
        for v in reading.alternatives:
            keys += [k for k in _values(v, default) if k not in keys]
        return keys

    def get_path(self, data: dict, path: str):
        """A copy of the value at a key path of data (None where absent); data unchanged."""
        node, name, _ = self.locate(data, path, "readings", create=False)
        return copy.deepcopy(node.get(name))

    def apply_readings(self, data: dict, chosen: dict[str, str], source: str = "--reading") -> dict:
        """The data with each chosen reading's variant values written over it."""
        out = copy.deepcopy(data)
        for rid, name in chosen.items():
            if rid not in self.READINGS:
                raise RulesetError(source, rid, "unknown reading; " + self.ids_hint(rid))
            reading = self.READINGS[rid]
            try:
                variant = reading.variant(name)
            except KeyError as exc:
                raise RulesetError(source, rid, exc.args[0].split(": ", 1)[1]) from None
            for path, value in self.variant_values(reading, variant).items():
                node, key, _ = self.locate(out, path, source)
                node[key] = copy.deepcopy(value)
        return out

    def ids_hint(self, rid: str) -> str:
        return _hint(rid, self.READINGS)

    def active_variants(self, data: dict) -> dict[str, str]:
        """The variant each reading's values in `data` match, "custom" for none; readings
        with no alternative are at their default."""
        out = {}
        for reading in self.readings:
            out[reading.id] = reading.default
            if not reading.alternatives:
                continue
            current = {path: self._get_or_none(data, path) for path in self.reading_keys(reading)}
            out[reading.id] = "custom"
            for variant in reading.variants():
                if self.variant_values(reading, variant) == current:
                    out[reading.id] = variant.name
                    break
        return out

    def _get_or_none(self, data: dict, path: str):
        try:
            return self.get_path(data, path)
        except RulesetError:
            return None


def _values(variant: Variant, default: dict) -> dict:
    if variant.values is None:
        return {}
    return variant.values(default) if callable(variant.values) else dict(variant.values)
