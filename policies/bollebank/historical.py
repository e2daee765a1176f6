"""The plan of 29 April 1994: platoon 1 and QL1 to Kalesija then Tango 2, platoon 2 to
the Saraci overwatches, VL2 to OP N, fire as soon as the RoE allows."""

from bollesim.bollebank.scripted.space import knobs, preset

PARAMETERS = knobs()
PRESET = preset(PARAMETERS)
