"""The first Fire order at the first chance on or after turn t (the RoE must allow it,
8 or more: the engine offers Fire only then); otherwise the historical plan."""

from bollesim.bollebank.scripted.space import knobs, preset
from bollesim.game.params import Parameter

PARAMETERS = (
    Parameter("t", 1, 1, 40, "the turn from which the first Fire order is given",
              label="turn from which the first Fire order is given",
              setting="give the first Fire order from turn {} on",
              lowest="as soon as the rules allow"),
) + knobs()
PRESET = preset(PARAMETERS, fire_turn="t")
