"""The analysis of luck and errors with a learned value V standing in for rollouts where
its calibration allows (strong/calibration.py; docs/analyse.md, "The learned value").

At a decision, each option's value is V's mean over STEPS samples of the chance to the
next decision (the game's `step` primitive: the option, then rollout r's streams up to
the next decision, r the same for every option: common random numbers), V of the
decision reached, or the result where the game ends first. That is the option's value
under the stated player as rollouts give it, one step deep, wherever V is right. The
error's value and lower bound come from fresh rollouts of the best-looking option and the
taken one, as without V (estimates.error_of): V's error is the same on fresh samples of
V, so the option that looks best by V is where V errs upwards, a winner's curse that
only other estimates undo (measured: docs/analyse.md). A decision is valued so only
where V stands in at every sample's decision reached (the calibration's rule); the rest
are rolled out as without V.

The intervals count V's calibration error: each option's value carries, beside its
samples' standard error, the RMS over its samples of their bins' RMS error of V (its
upper bound; 0 for a sample where the game ended), as an independent error; the gap
between two options (to the stated player's choice, and so the chance between two
decisions) both options' in quadrature, and an error's upper bound (from V's paired
differences) √2 times the decision's largest. The
chance between two decisions is one event here (the cheap way, as without declared
draws): its luck is the next decision's value minus the option taken before it.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from bollesim.game.positions import POINT_CHOICE, POINT_KIND, POINT_OBS
from bollesim.strong import calibration as C
from bollesim.strong.analysis import Analyst
from bollesim.strong.value import features

VALUE_FILE = "analysis-value.json"  # a run folder's name for it (runfolder.WRITTEN)
STEPS = 8
"""Samples of the chance to the next decision per option: on Bøllebank 8 split the
variance as 32 did, for a third of the CPU (docs/analyse.md)."""
RULE = ("V stands in at a decision where every sample's next decision has V in a bin of "
        f"at least {C.MIN_STATES} check states whose RMS error of V (the check rollouts' "
        "noise taken out, its one-sided 95% upper bound) is below the standard deviation "
        "of the analysis's rollouts at the bin's mean, sqrt(p (1 - p) / R); elsewhere "
        "the options are rolled out")
INTERVALS = ("each value from V carries the RMS of its samples' bins' RMS error of V "
             "(upper bound) as an independent error beside its samples' standard error; a "
             "difference of two values both in quadrature (an error's upper bound, from V: "
             "sqrt(2) times the decision's largest; its value and lower bound come from "
             "fresh rollouts)")


class LearnedAnalyst(Analyst):
    """An Analyst whose option values come from V (value.Value or any callable of V's
    rows) where `calibration` (calibration.Calibration) lets it stand in, by `steps`
    samples per option; else from `rollouts` rollouts. The chance between two decisions
    is one event (draws=False)."""

    side_by_side = False  # by_value and by_rollouts count as the games go

    def __init__(self, game, rules, player, player_vector, objective, rollouts: int, value,
                 calibration: C.Calibration, steps: int = STEPS, threads: int | None = None,
                 **kw):
        super().__init__(game, rules, player, player_vector, objective, rollouts,
                         threads=threads, draws=False, **kw)
        self.value, self.calibration, self.steps = value, calibration, steps
        self.by_value = self.by_rollouts = 0
        self.observed = slice(POINT_OBS, POINT_OBS + self.positions.OBSERVATION_SIZE)
        self.about: dict = {}  # how V was fitted and checked (learned_analyst)

    @classmethod
    def like(cls, analyst: Analyst, value, calibration, steps: int = STEPS) -> LearnedAnalyst:
        """The learned analyst of the same game, ruleset, stated player and objective."""
        s = analyst.stated
        return cls(analyst.game, analyst.rules, s.base, s.base_vector, analyst.objective,
                   analyst.rollouts, value, calibration, steps, analyst.threads,
                   confidence=analyst.confidence)

    def _steps(self, seed: int, game: int, walked):
        point = walked[0]
        n = self.steps
        jobs = np.repeat(np.arange(len(point.options), dtype=np.int64), n)
        return self.stated.steps(seed, game, point, jobs, np.tile(np.arange(n, dtype=np.int64),
                                                                   len(point.options)))

    def _all_option_values(self, seed: int, game: int, walked, pool) -> list:
        """Each decision's (values, fresh, V's error) from V where it stands in (one call
        of V for the game's samples), else its rollouts (Analyst._option_values)."""
        stepped = list(pool.map(lambda w: self._steps(seed, game, w), walked))
        going = [points[:, POINT_CHOICE] >= 0 for points, _ in stepped]
        rows = [features(p[g, POINT_KIND], p[g][:, self.observed])
                for (p, _), g in zip(stepped, going, strict=True)]
        v = (np.asarray(self.value(np.concatenate(rows)), float) if rows
             else np.zeros(0))
        out, rolled, at = [], [], 0
        for k, ((_, results), g) in enumerate(zip(stepped, going, strict=True)):
            here, at = v[at : at + int(g.sum())], at + int(g.sum())
            if not self.calibration.stands_in(here).all():
                rolled.append(k)
                out.append(None)
                continue
            samples = results[:, : len(self.weights)] @ self.weights
            samples[g] = here
            errors = np.zeros(len(g))
            errors[g] = self.calibration.error(here)
            shaped = samples.reshape(len(walked[k][0].options), self.steps)
            out.append((shaped, None, np.sqrt(np.mean(errors.reshape(shaped.shape)**2, axis=1))))
        by_value = [k for k in range(len(out)) if out[k] is not None]
        for k, fresh in zip(by_value, pool.map(
                lambda k: self._fresh(seed, game, walked[k], out[k][0]), by_value), strict=True):
            out[k] = (out[k][0], fresh, out[k][2])
        for k, values in zip(rolled, pool.map(lambda k: self._option_values(seed, game, walked[k]),
                                              rolled), strict=True):
            out[k] = values
        self.by_value += len(walked) - len(rolled)
        self.by_rollouts += len(rolled)
        return out

    @property
    def share(self) -> float:
        """The share of the decisions analysed so far valued by V."""
        return self.by_value / max(1, self.by_value + self.by_rollouts)

    def value_words(self) -> str:
        """How the values were computed, in words."""
        c = self.calibration
        return (f"a learned value V at {self.share:.0%} of the decisions ({self.steps} samples "
                f"of the chance to the next decision per option, valued by V; V's calibration "
                f"on {c.states:,} held-out states: bias {c.bias:+.3f}, RMS error {c.rms:.3f}), "
                f"{self.rollouts} rollouts per option at the rest")

    def document(self) -> dict:
        """`learned_value` of the analysis's JSON: where V came from, its calibration,
        the rule, how the intervals count V's error, and the decisions it valued."""
        return {**self.about, "calibration": self.calibration.as_dict(), "rule": RULE,
                "intervals": INTERVALS, "steps": self.steps,
                "decisions_by_value": self.by_value, "decisions_by_rollouts": self.by_rollouts}

    def files(self, doc: dict) -> dict[str, dict]:
        """VALUE_FILE's document, for the run folder beside the analysis `doc`: V's
        calibration and V itself (LightGBM's model text, value.Value.read gives it back)."""
        keep = ("game", "data_sha256", "stated_player", "objective", "learned_value")
        return {VALUE_FILE: {**{k: doc.get(k) for k in keep},
                             "model": getattr(self.value, "text", None)}}


def learned_analyst(analyst: Analyst, policy, vector, seed: int, fit_games: int = C.FIT_GAMES,
                    own_games: int = C.OWN_GAMES, check_games: int = C.CHECK_GAMES,
                    say=None) -> LearnedAnalyst:
    """V fitted on the states of `fit_games` games `policy` (at `vector`) plays of `seed`
    and of `own_games` of the stated player, calibrated on those of `check_games` others
    (calibration.py), and the analyst that uses it; say(line): the calibration in words."""
    if not analyst.objective.is_rate:
        raise ValueError("a learned value needs an objective of one outcome")
    with ThreadPoolExecutor(analyst.threads) as pool:
        started = time.monotonic()
        value, fitted = C.fit(analyst, policy, vector, seed, fit_games, own_games, pool=pool)
        fit_seconds = time.monotonic() - started
        calibration = C.check(analyst, value, policy, vector, seed, check_games, pool=pool)
    learned = LearnedAnalyst.like(analyst, value, calibration)
    learned.about = {
        "value": f"LightGBM on the decision's kind and observation, {value.trees} trees "
                 "(bollesim/strong/value.py)",
        "fit": {"policy": policy.name, "seed": seed, "games": [C.FIT, C.FIT + fit_games],
                "labels": C.LABELS, "own_games": own_games, "own_seed": seed + C.OWN,
                "rows": fitted, "seconds": round(fit_seconds, 2)},
        "check": {"policy": policy.name, "seed": seed, "games": [C.CHECK, C.CHECK + check_games],
                  "states": calibration.states, "rollouts": calibration.check_rollouts,
                  "seconds": round(time.monotonic() - started - fit_seconds, 2)},
    }
    if say:
        for line in calibration.lines():
            say(line)
    return learned
