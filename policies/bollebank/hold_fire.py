"""Never gives a Fire order; otherwise the historical plan (platoon 1 and QL1 to Tango 2
by Kalesija, platoon 2 to the Saraci overwatches, VL2 to OP N)."""

from bollesim.bollebank.scripted.space import knobs, preset

PARAMETERS = knobs()
PRESET = preset(PARAMETERS, fire_roe=25)
