"""Many analysed games (strong/analysis.py): each game's luck and error totals, and how
much of the outcome's variance is luck and how much the player's.

Every game's result is its start value plus its summed luck, minus its summed errors,
plus its residual, so the outcome's variance splits exactly into the covariances of the
outcome with each term: luck's share is Cov(luck, outcome) / Var(outcome), the player's
is Cov(-errors, outcome) / Var(outcome), and what is left (start and residual) closes
the sum to 1. The rollouts' noise in each term is independent of the game's own chance,
so it widens these shares' intervals but does not bias them. The intervals are a
percentile bootstrap over games.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from bollesim.strong.account import error_mark
from bollesim.strong.analysis import GameAnalysis
from bollesim.strong.estimates import CONFIDENCE

RESAMPLES = 2000


def totals(analyses: list[GameAnalysis]) -> pl.DataFrame:
    """One row per game: its outcome, start, summed luck and errors, residual and the
    errors called by kind of mark."""
    rows = []
    for a in analyses:
        marks = [error_mark(d) for d in a.decisions if d.error.called]
        rows.append({
            "game": a.game, "seed": a.seed, "outcome": a.outcome, "start": a.start.value,
            "luck": a.luck.value, "luck_se": a.luck.se, "errors": a.errors,
            "residual": a.residual, "shortfall": a.shortfall,
            "decisions": sum(not d.forced for d in a.decisions),
            "errors_called": len(marks), "blunders": marks.count("blunder"),
            "draws": len(a.chances),
        })
    return pl.DataFrame(rows)


@dataclass(frozen=True)
class Share:
    value: float
    low: float
    high: float


@dataclass(frozen=True)
class Split:
    """The outcome's variance split into luck, the player's errors and the rest."""

    games: int
    variance: float
    luck: Share
    player: Share
    rest: Share


def _shares(y: np.ndarray, luck: np.ndarray, errors: np.ndarray) -> np.ndarray:
    v = y.var()
    if v == 0:
        return np.full(3, np.nan)
    cl = np.mean((luck - luck.mean()) * (y - y.mean())) / v
    ce = np.mean((errors - errors.mean()) * (y - y.mean())) / v
    return np.array([cl, -ce, 1 - cl + ce])


def variance_split(table: pl.DataFrame, confidence: float = CONFIDENCE,
                   resamples: int = RESAMPLES, seed: int = 0) -> Split | None:
    """The split of totals(...)'s games (None with fewer than two games or one outcome)."""
    y, luck, errors = (table[c].to_numpy().astype(float) for c in ("outcome", "luck", "errors"))
    if len(y) < 2 or y.var() == 0:
        return None
    point = _shares(y, luck, errors)
    picks = np.random.default_rng(seed).integers(0, len(y), size=(resamples, len(y)))
    boot = np.array([_shares(y[i], luck[i], errors[i]) for i in picks])
    q = (1 - confidence) / 2
    lo, hi = np.nanquantile(boot, q, axis=0), np.nanquantile(boot, 1 - q, axis=0)
    share = [Share(float(p), float(a), float(b)) for p, a, b in zip(point, lo, hi, strict=True)]
    return Split(len(y), float(y.var()), *share)


def split_lines(table: pl.DataFrame, split: Split | None, label: str) -> list[str]:
    """The many-games summary in words."""
    n = table.height
    mean = {c: table[c].mean() for c in ("outcome", "start", "luck", "errors", "residual")}
    out = [f"{n} games: '{label}' {mean['outcome']:.3f} on average; start {mean['start']:.3f}, "
           f"luck {mean['luck']:+.3f}, errors {mean['errors']:.3f}, residual "
           f"{mean['residual']:+.3f} per game (means).",
           f"Errors called: {table['errors_called'].sum()} in {table['decisions'].sum()} "
           f"decisions ({table['blunders'].sum()} blunders); each is called at 95%, so up to "
           f"2.5% of the decisions may be called by chance alone."]
    if split is None:
        return [*out, "The outcome is the same in every game: no variance to split."]
    def pc(s: Share) -> str:
        return f"{s.value:.0%} ({s.low:.0%}..{s.high:.0%})"
    return [*out, f"Of the outcome's variance ({split.variance:.3f}): luck {pc(split.luck)}, "
            f"the player's errors {pc(split.player)}, the rest (start and residual) "
            f"{pc(split.rest)}."]
