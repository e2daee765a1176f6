"""The kinds of value a ruleset file holds and the shape of its declaration, for any game.

A game declares its ruleset once, as a tree of `Key`s, `Table`s and `Rows` (bollebank's
in bollesim/bollebank/rules/schema.py); a `Schema` of that tree finds a key by its dotted
path, lists its scalar keys in order and names the first unknown key of some data with
the nearest known one. The reader (game/reader.py) checks values against their kinds.

A ruleset is TOML. Top-level keys are `Key`s, `[table]`s are `Table`s and arrays of
tables (`[[map.positions]]`) are `Rows`; every table and every row may carry a `source`
string (its provenance). A key path names a value everywhere (loader messages, `--set`,
docs): `roe.fire_allowed`, `map.positions[K1].fp`, `chits.groups[3].count`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from bollesim.terminal import shown

# ------------------------------------------------------------------ kinds of value


class Fail(Exception):
    """A value that does not fit its kind; the reader turns it into a RulesetError."""

    def __init__(self, problem: str, where: str = ""):
        super().__init__(problem)
        self.problem, self.where = problem, where  # where: a suffix to the key ("[3]")


def is_whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Int:
    lo: int
    hi: int

    def describe(self) -> str:
        return f"a whole number from {self.lo} to {self.hi}"

    def read(self, value):
        if not is_whole(value) or not self.lo <= value <= self.hi:
            raise Fail(f"must be {self.describe()}, got {shown(value)}")
        return value


@dataclass(frozen=True)
class Flag:
    def describe(self) -> str:
        return "true or false"

    def read(self, value):
        if not isinstance(value, bool):
            raise Fail(f"must be true or false, got {shown(value)}")
        return value


@dataclass(frozen=True)
class Text:
    def describe(self) -> str:
        return "a text"

    def read(self, value):
        if not isinstance(value, str):
            raise Fail(f"must be text in quotes, got {shown(value)}")
        return value


@dataclass(frozen=True)
class Choice:
    """One of a list of names; read as its index (codes.py gives the same indices)."""

    names: tuple[str, ...]
    what: str = "value"
    by_id: bool = False  # described as "a {what} id" rather than by listing every name

    def describe(self) -> str:
        if self.by_id:
            return f"a {self.what} id"
        return "one of " + ", ".join(f'"{n}"' for n in self.names)

    def read(self, value):
        if value not in self.names:
            raise Fail(f"unknown {self.what} {shown(value)} (known: {', '.join(map(str, self.names))})")
        return self.names.index(value)


@dataclass(frozen=True)
class Mask:
    """A list of distinct names; read as a bool mask over the names."""

    names: tuple[str, ...]
    what: str = "name"

    def describe(self) -> str:
        return "a list of " + ", ".join(f'"{n}"' for n in self.names)

    def read(self, value):
        if not isinstance(value, list):
            raise Fail(f"must be a list of {self.what}s ({', '.join(self.names)}), got {shown(value)}")
        mask = [False] * len(self.names)
        for i, item in enumerate(value):
            if item not in self.names:
                raise Fail(f"unknown {self.what} {shown(item)} (known: {', '.join(self.names)})", f"[{i}]")
            mask[self.names.index(item)] = True
        return tuple(mask)


@dataclass(frozen=True)
class ListOf:
    """A list of values of one kind; `length` is fixed, or None (the builder checks it).
    `falling`: values that never rise along the list (a track where more chits never hit
    less often, R-TRACK); a search over the rules keeps it so (search/tune_space.py)."""

    item: object
    length: int | None = None
    shape: str = ""  # the length in words, for docs ("one per ATGM chit")
    falling: bool = False

    def describe(self) -> str:
        size = f"{self.length} " if self.length is not None else ""
        words = f" ({self.shape})" if self.shape else ""
        order = ", never rising along the list" if self.falling else ""
        return f"a list of {size}values{words}, each {self.item.describe()}{order}"

    def read(self, value):
        if not isinstance(value, list):
            raise Fail(f"must be {self.describe()}, got {shown(value)}")
        if self.length is not None and len(value) != self.length:
            words = f" ({self.shape})" if self.shape else ""
            raise Fail(f"must have {self.length} entries{words}, got {len(value)}")
        out = []
        for i, item in enumerate(value):
            try:
                out.append(self.item.read(item))
            except Fail as exc:
                raise Fail(exc.problem, f"[{i}]{exc.where}") from None
        return out


@dataclass(frozen=True)
class Record:
    """An inline table with known keys (e.g. one side of an enemy-action marker)."""

    keys: tuple[Key, ...]

    def describe(self) -> str:
        return "a table { " + ", ".join(k.name for k in self.keys) + " }"

    def read(self, value):
        if not isinstance(value, dict):
            raise Fail(f"must be {self.describe()}, got {shown(value)}")
        for name in value:
            if name not in {k.name for k in self.keys}:
                raise Fail(unknown_message(name, [k.name for k in self.keys]), f".{name}")
        out = {}
        for k in self.keys:
            try:
                out[k.name] = k.kind.read(value.get(k.name, k.default))
            except Fail as exc:
                raise Fail(exc.problem, f".{k.name}{exc.where}") from None
        return out


# ------------------------------------------------------------------ the declaration

REQUIRED = object()  # a Key without default must be given


@dataclass(frozen=True)
class Key:
    name: str
    kind: object
    meaning: str
    default: object = REQUIRED  # the value of an omitted row column
    slot: str = ""  # its name in the packed vector (scalars only): S_<NAME> unless given


@dataclass(frozen=True)
class Rows:
    """An array of tables: one row per item, named in messages by its `label` column."""

    name: str
    meaning: str
    columns: tuple[Key, ...]
    label: str = "id"
    source: str = ""


@dataclass(frozen=True)
class Table:
    name: str
    source: str  # the default provenance of its keys
    entries: tuple[Key | Rows, ...]


SCALAR_KINDS = (Int, Flag, Choice)


# ------------------------------------------------------------------ lookups


def _named(entries) -> dict[str, Key | Table | Rows]:
    return {e.name: e for e in entries}


class Schema:
    """A game's ruleset declaration (a tuple of Key, Table and Rows) and the lookups on it."""

    def __init__(self, declaration: tuple[Key | Table | Rows, ...]):
        self.declaration = declaration
        self.top = _named(declaration)

    def scalar_keys(self) -> list[tuple[str, Key]]:
        """(dotted path, Key) of every scalar key, in declaration order."""
        out = []
        for entry in self.declaration:
            if isinstance(entry, Table):
                out += [
                    (f"{entry.name}.{k.name}", k)
                    for k in entry.entries
                    if isinstance(k, Key) and isinstance(k.kind, SCALAR_KINDS)
                ]
        return out

    def find(self, path: str) -> Key | Table | Rows:
        """The declaration of a dotted path without row selectors (`map.positions.fp`)."""
        return _find(self.top, path)

    def unknown_keys(self, data: dict) -> tuple[str, str] | None:
        """The first key of `data` the declaration does not know, as (key path, message),
        or None. Partial data is fine: only the keys present are looked at."""
        return _unknown(data, self.top, "")


