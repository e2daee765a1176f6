"""Play one game with its event trace kept, and narrate it (docs/architecture.md §6)."""

from __future__ import annotations

import numpy as np

from bollesim.narrate import Narrator, outcome_line
from bollesim.policy import Policy
from bollesim.reference.play import play_game
from bollesim.rules.loader import Ruleset


def narrated_game(
    rules: Ruleset,
    policy: Policy,
    params: np.ndarray,
    seed: int,
    game_index: int = 0,
    engine: str = "reference",
) -> tuple[list[str], dict]:
    """The turn-by-turn account of one game and its result row; either engine records
    the same events (docs/architecture.md §2)."""
    if policy.plays_games is not None:  # the lookahead player
        from bollesim.lookahead import narrated_game as lookahead_game

        return lookahead_game(rules, params, seed, game_index)
    if engine == "fast":
        from bollesim.engine.trace import play_traced_game
        from bollesim.runner import to_frame

        trace, results, _ = play_traced_game(rules, policy, params, seed, game_index)
        row = to_frame(results[None, :], policy, params[None, :], seed, game_index).row(0, named=True)
    else:
        trace = []
        row = play_game(rules, policy, params, seed, game_index, trace)
    lines = Narrator(rules).narrate(trace)
    return lines + ["", outcome_line(row)], row
