"""The plan of 29 April 1994: platoon 1 and QL1 to Kalesija then Tango 2, platoon 2 to
the Saraci overwatches, VL2 to OP N, fire as soon as the RoE allows."""

from policies import _plan
from policies._plan import AIRSTRIKE_LAST, FIRE_FIRST, historical_goals, knobs

PARAMETERS = knobs()


def decide(kind, obs, rules, options, n_options, params, prng):
    goal = historical_goals(rules)
    return _plan.play(kind, obs, rules, options, n_options, params, goal, True, FIRE_FIRST,
                      AIRSTRIKE_LAST)
