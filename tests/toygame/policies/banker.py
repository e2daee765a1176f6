"""Bank the turn's points once they reach `hold`, from turn `start` on.

Before `start` the player rolls on until the turn busts or the target is reached."""

from bollesim.game.params import Parameter

PARAMETERS = (
    Parameter("hold", 10, 2, 30, "bank when the turn's points reach this"),
    Parameter("start", 1, 1, 10, "the first turn the player may bank", "first turn to bank",
              setting="bank from turn {} on"),
)


def decide(kind, obs, rules, options, n_options, params, prng):
    """1: bank the turn's points now (obs: turn, banked, busted turns, the turn's points)."""
    return 1 if obs[0] >= params[1] and obs[3] >= params[0] else 0
