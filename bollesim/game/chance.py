"""What a game may declare of its chance beside its decision points (positions.py): its
draws, their outcomes and their probabilities, so that a draw's luck is measured against
the expectation over the outcomes the rules allow there (the analysis of luck and errors,
bollesim/strong/analysis.py). All optional: where a game declares no draws, the chance
between two decisions is one event, and its words (chance_words) name it if the game can.

A *segment* is the chance after the game's first n decisions (n = 0: before the first
one) up to the next decision or the end. A positions module that declares draws gives
the names of CHANCE, with two compiled primitives of the signatures below:

- draws(work, decide, params, seed, game, start, script, n, record): replay script[:n]
  from the snapshot `start` on the game's own tape (every choice taken, the last one
  included) and record the segment's draws: record[0] their number, then DRAW_WIDTH
  values each (the layout below).
- forced(work, decide, params, seed, game, start, script, n, draw, outcome, r, row):
  replay script[:n] as draws does, take the segment's draws from the tape up to the one
  numbered `draw`, which gives `outcome` (-1: the tape's own), and from then on draw from
  rollout r's streams (rng.draw_key) while `decide` plays the game out; its result row
  into `row`. Every outcome of one draw shares rollout r's streams (common random
  numbers), so their differences are not the rollouts' luck.

A draw: [kind, outcome (an index), number of outcomes, the weight of each outcome
(MAX_OUTCOMES integers: outcome i has probability weight_i / their sum), the context
(DRAW_CONTEXT integers of the game's own: where it is drawn, for an exact value)].
"""

from __future__ import annotations

from numba import types

from bollesim.game.positions import DECIDE

I64, F64 = types.int64, types.float64

DRAWS_SIGNATURE = types.void(I64[::1], DECIDE, F64[::1], I64, I64, I64[::1], I64[::1], I64,
                             I64[::1])
FORCED_SIGNATURE = types.void(I64[::1], DECIDE, F64[::1], I64, I64, I64[::1], I64[::1], I64,
                              I64, I64, I64, I64[::1])
DRAWS, FORCED = (types.FunctionType(s) for s in (DRAWS_SIGNATURE, FORCED_SIGNATURE))

DRAW_KIND, DRAW_OUTCOME, DRAW_N, DRAW_WEIGHTS = range(4)
"""A draw's first slots; the context follows the weights."""

CHANCE = (
    "DRAWS",  # the kinds of draw, by name, in the order of their numbers
    "MAX_OUTCOMES",  # the most outcomes of one draw
    "DRAW_CONTEXT",  # the context's length
    "MAX_DRAWS",  # the most draws of one segment
    "DRAW_TURN_SLOT",  # where the context holds the turn (or bound) of the game
    "chance_primitives",  # () -> (draws, forced), compiled for their signatures
    "outcome_name",  # (rules, kind, outcome) -> the outcome in words
)
"""What a positions module that declares its draws provides."""

WORDS = "chance_words"
"""Optional, for a game without declared draws: (rules, policy, params, seed, game,
choices) -> for each segment of the game those choices play (one more than its
decisions), what was drawn there, in words ("" where nothing was)."""


def declares_draws(positions) -> bool:
    """Whether a game's positions module declares its draws (every name of CHANCE)."""
    return all(hasattr(positions, name) for name in CHANCE)


def draw_width(positions) -> int:
    """The length of one draw of the game whose positions module this is."""
    return DRAW_WEIGHTS + positions.MAX_OUTCOMES + positions.DRAW_CONTEXT
