"""The keys a tune may change, as knobs: each knob is one dimension of the search with a
finite list of values, read from the game's form (Game.form: every key's declared kind
and range, the same declaration the loader checks and the what-if page draws).

- a whole-number key (`tracks.tank_to_hit`): any value of its declared range, or of the
  spec's sub-range `[low, high]`;
- a choice or a flag (`interpretations.airstrike_leaves`): any of its values;
- a list of whole numbers (`tracks.atgm_to_hit`): the whole list shifted by one amount,
  every entry staying in its declared range, so a track declared `falling` stays so;
- one entry of such a list (`tracks.atgm_to_hit[3]`): any value of the item's range that
  keeps a falling list falling (between its neighbours);
- a named group of whole-number keys and lists: all shifted by the same amount, one knob.

A change's size is counted in keys (knobs changed), then in distance: each knob's move
as a share of its declared range (|new - old| / (high - low); a choice changed counts 1).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from bollesim.errors import RulesetError
from bollesim.game.declaration import Game, Ruleset
from bollesim.game.patch import value_at

ENTRY = re.compile(r"(?P<path>[A-Za-z_][\w.]*)\[(?P<index>\d+)\]")


@dataclass(frozen=True)
class Knob:
    """One dimension of the search over a game's ruleset: `name` as the spec gives it, the
    key paths it sets, how (mode: "value", "choice", "shift" or "entry"), its values and
    its start."""

    game: Game
    name: str
    paths: tuple[str, ...]
    mode: str
    values: tuple
    base: object
    width: float  # the declared range's width, the unit of distance
    index: int = -1  # the entry of an "entry" knob

    @property
    def numeric(self) -> bool:
        return self.mode != "choice"

    def distance(self, value) -> float:
        """The move to `value` as a share of the declared range (a choice: 0 or 1)."""
        if self.mode == "choice":
            return float(value != self.base)
        return abs(value - self.base) / self.width

    def apply(self, data: dict, value) -> dict:
        """`data` with the knob at `value` (a copy; the rulebook checks each key's kind)."""
        rulebook = self.game.rulebook
        for path in self.paths:
            old = value_at(data, path)
            if self.mode == "shift":
                new = [v + value for v in old] if isinstance(old, list) else old + value
            elif self.mode == "entry":
                new = copy.deepcopy(old)
                new[self.index] = value
            else:
                new = value
            data = rulebook.set_value(data, path, new, "tune")
        return data

    def describe(self, data: dict, value) -> str:
        """"tracks.tank_to_hit from 7 to 8"; a group names its shift and its members."""
        if self.mode != "shift":
            return f"{self.name} from {_text(self.base)} to {_text(value)}"
        if self.paths != (self.name,):
            return f"{self.name} by {value:+d} (each of {', '.join(self.paths)})"
        path = self.paths[0]
        return f"{path} from {_text(value_at(data, path))} to {_text(value_at(self.apply(data, value), path))}"


def _text(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def kinds(game: Game) -> dict[str, dict]:
    """Every key path of the game's form with its kind (form_model's JSON)."""
    out = {}

    def walk(entries):
        for e in entries:
            if e["type"] == "table":
                walk(e["entries"])
            elif e["type"] == "key":
                out[e["path"]] = e["kind"]
    walk(game.form_module.form_model()["entries"])
    return out


def knobs_of(s, rules: Ruleset, keys, groups) -> tuple[Knob, ...]:
    """The knobs of a spec's [keys] and [groups] over its ruleset (s: batch.spec.Spec, of
    its game)."""
    if not isinstance(keys, dict) or not isinstance(groups, dict):
        s.fail("keys", 'expected tables: [keys] "KEY" = true or [low, high]; '
                       '[groups] NAME = ["KEY", ...]')
    declared_kinds = kinds(s.game)
    out = [_knob(s, rules.data, declared_kinds, key, raw, f"keys.{key}") for key, raw in keys.items()]
    for name, members in groups.items():
        out.append(_group(s, rules.data, declared_kinds, name, members, f"groups.{name}"))
    if not out:
        s.fail("keys", "missing: name at least one key the search may change")
    return tuple(out)


def _kind(s, declared_kinds: dict, path: str, where: str) -> dict:
    if path not in declared_kinds:
        from difflib import get_close_matches

        guess = get_close_matches(path, list(declared_kinds), n=1)
        hint = f"; did you mean {guess[0]!r}?" if guess else ""
        s.fail(where, f"not a key of the ruleset's tables{hint} (docs/ruleset.md)")
    return declared_kinds[path]


def _bounds(s, raw, low: int, high: int, where: str) -> tuple[int, int]:
    """The spec's range of a knob: true (all of [low, high]) or a sub-range [a, b]."""
    if raw is True:
        return low, high
    if (not isinstance(raw, list) or len(raw) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw)):
        s.fail(where, f"expected true or [low, high] within {low}..{high}")
    if not low <= raw[0] <= raw[1] <= high:
        s.fail(where, f"expected {low} <= low <= high <= {high}, got {raw}")
    return raw[0], raw[1]


def _knob(s, data: dict, declared_kinds: dict, key: str, raw, where: str) -> Knob:
    entry = ENTRY.fullmatch(key)
    path = entry["path"] if entry else key
    kind = _kind(s, declared_kinds, path, where)
    value = value_at(data, path)
    if entry:
        if kind["type"] != "list" or kind["item"]["type"] != "int":
            s.fail(where, "only an entry of a list of whole numbers can be tuned")
        i = int(entry["index"])
        if i >= len(value):
            s.fail(where, f"the list has {len(value)} entries (0..{len(value) - 1})")
        lo, hi = kind["item"]["min"], kind["item"]["max"]
        if kind.get("falling"):  # stays between its neighbours (§ R-TRACK: never rising)
            hi = min(hi, value[i - 1]) if i > 0 else hi
            lo = max(lo, value[i + 1]) if i + 1 < len(value) else lo
        a, b = _bounds(s, raw, lo, hi, where)
        return Knob(s.game, key, (path,), "entry", tuple(range(a, b + 1)), value[i],
                    max(kind["item"]["max"] - kind["item"]["min"], 1), i)
    if kind["type"] == "int":
        a, b = _bounds(s, raw, kind["min"], kind["max"], where)
        return Knob(s.game, key, (path,), "value", tuple(range(a, b + 1)), value,
                    max(kind["max"] - kind["min"], 1))
    if kind["type"] in ("choice", "flag"):
        if raw is not True:
            s.fail(where, "a choice or a flag is searched over all its values: give true")
        options = tuple(kind["options"]) if kind["type"] == "choice" else (False, True)
        return Knob(s.game, key, (path,), "choice", options, value, 1.0)
    if kind["type"] == "list" and kind["item"]["type"] == "int":
        lo, hi = _shift_range(kind, value)
        a, b = _bounds(s, raw, lo, hi, where)
        return Knob(s.game, key, (path,), "shift", tuple(range(a, b + 1)), 0,
                    max(kind["item"]["max"] - kind["item"]["min"], 1))
    s.fail(where, f"a {kind['type']} cannot be tuned: give a whole number, a choice, a flag, "
                  "a list of whole numbers or one of its entries")


def _shift_range(kind: dict, value) -> tuple[int, int]:
    """The shifts that keep every value of a whole number or a list in its declared range."""
    item = kind["item"] if kind["type"] == "list" else kind
    values = value if isinstance(value, list) else [value]
    return item["min"] - min(values), item["max"] - max(values)


def _group(s, data: dict, declared_kinds: dict, name: str, members, where: str) -> Knob:
    if not isinstance(members, list) or not members or not all(isinstance(m, str) for m in members):
        s.fail(where, 'expected a list of keys, e.g. ["tracks.atgm_to_hit", "tracks.hmg_to_hit"]')
    lo, hi, widths = -10**9, 10**9, []
    for m in members:
        kind = _kind(s, declared_kinds, m, where)
        item = kind["item"] if kind["type"] == "list" else kind
        if item["type"] != "int":
            s.fail(where, f"{m}: a group shifts whole numbers and lists of them")
        a, b = _shift_range(kind, value_at(data, m))
        lo, hi = max(lo, a), min(hi, b)
        widths.append(max(item["max"] - item["min"], 1))
    if lo > hi:
        s.fail(where, "no shift keeps every member within its declared range")
    return Knob(s.game, name, tuple(members), "shift", tuple(range(lo, hi + 1)), 0, min(widths))


def ruleset_of_change(game: Game, base: Ruleset, knobs: tuple[Knob, ...],
                      change: dict[int, object]) -> Ruleset | str:
    """The game's ruleset with knob i at change[i]; or, when the rules refuse the
    combination (a key tied to another), the loader's one line."""
    data = base.data
    try:
        for i, value in sorted(change.items()):
            data = knobs[i].apply(data, value)
        return game.rulebook.build(data, f"{base.name} + tune")
    except RulesetError as exc:
        return str(exc)
