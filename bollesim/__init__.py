"""bollesim: Monte Carlo strategy analysis for the solitaire wargame Operation Bøllebank.

    import bollesim
    from bollesim.report import plots
    from bollesim.stats import analysis
    game = bollesim.load_game("bollebank")                      # the game, a value (or "balkan-wars")
    df = bollesim.simulate("historical", 100_000, seed=1, progress=True, game=game)  # one row a game
    sweep = bollesim.sweep_frame("experiments/first_fire.toml", games=2_000, game=game)
    document = bollesim.narrate("historical", seed=7, game=game)   # one game as a JSON document
    bollesim.cells("results/first_fire")                        # a folder's cells and games
    plots.rates_by_trigger(game, sweep, "t")                    # the controlled chart
    analysis.rates(game, df)                                    # rates with 95% intervals

The packages follow the layers, each importing only from those below it (docs/
architecture.md): the base modules here (errors, files, jit, jit_cache, kept, rng, bits,
inputs, terminal, resources), game/ (what any game declares, and load_game), the games
(bollebank/, balkan/), batch/, stats/, report/, search/, serve/ and cli/.

Everything is imported on first use, so `import bollesim` stays fast and numba loads only
when games are played.
"""

import os
import signal
import sys
from importlib import import_module


def stop_while_starting(signum, frame):
    """Ctrl-C while the command line starts (its imports take a second or two): one line,
    exit 130, at once. No exception: raised inside an import, it could come out as another
    error's traceback (numpy's "Importing the numpy C-extensions failed")."""
    os.write(2, b"interrupted\n")
    os._exit(128 + signum)


def as_program() -> bool:
    """Whether this process is the command line (`bollesim ...` or `python -m bollesim
    ...`), not a program importing the package."""
    args = getattr(sys, "orig_argv", [])
    by_module = any(a == "-m" and b == "bollesim" for a, b in zip(args, args[1:], strict=False))
    return by_module or os.path.basename(sys.argv[0] if sys.argv else "") == "bollesim"


if as_program() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, stop_while_starting)  # the commands install their own

from bollesim import jit_cache  # noqa: E402  after the handler: the imports take a while

__version__ = "0.1.0"

jit_cache.configure()  # before any kernel is defined: a cache keyed by the sources

_LAZY = {
    "simulate": ("bollesim.batch.runner", "simulate"),
    "RunOptions": ("bollesim.batch.options", "RunOptions"),
    "sweep_frame": ("bollesim.batch.sweeps", "sweep_frame"),
    "narrate": ("bollesim.batch.replay", "narrate"),
    "load_experiment": ("bollesim.batch.spec", "load_experiment"),
    "load_game": ("bollesim.game.registry", "load_game"),
    "load_ruleset": ("bollesim.game.registry", "load_ruleset"),
    "load_policy": ("bollesim.game.policy", "load_policy"),
    "write_report": ("bollesim.report.balance", "write_report"),
    "load_run": ("bollesim.report.balance", "load_run"),
    "cells": ("bollesim.batch.cells", "cells"),
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    """The public functions of __all__, imported when first used."""
    if name in _LAZY:
        module, attribute = _LAZY[name]
        return getattr(import_module(module), attribute)
    raise AttributeError(f"module 'bollesim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
