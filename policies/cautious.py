"""The historical plan played safe: only the one pair of chits a turn requires, the
first Fire order only once the RoE is Unrestricted (roe.unrestricted, 18 by default, which
keeps the strategic victory), the airstrike called as soon as it is offered, damaged
tanks towed out of fire and sent back to Saraci."""

from bollesim import observation as O
from bollesim.rules import packed as P
from policies import _plan
from policies._plan import AIRSTRIKE_FIRST, FIRE_FIRST, historical_goals, knobs

PARAMETERS = knobs(stop_at_tanks=0, tow=1)


def decide(kind, obs, rules, options, n_options, params, prng):
    fire_now = obs[O.FIRED] == 1 or obs[O.ROE] >= rules[P.S_UNRESTRICTED]
    goal = historical_goals(rules)
    return _plan.play(kind, obs, rules, options, n_options, params, goal, fire_now, FIRE_FIRST,
                      AIRSTRIKE_FIRST)
