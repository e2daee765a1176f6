"""The penalised clairvoyant of any game that declares its decision points
(bollesim/game/relaxation.py says why it bounds every honest player): each game's own
tape, walked by replaying scripts of choices (Replayer.next_decision), with V a function
of the decision's kind and observation (value.py).

At a decision s, after the choice a, the tape's chance leads to the next decision s'
(or the game's end, where V is the result). The penalty there is V(s') - Q(s, a), with
Q(s, a) = E[V(s') | s, a] estimated by STEP samples (the game's `step` primitive,
Replayer.steps): the chance from
s to the next decision only, drawn on streams no player uses (numbered from INNER), the
same numbers for every option of s (common random numbers). V itself is exact (a
function of s'); only its expectation is sampled, over one step. The result cancels
against V at the end, so a line's penalised value is

    V(s_1) + sum over its decisions of Q(s, a) - V(s)

(no penalty before the first decision: one fewer mean-zero term changes no line's
ranking and no mean). An unbiased Q keeps the penalty's mean zero, so the max over lines
of this sum is still an upper bound; the max picks up Q's noise, which `replay` on fresh
samples measures. The max over lines is exact only over the whole tree, far beyond reach
here: a line found gives a lower estimate of it. A line chosen without the tape (the
option of highest Q at each decision, say) is an honest player's, whose penalised value
has its win rate for mean: it says nothing about the bound. The lines that tell are those
that use the tape, such as the plain clairvoyant's winning lines (`best_of`).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from multiprocessing import resource_tracker

import numpy as np

from bollesim.game.policy import DecidePolicy, load_policy
from bollesim.game.positions import POINT_CHOICE, POINT_KIND, POINT_OBS
from bollesim.strong.clairvoyant import WinObjective, win_objectives
from bollesim.strong.replay import Point, Position, Replayer
from bollesim.strong.value import Value, features

INNER = 1 << 22
"""The first rollout number of the inner samples (players number theirs from 0)."""
FRESH = 1 << 20
"""The offset of fresh inner samples: the same line valued again on other streams."""
MOST = 1 << 16
"""The most inner samples per option (INNER + FRESH + MOST stay below
rng.MAX_ROLLOUTS, the rollout numbers with streams of their own)."""


@dataclass(frozen=True)
class Line:
    """One line's penalised value (V at the first decision, plus Q - V at each decision
    it takes), its choices, its decisions, its result (won or not) and V at the first
    decision."""

    value: float
    line: tuple[int, ...]
    decisions: int
    won: bool
    start: float


class Penalised:
    """The penalised clairvoyant of a game (a Game that declares positions) for one
    ruleset and win objective: V `value`, `samples` STEP samples per option; `policy` (at
    `params`) plays the decisions a replay does not script (its choice is the line's
    where the line does not say). `offset` moves the samples to other streams (a fresh
    estimate of the same line)."""

    def __init__(self, game, rules, objective: WinObjective, policy: DecidePolicy,
                 params: dict | None, value: Value, samples: int, offset: int = 0):
        if not 1 <= samples <= MOST:
            raise ValueError(f"the inner samples need 1 to {MOST:,} samples per option")
        self.objective = objective
        self.value = value
        self.samples = samples
        self.first = INNER + offset
        self.player = Replayer(game, rules, policy, policy.param_vector(params))
        self.setup = game.positions_module.SETUP
        self.observed = slice(POINT_OBS, POINT_OBS + game.positions_module.OBSERVATION_SIZE)

    def v(self, point: Point) -> float:
        """V at a decision."""
        return float(self.value(features([point.kind], [point.obs]))[0])

    def q(self, seed: int, game: int, point: Point, options: np.ndarray) -> np.ndarray:
        """The estimate of Q(s, a) of each of `options` (indices): V's mean over its
        samples of the next decision, or the result where the game ends first."""
        n, m = len(options), self.samples
        jobs = np.repeat(np.asarray(options, dtype=np.int64), m)
        numbers = np.tile(np.arange(self.first, self.first + m, dtype=np.int64), n)
        points, rows = self.player.steps(seed, game, point, jobs, numbers)
        values = np.array([float(self.objective.won(row)) for row in rows])
        going = points[:, POINT_CHOICE] >= 0
        if going.any():
            values[going] = self.value(features(points[going, POINT_KIND],
                                                points[going, self.observed]))
        return values.reshape(n, m).mean(axis=1)

    def evaluate(self, seed: int, game: int, choose) -> Line:
        """Walk one line on the game's tape: at each decision, choose(point) is (the
        options whose Q is estimated, the index among them to take given their Q)."""
        row, point = self.player.next_decision(seed, game, Position(self.setup, []))
        if point is None:  # no decision: the game's one line
            won = self.objective.won(row)
            return Line(float(won), (), 0, won, float(won))
        start = self.v(point)
        total, line = 0.0, []
        while point is not None:
            looked, pick = choose(point)
            q = self.q(seed, game, point, looked)
            k = pick(q)
            total += q[k] - self.v(point)
            line.append(int(looked[k]))
            at = Position(point.at.snapshot, [*point.at.script, int(looked[k])])
            row, point = self.player.next_decision(seed, game, at)
        won = self.objective.won(row)
        return Line(start + total, tuple(line), len(line), won, start)

    def replay(self, seed: int, game: int, line: tuple[int, ...]) -> Line:
        """A given line's penalised value on these samples (the policy's choices after
        it)."""
        k = [0]

        def choose(point: Point):
            k[0] += 1
            take = line[k[0] - 1] if k[0] <= len(line) else point.base_choice
            return np.array([take]), lambda q: 0

        return self.evaluate(seed, game, choose)


def best_of(inner: list[Penalised], fresh: list[Penalised], seed: int, game: int,
            lines: list[tuple[int, tuple[int, ...]]]) -> tuple[float, float]:
    """(the highest penalised value on the inner samples among candidate lines (k, line):
    the line's choices, then inner[k]'s policy; the same line's value on fresh samples).
    The fresh value is unbiased for that line, so its mean over games is a lower estimate
    of the penalised bound (the max over every line)."""
    valued = [(inner[k].replay(seed, game, line).value, k, line) for k, line in lines]
    top, k, line = max(valued, key=lambda v: v[0])
    return top, fresh[k].replay(seed, game, line).value


@dataclass(frozen=True)
class Measure:
    """What `lower_estimates` plays, as plain data a worker process can rebuild it from:
    the game's name, the win objective's name (clairvoyant.win_objectives), the players
    whose lines are valued (policy name, parameters), V (value.Value.text) and the inner
    samples per option."""

    game: str
    objective: str
    players: tuple[tuple[str, dict | None], ...]
    value: str
    samples: int

    def build(self) -> tuple[list[Penalised], list[Penalised]]:
        """(the penalised players on the inner samples, the same on fresh ones), on the
        game's shipped ruleset."""
        from bollesim.game.registry import load_game

        game = load_game(self.game)
        rules, value = game.load_ruleset(), Value.read(self.value)
        objective = win_objectives(game.result)[self.objective]
        policies = [(load_policy(name, game.name), params) for name, params in self.players]
        return tuple([Penalised(game, rules, objective, policy, params, value, self.samples,
                                offset) for policy, params in policies] for offset in (0, FRESH))


_built: tuple[list[Penalised], list[Penalised]] | None = None
"""A worker process's players (`_start`)."""


def _start(measure: Measure) -> None:
    global _built
    _end_with_the_parent()
    _built = measure.build()


def _end_with_the_parent() -> None:
    """A worker ends when its parent does, however the parent ends (a worker holds the
    pool's queues open, so nothing else would end it)."""
    sentinel = multiprocessing.parent_process().sentinel

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="end-with-the-parent", daemon=True).start()


