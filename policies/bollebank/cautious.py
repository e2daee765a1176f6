"""The historical plan played safe: only the one pair of chits a turn requires, the
first Fire order only once the RoE is Unrestricted (roe.unrestricted, 18 by default, which
keeps the strategic victory), the airstrike called as soon as it is offered, damaged
tanks towed out of fire and sent back to Saraci."""

from bollesim.bollebank.scripted.space import AIRSTRIKE_FIRST, knobs, preset

PARAMETERS = knobs(stop_at_tanks=0, tow=1)
PRESET = preset(PARAMETERS, fire_unrestricted=1, airstrike=AIRSTRIKE_FIRST)
