"""Uniform over the options of each of the attacker's declared decisions (each arm's order
a bound, the group each move digit moves, the close assault after a won firefight:
bollesim/balkan/positions.py OPTIONS), drawn from the policy's own seeded stream; its other
choices (deployment, targets, generals) are the family `assault`'s at its defaults."""

import numpy as np

from policies.balkan_wars import assault
from policies.uniform import decide

PARAMETERS = ()
DEFAULTS = np.array([p.default for p in assault.PARAMETERS], dtype=np.float64)


def KERNEL_PARAMS(rows: np.ndarray) -> np.ndarray:  # noqa: N802 (the policy protocol's name)
    """The family's defaults for every row: the vector its other choices read (tactics.py)."""
    return np.tile(DEFAULTS, (len(rows), 1))


__all__ = ["KERNEL_PARAMS", "PARAMETERS", "decide"]
