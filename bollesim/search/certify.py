"""Certification: every change a tune reports, and the rules it started from, replayed on
held-out games (the spec's holdout_seed, which the search never plays), each target
estimated there with a 95% interval.

A target is met when its held-out estimate lies in its band, and met at 95% when the
whole interval does; a change is a solution only when every target is met. The binding
target is the one with the least margin (the most missed, or the nearest its edge). Each
change's effect on every outcome of every player is its rate minus the starting rules'
on the same held-out games (Newcombe's paired interval).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from bollesim.batch.options import RunOptions
from bollesim.game.declaration import Ruleset
from bollesim.search.tune import player_outcomes
from bollesim.search.tune_spec import Target, Tune
from bollesim.stats.intervals import Z95, paired_rates, wilson


@dataclass(frozen=True)
class Estimate:
    """A target's held-out estimate: value, 95% interval, margin and verdict."""

    target: Target
    value: float
    low: float
    high: float

    @property
    def margin(self) -> float:
        return self.target.margin(self.value)

    @property
    def met(self) -> bool:
        return self.margin >= 0

    @property
    def sure(self) -> bool:
        """The whole 95% interval lies in the band."""
        return self.target.low <= self.low and self.high <= self.target.high


@dataclass(frozen=True)
class Certificate:
    """One ruleset replayed on the held-out games: each target's estimate and the games of
    each player (with every outcome column)."""

    estimates: tuple[Estimate, ...]
    games: dict[str, pl.DataFrame]
    seconds: dict[str, float]  # each player's time on the held-out games

    @property
    def solution(self) -> bool:
        return all(e.met for e in self.estimates)

    @property
    def sure(self) -> bool:
        return all(e.sure for e in self.estimates)

    @property
    def binding(self) -> Estimate:
        return min(self.estimates, key=lambda e: e.margin)


def certify(tune: Tune, rules: Ruleset, *, options: RunOptions | None = None,
            progress=None) -> Certificate:
    """`rules` replayed on holdout_games games of the held-out seed, every player."""
    seconds: dict[str, float] = {}
    games = player_outcomes(tune, rules, tune.holdout_seed, 0, tune.holdout_games, RunOptions.of(options),
                            progress, seconds)
    return Certificate(tuple(estimate(t, games) for t in tune.targets), games, seconds)


def estimate(target: Target, games: dict[str, pl.DataFrame]) -> Estimate:
    """A target's estimate on games: a rate with its Wilson interval, a gap with
    Newcombe's interval for a paired difference (the players played the same games)."""
    x = games[target.players[0]][target.outcome].to_numpy().astype(bool)
    if not target.is_gap:
        low, high = wilson(int(x.sum()), x.size)
        return Estimate(target, float(x.mean()), float(low), float(high))
    y = games[target.players[1]][target.outcome].to_numpy().astype(bool)
    cmp = paired_rates(x, y, Z95, 0.05)
    return Estimate(target, cmp["diff"], cmp["diff_low"], cmp["diff_high"])


def effects(tune: Tune, start: Certificate, changed: Certificate) -> pl.DataFrame:
    """Every outcome of every player under the change and under the starting rules, on
    the same held-out games: both rates with Wilson intervals and the difference with
    Newcombe's paired interval (one row per player and outcome)."""
    result = tune.game.result
    rows = []
    for name, player in tune.players.items():
        for outcome in result.outcome_names:
            before = start.games[name][outcome].to_numpy()
            after = changed.games[name][outcome].to_numpy()
            cmp = paired_rates(after, before, Z95, 0.05)
            rows.append({"player": player.label, "outcome": result.labels.get(outcome, outcome),
                         "before": before.mean(), "after": after.mean(),
                         **{k: cmp[k] for k in ("diff", "diff_low", "diff_high")}})
    return pl.DataFrame(rows)
