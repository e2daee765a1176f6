"""Operation Bøllebank's rules as the layers above its engine use them (Game.rulebook,
bollesim.game.declaration.RULEBOOK): load and build a ruleset, find and set one key,
and the readings (docs/readings.md), all from loader.BOOK."""

from bollesim.bollebank.rules.loader import (
    BOOK,
    DEFAULT_PATH,
    Ruleset,
    build,
    load_ruleset,
    locate,
    set_value,
)

READINGS = BOOK.READINGS
apply_readings, reading_keys, ids_hint, parse_choices = (
    BOOK.apply_readings, BOOK.reading_keys, BOOK.ids_hint, BOOK.parse_choices)

__all__ = ["DEFAULT_PATH", "READINGS", "Ruleset", "apply_readings", "build", "ids_hint", "load_ruleset",
           "locate", "parse_choices", "reading_keys", "set_value"]
