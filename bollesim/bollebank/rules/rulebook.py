"""Operation Bøllebank's rules as the layers above its engine use them (Game.rulebook,
bollesim.game.declaration.RULEBOOK): load and build a ruleset, find and set one key,
and the readings (docs/readings.md)."""

from bollesim.bollebank.rules.loader import Ruleset, build, load_ruleset, set_value
from bollesim.bollebank.rules.reader import locate
from bollesim.bollebank.rules.readings import BY_ID as READINGS
from bollesim.bollebank.rules.readings import apply_readings, ids_hint, reading_keys
from bollesim.game.readings import parse_choices

__all__ = ["READINGS", "Ruleset", "apply_readings", "build", "ids_hint", "load_ruleset",
           "locate", "parse_choices", "reading_keys", "set_value"]
