"""The game's vocabulary as the statistics, reports and searches read it, looked up when
read (PEP 562): `vocabulary.OUTCOMES` is the outcomes of the game being played now
(`declared()`, which honours `declaration.playing(NAME)`), so one process can analyse
several games. Read the names inside functions, never into module constants or defaults.

==========================  ==========================================================
name                        what it is (of the game being played)
==========================  ==========================================================
GAME                        the game's declaration (bollesim.game.declaration.Game)
RESULT                      its result declaration (Game.result)
VICTORIES                   the outcome flags a player wins by (Bøllebank: the four
                            victory types of §8)
OUTCOMES                    every outcome a rate is reported for: the wins, all of
                            them, the loss, no result
HEADLINE                    the outcomes drawn in the charts and ranked by best_trigger
SUMMARY                     the outcomes of a run's or a cell's one-line summary
LABELS                      plain names for the outcomes (charts, tables, findings)
MINIMISE                    outcomes a player wants less of
RESULT_COLUMNS              the columns of a result row that are not policy parameters
LOSS_FACTORS                what `defeat_breakdown` breaks losses down by
DISTRIBUTION_VARIABLES      what `distributions` counts: measures of a game
with_outcomes               with_outcomes(df): df with the derived outcome columns
==========================  ==========================================================
"""

from __future__ import annotations

from bollesim.game.registry import declared

_FROM_RESULT = {
    "VICTORIES": "wins",
    "OUTCOMES": "outcome_names",
    "HEADLINE": "headline",
    "SUMMARY": "summary",
    "LABELS": "labels",
    "MINIMISE": "minimise",
    "LOSS_FACTORS": "loss_factors",
    "DISTRIBUTION_VARIABLES": "distributions",
    "with_outcomes": "with_outcomes",
}

NAMES = ("GAME", "RESULT", "RESULT_COLUMNS", *_FROM_RESULT)
"""The names this module resolves when read."""


def __getattr__(name: str):
    if name == "GAME":
        return declared()
    if name == "RESULT":
        return declared().result
    if name == "RESULT_COLUMNS":
        result = declared().result
        return frozenset({"game", "seed", "policy", "cell", *result.names, *result.outcome_names,
                          "ruleset", "ruleset_hash"})
    if name in _FROM_RESULT:
        return getattr(declared().result, _FROM_RESULT[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *NAMES])
