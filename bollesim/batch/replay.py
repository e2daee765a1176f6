"""Play one game with its event trace kept, and narrate it (docs/architecture.md §6)."""

from __future__ import annotations

import numpy as np

from bollesim.bollebank.narrate import Narrator, outcome_line
from bollesim.bollebank.reference.play import play_game
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.game.policy import Policy


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
        from bollesim.search.lookahead import narrated_game as lookahead_game

        return lookahead_game(rules, params, seed, game_index)
    if engine == "fast":
        from bollesim.batch.runner import to_frame
        from bollesim.bollebank.engine.trace import play_traced_game

        trace, results, _ = play_traced_game(rules, policy, params, seed, game_index)
        row = to_frame(results[None, :], policy, params[None, :], seed, game_index).row(0, named=True)
    else:
        trace = []
        row = play_game(rules, policy, params, seed, game_index, trace)
    lines = Narrator(rules).narrate(trace)
    return lines + ["", outcome_line(row)], row
