"""Uniform over the legal options, drawn from the policy's own seeded stream."""

from bollesim.rng import below

PARAMETERS = ()


def decide(kind, obs, rules, options, n_options, params, prng):
    return below(prng, n_options)
