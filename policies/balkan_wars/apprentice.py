"""The strong player, fast: the lookahead player's declared decisions (each arm's order a
bound, the close assault), learned. It plays as the lookahead's base (the family `assault`
at the point its rollouts are played out by) and, where a model fitted to the lookahead's
own choices says the expert would leave that choice, takes the option the model scores
best (docs/apprentice.md)."""

from functools import partial

from bollesim.balkan.apprentice import declaration
from bollesim.strong import apprentice

PARAMETERS = ()
KERNEL_PARAMS = partial(apprentice.kernel_rows, declaration)  # the shipped model's vectors

__all__ = ["KERNEL_PARAMS", "PARAMETERS", "decide"]


def decide(kind, obs, rules, options, n_options, params, prng):
    return apprentice.decide(kind, obs, rules, options, n_options, params, declaration)
