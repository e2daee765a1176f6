"""The range of every count a spec, a search or the command line sets (LIMITS, one table),
the checks that read it, and the run seed when none is given."""

from __future__ import annotations

import numbers
import re

from bollesim.errors import UsageError
from bollesim.terminal import shown

DEFAULT_SEED = 1
"""The run seed when none is given: simulate, run_to_dir, a spec, the command line."""

LIMITS = {
    "games": (0, 10**15),  # per cell; game indices stay exact in int64 and float64
    "max_games": (1, 10**15),
    "seed": (0, 2**63 - 1),
    "cells": (1, 100_000),
    "chunk": (1, 10**7),
    "overrides": (0, 1_000),
    "name": (1, 100),  # characters: the name is the default out folder's
    "description": (0, 10_000),  # characters
    # bench: games per measurement, played as one chunk
    "bench_games": (1_000, 10**9),
    "bench_reference_games": (10, 10**7),
    # a policy search (search/optimise.py)
    "budget": (1, 10**13),
    "candidates": (1, 100_000),
    "trial_games": (1, 10**12),
    "eta": (2, 100),
    "finalists": (1, 1_000),
    "holdout_games": (1, 10**12),
}
"""The range of every count a spec, a search or the command line sets: (lowest, highest)."""

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
"""An experiment's or a search's name: it names the default out folder."""


def check_count(what: str, value: int, limit: str, low: int | None = None) -> int:
    """`value` if it is a whole number within LIMITS[limit] (from `low` if given)."""
    lowest, highest = LIMITS[limit]
    lowest = lowest if low is None else low
    whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not whole or not lowest <= value <= highest:
        raise UsageError(f"{what} must be a whole number from {lowest:,} to {highest:,}, got {shown(value)}")
    return value


def held_out_games(finalists: int, holdout_games: int) -> int:
    """The most games a policy search's held-out replay plays: the finalists, the best
    seed and the defaults, `holdout_games` each."""
    return (finalists + 2) * holdout_games


def search_budget(budget: int, finalists: int, holdout_games: int,
                  what: str = "budget") -> int:
    """The games a policy search's races may play, so that every game it plays, the
    held-out replay included, stays within `budget`; UsageError, with the count, when the
    held-out games alone leave nothing to race."""
    held_out = held_out_games(finalists, holdout_games)
    if budget <= held_out:
        raise UsageError(
            f"{what} {budget:,} cannot hold the held-out games: (finalists {finalists:,} + "
            f"the best seed and the defaults) x holdout_games {holdout_games:,} = "
            f"{held_out:,} games, all counted in the budget; raise budget or lower "
            "holdout_games or finalists")
    return budget - held_out


def check_precision(precision: float, what: str = "--precision") -> float:
    """`precision` if it is a half-width the precision rule can aim at."""
    if not 0 < precision < 0.5:
        raise UsageError(
            f"{what} must be a half-width between 0 and 0.5 (0.01 = one percentage "
            f"point), got {precision:g}"
        )
    return precision
