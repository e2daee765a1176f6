"""Balkan Wars engagements played into result rows by either engine (Game.engine): the
attacker plays the scripted family `assault` (tactics.py) at each row's parameters, its
declared decisions (tactics.py) answered by the family's code both engines hold
(tactics.family_decide) or by the policy's decide (the apprentice, say)."""

from __future__ import annotations

import numba
import numpy as np

from bollesim.balkan import engine as fast_engine
from bollesim.balkan import reference, tactics
from bollesim.balkan.result import RESULT
from bollesim.balkan.ruleset import Ruleset
from bollesim.blocks import in_blocks
from bollesim.errors import UsageError


def play_chunk(rules: Ruleset, policy, params: np.ndarray, seed: int, first_game: int,
               engine: str) -> np.ndarray:
    """Result rows (n, columns) int64 of games first_game .. first_game + n - 1."""
    family = getattr(policy, "compiled_in", 0)
    if not family and not hasattr(policy, "decide"):
        raise UsageError(f"policy {policy.name!r}: Balkan Wars plays the policies the "
                         "engines ask (the family `assault`, its presets, the apprentice)")
    vectors = np.ascontiguousarray(policy.kernel_params(params), dtype=np.float64)
    out = np.zeros((vectors.shape[0], len(RESULT.columns)), dtype=np.int64)
    if engine == "reference":
        for g in range(out.shape[0]):
            out[g] = RESULT.ints(reference.play(rules, vectors[g], seed, first_game + g,
                                                decide=None if family else policy.decide))
    else:
        tab, gtab, ns = fast_engine.tables(rules)
        decide = tactics.family_decide if family else policy.decide
        fast_engine.kernel()  # compiled (or loaded) once, before the threads

        def play(lo, hi):
            fast_engine.kernel()(tab, gtab, ns, rules.scalars, vectors[lo:hi], seed,
                                 first_game + lo, out[lo:hi], decide)

        in_blocks(play, out.shape[0], numba.get_num_threads())
    return out
