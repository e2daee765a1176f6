"""Test policy: each choice is a hash of the whole observation, the options and the kind,
so two engines that show a policy different observations make it choose differently."""

import numpy as np

from bollesim import observation as O
from bollesim.rng import mix64

PARAMETERS = ()


def decide(kind, obs, options, n_options, params, prng):
    h = mix64(kind + 1)
    for i in range(O.SIZE):
        h = mix64(h ^ mix64(obs[i] + 7919 * i))
    for i in range(n_options):
        h = mix64(h ^ mix64(options[i]))
    return np.int64(h >> np.uint64(33)) % n_options
