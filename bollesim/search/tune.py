"""`bollesim tune SPEC`: the smallest change to the rules that meets a designer's targets,
searched on common random numbers (tune_spec.py: the spec; tune_space.py: the knobs).

Smallest first. Stage 0 plays the spec's rules unchanged; stage k every change of
exactly k knobs (every knob moved from its start), k = 1 .. max_keys; a stage that finds
a change meeting every target on the search games ends the search, so a change of fewer
keys always wins. Within a stage, a set of knobs whose grid of changes has at most
`candidates` points is played in order of distance (nearest first); a larger one is
searched by optuna's TPE sampler (seeded by the spec's seed), which learns where the
target error is small. Once a change meets the targets, no change of that stage at the
same or a larger distance is played. Sets of two or more knobs are tried in the order of
their members' best single-knob errors.

Racing: every change plays games 0.. of the search seed, the same games for every change
and player (common random numbers), in rungs of trial_games / 3**i games (optimise's
rungs); after each rung it is dropped when a target is clearly missed: its estimate's
DROP_Z standard errors all lie outside the target's band. A change meets the targets
when it plays all trial_games and every estimate lies in its band.

The search never plays the holdout seed: certify.py replays the proposals there.
"""

from __future__ import annotations

import itertools
import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from bollesim.batch.options import RunOptions
from bollesim.game.declaration import Ruleset
from bollesim.search.race import DROP_Z, STARTUP_SHARE, rung_sizes
from bollesim.search.tune_space import ruleset_of_change
from bollesim.search.tune_spec import Tune

ETA = 3
"""Each rung plays three times the games of the one before, as optimise's default."""


@dataclass
class Trial:
    """One change played on the search games: knob index -> value, its size, and its
    estimate of every target on the games it played."""

    change: dict[int, object]
    distance: float
    games: int = 0
    means: np.ndarray | None = None
    ses: np.ndarray | None = None
    kept: bool = False  # played every rung
    refused: str = ""  # the rules' one line when the loader refuses the change

    @property
    def keys(self) -> int:
        return len(self.change)

    def error(self, tune: Tune) -> float:
        """How far the estimate lies outside the targets' bands (the worst, in rate units)."""
        if self.means is None:
            return math.inf
        return max(max(0.0, -t.margin(m)) for t, m in zip(tune.targets, self.means, strict=True))

    def meets(self, tune: Tune) -> bool:
        return self.kept and self.error(tune) == 0.0


@dataclass
class Search:
    """The search's state: every trial in the order played and the search games spent."""

    tune: Tune
    options: RunOptions = field(default_factory=RunOptions)
    progress: Callable[[int], None] | None = None
    trials: list[Trial] = field(default_factory=list)
    played: int = 0
    seen: dict[tuple, Trial] = field(default_factory=dict)

    def scores(self, rules: Ruleset, first: int, stop: int) -> np.ndarray:
        """Per game and target (games, targets): the player's outcome (0/1), or for a gap
        the first player's minus the second's, on games first..stop-1 of the search seed."""
        self.played += (stop - first) * len(self.tune.players)
        return target_scores(self.tune, rules, self.tune.seed, first, stop, self.options,
                             self.progress)

    def trial_cost(self) -> int:
        return self.tune.trial_games * len(self.tune.players)

    def can_play(self) -> bool:
        return self.tune.search_games - self.played >= self.trial_cost()

    def play(self, change: dict[int, object]) -> Trial:
        """Race one change (once: a change asked for again is the trial already played)."""
        key = tuple(sorted(change.items()))
        if key in self.seen:
            return self.seen[key]
        tune = self.tune
        trial = Trial(dict(change), sum(tune.knobs[i].distance(v) for i, v in change.items()))
        self.seen[key] = trial
        self.trials.append(trial)
        rules = ruleset_of_change(tune.game, tune.rules, tune.knobs, change)
        if isinstance(rules, str):
            trial.refused = rules
            return trial
        x = np.empty((0, len(tune.targets)))
        for stop in rung_sizes(tune.trial_games, ETA):
            x = np.vstack([x, self.scores(rules, x.shape[0], stop)])
            trial.games = stop
            trial.means = x.mean(axis=0)
            trial.ses = x.std(axis=0, ddof=1) / math.sqrt(len(x))
            if clearly_missed(tune, trial.means, trial.ses):
                return trial
        trial.kept = True
        return trial


def target_scores(tune: Tune, rules: Ruleset, seed: int, first: int, stop: int,
                  options: RunOptions, progress) -> np.ndarray:
    """Every target's per-game score on games first..stop-1 of `seed` (see Search.scores)."""
    outcomes = player_outcomes(tune, rules, seed, first, stop, options, progress)
    return np.column_stack([
        outcomes[t.players[0]][t.outcome].to_numpy().astype(float)
        - (outcomes[t.players[1]][t.outcome].to_numpy().astype(float) if t.is_gap else 0.0)
        for t in tune.targets])


def player_outcomes(tune: Tune, rules: Ruleset, seed: int, first: int, stop: int,
                    options: RunOptions, progress, seconds: dict | None = None
                    ) -> dict[str, pl.DataFrame]:
    """Each player's games first..stop-1 of `seed` on `rules`, with every outcome column;
    `seconds` ({player: s}), if given, gets the time each player took."""
    from bollesim.batch.runner import simulate

    result = tune.game.result
    out = {}
    for name, player in tune.players.items():
        t0 = time.perf_counter()
        games = simulate(player.policy, stop - first, seed, params=player.params or None,
                         rules=rules, options=options, first_game=first,
                         progress=progress or False)
        if seconds is not None:
            seconds[name] = time.perf_counter() - t0
        out[name] = result.with_outcomes(games).with_columns(
            pl.col(o).fill_null(False) for o in result.outcome_names)
    return out


