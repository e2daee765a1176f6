"""Never gives a Fire order; otherwise the historical plan (platoon 1 and QL1 to Tango 2
by Kalesija, platoon 2 to the Saraci overwatches, VL2 to OP N)."""

from policies import _plan
from policies._plan import AIRSTRIKE_LAST, FIRE_FIRST, historical_goals, knobs

PARAMETERS = knobs()


def decide(kind, obs, rules, options, n_options, params, prng):
    goal = historical_goals(rules)
    return _plan.play(kind, obs, rules, options, n_options, params, goal, False, FIRE_FIRST,
                      AIRSTRIKE_LAST)
