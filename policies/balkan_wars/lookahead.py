"""Looks ahead: at each of the attacker's declared decisions (each bound, each arm's order:
halt and fire, advance part of a move, the full move toward the family's halt, toward the
weapons' maximum or effective range; each move digit, where they differ, the farthest,
the nearest, the troops' or the guns' farthest group, or keep the digits; after a won
firefight, hold, close assault now or
with the fresh stands only) scores the options by Monte Carlo rollouts from the state it
is in, played out by the scripted family `assault` (at the point a search found best, or
at its defaults), and takes the best when it clearly beats the family's own choice; every
other choice is the family's."""

from bollesim.balkan.lookahead import BASES, OBJECTIVES, narrated_game, play_games
from bollesim.game.params import Parameter

_objectives = ", ".join(f"{i} {o.label}" for i, o in enumerate(OBJECTIVES))

PARAMETERS = (
    Parameter("rollouts", 128, 1, 4096,
              "the most rollouts an option of a decision gets (successive halving); the"
              " best then gets as many fresh ones against the base's choice",
              label="most rollouts per option"),
    Parameter("objective", 0, 0, len(OBJECTIVES) - 1,
              f"what a rollout is worth: {_objectives}", label="objective",
              choices=tuple(o.label for o in OBJECTIVES)),
    Parameter("confidence", 1.25, 0, 5,
              "the best option is taken over the base policy's choice only when it beats it"
              " on fresh rollouts by this many standard errors of their paired difference"
              " (0: when it scores higher)",
              label="confidence to leave the base's choice"),
    Parameter("base", 0, 0, len(BASES) - 1,
              "where the base `assault` plays the rollouts out: 0 searched (troops halting"
              " at 1 km, guns at 1 km: bollesim/balkan/lookahead.py SEARCHED), 1 defaults",
              label="base policy's point", choices=BASES),
    Parameter("first", 16, 1, 4096,
              "rollouts of every option in the first round of successive halving (an option"
              " scoring no higher than the base's choice there ends the decision)",
              label="first round's rollouts"),
    Parameter("screen", 0, 0, 4096,
              "rollouts of the base's choice first: when all of them end alike the decision"
              " is left to the base (0: none; an attack the base wins 94 times in 100 ends"
              " alike in most screens)", label="screening rollouts"),
)

CHUNK = 20  # games per piece of work (runner.default_chunk): a progress bar moves (bench: twice)

__all__ = ["CHUNK", "PARAMETERS", "narrated_game", "play_games"]
