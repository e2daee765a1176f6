"""The attacker's scripted family: advance troops and guns to their halts, fire every
bound, and close assault after a won firefight once the trigger allows (at once, once the
defender has lost some figures, or once enough stands are close)."""

from bollesim.balkan import tactics
from bollesim.balkan.tactics import NEVER
from bollesim.game.params import Parameter

PARAMETERS = (
    Parameter("advance_to", 2, 1, 8, "troops halt this many steps (0.125 km) from the "
              "defender's line", "troops' halt (steps)"),
    Parameter("guns_to", 8, 1, 40, "artillery halts this many steps from the line",
              "guns' halt (steps)"),
    Parameter("losses", 0, 0, NEVER, "close assault only once the defender has lost this "
              "many figures (0: after the first won firefight)", "defender's losses before "
              "the first close assault", never=NEVER,
              setting="close assault once the defender has lost {} figures"),
    Parameter("min_stands", 1, 1, 16, "close assault only with at least this many stands "
              "at effective range", "stands needed to close assault",
              setting="close assault with {} stands or more"),
)
COMPILED_IN = 1  # both engines hold the family's answers (tactics.family_decide)


def decide(kind, obs, rules, options, n_options, params, prng):
    """The attacker's declared decisions as the family answers them (tactics.family_decide,
    which both engines ask unless told otherwise): every arm advances the full move toward
    its halt; close assault as the trigger says."""
    return tactics.family_decide(kind, obs, rules, options, n_options, params, prng)
