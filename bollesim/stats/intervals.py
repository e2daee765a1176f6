"""Intervals and tests of binomial rates, from counts alone: the Wilson score interval,
the exact McNemar test and Newcombe's interval for a paired difference
(docs/architecture.md §7; tests/oracles.py restates each from its formula)."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.96
"""The normal quantile of a two-sided 95% interval."""


def wilson(successes, n, z: float = 1.96):
    """95% (by default) Wilson score interval for a binomial proportion.

    successes, n: ints, or numpy arrays of the same shape (broadcast). Returns (low, high):
    floats for scalar input, float64 arrays otherwise. n = 0 gives (nan, nan). The bounds
    are exactly 0 when successes = 0 and exactly 1 when successes = n.

        wilson(5, 10)   # (0.2366, 0.7634)
    """
    k = np.asarray(successes, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    if np.any(k < 0) or np.any(k > m):
        raise ValueError("wilson: need 0 <= successes <= n")
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / m
        z2 = z * z
        denom = 1.0 + z2 / m
        centre = (p + z2 / (2.0 * m)) / denom
        half = z * np.sqrt(p * (1.0 - p) / m + z2 / (4.0 * m * m)) / denom
        low = np.where(k == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
        high = np.where(k == m, 1.0, np.clip(centre + half, 0.0, 1.0))
    low = np.where(m > 0, low, np.nan)
    high = np.where(m > 0, high, np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts b (A only) and c (B only):
    a binomial test of min(b, c) out of b + c at one half."""
    m = int(b) + int(c)
    if m == 0:
        return 1.0
    lo = min(int(b), int(c))
    i = np.arange(lo, dtype=np.float64)
    log_terms = np.concatenate([[0.0], np.cumsum(np.log((m - i) / (i + 1.0)))])  # log C(m, j)
    log_terms -= m * math.log(2.0)
    top = log_terms.max()
    tail = math.exp(top) * float(np.exp(log_terms - top).sum())
    return min(1.0, 2.0 * tail)


def newcombe_paired(n11: int, n10: int, n01: int, n00: int, z: float) -> tuple[float, float]:
    """Interval for p_a - p_b on paired binary data (Newcombe 1998, method 10: the Wilson
    intervals of both margins combined with the correlation of the pairs)."""
    n = n11 + n10 + n01 + n00
    if n == 0:
        return math.nan, math.nan
    pa, pb = (n11 + n10) / n, (n11 + n01) / n
    la, ua = wilson(n11 + n10, n, z)
    lb, ub = wilson(n11 + n01, n, z)
    margins = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    excess = n11 * n00 - n10 * n01  # with Newcombe's continuity correction of phi:
    if excess > n / 2:
        excess -= n / 2
    elif excess >= 0:
        excess = 0
    phi = excess / math.sqrt(margins) if margins > 0 else 0.0
    d = pa - pb
    da, db = pa - la, ub - pb  # distances to the margins' Wilson bounds, lower side
    low = d - math.sqrt(max(da * da - 2 * phi * da * db + db * db, 0.0))
    da, db = pb - lb, ua - pa  # upper side
    high = d + math.sqrt(max(da * da - 2 * phi * da * db + db * db, 0.0))
    return max(low, -1.0), min(high, 1.0)


def paired_rates(x_a: np.ndarray, x_b: np.ndarray, z: float, alpha: float) -> dict:
    """Two paired binary samples compared: both rates with their Wilson intervals, the
    difference A - B with Newcombe's interval, the discordant counts and the exact
    McNemar p-value (significant below alpha)."""
    x_a, x_b = x_a.astype(bool), x_b.astype(bool)
    n = int(x_a.size)
    n11 = int(np.sum(x_a & x_b))
    n10 = int(np.sum(x_a & ~x_b))
    n01 = int(np.sum(~x_a & x_b))
    n00 = n - n11 - n10 - n01
    ka, kb = n11 + n10, n11 + n01
    low, high = newcombe_paired(n11, n10, n01, n00, z)
    p = mcnemar_exact(n10, n01)
    a_low, a_high = wilson(ka, n, z)
    b_low, b_high = wilson(kb, n, z)
    return {
        "n": n, "rate_a": ka / n, "a_low": a_low, "a_high": a_high,
        "rate_b": kb / n, "b_low": b_low, "b_high": b_high,
        "diff": (ka - kb) / n, "diff_low": low, "diff_high": high,
        "only_a": n10, "only_b": n01, "p_value": p, "significant": p < alpha,
    }
