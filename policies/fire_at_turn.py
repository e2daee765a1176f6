"""The first Fire order at the first chance on or after turn t (the RoE must allow it,
8 or more: the engine offers Fire only then); otherwise the historical plan."""

from bollesim import observation as O
from bollesim.policy import Parameter
from policies import _plan
from policies._plan import AIRSTRIKE_LAST, FIRE_FIRST, historical_goals, knobs

PARAMETERS = (
    Parameter("t", 1, 1, 40, "the turn from which the first Fire order is given",
              label="turn from which the first Fire order is given"),
) + knobs()


def decide(kind, obs, rules, options, n_options, params, prng):
    fire_now = obs[O.FIRED] == 1 or obs[O.TURN] >= params[0]
    goal = historical_goals(rules)
    return _plan.play(kind, obs, rules, options, n_options, params[1:], goal, fire_now, FIRE_FIRST,
                      AIRSTRIKE_LAST)
