"""Everything that can fight goes for Tango 2: all seven tanks to Kalesija, then on to
Tango 2. A Move always beats a Fire order; Fire orders are given as soon as the RoE
allows when no useful Move is on offer. The two APCs cannot fight: by default they go to
OP N, out of every field of fire (VL2's Extra order works there)."""

from bollesim.bollebank.scripted.space import KALESIJA, OP_N, Link, knobs, preset
from bollesim.game.params import Parameter

PARAMETERS = (
    Parameter("apcs", 0, 0, 1,
              "VL2 and QL3: 0 to OP N, 1 with the tanks to Kalesija (Draw their fire, Extra turn)",
              label="APCs go with the tanks"),
) + knobs()
APC_POSTS = Link("apcs", (OP_N, KALESIJA))
PRESET = preset(PARAMETERS, t2_tanks=7, fire_first=0, vl2_post=APC_POSTS, ql3_post=APC_POSTS)
