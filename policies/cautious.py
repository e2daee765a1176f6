"""The historical plan played safe: only the one pair of chits a turn requires, the
first Fire order only once the RoE is Unrestricted (18 or more, which keeps the strategic
victory), the airstrike called as soon as it is offered, damaged tanks towed out of fire
and sent back to Saraci."""

from bollesim import observation as O
from policies import _plan
from policies._plan import AIRSTRIKE_FIRST, FIRE_FIRST, historical_goals, knobs

UNRESTRICTED = 18  # §5.2

PARAMETERS = knobs(stop_at_tanks=0, tow=1)


def decide(kind, obs, options, n_options, params, prng):
    fire_now = obs[O.FIRED] == 1 or obs[O.ROE] >= UNRESTRICTED
    goal = historical_goals(obs)
    return _plan.play(kind, obs, options, n_options, params, goal, fire_now, FIRE_FIRST,
                      AIRSTRIKE_FIRST)
