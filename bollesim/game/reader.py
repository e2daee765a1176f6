"""Ruleset data as read, for any game: a TOML file read, typed access through the game's
declaration (a game/schema.py Schema) and a dotted key found in the data.

Every value a table builder reads goes through a Reader, which checks it against its
declared kind and raises a one-line RulesetError naming the file, the key and what is
allowed.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from bollesim.errors import RulesetError
from bollesim.game import schema as S
from bollesim.terminal import shown


class Reader:
    """Reads keys of merged ruleset data declared in `schema`; `source` names the data
    in errors."""

    def __init__(self, data: dict, source: str, schema: S.Schema):
        self.data, self.source, self.schema = data, source, schema

    def fail(self, key: str, problem: str):
        raise RulesetError(self.source, key, problem)

    def raw(self, path: str):
        """The value at a dotted path as written, or S.REQUIRED when absent."""
        node = self.data
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                return S.REQUIRED
            node = node[part]
        return node

    def value(self, path: str):
        """The value of a declared key, read by its kind (a Choice gives its index)."""
        key = self.schema.find(path)
        value = self.raw(path)
        if value is S.REQUIRED:
            self.fail(path, f"missing: expected {key.kind.describe()}")
        return self.read(path, key.kind, value)

    def read(self, path: str, kind, value):
        try:
            return kind.read(value)
        except S.Fail as exc:
            self.fail(path + exc.where, exc.problem)

    def rows(self, path: str) -> list[dict]:
        """The rows of an array of tables, each a dict of its columns read by their kinds
        (omitted columns take their default), plus `_key`, the row's key path for
        messages (`map.positions[K1]`), and `_raw`, the row as written."""
        rows_decl = self.schema.find(path)
        value = self.raw(path)
        if value is S.REQUIRED:
            self.fail(path, "missing: expected one or more tables")
        if not isinstance(value, list):
            self.fail(path, f"must be a list of tables, got {shown(value)}")
        out = []
        for i, row in enumerate(value):
            where = f"{path}[{S.row_label(rows_decl, row, i)}]"
            if not isinstance(row, dict):
                self.fail(where, f"must be a table {{ ... }}, got {shown(row)}")
            parsed = {}
            for col in rows_decl.columns:
                given = row.get(col.name, col.default)
                if given is S.REQUIRED:
                    self.fail(f"{where}.{col.name}", f"missing: expected {col.kind.describe()}")
                parsed[col.name] = self.read(f"{where}.{col.name}", col.kind, given)
            parsed["_key"] = where
            parsed["_raw"] = row
            out.append(parsed)
        return out

    def list_length(self, path: str, values: list, length: int, what: str) -> None:
        if len(values) != length:
            self.fail(path, f"needs one value per {what} ({length}), got {len(values)}")


def read_toml(path: Path) -> dict:
    """The TOML of a ruleset or partial: a regular UTF-8 file of at most inputs.TOML_LIMIT."""
    from bollesim.inputs import TOML_LIMIT, InputError, LimitError, loads_toml, read_text

    try:
        text = read_text(path, TOML_LIMIT)
    except InputError as exc:
        raise RulesetError(str(path), None, exc.problem) from None
    try:
        return loads_toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(str(path), None, f"not valid TOML: {exc}") from None
    except LimitError as exc:
        raise RulesetError(str(path), None, str(exc)) from None


_PART = re.compile(r"([A-Za-z0-9_]+)(?:\[([^\]]+)\])?")


def locate(schema: S.Schema, data: dict, key: str, source: str, create: bool = True):
    """(the dict holding the key's value, the key's last name, its declaration); tables
    on the way are created in `data` if absent (without `create`: read as empty, and
    `data` is left as it is)."""

    def fail(where: str, problem: str):
        raise RulesetError(source, where, problem)

    parts = key.split(".")
    entries, node, done = schema.top, data, ""
    for i, part in enumerate(parts):
        m = _PART.fullmatch(part)
        if not m:
            fail(key, "expected a dotted key such as table.key or table.rows[ID].column")
        name, selector = m.groups()
        where = done + name
        if name not in entries:
            fail(where, S.unknown_message(name, entries, done))
        decl = entries[name]
        last = i == len(parts) - 1
        if isinstance(decl, S.Table):
            if last:
                fail(where, f"is a table: set one of its keys ({', '.join(_names(decl.entries))})")
            node = node.setdefault(name, {}) if create else node.get(name, {})
            if not isinstance(node, dict):
                fail(where, "must be a table")
            entries = {e.name: e for e in decl.entries}
        elif isinstance(decl, S.Rows) and selector is not None:
            rows = node.get(name)
            if not isinstance(rows, list):
                fail(where, "no rows to select from")
            labels = [S.row_label(decl, row, j) for j, row in enumerate(rows)]
            if selector not in labels:
                fail(f"{where}[{selector}]", f"no such row (rows: {', '.join(labels)})")
            node = rows[labels.index(selector)]
            if last:
                fail(f"{where}[{selector}]", f"is a row: set one of its columns "
                     f"({', '.join(_names(decl.columns))})")
            entries = {c.name: c for c in decl.columns}
        elif last and selector is None:
            return node, name, decl
        else:
            fail(where, "has no parts to select")
        done = f"{where}[{selector}]." if selector is not None else where + "."
    raise AssertionError("unreachable")


def _names(entries) -> list[str]:
    return [e.name for e in entries]
