"""Test policy: each choice is a hash of the whole observation, of the ruleset it is
handed, of the options and of the kind, so two engines that show a policy different
observations or rules make it choose differently."""

import numpy as np

from bollesim.bollebank import observation
from bollesim.rng import mix64

PARAMETERS = ()


def decide(kind, obs, rules, options, n_options, params, prng):
    h = mix64(kind + 1)
    for i in range(observation.SIZE):
        h = mix64(h ^ mix64(obs[i] + 7919 * i))
    checksum = 0
    for i in range(rules.shape[0]):
        checksum = checksum * 31 + rules[i]
    h = mix64(h ^ mix64(checksum + obs.shape[0]))
    for i in range(n_options):
        h = mix64(h ^ mix64(options[i]))
    return np.int64(h >> np.uint64(33)) % n_options
