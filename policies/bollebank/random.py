"""Uniform over the legal options, drawn from the policy's own seeded stream."""

from policies.uniform import decide

PARAMETERS = ()

__all__ = ["PARAMETERS", "decide"]
