"""Games of Operation Bøllebank played into result rows (bollebank/result.py), by either
engine: the fast one (numba, many games on all cores) or the reference one."""

from __future__ import annotations

from functools import partial

import numpy as np

from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules.loader import Ruleset

SMALL_CHUNK = 256
"""Below this many games a chunk plays on one thread: waking the thread pool costs more."""


def play_chunk(rules: Ruleset, policy, params: np.ndarray, seed: int, first_game: int,
               engine: str) -> np.ndarray:
    """Results (n, len(RESULT.columns)) int64 of games first_game .. first_game + n - 1;
    params: (n, parameters) float64, writable and contiguous."""
    n = params.shape[0]
    out = np.zeros((n, len(RESULT.columns)), dtype=np.int64)
    if engine == "fast":
        params = np.require(policy.kernel_params(params), np.float64, ["C", "W"])
        import numba

        from bollesim.blocks import in_blocks
        from bollesim.bollebank.engine.play import BATCH_ARGS, for_policy, play_games

        kernel, decide, scripted = for_policy(play_games, BATCH_ARGS, policy)
        play = partial(kernel, rules.packed, decide, scripted, params, seed, first_game, out)
        in_blocks(play, n, 1 if n < SMALL_CHUNK else numba.get_num_threads())
        return out
    from bollesim.bollebank.reference.play import play_game

    for g in range(n):
        out[g] = RESULT.ints(play_game(rules, policy, params[g], seed, first_game + g))
    return out