def _find(entries: dict, path: str) -> Key | Table | Rows:
    node: object = None
    for part in path.split("."):
        if part not in entries:
            raise KeyError(path)
        node = entries[part]
        if isinstance(node, Table):
            entries = _named(node.entries)
        elif isinstance(node, Rows):
            entries = _named(node.columns)
        else:
            entries = {}
    return node


def nearest(name: str, known) -> str | None:
    match = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return match[0] if match else None


def unknown_message(name: str, known, prefix: str = "") -> str:
    """`unknown key; did you mean roe.fire_allowed? (known: ...)`, or without a near
    guess `unknown key (known: ...)`."""
    known = [k for k in known if k != "source"]
    guess = nearest(name, known)
    hint = f"; did you mean {prefix}{guess}?" if guess else ""
    return f"unknown key{hint} (known: {', '.join(known)})"


def _unknown(node, entries: dict, prefix: str):
    if not isinstance(node, dict):
        return None
    for name, value in node.items():
        if name == "source":
            continue
        if name not in entries:
            return prefix + name, unknown_message(name, entries, prefix)
        entry = entries[name]
        path = prefix + name
        if isinstance(entry, Table):
            found = _unknown(value, _named(entry.entries), path + ".")
        elif isinstance(entry, Rows):
            found = None
            for i, row in enumerate(value if isinstance(value, list) else []):
                label = row_label(entry, row, i)
                found = found or _unknown(row, _named(entry.columns), f"{path}[{label}].")
        else:
            found = None  # inline tables are checked when read (Record)
        if found:
            return found
    return None


def row_label(rows: Rows, row, index: int) -> str:
    """How a row is named in key paths: its label column, else its index."""
    if rows.label and isinstance(row, dict) and isinstance(row.get(rows.label), str):
        return row[rows.label]
    return str(index)
