"""A game replayed from its positions (bollesim/game/positions.py): the next decision
after a position, the chance to the next decision drawn off the game's tape, and rollouts
of a decision's options on streams of their own, each one call of strong/kernel.py's jobs;
a whole game's decisions, and rollouts at many positions, one call each (walk,
spread_rows: a call from Python costs more than a decision's rollouts at 8 each). The
lookahead player, the bounds, the step API and the analysis of luck and errors all walk a
game this way."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bollesim.game.policy import DecidePolicy
from bollesim.game.positions import POINT_CHOICE, POINT_KIND, POINT_N, POINT_OBS, point_width
from bollesim.strong import kernel as K


@dataclass(frozen=True)
class Position:
    """Where a game stands: a snapshot (the game's own) and the choices made since."""

    snapshot: np.ndarray
    script: list[int]


@dataclass(frozen=True)
class Point:
    """A decision put to the player: where it stands, its kind, its options, the
    observation it is taken on and the base policy's choice."""

    at: Position
    kind: int
    options: np.ndarray
    obs: np.ndarray
    base_choice: int


@dataclass(frozen=True)
class Placed:
    """Positions laid out for one kernel call of rollouts at any of them (spread_rows):
    their snapshots, and their scripts one after the other, position p's from ends[p] to
    ends[p + 1]."""

    starts: np.ndarray
    scripts: np.ndarray
    ends: np.ndarray

    @classmethod
    def of(cls, positions: list[Position]) -> Placed:
        ends = np.zeros(len(positions) + 1, dtype=np.int64)
        ends[1:] = np.cumsum([len(p.script) for p in positions])
        scripts = np.array([c for p in positions for c in p.script], dtype=np.int64)
        return cls(np.ascontiguousarray([p.snapshot for p in positions], dtype=np.int64),
                   scripts, ends)


WALK_ROOM = 128
"""The decisions one kernel call of a walk records (a Bøllebank game asks about 100; a
longer game takes more calls)."""


class Replayer:
    """One game's positions replayed for one ruleset, `base` (a policy the engines ask, at
    its parameter vector `base_vector`) playing what no script says."""

    def __init__(self, game, rules, base: DecidePolicy, base_vector=None):
        if not isinstance(base, DecidePolicy):
            raise ValueError(f"{base.name} cannot be replayed: it plays whole games itself")
        self.game = game
        self.positions = game.positions_module
        self.rules = rules
        self.base = base
        vector = base.param_vector() if base_vector is None else base_vector
        self.base_vector = np.asarray(vector, dtype=np.float64)
        self._params = np.require(base.kernel_params(self.base_vector), np.float64, ["C", "W"])
        self.pause, self.rollout, self.step, self.allowed = self.positions.primitives()
        self.n_results = len(game.result.columns)

    @property
    def setup(self) -> Position:
        """The position of a game not yet begun."""
        return Position(self.positions.SETUP, [])

    def _jobs(self, start, script, options, rollouts, mode, seed, game):
        out = np.zeros((len(options), self.n_results), dtype=np.int64)
        width = point_width(self.positions)
        point = np.zeros(width * (len(options) if mode == K.STEP_JOBS else 1), dtype=np.int64)
        snapshot = np.zeros(self.positions.SNAPSHOT_SIZE, dtype=np.int64)
        K.kernel(K.play_jobs)(
            self.pause, self.rollout, self.step, self.positions.new_work(self.rules, self.base),
            self.base.decide, self._params, seed, game, start, np.asarray(script, dtype=np.int64),
            np.ascontiguousarray(options, dtype=np.int64),
            np.ascontiguousarray(rollouts, dtype=np.int64), mode, out, point, snapshot,
        )
        return out, point, snapshot

    def point_of(self, at: Position | None, point: np.ndarray) -> Point | None:
        """The decision a point (a row of the game's point layout) records, at `at`; None
        where the game ended first."""
        choice, kind, n = (int(point[k]) for k in (POINT_CHOICE, POINT_KIND, POINT_N))
        if choice < 0:
            return None
        obs_end = POINT_OBS + self.positions.OBSERVATION_SIZE
        return Point(at, kind, point[obs_end : obs_end + n].copy(),
                     point[POINT_OBS:obs_end].copy(), choice)

    def next_decision(self, seed: int, game: int, at: Position) -> tuple[np.ndarray, Point | None]:
        """(the result row if the base policy played on, the next decision after `at`, or
        None when the game ends first)."""
        none = np.full(1, -1, dtype=np.int64)
        out, point, snapshot = self._jobs(at.snapshot, at.script, none, none, K.PAUSE_JOBS, seed,
                                          game)
        since = int(snapshot[-1] - at.snapshot[-1])  # choices made before its snapshot
        return out[0], self.point_of(Position(snapshot, at.script[since:]), point)

    def steps(self, seed: int, game: int, point: Point, options, rollouts):
        """(points (jobs, the point's width), result rows): job j takes option options[j]
        at the decision and draws rollout rollouts[j]'s chance up to the next decision (a
        point whose choice is -1: the game ended first), or the game's own chance for a
        negative rollout number."""
        out, flat, _ = self._jobs(point.at.snapshot, point.at.script, options, rollouts,
                                  K.STEP_JOBS, seed, game)
        return flat.reshape(len(options), point_width(self.positions)), out

    def rollout_rows(self, seed: int, game: int, point: Point, options, rollouts) -> np.ndarray:
        """The result rows of rollouts: job j takes option options[j] at the decision, then
        the base plays the game out on rollout rollouts[j]'s streams (the same number: the
        same luck, whatever the option)."""
        at = point.at
        out, _, _ = self._jobs(at.snapshot, at.script, options, rollouts, K.ROLLOUT_JOBS, seed, game)
        return out

    def spread_rows(self, seed: int, game: int, placed: Placed, at, options, rollouts) -> np.ndarray:
        """rollout_rows at many positions in one kernel call: job j takes option options[j]
        at the decision after position at[j] of `placed`, then the base plays the game
        out on rollout rollouts[j]'s streams."""
        out = np.zeros((len(options), self.n_results), dtype=np.int64)
        K.kernel(K.play_spread)(
            self.rollout, self.positions.new_work(self.rules, self.base), self.base.decide,
            self._params, seed, game, placed.starts, placed.scripts, placed.ends,
            np.ascontiguousarray(at, dtype=np.int64), np.ascontiguousarray(options, dtype=np.int64),
            np.ascontiguousarray(rollouts, dtype=np.int64), out,
        )
        return out

    def walk(self, other: Replayer, seed: int, game: int, at: Position | None = None):
        """(the result row, [(the point, the other's point)]): the decisions the base is put
        as it plays the game on from `at` (setup by default), next_decision after
        next_decision, each with the point `other` (a Replayer of the same game) is put at
        the same position (None where the game would end first for it), WALK_ROOM
        decisions a kernel call."""
        at = at or self.setup
        width, size = point_width(self.positions), self.positions.SNAPSHOT_SIZE
        out = np.zeros(self.n_results, dtype=np.int64)
        walked = []
        while True:
            points, asked = (np.zeros((WALK_ROOM, width), dtype=np.int64) for _ in range(2))
            snapshots = np.zeros((WALK_ROOM, size), dtype=np.int64)
            since, done = np.zeros(WALK_ROOM, dtype=np.int64), np.zeros(2, dtype=np.int64)
            K.kernel(K.play_walk)(
                self.pause, self.positions.new_work(self.rules, self.base), self.base.decide,
                self._params, other.positions.new_work(other.rules, other.base),
                other.base.decide, other._params, seed, game, at.snapshot,
                np.asarray(at.script, dtype=np.int64), points, asked, snapshots, since, out, done,
            )
            for k in range(int(done[0])):
                here = Position(snapshots[k], at.script[int(since[k]) :])
                point = self.point_of(here, points[k])
                walked.append((point, other.point_of(here, asked[k])))
                at = Position(here.snapshot, [*here.script, point.base_choice])
            if done[1]:
                return out, walked
