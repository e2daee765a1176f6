"""The game's vocabulary as the statistics, reports and searches read it: its result
(`RESULT`), outcomes, labels, headline and summary outcomes, loss factors and measures."""

from __future__ import annotations

from bollesim.game.declaration import declared

GAME = declared()
RESULT = GAME.result

VICTORIES = RESULT.wins
"""The outcome flags a player wins by (Bøllebank: the four victory types of §8)."""


OUTCOMES = RESULT.outcome_names
"""Every outcome a rate is reported for: the wins, all of them, the loss, no result."""


HEADLINE = RESULT.headline
"""The outcomes drawn in the charts and ranked by best_trigger."""


SUMMARY = RESULT.summary
"""The outcomes of a run's or a cell's one-line summary (the command line's)."""


LABELS = RESULT.labels
"""Plain names for the outcomes (charts, tables, findings)."""


MINIMISE = RESULT.minimise
"""Outcomes a player wants less of."""


RESULT_COLUMNS = frozenset({"game", "seed", "policy", "cell", *RESULT.names, *OUTCOMES,
                            "ruleset", "ruleset_hash"})
"""The columns of a result row that are not policy parameters."""


LOSS_FACTORS = RESULT.loss_factors
"""What `defeat_breakdown` breaks losses down by (the weapon, the vehicle lost, where it
stood and the turn, for this game)."""


DISTRIBUTION_VARIABLES = RESULT.distributions
"""What `distributions` counts: measures of a game (result columns or their totals)."""


with_outcomes = RESULT.with_outcomes
"""with_outcomes(df): df with the derived outcome columns (those missing)."""