def _best_of(seed: int, game: int, lines: list[tuple[int, tuple[int, ...]]]) -> tuple[float, float]:
    return best_of(*_built, seed, game, lines)


def lower_estimates(measure: Measure, seed: int, lines: list[list[tuple[int, tuple[int, ...]]]],
                    processes: int = 2, first_game: int = 0) -> np.ndarray:
    """best_of of games first_game, first_game + 1, ... of `seed`, the k-th over its
    candidate lines lines[k]: an array (games, 2). In `processes` processes, each
    building its players once: the walk of a line is mostly Python, which threads would
    take turns at. Ctrl-C (or any error) ends the workers whatever they are doing: the
    games under way are dropped with those not begun."""
    games = range(first_game, first_game + len(lines))
    if processes <= 1:
        inner, fresh = measure.build()
        return np.array([best_of(inner, fresh, seed, g, c) for g, c in zip(games, lines, strict=True)])
    spawn = multiprocessing.get_context("spawn")  # no fork of a process with LightGBM's threads
    resource_tracker.ensure_running()  # before the hold: its launch unblocks SIGINT (CPython)
    pool, finished = None, False
    try:
        with _ctrl_c_held():  # the pool starts whole: its workers, and every chunk submitted
            pool = ProcessPoolExecutor(processes, mp_context=spawn, initializer=_start,
                                       initargs=(measure,))
            results = pool.map(partial(_best_of, seed), games, lines, chunksize=8)
        out = np.array(list(results))
        finished = True
        return out
    finally:
        if pool is not None:
            with _ctrl_c_held():  # a second Ctrl-C waits until the workers are gone
                _close(pool, finished)


def _close(pool: ProcessPoolExecutor, finished: bool) -> None:
    """Shut the pool down; unless its work is finished, kill its workers (a chunk under
    way may take minutes, and its result would be dropped), once the pool has been told
    to drop the work not begun: killed first, its manager thread could find them dead
    before it heard, and set an error on futures already cancelled (InvalidStateError,
    a traceback of Python 3.11's pool)."""
    workers = list((pool._processes or {}).values())  # Python 3.14: pool.kill_workers()
    manager = pool._executor_manager_thread
    pool.shutdown(wait=finished, cancel_futures=True)
    if not finished:
        for worker in workers:
            worker.kill()
        if manager is not None:
            manager.join()


@contextmanager
def _ctrl_c_held():
    """Ctrl-C held back while the block runs (in the main thread), and raised after it.

    Two holds, as a Ctrl-C at a terminal goes to every process of the group and, within
    this one, to any thread that does not block it:
    - SIGINT is blocked in this thread, and a process started from it keeps the block for
      good: the workers leave Ctrl-C to this process from their first instant (an ignore
      set by their initializer came after their imports, and a Ctrl-C in those seconds
      killed a worker and hung the pool);
    - the handler only notes it: the engine's and LightGBM's threads do not block SIGINT,
      and a Ctrl-C delivered to one of them is still handled in the main thread, as a
      KeyboardInterrupt raised wherever it is, inside the pool's start (a worker started
      but not yet counted by the pool lived on, holding the terminal's pipes, or died
      with a traceback, its semaphores gone)."""
    main = threading.current_thread() is threading.main_thread()
    noted = []
    if main:
        handler = signal.signal(signal.SIGINT, lambda signum, frame: noted.append(signum))
        handler = signal.default_int_handler if handler is None else handler  # set in C
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)  # a pending Ctrl-C: noted
        if main:
            signal.signal(signal.SIGINT, handler)
            if noted:
                signal.raise_signal(signal.SIGINT)  # to the handler as it was
