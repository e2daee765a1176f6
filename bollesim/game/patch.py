"""A ruleset as a patch: the partial TOML over the shipped default that
`bollesim rules check --partial`, `run --partial` and `load_ruleset(partial=...)` read
back to the same data (so the same digest and the same games).

The what-if page saves its edits with it and `bollesim tune` its proposals; the units a
patch names are the game's form's edit units (Game.form: a key of a table, or an array of
tables as a whole)."""

from __future__ import annotations

import re
from functools import cache

from bollesim.game.declaration import Game, Ruleset
from bollesim.game.registry import command_line

_BARE = re.compile(r"[A-Za-z0-9_-]+")


@cache
def default_data(game: Game) -> dict:
    """The game's shipped ruleset's data."""
    return game.load_ruleset().data


def edit_units(game: Game) -> list[str]:
    """The key paths an edit may name (the game's form)."""
    return game.form_module.edit_units()


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


def changed_units(game: Game, rules: Ruleset) -> list[str]:
    """The units whose value in the game's ruleset differs from its shipped default."""
    default = default_data(game)
    return [u for u in edit_units(game) if value_at(rules.data, u) != value_at(default, u)]


def value_at(data: dict, unit: str):
    node = data
    for part in unit.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def partial_toml(game: Game, rules: Ruleset,
                 written_by: str = "the bollesim what-if page (bollesim serve)",
                 notes: tuple[str, ...] = ()) -> str:
    """The game's ruleset as a partial TOML over its shipped default: every changed key,
    with its default value and provenance in a comment; `notes`, comment lines after the
    header, which names the game and the commands that check and play the file."""
    lines = [
        f"# A partial ruleset of {game.title} written by {written_by}.",
        f"# It plays ruleset sha256 {rules.digest}.",
        *(f"# {note}" for note in notes),
        f"# Check it:  {command_line(game, 'rules check --partial THIS_FILE')}",
        f"# Play it:   {command_line(game, f'run -P {game.baseline} -n 100000 --partial THIS_FILE')}",
    ]
    changed = changed_units(game, rules)
    default = default_data(game)
    if not changed:
        lines.append("# (no change: the shipped default ruleset)")
    tables: dict[str, list[str]] = {}
    for unit in changed:
        table, _, key = unit.rpartition(".")
        tables.setdefault(table, []).append(key)
    for table, keys in sorted(tables.items(), key=lambda item: item[0] != ""):
        if table:
            lines += ["", f"[{table}]"]
        source = value_at(default, f"{table}.source") if table else None
        for key in keys:
            unit = f"{table}.{key}" if table else key
            lines += [""] if not table else []
            lines += _comment(value_at(default, unit), unit, source)
            lines.append(f"{_key(key)} = {_toml_multiline(value_at(rules.data, unit))}")
    return "\n".join(lines) + "\n"


def _comment(default, unit: str, source) -> list[str]:
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
