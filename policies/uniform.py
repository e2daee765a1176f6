"""The choice every game's `random` policy makes (policies/<game>/random.py): uniform over
the decision's options, drawn from the policy's own seeded stream (bollesim/rng.py), so
it is written once for any game's decide (bollesim/game/policy.py DECIDE_SIGNATURE)."""

from bollesim.rng import below


def decide(kind, obs, rules, options, n_options, params, prng):
    return below(prng, n_options)
