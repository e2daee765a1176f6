"""The strong player, fast: the lookahead player's order decisions, learned.
It plays as the lookahead's base (the plan family at its expert point) and, where a model
fitted to the lookahead's own choices says the expert would leave that choice, takes the
option the model scores best; a first Fire order may be imposed (from an RoE, from a
turn) while every other choice is its own (docs/apprentice.md)."""

from bollesim.bollebank.apprentice import model
from bollesim.bollebank.apprentice.shipped import kernel_rows as KERNEL_PARAMS
from bollesim.bollebank.engine.player import APPRENTICE
from bollesim.bollebank.expert import IMPOSED_PARAMETERS

PARAMETERS = IMPOSED_PARAMETERS
COMPILED_IN = APPRENTICE  # the fast engine's kernel calls it directly (engine/player.py)

__all__ = ["COMPILED_IN", "KERNEL_PARAMS", "PARAMETERS", "decide"]


def decide(kind, obs, rules, options, n_options, params, prng):
    return model.decide(kind, obs, rules, options, n_options, params)
