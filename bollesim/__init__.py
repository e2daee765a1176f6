"""bollesim: Monte Carlo strategy analysis for the solitaire wargame Operation Bøllebank.

    import bollesim
    df = bollesim.simulate("historical", 100_000, seed=1)   # polars, one row per game
"""

from bollesim import jit_cache

__version__ = "0.1.0"

jit_cache.configure()  # before any kernel is defined: a cache keyed by the sources


def __getattr__(name: str):
    """`bollesim.simulate` without importing numba until it is used."""
    if name == "simulate":
        from bollesim.runner import simulate

        return simulate
    raise AttributeError(f"module 'bollesim' has no attribute {name!r}")