def clearly_missed(tune: Tune, means: np.ndarray, ses: np.ndarray) -> bool:
    """Whether some target's estimate, DROP_Z standard errors either way, lies wholly
    outside its band."""
    return any(m + DROP_Z * se < t.low or m - DROP_Z * se > t.high
               for t, m, se in zip(tune.targets, means, ses, strict=True))


@dataclass
class Found:
    """What the search found: every trial, the changes that met the targets on the search
    games (smallest first), the stage it ended in, its timing."""

    trials: list[Trial]
    meeting: list[Trial]
    stage: int
    games_searched: int
    seconds: float


def smallest(tune: Tune, trials: list[Trial]) -> list[Trial]:
    """The trials that meet every target on the search games, smallest change first:
    fewest keys, then least distance, then the widest margin."""
    ok = [t for t in trials if t.meets(tune)]
    return sorted(ok, key=lambda t: (t.keys, t.distance, -_margin(tune, t)))


def _margin(tune: Tune, trial: Trial) -> float:
    return min(t.margin(m) for t, m in zip(tune.targets, trial.means, strict=True))


def search(tune: Tune, *, options: RunOptions | None = None,
           progress: Callable[[int], None] | None = None) -> Found:
    """Stage by stage, fewest keys first, until a stage finds changes meeting the targets
    or the search games run out."""
    from bollesim.batch.runner import set_threads

    options = RunOptions.of(options)
    set_threads(options.threads)
    t0 = time.perf_counter()
    state = Search(tune, options, progress)
    state.play({})
    stage = 0
    while not smallest(tune, state.trials) and stage < tune.max_keys and state.can_play():
        stage += 1
        single = _single_errors(tune, state.trials)
        subsets = sorted(itertools.combinations(range(len(tune.knobs)), stage),
                         key=lambda s: sum(single.get(i, math.inf) for i in s) if stage > 1 else 0)
        for subset in subsets:
            if not state.can_play():
                break
            _search_subset(state, subset)
    return Found(state.trials, smallest(tune, state.trials), stage, state.played,
                 time.perf_counter() - t0)


def _single_errors(tune: Tune, trials: list[Trial]) -> dict[int, float]:
    """Each knob's least target error over the one-key changes played (the order in
    which sets of several knobs are tried)."""
    out: dict[int, float] = {}
    for t in trials:
        if t.keys == 1:
            (i,) = t.change
            out[i] = min(out.get(i, math.inf), t.error(tune))
    return out


def _limit(state: Search, keys: int) -> float:
    """The distance a change of `keys` knobs must stay below: that of the smallest change
    of as many keys found to meet the targets (inf before one is found)."""
    found = [t.distance for t in smallest(state.tune, state.trials) if t.keys == keys]
    return min(found, default=math.inf)


def _search_subset(state: Search, subset: tuple[int, ...]) -> None:
    tune = state.tune
    domains = [[v for v in tune.knobs[i].values if v != tune.knobs[i].base] for i in subset]
    size = math.prod(len(d) for d in domains)
    if size == 0:
        return
    if size <= tune.candidates:
        grid = [dict(zip(subset, combo, strict=True)) for combo in itertools.product(*domains)]
        grid.sort(key=lambda c: sum(tune.knobs[i].distance(v) for i, v in c.items()))
        for change in grid:
            distance = sum(tune.knobs[i].distance(v) for i, v in change.items())
            if distance >= _limit(state, len(subset)) or not state.can_play():
                return
            state.play(change)
        return
    _sample(state, subset, domains)


def _sample(state: Search, subset: tuple[int, ...], domains: list[list]) -> None:
    """optuna's TPE over the knobs of `subset`, minimising the target error (in points)
    plus the change's distance as a tie-break, each trial raced on the search games."""
    import optuna

    tune = state.tune
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    space = {}
    for i, domain in zip(subset, domains, strict=True):
        knob = tune.knobs[i]
        space[str(i)] = (optuna.distributions.IntDistribution(min(domain), max(domain))
                         if knob.numeric else optuna.distributions.CategoricalDistribution(domain))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(
            seed=(tune.seed + sum(subset)) % 2**32, multivariate=True,
            n_startup_trials=max(10, int(STARTUP_SHARE * tune.candidates)))
    study = optuna.create_study(direction="minimize", sampler=sampler)
    for _ in range(tune.candidates):
        if not state.can_play():
            return
        asked = study.ask(space)
        change = {i: asked.params[str(i)] for i in subset}
        distance = sum(tune.knobs[i].distance(v) for i, v in change.items())
        if any(v == tune.knobs[i].base for i, v in change.items()) \
                or distance >= _limit(state, len(subset)):
            study.tell(asked, state=optuna.trial.TrialState.PRUNED)
            continue
        trial = state.play(change)
        error = trial.error(tune)
        study.tell(asked, 100 * (error if math.isfinite(error) else 1.0) + 1e-3 * distance)


def label(tune: Tune, trial: Trial) -> str:
    """The change in words: "tracks.tank_to_hit from 7 to 8 and ..." ("no change")."""
    if not trial.change:
        return "no change"
    return " and ".join(tune.knobs[i].describe(tune.rules.data, v)
                        for i, v in sorted(trial.change.items()))
