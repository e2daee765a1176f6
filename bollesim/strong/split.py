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

from bollesim.game.chance import declares_draws
from bollesim.strong.account import Teller, error_mark
from bollesim.strong.analysis import ChanceStep, GameAnalysis
from bollesim.strong.estimates import CONFIDENCE

RESAMPLES = 2000
COSTLIEST = 10  # the largest errors a summary names
DRAW, DECISION = "draw", "decision"  # the two kinds of event a swing comes from
BETWEEN = "chance between two decisions"  # the kind of a segment not analysed draw by draw


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


def values_words(analyst) -> str:
    """How the values were computed, in words; and where a game declares its draws but
    they were not analysed one by one (analyse -n without --per-draw), that its chance
    between two decisions was one event."""
    words = ("exact values" if analyst.exact is not None else
             f"{analyst.rollouts} rollouts per option and outcome (rollouts only: no learned value)")
    if analyst.chance is None and declares_draws(analyst.positions):
        words += ("; the chance between two decisions as one event, not draw by draw "
                  "(--per-draw)")
    return words


def swings(analyst, analyses: list[GameAnalysis]) -> pl.DataFrame:
    """Where results are decided: per turn and kind of event (`event` DRAW or DECISION,
    `kind` the draw's or decision's name), the summed absolute luck of the draws or the
    summed errors of the decisions with two options or more (`swing`) and how many there
    were (`events`)."""
    positions, rows = analyst.positions, []
    for a in analyses:
        for s in a.steps:
            if isinstance(s, ChanceStep):
                kind = positions.DRAWS[s.draw.kind] if s.draw is not None else BETWEEN
                rows.append((s.turn, DRAW, kind, abs(s.luck.value)))
            elif not s.forced:
                rows.append((s.turn, DECISION, positions.KINDS[s.kind].replace("_", " "),
                             s.error.value))
    frame = pl.DataFrame(rows, schema={"turn": pl.Int64, "event": pl.String, "kind": pl.String,
                                       "swing": pl.Float64}, orient="row")
    return (frame.group_by("turn", "event", "kind")
            .agg(pl.col("swing").sum(), pl.len().cast(pl.Int64).alias("events"))
            .sort("turn", "event", "kind"))


def costliest(analyst, analyses: list[GameAnalysis], k: int = COSTLIEST) -> list[dict]:
    """The k largest errors called across the games (their intervals exclude zero), the
    largest first: game, turn, kind, the option taken and the one it is measured against
    in words, the error and its interval, its mark."""
    t = Teller(analyst)
    called = [(a, d) for a in analyses for d in a.decisions if d.error.called]
    called.sort(key=lambda ad: -ad[1].error.value)
    return [{"game": a.game, "seed": a.seed, "turn": d.turn,
             "decision": analyst.positions.KINDS[d.kind].replace("_", " "),
             "taken": t.option(d.kind, d.options[d.taken]),
             "against": t.option(d.kind, d.options[d.error.against]),
             "error": d.error.value, "low": d.error.low, "high": d.error.high,
             "mark": error_mark(d)} for a, d in called[:k]]


def summary(analyst, analyses: list[GameAnalysis], played: list[str],
            table: pl.DataFrame, split: Split | None) -> dict:
    """Many analysed games, played by the policies `played`, with their totals(...) and
    variance_split(...), as data (the JSON of `analyse -n`, a run folder's analysis.json):
    the stated player, the objective, how the values were computed, each game's totals,
    the split with its intervals, the swings by turn and kind (`swings`) and the
    costliest decisions."""
    return _rounded({
        "played_by": played,
        "stated_player": analyst.stated.base.name,
        "objective": analyst.objective.describe(),
        "values": ("exact" if analyst.exact is not None else
                   "learned" if hasattr(analyst, "document") else "rollouts"),
        "rollouts": None if analyst.exact is not None else analyst.rollouts,
        "learned_value": analyst.document() if hasattr(analyst, "document") else None,
        "values_words": (analyst.value_words() if hasattr(analyst, "value_words")  # learned.py
                         else values_words(analyst)),
        "confidence": analyst.confidence,
        "n_games": table.height,
        "games": table.to_dicts(),
        "variance": None if split is None else split.variance,
        "split": None if split is None else {
            k: vars(getattr(split, k)) for k in ("luck", "player", "rest")},
        "swings": swings(analyst, analyses).to_dicts(),
        "costliest": costliest(analyst, analyses),
    })


def _rounded(x):
    """Floats to 6 decimals, and not-a-number as None (JSON has none)."""
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_rounded(v) for v in x]
    if isinstance(x, float):
        return round(x, 6) if np.isfinite(x) else None
    return x
