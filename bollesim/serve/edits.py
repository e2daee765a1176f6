"""The page's edits become a ruleset the way `bollesim rules check --set` makes one, and
leave as a partial TOML that `bollesim rules check --partial` accepts (game/patch.py).

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
from dataclasses import dataclass, field

from bollesim.errors import RulesetError
from bollesim.game.declaration import Game, Ruleset
from bollesim.game.patch import default_data, edit_units, toml_value

MAX_DEPTH = 6  # the deepest value of the declaration: map.roads, marker sides (4 levels)
MAX_ITEMS = 400  # items of one list or table (map.positions has 18 rows of 13 columns)
MAX_TEXT = 200  # characters of one string


class BadRequest(ValueError):
    """A request the page never sends; str() is the one line of the 400 answer."""


def check_edits(game: Game, raw) -> dict[str, object]:
    """The edits of a request ({unit: value} of the game's form), or BadRequest naming
    what is wrong."""
    if not isinstance(raw, dict):
        raise BadRequest("edits: expected an object {key: value}")
    units = set(edit_units(game))
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


def assignments(game: Game, edits: dict[str, object]) -> list[str]:
    """The `--set` assignments of the edits, in the game's form order."""
    return [f"{unit}={toml_value(edits[unit])}" for unit in edit_units(game) if unit in edits]


# ------------------------------------------------------------------ building


@dataclass
class Built:
    """The ruleset of a set of edits, or the loader's messages: `errors` holds one
    {"key": key path, "message": the rules-check line without `error: `} per problem."""

    rules: Ruleset | None
    errors: list[dict] = field(default_factory=list)


def build_ruleset(game: Game, edits: dict[str, object]) -> Built:
    """Validate each edit alone (so every bad field is named at once), then build the
    game's ruleset from all of them through load_ruleset, which checks the keys together."""
    rulebook = game.rulebook
    errors = []
    for unit in edit_units(game):
        if unit in edits:
            try:
                rulebook.set_value(default_data(game), unit, edits[unit], "--set")
            except RulesetError as exc:
                errors.append({"key": exc.key, "message": str(exc)})
    if errors:
        return Built(None, errors)
    try:
        return Built(game.load_ruleset(overrides=assignments(game, edits)))
    except RulesetError as exc:
        return Built(None, [{"key": exc.key, "message": str(exc)}])


