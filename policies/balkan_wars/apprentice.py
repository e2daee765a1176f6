"""The strong player, fast: the lookahead player's declared decisions (each arm's order a
bound, the group each move digit moves, the close assault), learned. It plays as the
lookahead's base (the family `assault` at the point its rollouts are played out by) and,
where a model fitted to the lookahead's own choices says the expert would leave that
choice, takes the option the model scores best (docs/apprentice.md); a close-assault
trigger may be imposed while every arm's order is its own
(experiments/balkan_close_assault_strong.toml)."""

from functools import partial

from bollesim.balkan.apprentice import declaration
from bollesim.balkan.tactics import NEVER
from bollesim.game.params import Parameter
from bollesim.strong import apprentice

PARAMETERS = (
    Parameter("imposed_losses", -1, -1, NEVER,
              "an imposed close-assault trigger: no close assault before the defender has lost"
              " this many figures, and at the first won firefight once it has (-1: not"
              " imposed, its own choice; 48: never)", label="imposed defender's losses before"
              " the first close assault", never=NEVER,
              setting="close assault once the defender has lost {} figures"),
)
KERNEL_PARAMS = partial(apprentice.kernel_rows, declaration)  # the shipped model's vectors

__all__ = ["KERNEL_PARAMS", "PARAMETERS", "decide"]


def decide(kind, obs, rules, options, n_options, params, prng):
    return apprentice.decide(kind, obs, rules, options, n_options, params, declaration)
