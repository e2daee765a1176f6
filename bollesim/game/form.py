"""The what-if page's form of any game's rules, generated from its declaration (a
schema.Schema) and its readings (a rulebook.Rulebook): a new key or reading appears on
the page with no page change (Game.form: bollebank's in bollebank/rules/form.py).

`form_model()` is one JSON-ready dict the page draws from:

- `entries`: the declaration, entry by entry. A table is `{"type": "table", "name",
  "source", "entries"}`, an array of tables `{"type": "rows", "path", "label", "columns",
  "source", "meaning"}`, a key `{"type": "key", "path", "kind", "meaning", "allowed"}`;
  a kind is `{"type": "int", "min", "max"}`, `flag`, `text`, `{"type": "choice",
  "options"}`, `{"type": "mask", "options"}`, `{"type": "list", "item", "length",
  "shape", "falling"}` (falling: its values never rise along it) or `{"type": "record",
  "keys"}`.
- `values`: the shipped default ruleset as data (its `source` strings are the provenance
  shown on hover).
- `units`: the key paths an edit may name (every key of a table, every array of tables
  as a whole): the page sends `{unit: value}` for the units that differ from `values`.
- `readings`: every reading with its variants and the values each sets (a switch writes
  them into the form; the server says which variant the edited values play).
- `axes`: row and column labels a grid takes from another key (the Order Matrix's chit
  types).
"""

from __future__ import annotations

import copy

from bollesim.game import schema as S
from bollesim.game.rulebook import Rulebook
from bollesim.game.schema import REQUIRED


def kind_json(kind) -> dict:
    """A declared kind (schema.Int, Flag, ...) as the page's widget description."""
    if isinstance(kind, S.Int):
        return {"type": "int", "min": kind.lo, "max": kind.hi}
    if isinstance(kind, S.Flag):
        return {"type": "flag"}
    if isinstance(kind, S.Text):
        return {"type": "text"}
    if isinstance(kind, S.Choice):
        return {"type": "choice", "options": list(kind.names)}
    if isinstance(kind, S.Mask):
        return {"type": "mask", "options": list(kind.names)}
    if isinstance(kind, S.ListOf):
        return {"type": "list", "item": kind_json(kind.item), "length": kind.length,
                "shape": kind.shape, "falling": kind.falling}
    if isinstance(kind, S.Record):
        return {"type": "record", "keys": [key_json(k, k.name) for k in kind.keys]}
    raise TypeError(f"no widget for the kind {kind!r}")


def key_json(key: S.Key, path: str) -> dict:
    out = {"type": "key", "name": key.name, "path": path, "kind": kind_json(key.kind),
           "meaning": key.meaning, "allowed": key.kind.describe()}
    if key.default is not REQUIRED:
        out["default"] = key.default
    return out


def entry_json(entry, prefix: str = "", source: str = "") -> dict:
    path = prefix + entry.name
    if isinstance(entry, S.Table):
        return {"type": "table", "name": entry.name, "path": path, "source": entry.source,
                "entries": [entry_json(e, path + ".", entry.source) for e in entry.entries]}
    if isinstance(entry, S.Rows):
        return {"type": "rows", "name": entry.name, "path": path, "meaning": entry.meaning,
                "label": entry.label, "source": entry.source or source,
                "columns": [key_json(c, c.name) for c in entry.columns]}
    return {**key_json(entry, path), "source": source}


def edit_units(schema: S.Schema) -> list[str]:
    """Every key path an edit may name: a top-level key, a key of a table, an array of
    tables as a whole (its rows can change in number, as chit groups do)."""
    units = []
    for entry in schema.declaration:
        if isinstance(entry, S.Table):
            units += [f"{entry.name}.{e.name}" for e in entry.entries]
        else:
            units.append(entry.name)
    return units


def reading_json(book: Rulebook, reading) -> dict:
    return {
        "id": reading.id, "meaning": reading.meaning, "default": reading.default,
        "fixed": reading.fixed,
        "variants": [{"name": v.name, "description": v.description, "gives_up": v.gives_up,
                      "values": book.variant_values(reading, v)} for v in reading.variants()],
    }


def form_model(book: Rulebook, axes: dict[str, str]) -> dict:
    """The page's form of a game's rules (its Rulebook), with the grids named by `axes`."""
    return {
        "entries": [entry_json(e) for e in book.schema.declaration],
        "values": copy.deepcopy(book.default_data),
        "units": edit_units(book.schema),
        "readings": [reading_json(book, r) for r in book.readings],
        "axes": axes,
    }
