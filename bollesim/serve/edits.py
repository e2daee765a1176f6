"""The page's edits become a ruleset the way `bollesim rules check --set` makes one, and
leave as a partial TOML that `bollesim rules check --partial` accepts.

An edit names a unit of the game's form (Game.form: its edit_units(), such as a key of a
table, or an array of tables as a whole) and its new value as JSON. Each becomes a
`--set UNIT=VALUE` assignment (VALUE written as TOML) and the ruleset is built by the
game's `load_ruleset(overrides=...)`, so an invalid value gets the loader's own message,
word for word what `rules check` prints after `error: `, and never reaches the engine.

A request no page would send (not an object, an undeclared key, a value no JSON form field
makes) is a `BadRequest`: the server answers 400 with its one line.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cache

from bollesim.errors import RulesetError
from bollesim.game.declaration import Ruleset, declared

MAX_DEPTH = 6  # the deepest value of the declaration: map.roads, marker sides (4 levels)
MAX_ITEMS = 400  # items of one list or table (map.positions has 18 rows of 13 columns)
MAX_TEXT = 200  # characters of one string


class BadRequest(ValueError):
    """A request the page never sends; str() is the one line of the 400 answer."""


@cache
def default_data() -> dict:
    """The shipped ruleset's data."""
    return declared().load_ruleset().data


def edit_units() -> list[str]:
    """The key paths an edit may name (the game's form)."""
    return declared().form_module.edit_units()


def check_edits(raw) -> dict[str, object]:
    """The edits of a request ({unit: value}), or BadRequest naming what is wrong."""
    if not isinstance(raw, dict):
        raise BadRequest("edits: expected an object {key: value}")
    units = set(edit_units())
    for key, value in raw.items():
        if key not in units:
            raise BadRequest(f"edits: {str(key)[:80]!r} is not a key of the ruleset")
        _check_value(value, key, 0)
    return raw


def _check_value(value, where: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise BadRequest(f"edits: {where}: nested too deeply")
    if isinstance(value, bool | int):
        if not isinstance(value, bool) and not -(2**63) <= value < 2**63:
            raise BadRequest(f"edits: {where}: number out of range")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise BadRequest(f"edits: {where}: not a finite number")
    elif isinstance(value, str):
        if len(value) > MAX_TEXT or any(0xD800 <= ord(c) <= 0xDFFF for c in value):
            raise BadRequest(f"edits: {where}: text too long or not valid Unicode")
    elif isinstance(value, list | dict):
        if len(value) > MAX_ITEMS:
            raise BadRequest(f"edits: {where}: more than {MAX_ITEMS} items")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for k, v in items:
            if isinstance(value, dict) and (not isinstance(k, str) or len(k) > MAX_TEXT):
                raise BadRequest(f"edits: {where}: bad key")
            _check_value(v, where, depth + 1)
    else:
        raise BadRequest(f"edits: {where}: not a value a form sends")


# ------------------------------------------------------------------ values as TOML

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def toml_string(text: str) -> str:
    """A TOML basic string: quotes and backslashes escaped, control characters as \\uXXXX."""
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def toml_value(value) -> str:
    """A JSON value as an inline TOML value (one line)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{_key(k)} = {toml_value(v)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    raise TypeError(f"no TOML for {value!r}")


def _key(name: str) -> str:
    return name if _BARE.fullmatch(name) else toml_string(name)


def assignments(edits: dict[str, object]) -> list[str]:
    """The `--set` assignments of the edits, in form order."""
    return [f"{unit}={toml_value(edits[unit])}" for unit in edit_units() if unit in edits]


# ------------------------------------------------------------------ building


@dataclass
class Built:
    """The ruleset of a set of edits, or the loader's messages: `errors` holds one
    {"key": key path, "message": the rules-check line without `error: `} per problem."""

    rules: Ruleset | None
    errors: list[dict] = field(default_factory=list)


def build_ruleset(edits: dict[str, object]) -> Built:
    """Validate each edit alone (so every bad field is named at once), then build the
    ruleset from all of them through load_ruleset, which checks the keys together."""
    rulebook = declared().rulebook
    errors = []
    for unit in edit_units():
        if unit in edits:
            try:
                rulebook.set_value(default_data(), unit, edits[unit], "--set")
            except RulesetError as exc:
                errors.append({"key": exc.key, "message": str(exc)})
    if errors:
        return Built(None, errors)
    try:
        return Built(declared().load_ruleset(overrides=assignments(edits)))
    except RulesetError as exc:
        return Built(None, [{"key": exc.key, "message": str(exc)}])


# ------------------------------------------------------------------ the partial TOML


def changed_units(rules: Ruleset) -> list[str]:
    """The units whose value in the ruleset differs from the shipped default."""
    return [u for u in edit_units() if value_at(rules.data, u) != value_at(default_data(), u)]


def value_at(data: dict, unit: str):
    node = data
    for part in unit.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def partial_toml(rules: Ruleset) -> str:
    """The ruleset as a partial TOML over the shipped default: every changed key, with its
    default value and provenance in a comment. `load_ruleset(partial=...)` of it gives the
    same data, so the same digest and the same games."""
    lines = [
        "# A partial ruleset written by the bollesim what-if page (bollesim serve).",
        f"# It plays ruleset sha256 {rules.digest}.",
        "# Check it:  bollesim rules check --partial THIS_FILE",
        f"# Play it:   bollesim run -P {declared().baseline} -n 100000 --partial THIS_FILE",
    ]
    changed = changed_units(rules)
    if not changed:
        lines.append("# (no change: the shipped default ruleset)")
    tables: dict[str, list[str]] = {}
    for unit in changed:
        table, _, key = unit.rpartition(".")
        tables.setdefault(table, []).append(key)
    for table, keys in sorted(tables.items(), key=lambda item: item[0] != ""):
        if table:
            lines += ["", f"[{table}]"]
        source = value_at(default_data(), f"{table}.source") if table else None
        for key in keys:
            unit = f"{table}.{key}" if table else key
            lines += [""] if not table else []
            lines += _comment(unit, source)
            lines.append(f"{_key(key)} = {_toml_multiline(value_at(rules.data, unit))}")
    return "\n".join(lines) + "\n"


def _comment(unit: str, source) -> list[str]:
    default = value_at(default_data(), unit)
    if isinstance(default, list) and default and isinstance(default[0], dict):
        was = f"{len(default)} rows"
    else:
        was = toml_value(default)
    where = f" (source: {source})" if isinstance(source, str) else ""
    return [" ".join(f"# {unit}: default {was}{where}".splitlines())]


def _toml_multiline(value) -> str:
    """Arrays of tables one inline table a line (TOML 1.0 inline tables are one line)."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return "[\n" + "".join(f"    {toml_value(v)},\n" for v in value) + "]"
    return toml_value(value)
