"""Bank the turn's points once they reach `hold`, from turn `start` on.

Before `start` the player rolls on until the turn busts or the target is reached."""

from bollesim.game.params import Parameter

PARAMETERS = (
    Parameter("hold", 10, 2, 30, "bank when the turn's points reach this"),
    Parameter("start", 1, 1, 10, "the first turn the player may bank", "first turn to bank",
              setting="bank from turn {} on"),
)


def decide(turn_points, turn, params):
    """True: bank the turn's points now."""
    return turn >= params[1] and turn_points >= params[0]
