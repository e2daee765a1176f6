"""The statistics of the analysis of luck and errors (strong/analysis.py): a value and its
standard error, a decision's error as an interval over its options' paired differences,
and a draw's luck from rollouts that share their streams across its outcomes.

Rollout values are the objective of one outcome, 0 or 1, so a mean over rollouts that
all agree has a sample variance of 0 where the truth is not certain. A probability's
mean counts one pseudo observation at each end of its range, 0 and 1, in its standard
error (Agresti and Coull's "add a success and a failure"). A paired difference, whose
rollouts mostly agree (common random numbers), keeps its sample standard error, but
where every pair agrees it takes the rule of three's: a difference no pair of R shows
is within 3 / R at 95%, so its standard error is 3 / (1.96 R). No standard error is 0
unless the value is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

CONFIDENCE = 0.95
ROLLOUTS = 256
"""Rollouts of each option of a decision (and of each outcome of a declared draw)."""
MANY_ROLLOUTS = 8
"""Rollouts when many games are analysed: each game's totals are noisier, but the noise is
independent of the games' own luck, so the variance split stays unbiased (2,000 Bøllebank
games take under ten minutes on two idle cores: docs/analyse.md)."""


def z_of(confidence: float, comparisons: int = 1) -> float:
    """The normal quantile of a two-sided interval at `confidence`, Bonferroni-corrected
    for `comparisons` intervals that must hold at once."""
    return NormalDist().inv_cdf(1 - (1 - confidence) / (2 * max(1, comparisons)))


@dataclass(frozen=True)
class Estimate:
    """A value and its standard error (0: exact)."""

    value: float
    se: float = 0.0

    def interval(self, z: float) -> tuple[float, float]:
        return self.value - z * self.se, self.value + z * self.se

    def __add__(self, other: Estimate) -> Estimate:
        """The sum of two independent estimates."""
        return Estimate(self.value + other.value, float(np.hypot(self.se, other.se)))

    def __sub__(self, other: Estimate) -> Estimate:
        """The difference of two independent estimates."""
        return Estimate(self.value - other.value, float(np.hypot(self.se, other.se)))


def value(samples: np.ndarray) -> Estimate:
    """A probability from rollouts of 0 or 1 (the module docstring says its error)."""
    x = np.asarray(samples, dtype=np.float64)
    padded = np.concatenate([x, [0.0, 1.0]])
    return Estimate(float(x.mean()), float(padded.std(ddof=1) / np.sqrt(padded.size)))


def difference(samples: np.ndarray) -> Estimate:
    """A difference of two probabilities from paired rollouts (each in -1..1), or any
    mean of such differences (the module docstring says its error)."""
    x = np.asarray(samples, dtype=np.float64)
    if np.ptp(x) == 0:
        return Estimate(float(x.mean()), 3 / (z_of(CONFIDENCE) * x.size))
    return Estimate(float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size)))


@dataclass(frozen=True)
class Error:
    """A decision's error: the best option's value minus the taken one's, its interval,
    the option it is measured against (the best-looking one) and the option shown best
    (None: no option is better than every other by the intervals)."""

    value: float
    low: float
    high: float
    against: int
    best: int | None
    se: float = 0.0

    @property
    def called(self) -> bool:
        """An error only where the interval excludes zero."""
        return self.low > 0


def widened(e: Estimate, extra: float) -> Estimate:
    """The estimate with an independent error of standard deviation `extra` added (a
    learned value's calibration error: strong/learned.py)."""
    return e if extra == 0 else Estimate(e.value, float(np.hypot(e.se, extra)))


def error_of(values: np.ndarray, fresh: np.ndarray, taken: int,
             confidence: float = CONFIDENCE, extra: float = 0.0) -> Error:
    """The error of taking option `taken`, from rollouts values[option, r] that share
    rollout r's streams across the options (common random numbers), and fresh[option, r]
    of the same options on rollouts of their own.

    The best of many noisy means is flattered by its luck (the winner's curse), so the
    best-looking option on `values` is measured against the taken one on `fresh`: that
    difference is the error's value (unbiased for that option; never above the true
    error but by noise) and its lower bound. The upper bound is the largest of the
    differences of every option over the taken one on `values` (their intervals hold at
    once: Bonferroni over the m - 1 of them). `extra`: an error of every difference on
    `values` beside their noise (widened), such as a learned value's."""
    m = values.shape[0]
    if m == 1:
        return Error(0.0, 0.0, 0.0, 0, 0)
    z = z_of(confidence, m - 1)
    means = values.mean(axis=1)
    against = int(np.argmax(means))
    highs = [widened(difference(values[i] - values[taken]), extra).interval(z)[1]
             for i in range(m) if i != taken]
    best = best_of(values, confidence, extra)
    if against == taken:
        return Error(0.0, 0.0, max(0.0, *highs), against, best)
    d = difference(fresh[against] - fresh[taken])
    low = max(0.0, d.interval(z_of(confidence))[0])
    return Error(d.value, low, max(low, *highs), against, best, d.se)


def best_of(values: np.ndarray, confidence: float = CONFIDENCE, extra: float = 0.0) -> int | None:
    """The option whose paired difference over every other one is positive by its
    interval (Bonferroni over the m - 1 comparisons); None when no option is."""
    m = values.shape[0]
    top = int(np.argmax(values.mean(axis=1)))
    z = z_of(confidence, m - 1)
    for j in range(m):
        if j != top:
            d = widened(difference(values[top] - values[j]), extra)
            if d.value - z * d.se <= 0:
                return None
    return top


def exact_error(values: np.ndarray, taken: int) -> Error:
    """The error from exact option values: best minus taken, the best named when it is
    strictly above every other."""
    top = int(np.argmax(values))
    unique = bool((values < values[top]).sum() == len(values) - 1)
    e = float(values[top] - values[taken])
    return Error(e, e, e, top, top if unique else None)


def luck_of(outcomes: np.ndarray, weights: np.ndarray, actual: int) -> tuple[Estimate, Estimate]:
    """(the draw's luck, the value before it) from rollouts outcomes[o, r] of each outcome
    sharing rollout r's streams: the actual outcome's value minus the expectation over
    the outcomes (probabilities weights / their sum), paired rollout by rollout."""
    p = np.asarray(weights, dtype=np.float64) / np.sum(weights)
    before = p @ outcomes
    return difference(outcomes[actual] - before), value(before)
