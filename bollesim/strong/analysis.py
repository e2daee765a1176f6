"""Luck and errors of one game, as backgammon programs analyse a match (docs/analyse.md),
written once against a game's declared decision points and draws.

The unit is one objective (an outcome's probability), valued under a stated player S
(the game's strong player by default): the value of a position is the probability of the
objective if S plays on from it with fresh luck. At each decision of the game, each
option's value is the objective's mean over rollouts that take it and let S play on,
every option on the same rollout streams (common random numbers); the value of the
position is that of S's own choice there. A decision's **error** is the best option's
value minus the taken one's, with an interval; a lone option is a forced move. At each
chance event, the **luck** is the value after the actual outcome minus the expectation
over the outcomes the rules allow there: per declared draw (game/chance.py), each
outcome forced in turn; where a game declares no draws, the chance between two
decisions is one event, whose expectation is the value of the option taken before it
(its rollouts are samples of that chance played on by S).

The values telescope: the result minus the start value equals the summed luck minus the
summed errors, plus the residual, which holds S's own shortfall at the game's decisions
(the best option's value minus S's choice's: 0 for a player who plays best) and the
estimates' noise. With an exact value (a game's dynamic programme, say) and S playing
best, every term is exact and the residual is 0.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol

import numba
import numpy as np

from bollesim.game.chance import WORDS, declares_draws
from bollesim.game.result import Objective
from bollesim.strong import estimates as E
from bollesim.strong.chance import Chance, Draw
from bollesim.strong.estimates import ROLLOUTS, Error, Estimate
from bollesim.strong.lookahead import Lookahead, option_jobs
from bollesim.strong.replay import Placed

FRESH = 1 << 40
"""The start value's rollouts are whole games of S with these game numbers and up,
game g's from FRESH + g * MAX_START (numbers no run reaches)."""
MAX_START = 1 << 20
PARTS = 1 << 15
"""The most rollouts one kernel call of an analysis runs (its rows are held at once)."""


class Exact(Protocol):
    """A game's exact values under the stated player (a dynamic programme's, say)."""

    def start(self) -> float:
        """The value before the game's first chance."""

    def options(self, kind: int, obs: np.ndarray, options: np.ndarray) -> np.ndarray:
        """The value of each option of a decision."""

    def outcomes(self, kind: int, context: np.ndarray, n: int) -> np.ndarray:
        """The value after each of the n outcomes of a draw (its context: game/chance.py)."""


def objective_of(result, name: str | None = None) -> Objective:
    """The objective of one declared outcome flag (default: the game's main outcome)."""
    from bollesim.errors import UsageError

    name = name or result.main
    if name not in result.flags:
        raise UsageError(f"--objective must be one of {', '.join(result.flags)}, not {name!r}")
    return Objective(result.outcome(name).label, {name: 1})


@dataclass(frozen=True)
class DecisionStep:
    """A decision of the game: its options' values, the option taken, the stated player's
    choice and the error (0 for a forced move)."""

    number: int  # the decisions asked before it
    turn: int
    kind: int
    options: np.ndarray  # as the game codes them
    taken: int
    stated: int
    values: tuple[Estimate, ...]
    error: Error
    shortfall: float  # the best option's value minus the stated player's choice's
    gap: Estimate  # the stated player's choice's value minus the taken one's, paired

    @property
    def forced(self) -> bool:
        return len(self.options) == 1

    @property
    def value(self) -> Estimate:
        """The position's value: the stated player's choice's."""
        return self.values[self.stated]


@dataclass(frozen=True)
class ChanceStep:
    """A chance event: one declared draw, or (draw None) the chance between two decisions
    as one event; the value before it (the expectation over its outcomes) and after it."""

    segment: int  # the decisions taken before it
    turn: int
    draw: Draw | None
    before: Estimate
    after: Estimate
    luck: Estimate
    words: str = ""  # what was drawn, where the game says


