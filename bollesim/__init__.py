"""bollesim: Monte Carlo strategy analysis for the solitaire wargame Operation Bøllebank.

    import bollesim
    df = bollesim.simulate("historical", 100_000, seed=1, progress=True)   # polars, one row per game
    sweep = bollesim.sweep_frame("experiments/first_fire.toml", games=2_000)
    bollesim.plots.rates_by_trigger(sweep, "t")                 # the controlled chart
    bollesim.analysis.rates(df)                                 # rates with 95% intervals

Everything is imported on first use, so `import bollesim` stays fast and numba loads only
when games are played.
"""

from importlib import import_module

from bollesim import jit_cache

__version__ = "0.1.0"

jit_cache.configure()  # before any kernel is defined: a cache keyed by the sources

_LAZY = {
    "simulate": ("bollesim.runner", "simulate"),
    "sweep_frame": ("bollesim.sweeps", "sweep_frame"),
    "load_experiment": ("bollesim.experiment", "load_experiment"),
    "load_ruleset": ("bollesim.rules.loader", "load_ruleset"),
    "load_policy": ("bollesim.policy", "load_policy"),
    "write_report": ("bollesim.report", "write_report"),
    "load_run": ("bollesim.report", "load_run"),
}
_MODULES = ("analysis", "plots", "chartdata", "charts", "report", "experiment", "policy")

__all__ = ["__version__", *_LAZY, *_MODULES]


def __getattr__(name: str):
    """The public functions and modules of __all__, imported when first used."""
    if name in _LAZY:
        module, attribute = _LAZY[name]
        return getattr(import_module(module), attribute)
    if name in _MODULES:
        return import_module(f"bollesim.{name}")
    raise AttributeError(f"module 'bollesim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
