"""Pig race's what-if form (Game.form): one table of four whole numbers and its reading,
in the shape bollesim/bollebank/rules/form.py documents."""

from toygame.rules import DEFAULT, KEYS, READINGS, variant_values


def edit_units() -> list[str]:
    return [f"game.{name}" for name in KEYS]


def form_model() -> dict:
    keys = [{"type": "key", "name": name, "path": f"game.{name}",
             "kind": {"type": "int", "min": low, "max": high},
             "meaning": name.replace("_", " "), "allowed": f"{low}..{high}"}
            for name, (low, high) in KEYS.items()]
    reading = READINGS["I-BUST"]
    return {
        "entries": [{"type": "table", "name": "game", "path": "game", "source": "",
                     "entries": keys}],
        "values": DEFAULT,
        "units": edit_units(),
        "readings": [{"id": reading.id, "meaning": reading.meaning, "default": reading.default,
                      "fixed": "", "variants": [
                          {"name": v.name, "description": v.description, "gives_up": "",
                           "values": variant_values(v)}
                          for v in reading.variants()]}],
        "axes": {},
    }
