"""Looks ahead: at the decisions that matter, scores the legal options by Monte Carlo
rollouts from the state it is in (played out by a base policy, successive halving over the
options) and takes the best when it clearly beats the base policy's own choice; a first
Fire order may be imposed (from an RoE, from a turn) while every other choice is its own."""

from bollesim.bollebank.lookahead import (
    BASES,
    IMPOSED_PARAMETERS,
    OBJECTIVES,
    narrated_game,
    play_games,
)
from bollesim.game.params import Parameter

_objectives = ", ".join(f"{i} {o.label}" for i, o in enumerate(OBJECTIVES))
_bases = ", ".join(f"{i} {name}" for i, name in enumerate(BASES))

PARAMETERS = (
    Parameter("rollouts", 8, 1, 4096,
              "the most rollouts an option of a decision gets: every option gets 1, the"
              " best quarter twice as many, and so on; the best then gets as many fresh"
              " ones against the base's choice",
              label="most rollouts per option"),
    Parameter("objective", 0, 0, len(OBJECTIVES) - 1,
              f"what a rollout is worth: {_objectives}", label="objective",
              choices=tuple(o.label for o in OBJECTIVES)),
    Parameter("base", BASES.index("apprentice"), 0, len(BASES) - 1,
              f"the policy that plays the rollouts out: {_bases} (apprentice, the default:"
              " the learned strong player, policies/bollebank/apprentice.py; expert: the plan family"
              " at bollesim/bollebank/expert_base.toml, the apprentice's teacher's base;"
              " the others at their defaults)",
              label="base policy", choices=BASES),
    Parameter("confidence", 1.25, 0, 5,
              "the best option is taken over the base policy's choice only when it beats it"
              " on fresh rollouts by this many standard errors of their paired difference"
              " (0: when it scores higher)",
              label="confidence to leave the base's choice"),
    *IMPOSED_PARAMETERS,
)

CHUNK = 50  # games per piece of work (runner.default_chunk): a progress bar moves

__all__ = ["CHUNK", "PARAMETERS", "narrated_game", "play_games"]
