"""The lookahead player of any game: at the decisions that matter, the legal options are
scored by Monte Carlo rollouts and the best is taken (strong/kernel.py says how).

A rollout rebuilds the state of the decision from its position (a snapshot and the choices
made since: bollesim/game/positions.py), takes the option, and plays the game out under a
base policy on a chance stream of its own: it draws nothing the game itself would draw
after the decision, and its base policy sees only the observation. All options of a
decision are scored on the same rollout streams (common random numbers), so their
differences are not luck. The best option is taken when it beats the base policy's own
choice on fresh rollouts by `confidence` standard errors of the paired difference, so
with no evidence the player plays as its base.

A whole game is one kernel call (kernel.play_lookahead). With engine="reference" the
game's reference engine then plays the same choices, and both give the same result row.
The same positions serve the clairvoyant and penalised bounds (next_decision, values).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from bollesim.game.policy import DecidePolicy
from bollesim.game.result import Objective
from bollesim.strong import kernel as K
from bollesim.strong.replay import Point, Position, Replayer

__all__ = ["Decision", "Lookahead", "Point", "Position", "decision_line", "option_jobs",
           "play_games"]

FIRST_ROUND = 1
"""Rollouts of every option in the first round of successive halving."""
SCREEN = 6
"""Rollouts of the base's choice first: a decision whose outcome is the same in all of them
looks settled and is left to the base (kernel.halving)."""
LOG_OPTIONS = 1 << 16
"""The options of a game's logged decisions, flat: more than any game's."""


@dataclass(frozen=True)
class Decision:
    """One decision of a lookahead game: its options, their scores, the choice."""

    turn: int
    kind: int
    options: np.ndarray  # the options, as the game codes them
    scores: np.ndarray  # the objective's mean over each option's rollouts (nan: none)
    base_choice: int  # the index the base policy would have chosen
    choice: int  # the index taken
    rollouts: int  # rollouts spent on it (0: left to the base)
    obs: np.ndarray | None = None  # the observation it was taken on (play(observe=True))


def option_jobs(n: int, r: int) -> tuple[np.ndarray, np.ndarray]:
    """(options, rollout numbers): rollouts 0 .. r - 1 of each of n options, every option
    on the same rollout numbers (common random numbers)."""
    return (np.repeat(np.arange(n, dtype=np.int64), r),
            np.tile(np.arange(r), n))


class Lookahead(Replayer):
    """A lookahead player of one game (a bollesim.game.declaration.Game) for one ruleset:
    the most rollouts an option gets, the base policy and its parameter vector `base_vector`
    (the one its rows record; its kernel vector is what the engine plays), the objective,
    the confidence its best option needs to be taken over the base's choice, the first
    round of successive halving, the kinds of decision looked at (default: the game's
    LOOKED_AT), the restriction its choices obey (the game's `allowed`: zeros impose
    nothing) and the rollouts that screen a decision (SCREEN). As a Replayer, it replays
    the game under its base."""

    def __init__(self, game, rules, rollouts: int, base: DecidePolicy, objective: Objective,
                 base_vector: np.ndarray, confidence: float = 0.0, first: int = FIRST_ROUND,
                 kinds: tuple[int, ...] | None = None, restriction=None, screen: int = SCREEN):
        super().__init__(game, rules, base, base_vector)
        positions = self.positions
        self.rollouts = rollouts
        self.confidence = confidence
        self.objective = objective
        flags = game.result.flags
        kinds = positions.LOOKED_AT if kinds is None else kinds
        imposed = np.zeros(positions.RESTRICTION_SIZE) if restriction is None else restriction
        head = np.zeros(K.CFG_HEAD)
        head[K.CFG_ROLLOUTS] = rollouts
        head[K.CFG_FIRST] = first
        head[K.CFG_CONFIDENCE] = confidence
        head[K.CFG_KINDS] = sum(1 << k for k in set(kinds))
        head[K.CFG_SCREEN] = screen
        head[K.CFG_OBS] = positions.OBSERVATION_SIZE
        head[K.CFG_TURN] = positions.TURN_SLOT
        head[K.CFG_OPTIONS] = positions.MAX_OPTIONS
        head[K.CFG_MAX_SCRIPT] = positions.MAX_SCRIPT
        head[K.CFG_WEIGHTS_N] = len(flags)
        head[K.CFG_RESTRICTION_N] = len(imposed)
        self.config = np.concatenate([head, objective.over(flags), np.asarray(imposed, float)])
        self.restriction = np.asarray(imposed, dtype=np.float64)

    def values(self, seed: int, game: int, point: Point) -> np.ndarray:
        """(options, rollouts): the objective's value of each of `rollouts` rollouts of
        each option of the decision; column r holds the rollouts on the same streams."""
        n, r = len(point.options), self.rollouts
        rows = self.rollout_rows(seed, game, point, *option_jobs(n, r))
        flags = self.game.result.flags
        return (rows[:, : len(flags)] @ self.objective.over(flags)).reshape(n, r)

    def scores(self, seed: int, game: int, point: Point) -> np.ndarray:
        """The objective's mean over `rollouts` rollouts of each option of the decision."""
        return self.values(seed, game, point).mean(axis=1)

    def choose(self, values: np.ndarray, base_choice: int) -> int:
        """The best-scored option of values (options, rollouts), if it beats the base
        policy's choice on the same rollouts by `confidence` standard errors of their
        paired difference; else the base's choice (kernel.choose)."""
        best = int(np.argmax(values.mean(axis=1)))
        d = np.ascontiguousarray(values[best] - values[base_choice], dtype=np.float64)
        return int(K.choose(d, best, base_choice, float(self.confidence)))

    def play(self, seed: int, game: int, record: bool = True,
             at: Position | None = None, observe: bool = False) -> tuple[np.ndarray, list[Decision]]:
        """One game, from setup or from `at`: its result row and, if record, the decisions
        it took (from `at`), with their observations if observe."""
        at = at or self.setup
        out = np.zeros(self.n_results, dtype=np.int64)
        tally = np.zeros(3, dtype=np.int64)
        rows, flat = (self.positions.MAX_SCRIPT, LOG_OPTIONS) if record else (0, 0)
        log = np.zeros((rows, K.LOG_WIDTH), dtype=np.int64)
        options = np.zeros(flat, dtype=np.int64)
        scores = np.zeros(flat, dtype=np.float64)
        seen = np.zeros((rows if observe else 0, self.positions.OBSERVATION_SIZE), dtype=np.int64)
        K.kernel(K.play_lookahead)(
            self.pause, self.rollout, self.allowed, self.positions.new_work(self.rules, self.base),
            self.base.decide, self._params, seed, game, at.snapshot,
            np.asarray(at.script, dtype=np.int64), self.config, out, tally, log, options, scores,
            seen,
        )
        asked = int(tally[K.TALLY_DECISIONS])
        if record and (asked > rows or (log[:asked, K.LOG_N] == 0).any()):
            raise ValueError(f"game {game}: more decisions than the log holds")
        decisions = []
        for k in range(asked if record else 0):
            kind, n, base, choice, turn, spent, at_ = (int(x) for x in log[k])
            decisions.append(Decision(turn, kind, options[at_ : at_ + n].copy(),
                                      scores[at_ : at_ + n].copy(), base, choice, spent,
                                      seen[k].copy() if observe else None))
        return out, decisions

    def reference_row(self, seed: int, game: int, decisions: list[Decision]) -> np.ndarray:
        """The reference engine's result row of the game `decisions` were taken in."""
        return self.positions.reference_row(self.rules, self.base, self.base_vector, seed, game,
                                            [d.choice for d in decisions])


