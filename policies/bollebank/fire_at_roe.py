"""The first Fire order at the first chance once the RoE is at k or more, never before;
otherwise the historical plan."""

from bollesim.bollebank.scripted.space import knobs, preset
from bollesim.game.params import Parameter

PARAMETERS = (
    Parameter("k", 12, 8, 25, "the RoE from which the first Fire order is given",
              label="RoE from which the first Fire order is given", never=25,
              setting="give the first Fire order once the RoE is {} or more",
              lowest="as soon as the rules allow (RoE 8, §2.1.4)"),
) + knobs()
PRESET = preset(PARAMETERS, fire_roe="k")