@dataclass
class GameAnalysis:
    """One game analysed: its steps in the order they came, the start value and the result."""

    seed: int
    game: int
    row: np.ndarray
    outcome: float  # the objective's value of the result
    start: Estimate
    steps: list = field(default_factory=list)
    exact: bool = False

    @property
    def decisions(self) -> list[DecisionStep]:
        return [s for s in self.steps if isinstance(s, DecisionStep)]

    @property
    def chances(self) -> list[ChanceStep]:
        return [s for s in self.steps if isinstance(s, ChanceStep)]

    @property
    def per_draw(self) -> bool:
        return any(c.draw is not None for c in self.chances)

    @property
    def luck(self) -> Estimate:
        """The summed luck. Its standard error: the draws' estimates are independent; the
        chance between two decisions as one event telescopes to the result minus the start
        minus each decision's gap, so only those are noise."""
        value = sum(c.luck.value for c in self.chances)
        if self.per_draw:
            return Estimate(value, float(np.hypot.reduce([0.0, *(c.luck.se for c in self.chances)])))
        gaps = [self.start.se, *(d.gap.se for d in self.decisions)]
        return Estimate(value, float(np.hypot.reduce([0.0, *gaps])))

    @property
    def errors(self) -> float:
        return sum(d.error.value for d in self.decisions)

    @property
    def shortfall(self) -> float:
        return sum(d.shortfall for d in self.decisions)

    @property
    def residual(self) -> float:
        """result - start - (summed luck - summed errors)."""
        return self.outcome - self.start.value - (self.luck.value - self.errors)

    @property
    def residual_se(self) -> float:
        """The residual's standard error (as the summed luck's, with the errors')."""
        errors = [d.error.se for d in self.decisions]
        if self.per_draw:
            return float(np.hypot.reduce([0.0, self.start.se, self.luck.se, *errors]))
        return float(np.hypot.reduce([0.0, *errors, *(d.gap.se for d in self.decisions)]))

    def swings(self, k: int = 3) -> list:
        """The k steps that moved the value most: a draw by its luck, a decision by its
        error."""
        def size(s) -> float:
            return abs(s.luck.value) if isinstance(s, ChanceStep) else s.error.value

        return sorted(self.steps, key=size, reverse=True)[:k]


class Lanes:
    """The threads one game's analysis deals its work to (map, as an executor's); one:
    the calling thread's alone."""

    def __init__(self, width: int):
        self.width = width
        self.pool = ThreadPoolExecutor(width) if width > 1 else None

    def map(self, fn, items):
        return self.pool.map(fn, items) if self.pool else map(fn, items)

    def __enter__(self) -> Lanes:
        return self

    def __exit__(self, *exc) -> None:
        if self.pool:
            self.pool.shutdown()


