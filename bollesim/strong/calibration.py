"""A learned value V for the analysis of luck and errors (strong/analysis.py), fitted and
calibrated against rollouts of the stated player, written once against a game's declared
decision points (docs/analyse.md, "The learned value").

States. The decisions a played policy meets in games of its own (each with the stated
player S's choice there, as Analyst.walk gives them), and beside each one the next
decision after another option, found on the game's own tape: the states the analysis
values with V, those on the played path and those one option off it. The fit's games and
the check's are game numbers no run plays (FIT and CHECK of the run's seed), so the
check's states are held out from V's fit and from the games analysed.

Fit. V (value.py: LightGBM on the decision's kind and observation) learns the objective
from the fit's states, each labelled by LABELS rollouts of S from it (S's choice there,
then S plays on with fresh luck): unbiased labels of the value the analysis estimates.

Calibration. Each check state is valued by V and by CHECK_ROLLOUTS rollouts of S (their
standard error known). Per bin of V: the states, the bias (mean of V minus the rollouts'
mean), the mean and worst absolute difference, the share of states where V lies within
the rollouts' 95% interval, and V's own error: the root mean square of V minus the
rollouts' mean with the rollouts' noise taken out (E[(V - m)^2] - E[m(1-m)/(N-1)]), with
its one-sided 95% upper bound.

The rule: V stands in at a state whose V falls in a bin of at least MIN_STATES check
states where that upper bound is below the standard error of the analysis's R rollouts
of a value at the bin's mean, sqrt(p (1 - p) / R). There V is at least as precise as
the rollouts it replaces, at 95% by the check. Its error is
not noise: it is the same in every game, so the values it gives carry it in their
standard error (learned.py) rather than average it away.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from bollesim.strong import estimates as E
from bollesim.strong import value as value_module
from bollesim.strong.replay import Position

BINS = 10  # bins of V, each a tenth of 0..1
MIN_STATES = 20  # the check states a bin needs for V to stand in there
CHECK_ROLLOUTS = 64  # rollouts of S per check state
LABELS = 2  # rollouts of S labelling each fit state
TREES = 100  # V's boosting rounds
FIT_GAMES, CHECK_GAMES = 200, 40
OWN_GAMES = 5_000  # the stated player's own games V is fitted on besides
OWN = 1 << 32  # their seed is the run's plus OWN
FIT = 3 << 40
"""The fit's games are FIT + g of the run's seed, the check's CHECK + g: numbers no run
plays (analysis.FRESH's whole games start at 1 << 40, below both)."""
CHECK = 4 << 40
UPPER = 1.6448536269514722  # the one-sided 95% quantile of the normal


@dataclass(frozen=True)
class State:
    """A decision to value: its point (strong/replay.py) and the stated player's choice."""

    point: object
    stated: int


def states(analyst, policy, vector, seed: int, game: int, off: bool = True) -> list[State]:
    """The decisions `policy` meets in game `game` of `seed`, and (off) beside each one
    the next decision after another option than the taken one (the next on the list,
    cyclically), on the game's own tape."""
    walked, _ = analyst.walk(policy, vector, seed, game)
    out = []
    for point, taken, stated in walked:
        out.append(State(point, stated))
        if off and len(point.options) > 1:
            other = (taken + 1) % len(point.options)
            _, after = analyst.stated.next_decision(
                seed, game, Position(point.at.snapshot, [*point.at.script, other]))
            if after is not None:
                out.append(State(after, after.base_choice))
    return out


def rollouts(analyst, seed: int, game: int, state: State, n: int) -> np.ndarray:
    """The objective of n rollouts of the stated player from the state (its choice there,
    then its play on rollout r's streams, r = 0 .. n - 1)."""
    rows = analyst.stated.rollout_rows(seed, game, state.point, np.full(n, state.stated),
                                       np.arange(n))
    return rows[:, : len(analyst.weights)] @ analyst.weights


def features_of(found: list[State]) -> np.ndarray:
    """The rows V reads of the states."""
    return value_module.features([s.point.kind for s in found], [s.point.obs for s in found])


def sampled(analyst, policy, vector, seed: int, first: int, games: int, n: int, pool):
    """(V's rows, the rollouts (states, n)) of the states of games first .. first + games - 1."""
    def one(g: int):
        found = states(analyst, policy, vector, seed, first + g)
        return (features_of(found),
                np.array([rollouts(analyst, seed, first + g, s, n) for s in found]).reshape(-1, n))

    parts = [p for p in pool.map(one, range(games)) if len(p[1])]
    if not parts:
        raise ValueError("the games meet no decision: nothing to fit or check")
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


@dataclass(frozen=True)
class _Rate:
    """The analysis's objective (one outcome) as value.decisions reads it."""

    weights: np.ndarray

    def won(self, row: np.ndarray) -> bool:
        return bool(row[: len(self.weights)] @ self.weights > 0.5)


def fit(analyst, policy, vector, seed: int, games: int = FIT_GAMES, own: int = OWN_GAMES,
        trees: int = TREES, pool=None):
    """(V fitted on the states of `games` games `policy` plays and of `own` games of the
    stated player (seed + OWN, labelled by their results), the number of states)."""
    x, y = sampled(analyst, policy, vector, seed, FIT, games, LABELS, pool)
    rows, labels = np.repeat(x, LABELS, axis=0), y.reshape(-1)
    if own:
        xo, yo = value_module.decisions(analyst.game, analyst.rules, _Rate(analyst.weights),
                                        analyst.stated.base, None, seed + OWN, own,
                                        analyst.threads)
        rows, labels = np.concatenate([rows, xo]), np.concatenate([labels, yo])
    return value_module.fit(rows, labels, trees, threads=analyst.threads), len(rows)


def rollout_se(p: float, r: int) -> float:
    """The standard deviation of the mean of r rollouts of a value p: what the analysis's
    rollouts err by at that value."""
    return float(np.sqrt(p * (1 - p) / r))


@dataclass(frozen=True)
class Bin:
    """One bin of V's calibration (the module docstring); `stands_in` by the rule."""

    low: float
    high: float
    states: int
    v_mean: float
    rollouts_mean: float
    bias: float
    mean_abs: float
    worst_abs: float
    within: float
    rms: float
    rms_high: float
    rollout_se: float
    stands_in: bool


def _empty(k: int) -> Bin:
    return Bin(k / BINS, (k + 1) / BINS, 0, *[np.nan] * 9, False)


def _errors(v: np.ndarray, m: np.ndarray, noise: np.ndarray) -> tuple[float, float]:
    """(V's RMS error with the rollouts' noise taken out, its one-sided 95% upper bound)."""
    t = (v - m) ** 2 - noise
    ms = float(t.mean())
    high = ms + UPPER * (float(t.std(ddof=1)) / np.sqrt(len(t)) if len(t) > 1 else 1.0)
    return float(np.sqrt(max(ms, 0.0))), float(np.sqrt(max(high, 0.0)))


@dataclass(frozen=True)
class Calibration:
    """V against rollouts on held-out states, for an analysis of `analysis_rollouts`."""

    bins: tuple[Bin, ...]
    states: int
    check_rollouts: int
    analysis_rollouts: int
    bias: float
    bias_se: float
    mean_abs: float
    worst_abs: float
    within: float
    rms: float
    rms_high: float

    def bin_of(self, v: np.ndarray) -> np.ndarray:
        return np.minimum((np.asarray(v, float) * BINS).astype(np.int64), BINS - 1)

    def stands_in(self, v: np.ndarray) -> np.ndarray:
        """Whether V stands in at states of these values (the rule)."""
        allowed = np.array([b.stands_in for b in self.bins])
        return allowed[self.bin_of(v)]

    def error(self, v: np.ndarray) -> np.ndarray:
        """V's error at states of these values: its bin's RMS error's upper bound."""
        return np.array([b.rms_high for b in self.bins])[self.bin_of(v)]

    @property
    def usable(self) -> float:
        """The share of the check states where V stands in."""
        return sum(b.states for b in self.bins if b.stands_in) / max(1, self.states)

    def as_dict(self) -> dict:
        return {**{k: v for k, v in asdict(self).items() if k != "bins"},
                "usable": self.usable, "bins": [asdict(b) for b in self.bins if b.states]}

    @classmethod
    def from_dict(cls, d: dict) -> Calibration:
        """The calibration as_dict gave (analysis-value.json's), back."""
        kept = {round(b["low"] * BINS): Bin(**{k: np.nan if v is None else v
                                               for k, v in b.items()}) for b in d["bins"]}
        bins = tuple(kept.get(k, _empty(k)) for k in range(BINS))
        return cls(bins, **{k: d[k] for k in ("states", "check_rollouts", "analysis_rollouts",
                                              "bias", "bias_se", "mean_abs", "worst_abs",
                                              "within", "rms", "rms_high")})

    def lines(self) -> list[str]:
        """The calibration in words, a row per bin."""
        out = [f"V against {self.check_rollouts} rollouts on {self.states} held-out states: "
               f"bias {self.bias:+.4f} (se {self.bias_se:.4f}), mean |V - rollouts| "
               f"{self.mean_abs:.3f}, worst {self.worst_abs:.3f}, within the rollouts' 95% "
               f"interval {self.within:.1%}, RMS error {self.rms:.3f} (up to "
               f"{self.rms_high:.3f}); V stands in at {self.usable:.0%} of them.",
               "  V bin     states  bias     mean|d|  worst   in 95%  RMS (up to)     "
               f"se of {self.analysis_rollouts} rollouts  stands in"]
        for b in self.bins:
            if b.states:
                out.append(f"  {b.low:.1f}-{b.high:.1f}  {b.states:>7}  {b.bias:+.4f}  "
                           f"{b.mean_abs:.4f}   {b.worst_abs:.3f}   {b.within:5.1%}  "
                           f"{b.rms:.4f} ({b.rms_high:.4f})  {b.rollout_se:.4f}"
                           f"{'':15}{'yes' if b.stands_in else 'no'}")
        return out


def calibrate(v: np.ndarray, outcomes: np.ndarray, analysis_rollouts: int,
              confidence: float = E.CONFIDENCE) -> Calibration:
    """V's calibration from its values v at the check states and their rollouts
    outcomes (states, N), for an analysis of `analysis_rollouts` rollouts."""
    v = np.asarray(v, float)
    n = outcomes.shape[1]
    m = outcomes.mean(axis=1)
    noise = m * (1 - m) / (n - 1)  # the variance of m, unbiased
    se = np.array([E.value(row).se for row in outcomes])
    z = E.z_of(confidence)
    d = v - m
    inside = np.abs(d) <= z * se
    bins, which = [], np.minimum((v * BINS).astype(np.int64), BINS - 1)
    for k in range(BINS):
        sel = which == k
        c = int(sel.sum())
        if c == 0:
            bins.append(_empty(k))
            continue
        rms, high = _errors(v[sel], m[sel], noise[sel])
        mean = float(m[sel].mean())
        r_se = rollout_se(mean, analysis_rollouts)
        bins.append(Bin(k / BINS, (k + 1) / BINS, c, float(v[sel].mean()), mean,
                        float(d[sel].mean()), float(np.abs(d[sel]).mean()),
                        float(np.abs(d[sel]).max()), float(inside[sel].mean()), rms, high, r_se,
                        c >= MIN_STATES and high <= r_se))
    rms, high = _errors(v, m, noise)
    return Calibration(tuple(bins), len(v), n, analysis_rollouts, float(d.mean()),
                       float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else np.nan,
                       float(np.abs(d).mean()), float(np.abs(d).max()), float(inside.mean()),
                       rms, high)


def check(analyst, value, policy, vector, seed: int, games: int = CHECK_GAMES,
          n: int = CHECK_ROLLOUTS, pool=None) -> Calibration:
    """V's calibration on the states of `games` held-out games (CHECK of `seed`), each
    valued by n rollouts of the stated player, for an analysis of analyst.rollouts."""
    x, outcomes = sampled(analyst, policy, vector, seed, CHECK, games, n, pool)
    return calibrate(value(x), outcomes, analyst.rollouts, analyst.confidence)
