"""Everything that can fight goes for Tango 2: all seven tanks to Kalesija, then on to
Tango 2. A Move always beats a Fire order; Fire orders are given as soon as the RoE
allows when no useful Move is on offer. The two APCs cannot fight: by default they go to
OP N, out of every field of fire (VL2's Extra order works there)."""

from numba import njit

from bollesim.policy import Parameter
from bollesim.rules import access as A
from policies import _plan
from policies._plan import AIRSTRIKE_LAST, FIRE_LAST, knobs

PARAMETERS = (
    Parameter("apcs", 0, 0, 1,
              "VL2 and QL3: 0 to OP N, 1 with the tanks to Kalesija (Draw their fire, Extra turn)",
              label="APCs go with the tanks"),
) + knobs()


@njit(cache=True, inline="always")
def goals(rules, apcs):
    """Final goals by vehicle (codes.VEHICLES order): the APCs VL2 and QL3, then the tanks."""
    apc = A.kalesija(rules) if apcs >= 1 else A.op_n(rules)
    t2 = A.tango2(rules)
    return (apc, apc, t2, t2, t2, t2, t2, t2, t2)


def decide(kind, obs, rules, options, n_options, params, prng):
    goal = goals(rules, params[0])
    return _plan.play(kind, obs, rules, options, n_options, params[1:], goal, True, FIRE_LAST,
                      AIRSTRIKE_LAST)
