"""The packed ruleset (rules/packed.py) as the fast engine reads it, at st[layout.RULES:].

Every slot of rules/packed.py is a name here too, as its absolute index in st: a kernel
reads `st[T.S_FIRE_ALLOWED]` or `st[T.POS_KIND + p]`; the strides (`T.POS_BSA_S0`) are
packed.py's. Multi-dimensional tables are read through core.py's accessors.
"""

from __future__ import annotations

from bollesim.bollebank import codes
from bollesim.bollebank.engine import layout
from bollesim.bollebank.rules import packed

NP, NV = codes.N_POSITIONS, codes.N_VEHICLES
globals().update({name: layout.RULES + offset for name, offset in packed.SLOTS.items()})
globals().update(packed.STRIDES)
