"""One fast-engine game with its event trace, for narration and for comparing engines."""

from __future__ import annotations

import numpy as np

from bollesim.bollebank.engine import layout
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.game.policy import DecidePolicy


def play_traced_game(
    rules: Ruleset, policy: DecidePolicy, params: np.ndarray, seed: int, game: int, capacity: int = 20_000
) -> tuple[list[tuple], np.ndarray, np.ndarray]:
    """(events as (turn, kind, a, b, c, d) tuples, the game's result row of layout.R_*,
    its final state region)."""
    from bollesim.bollebank.engine.play import TRACED_ARGS, for_policy, play_traced

    trace = np.zeros(1 + layout.TRACE_WIDTH * capacity, dtype=np.int64)
    out = np.zeros(layout.N_RESULTS, dtype=np.int64)
    final = np.zeros(layout.STATE_SIZE, dtype=np.int64)
    kernel, decide, scripted = for_policy(play_traced, TRACED_ARGS, policy)
    kernel(
        rules.packed,
        decide,
        scripted,
        np.ascontiguousarray(policy.kernel_params(params), dtype=np.float64),
        seed,
        game,
        trace,
        out,
        final,
    )
    n = int(trace[0])
    if n > capacity:
        raise RuntimeError(f"trace buffer too small: {n} events, room for {capacity}")
    rows = trace[1 : 1 + layout.TRACE_WIDTH * n].reshape(n, layout.TRACE_WIDTH)
    return list(map(tuple, rows.tolist())), out, final
