"""Pig race's what-if form (Game.form): one table of four whole numbers and its reading,
in the shape bollesim/bollebank/rules/form.py documents."""

from toygame.rules import BOOK, KEYS, SCHEMA


def edit_units() -> list[str]:
    return [f"game.{name}" for name in KEYS]


def form_model() -> dict:
    keys = []
    for name in KEYS:
        kind = SCHEMA.find(f"game.{name}").kind
        keys.append({"type": "key", "name": name, "path": f"game.{name}",
                     "kind": {"type": "int", "min": kind.lo, "max": kind.hi},
                     "meaning": name.replace("_", " "), "allowed": f"{kind.lo}..{kind.hi}"})
    reading = BOOK.READINGS["I-BUST"]
    return {
        "entries": [{"type": "table", "name": "game", "path": "game", "source": "",
                     "entries": keys}],
        "values": BOOK.default_data,
        "units": edit_units(),
        "readings": [{"id": reading.id, "meaning": reading.meaning, "default": reading.default,
                      "fixed": "", "variants": [
                          {"name": v.name, "description": v.description, "gives_up": "",
                           "values": BOOK.variant_values(reading, v)}
                          for v in reading.variants()]}],
        "axes": {},
    }
