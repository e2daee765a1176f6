"""Looks ahead: at every decision, scores each legal option by Monte Carlo rollouts from the
state it is in (played out by a base policy) and takes the best when it clearly beats the
base policy's own choice."""

from bollesim.game.params import Parameter
from bollesim.search.lookahead import BASES, OBJECTIVES, play_games

_objectives = ", ".join(f"{i} {o.name}" for i, o in enumerate(OBJECTIVES))
_bases = ", ".join(f"{i} {name}" for i, name in enumerate(BASES))

PARAMETERS = (
    Parameter("rollouts", 8, 1, 4096, "rollouts per option of every decision",
              label="rollouts per option"),
    Parameter("objective", 0, 0, len(OBJECTIVES) - 1,
              f"what a rollout is worth: {_objectives}", label="objective",
              choices=tuple(o.name for o in OBJECTIVES)),
    Parameter("base", 0, 0, len(BASES) - 1,
              f"the policy that plays the rollouts out, at its defaults: {_bases}",
              label="base policy", choices=BASES),
    Parameter("confidence", 2, 0, 5,
              "the best option is taken over the base policy's choice only when it beats it"
              " on the same rollouts by this many standard errors (0: when it scores higher)",
              label="confidence to leave the base's choice"),
)

CHUNK = 10  # games per piece of work (runner.default_chunk): a progress bar moves

__all__ = ["CHUNK", "PARAMETERS", "play_games"]