def play_games(player_of, params: np.ndarray, seed: int, first_game: int,
               engine: str = "fast") -> np.ndarray:
    """Result rows of games first_game .. first_game + n - 1, game g played by the
    lookahead player player_of(params[g]) (one player per distinct row), one game per
    thread (numba's thread count). With the reference engine, its rows of the same choices."""
    import numba

    players = {tuple(row): None for row in params}
    for key in players:
        players[key] = player_of(np.asarray(key))
    reference = engine == "reference"

    def one(g: int) -> np.ndarray:
        chosen = players[tuple(params[g])]
        row, decisions = chosen.play(seed, first_game + g, record=reference)
        if reference:
            return chosen.reference_row(seed, first_game + g, decisions)
        return row

    first = next(iter(players.values()))
    out = np.zeros((params.shape[0], first.n_results), dtype=np.int64)
    with ThreadPoolExecutor(numba.get_num_threads()) as pool:
        for g, row in enumerate(pool.map(one, range(params.shape[0]))):
            out[g] = row
    return out


SHOWN = 3  # the other options a narrated decision shows, best first


def decision_line(name_of, kinds, d: Decision, confidence: float) -> str:
    """One decision of a narrated lookahead game: the choice, its score, the best others,
    and why the base policy's choice was kept when another scored higher (the best is
    taken only when it beats it by `confidence` standard errors). name_of(kind, option):
    an option in words; kinds: the game's kind names."""

    def scored(i: int) -> str:
        return f"{name_of(d.kind, int(d.options[i]))} {d.scores[i]:+.2f}"

    name = kinds[d.kind].replace("_", " ")
    if d.rollouts == 0:
        return (f"  > lookahead, {name} ({len(d.options)} options): "
                f"{name_of(d.kind, int(d.options[d.choice]))} (not looked at)")
    ranked = [int(i) for i in np.argsort(-np.nan_to_num(d.scores, nan=-np.inf), kind="stable")
              if not np.isnan(d.scores[i])]
    others = [i for i in ranked if i != d.choice][:SHOWN]
    if d.choice != d.base_choice:
        base = f"the base policy: {name_of(d.kind, int(d.options[d.base_choice]))}"
    elif np.nanmax(d.scores) > d.scores[d.choice]:
        lead = float(np.nanmax(d.scores) - d.scores[d.choice])
        base = (f"the base policy's, kept: the best scores {lead:.2f} more, short of the "
                f"{confidence:g} standard errors the lookahead needs to leave it")
    else:
        base = "as the base policy"
    more = f"; others: {', '.join(scored(i) for i in others)}" if others else ""
    return (f"  > lookahead, {name} ({len(d.options)} options, {d.rollouts} rollouts): "
            f"{scored(d.choice)} ({base}){more}")