class Analyst:
    """The analysis of games of one game (a declaration.Game) under one ruleset: values
    under the stated player `player` (a DecidePolicy) at its parameter vector, for the
    objective, by `rollouts` rollouts each, or exact ones (an Exact for that player).
    draws=False: the chance between two decisions as one event even where the game
    declares its draws (cheaper: no rollouts of the draws' outcomes)."""

    side_by_side = True
    """Whether analyse_all may analyse games side by side (a learned value's analyst
    counts what V valued as it goes: one game at a time)."""

    def __init__(self, game, rules, player, player_vector, objective: Objective | None = None,
                 rollouts: int = ROLLOUTS, exact: Exact | None = None,
                 confidence: float = E.CONFIDENCE, threads: int | None = None,
                 draws: bool = True):
        self.game, self.rules = game, rules
        self.positions = game.positions_module
        self.objective = objective or objective_of(game.result)
        self.rollouts, self.exact, self.confidence = rollouts, exact, confidence
        self.stated = Lookahead(game, rules, rollouts, player, self.objective, player_vector)
        self.weights = self.objective.over(game.result.flags)
        self.chance = (Chance(self.positions, rules, player, player_vector, self.weights)
                       if draws and declares_draws(self.positions) else None)
        self.threads = threads or numba.get_num_threads()

    def walk(self, policy, vector, seed: int, game: int) -> tuple[list, np.ndarray]:
        """The game `policy` (a DecidePolicy at its parameter vector) plays: [(its point,
        the option it took, the stated player's choice there)], and its result row. Where
        a game asks a decision of one player and not of another (the Balkan Wars asks an
        arm's order only while the nearer of the player's own halt and the weapon's
        effective range is ahead), the stated player's choice
        at a decision it would not be asked is taken to be the played one's."""
        played = Lookahead(self.game, self.rules, 1, policy, self.objective, vector)
        row, points = played.walk(self.stated, seed, game)
        out = []
        for point, own in points:
            asked = (own is not None and own.kind == point.kind
                     and np.array_equal(own.obs, point.obs)
                     and np.array_equal(own.options, point.options))
            out.append((point, point.base_choice, own.base_choice if asked else point.base_choice))
        return out, row

    def analyse_all(self, games) -> Iterator[GameAnalysis]:
        """The games (policy, vector, seed, game), analysed `threads` side by side, one
        thread each (the Python between one game's kernel calls runs while the others
        roll out), yielded in their order: the same analyses as one by one."""
        if self.threads == 1 or not self.side_by_side:
            yield from (self.analyse(*g) for g in games)
            return
        with ThreadPoolExecutor(self.threads) as pool:
            pending: deque = deque()
            try:
                for g in games:
                    pending.append(pool.submit(self.analyse, *g, threads=1))
                    if len(pending) > self.threads:
                        yield pending.popleft().result()
                while pending:
                    yield pending.popleft().result()
            finally:  # interrupted: the games not begun are dropped, the running ones end
                for f in pending:
                    f.cancel()

    def analyse(self, policy, vector, seed: int, game: int, tell: bool = False,
                threads: int | None = None) -> GameAnalysis:
        """Game `game` of `seed` as `policy` at `vector` plays it, analysed, its rollouts
        on `threads` threads (default: the analyst's). tell: name what was drawn between
        two decisions where the game can (game/chance.py WORDS), and leave out the chance
        events where nothing was."""
        walked, row = self.walk(policy, vector, seed, game)
        words = None
        if tell and hasattr(self.positions, WORDS):
            words = getattr(self.positions, WORDS)(self.rules, policy, vector, seed, game,
                                                   [w[1] for w in walked])
        with Lanes(threads or self.threads) as pool:
            values = self._all_option_values(seed, game, walked, pool)
            segments = list(pool.map(lambda k: self._draws(seed, game, walked, k),
                                     range(len(walked) + 1)))
        outcome = float(row[: len(self.weights)] @ self.weights)
        quiet = words is not None and words[0] == "" and walked  # nothing drawn before it
        start = (self._decision(0, walked[0], values[0]).value if quiet and self.exact is None
                 else self._start(seed, game))
        analysis = GameAnalysis(seed, game, row, outcome, start, exact=self.exact is not None)
        before = analysis.start
        for k in range(len(walked) + 1):
            step = self._decision(k, walked[k], values[k]) if k < len(walked) else None
            after = step.value if step else Estimate(outcome)
            turn = self._turn(walked, k)
            if segments[k] is None:
                said = words[k] if words is not None else None
                if said != "":
                    analysis.steps.append(ChanceStep(k, turn, None, before, after, after - before,
                                                     said or ""))
            else:
                analysis.steps += segments[k]
            if step:
                analysis.steps.append(step)
                before = step.values[step.taken]
        return analysis

    def _turn(self, walked, k: int) -> int:
        slot = self.positions.TURN_SLOT
        point = walked[k][0] if k < len(walked) else walked[-1][0] if walked else None
        return int(point.obs[slot]) if point is not None else 0

    def _start(self, seed: int, game: int) -> Estimate:
        """The value before the game's first chance: S's objective over whole games of
        its own (FRESH), or the exact one."""
        if self.exact is not None:
            return Estimate(float(self.exact.start()))
        first = FRESH + game * MAX_START
        rows = [self.stated.next_decision(seed, first + r, self.stated.setup)[0]
                for r in range(self.rollouts)]
        return E.value(np.array(rows)[:, : len(self.weights)] @ self.weights)

    def _all_option_values(self, seed: int, game: int, walked, pool) -> list:
        """Each decision's _option_values, every decision's rollouts in a few kernel calls
        (_rolled) rather than two a decision (a learned value's analyst values them its
        own way: strong/learned.py)."""
        if self.exact is not None or not walked:
            return list(pool.map(lambda w: self._option_values(seed, game, w), walked))
        placed = Placed.of([w[0].at for w in walked])
        jobs = [option_jobs(len(w[0].options), self.rollouts) for w in walked]
        values = [v.reshape(len(w[0].options), self.rollouts) for v, w in zip(
            self._rolled(seed, game, placed, jobs, pool), walked, strict=True)]
        looked = [self._looked(w, v) for w, v in zip(walked, values, strict=True)]
        again = self._rolled(seed, game, placed, [self._fresh_jobs(k) for k in looked], pool)
        return [(v, self._freshly(v, k, f)) for v, k, f in zip(values, looked, again, strict=True)]

    def _rolled(self, seed: int, game: int, placed, jobs: list, pool) -> list[np.ndarray]:
        """The objective's value of each job of each decision (jobs[k]: decision k's
        (options, rollout numbers), at its position in `placed`), the jobs dealt out in
        turn to the pool's threads, PARTS jobs a call at most: the same values however
        many threads."""
        at = np.repeat(np.arange(len(jobs), dtype=np.int64), [len(o) for o, _ in jobs])
        options = np.concatenate([o for o, _ in jobs])
        numbers = np.concatenate([n for _, n in jobs])
        parts = max(pool.width, -(-len(at) // PARTS))

        def part(i: int) -> np.ndarray:
            rows = self.stated.spread_rows(seed, game, placed, at[i::parts], options[i::parts],
                                           numbers[i::parts])
            return rows[:, : len(self.weights)] @ self.weights

        values = np.zeros(len(at))
        for i, v in enumerate(pool.map(part, range(parts))):
            values[i::parts] = v
        return np.split(values, np.cumsum([len(o) for o, _ in jobs])[:-1])

    def _option_values(self, seed: int, game: int, walked):
        """The options' values: exact, or (rollouts 0 .. R - 1 of every option, rollouts
        R .. 2R - 1 of the best-looking, the taken and the stated player's options)."""
        point, taken, stated = walked
        if self.exact is not None:
            return np.asarray(self.exact.options(point.kind, point.obs, point.options), float)
        values = self.stated.values(seed, game, point)
        return values, self._fresh(seed, game, walked, values)

    def _fresh(self, seed: int, game: int, walked, values: np.ndarray) -> np.ndarray:
        """Rollouts R .. 2R - 1 of the best-looking option by `values` (options, samples),
        the taken one and the stated player's (nan for the other options)."""
        looked = self._looked(walked, values)
        options, numbers = self._fresh_jobs(looked)
        rows = self.stated.rollout_rows(seed, game, walked[0], options, numbers)
        return self._freshly(values, looked, rows[:, : len(self.weights)] @ self.weights)

    @staticmethod
    def _looked(walked, values: np.ndarray) -> list[int]:
        """The options rolled out again: the best-looking by `values`, the taken one and the
        stated player's."""
        _, taken, stated = walked
        return sorted({int(np.argmax(values.mean(axis=1))), taken, stated})

    def _fresh_jobs(self, looked: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """(options, rollout numbers): rollouts R .. 2R - 1 of each looked-at option; none
        where one option is (the best-looking is the one taken and the stated player's:
        the error and the shortfall are 0 whatever its fresh rollouts draw)."""
        r = self.rollouts if len(looked) > 1 else 0
        return (np.repeat(np.array(looked, dtype=np.int64), r),
                np.tile(np.arange(r, 2 * r, dtype=np.int64), len(looked)))

    def _freshly(self, values: np.ndarray, looked: list[int], again: np.ndarray) -> np.ndarray:
        """The fresh rollouts' values (options, R): the looked-at options', nan elsewhere
        (0 for a lone one, not rolled out again)."""
        fresh = np.full((len(values), self.rollouts), np.nan)
        fresh[looked] = again.reshape(len(looked), self.rollouts) if len(again) else 0.0
        return fresh

    def _decision(self, number: int, walked, values) -> DecisionStep:
        point, taken, stated = walked
        turn = int(point.obs[self.positions.TURN_SLOT])
        if self.exact is not None:
            exact = tuple(Estimate(float(v)) for v in values)
            return DecisionStep(number, turn, point.kind, point.options, taken, stated, exact,
                                E.exact_error(values, taken), float(values.max() - values[stated]),
                                Estimate(float(values[stated] - values[taken])))
        values, fresh, *more = values  # more: a learned value's error (strong/learned.py)
        extra = np.asarray(more[0]) if more else np.zeros(len(values))  # per option
        estimates = tuple(E.widened(E.value(v), x) for v, x in zip(values, extra, strict=True))
        error = E.error_of(values, fresh, taken, self.confidence, np.sqrt(2) * float(extra.max()))
        shortfall = float((fresh[error.against] - fresh[stated]).mean())
        gap = (Estimate(0.0) if stated == taken else
               E.widened(E.difference(values[stated] - values[taken]),
                         float(np.hypot(extra[stated], extra[taken]))))
        return DecisionStep(number, turn, point.kind, point.options, taken, stated, estimates,
                            error, shortfall, gap)

    def _draws(self, seed: int, game: int, walked, k: int) -> list[ChanceStep] | None:
        """The declared draws of segment k (after k decisions), each with its luck; None
        for a game that declares none."""
        if self.chance is None:
            return None
        if k == 0:
            snapshot, script = self.positions.SETUP, []
        else:
            point, taken, _ = walked[k - 1]
            snapshot, script = point.at.snapshot, [*point.at.script, taken]
        slot = self.positions.DRAW_TURN_SLOT
        out = []
        for draw in self.chance.draws(seed, game, snapshot, script):
            if self.exact is not None:
                values = np.asarray(self.exact.outcomes(draw.kind, draw.context, len(draw.weights)))
                p = draw.weights / draw.weights.sum()
                before, after = Estimate(float(p @ values)), Estimate(float(values[draw.outcome]))
                luck = Estimate(after.value - before.value)
            else:
                values = self.chance.outcome_values(seed, game, snapshot, script, draw,
                                                    self.rollouts, self.stated.n_results)
                luck, before = E.luck_of(values, draw.weights, draw.outcome)
                after = E.value(values[draw.outcome])
            out.append(ChanceStep(k, int(draw.context[slot]), draw, before, after, luck))
        return out
