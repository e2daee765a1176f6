"""How much of the game is skill: the relative skill of Dreef, Borm and van der Genugten
(2004), from three players' rates on the same games (docs/skill.md).

A beginner (here: the random player), the best honest player found, and a fictive player
who knows the chance outcomes in advance (here: the clairvoyant bound). The learning
effect is what skill adds over the beginner, the random effect what foreknowledge adds
over the best player; the relative skill is the learning effect's share of both:

    skill = (best - beginner) / (clairvoyant - beginner)

0: no player beats the beginner, the outcome is luck; 1: the best player does as well as
one who knows the future. As the best honest rate is at most the optimal player's and the
clairvoyant's at least the fictive player's, the value is a lower bound on the game's
relative skill for that outcome. For an outcome to avoid (defeat) the rates are turned
into 1 - rate first, so that higher is better for all three.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bollesim.game.result import Result


@dataclass(frozen=True)
class Rate:
    """A rate and its 95% interval."""

    rate: float
    low: float
    high: float


def relative_skill(beginner: float, best: float, clairvoyant: float) -> float:
    """(best - beginner) / (clairvoyant - beginner), clipped to 0..1; nan when the
    clairvoyant does no better than the beginner (nothing to share)."""
    gap = clairvoyant - beginner
    if gap <= 0:
        return math.nan
    return min(max((best - beginner) / gap, 0.0), 1.0)


def relative_skill_interval(beginner: Rate, best: Rate, clairvoyant: Rate) -> tuple[float, float]:
    """The relative skill at the ends of the three rates' 95% intervals that make it
    smallest and largest (it rises with best and falls with beginner and clairvoyant):
    a conservative interval, wider than 95%."""
    low = relative_skill(beginner.high, best.low, clairvoyant.high)
    high = relative_skill(beginner.low, best.high, clairvoyant.low)
    return low, high


def luck_share(best: float, clairvoyant: float) -> float:
    """The share of games no honest player is shown to win but foreknowledge could: the
    clairvoyant's rate minus the best honest player's (points of the rate, 0..1)."""
    return max(clairvoyant - best, 0.0)


def as_good(result: Result, outcome: str, rate: Rate) -> Rate:
    """The rate of an outcome of the game's result as a rate to maximise: one to avoid
    (defeat) becomes 1 - it."""
    if outcome in result.minimise:
        return Rate(1.0 - rate.rate, 1.0 - rate.high, 1.0 - rate.low)
    return rate
