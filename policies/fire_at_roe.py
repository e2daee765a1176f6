"""The first Fire order at the first chance once the RoE is at k or more, never before;
otherwise the historical plan."""

from bollesim import observation as O
from bollesim.policy import Parameter
from policies import _plan
from policies._plan import AIRSTRIKE_LAST, FIRE_FIRST, historical_goals, knobs

PARAMETERS = (
    Parameter("k", 12, 8, 25, "the RoE from which the first Fire order is given",
              label="RoE from which the first Fire order is given", never=25),
) + knobs()


def decide(kind, obs, rules, options, n_options, params, prng):
    fire_now = obs[O.FIRED] == 1 or obs[O.ROE] >= params[0]
    goal = historical_goals(rules)
    return _plan.play(kind, obs, rules, options, n_options, params[1:], goal, fire_now, FIRE_FIRST,
                      AIRSTRIKE_LAST)
