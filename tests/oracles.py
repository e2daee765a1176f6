"""The statistics bollesim reports, restated from their published formulas for the tests
to compare against (nothing here is imported from bollesim).

- Wilson score interval: E. B. Wilson (1927), JASA 22:209; Newcombe (1998), Stat. Med.
  17:857, method 3.
- Exact McNemar test: a two-sided binomial test of the discordant pairs at one half.
- A game's outcomes from its result columns (§8, §9): "all four victories" is every
  victory, "no result" is no victory and no defeat.
- Interval for a paired difference of proportions: Newcombe (1998), Stat. Med. 17:2635,
  method 10 (the Wilson intervals of both margins, combined with the phi coefficient of
  the 2x2 table, phi corrected for continuity).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

Z95 = 1.959963984540054  # the 97.5% point of the standard normal; bollesim rounds to 1.96


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The score interval of k successes in n: the p with (k/n - p)^2 <= z^2 p(1-p)/n,
    between the roots of a p^2 + b p + c = 0. The discriminant b^2 - 4ac is written as
    w (4 k/n (1 - k/n) + w), w = z^2/n, and the smaller root as c / q, so that no bound is
    a difference of nearly equal numbers."""
    if n == 0:
        return math.nan, math.nan
    p, w = k / n, z * z / n
    a, b, c = 1 + w, -(2 * p + w), p * p
    q = (-b + math.sqrt(w * (4 * p * (1 - p) + w))) / 2
    return c / q, min(q / a, 1.0)


def half_width(k: int, n: int, z: float = 1.96) -> float:
    low, high = wilson(k, n, z)
    return (high - low) / 2


def mcnemar(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value: twice the binomial(b + c, 1/2) tail at min(b, c),
    at most 1 (computed in fractions, exactly)."""
    m = b + c
    tail = sum(Fraction(math.comb(m, i), 2**m) for i in range(min(b, c) + 1))
    return float(min(Fraction(1), 2 * tail))


def paired_difference(n11: int, n10: int, n01: int, n00: int, z: float = 1.96):
    """(difference, low, high) of p_a - p_b for a 2x2 table of paired outcomes: n11 both,
    n10 only a, n01 only b, n00 neither (Newcombe's method 10)."""
    n = n11 + n10 + n01 + n00
    p_a, p_b = (n11 + n10) / n, (n11 + n01) / n
    l_a, u_a = wilson(n11 + n10, n, z)
    l_b, u_b = wilson(n11 + n01, n, z)
    a_b_c_d = n11 * n00 - n10 * n01
    corrected = max(a_b_c_d - n / 2, 0) if a_b_c_d > 0 else a_b_c_d
    margins = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    phi = corrected / math.sqrt(margins) if margins else 0.0
    d = p_a - p_b
    lower = math.sqrt(max((p_a - l_a) ** 2 - 2 * phi * (p_a - l_a) * (u_b - p_b)
                          + (u_b - p_b) ** 2, 0.0))
    upper = math.sqrt(max((u_a - p_a) ** 2 - 2 * phi * (u_a - p_a) * (p_b - l_b)
                          + (p_b - l_b) ** 2, 0.0))
    return d, max(d - lower, -1.0), min(d + upper, 1.0)


VICTORIES = ("operational", "tactical", "strategic", "political")


def outcome_hits(rows, outcome: str) -> np.ndarray:
    """Whether each game (in game order) had the outcome, from the result columns."""
    rows = rows.sort("game")
    wins = np.column_stack([rows[v].to_numpy() for v in VICTORIES]).astype(bool)
    defeat = rows["defeat"].to_numpy().astype(bool)
    if outcome == "perfect":
        return wins.all(axis=1)
    if outcome == "no_result":
        return ~wins.any(axis=1) & ~defeat
    return rows[outcome].to_numpy().astype(bool)
