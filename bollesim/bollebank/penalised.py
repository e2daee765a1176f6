"""The penalised clairvoyant on this game (bollesim/game/relaxation.py says why it bounds
every honest player): each game's own tape, walked by replaying scripts of choices
(Lookahead.next_decision), with V the base policy's rollout value.

V and the penalty's expectation both come from inner samples drawn off the tape: at a
decision s, rollouts of every option a (engine/rollout.py: after the choice, the chance
and policy streams are the rollout's own) estimate Q(s, a) = E[V(s') | s, a] for V the
value of the base policy, and V(s) itself is the estimate of the base's own choice
there, on the same streams. The inner rollouts are numbered from INNER, so no player's
rollouts share their streams: an honest player's choices cannot depend on them, and the
penalty keeps mean zero for every one of them (the base must not draw from the policy
stream: the plan family and the apprentice do not). At the game's end V is the result,
so the result cancels and a line's penalised value is

    V(s_1) + sum over its decisions of Q(s, a) - Q(s, base's choice)

(no penalty before the first decision). The search's max over lines is exact only over
the whole tree, which is far beyond reach here; `greedy` walks one line (the option of
highest estimated advantage at each decision), whose value is a lower bound on the
game's penalised bound, so the mean over games says how tight this V can make it at best.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bollesim.bollebank.clairvoyant import WinObjective
from bollesim.bollebank.engine.script import ROLLOUT
from bollesim.bollebank.lookahead import OBJECTIVES, SETUP, Lookahead, Point, Position
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.game.policy import DecidePolicy

INNER = 1 << 22
"""The first rollout number of the inner samples (players number theirs from 0)."""
FRESH = 1 << 20
"""The offset of fresh inner samples: the same line valued again on other streams."""
MOST = 1 << 16
"""The most inner samples per option (INNER + FRESH + MOST stay below
rollout.MAX_ROLLOUTS, the rollout numbers with streams of their own)."""


@dataclass(frozen=True)
class Line:
    """One line's penalised value (V at the first decision, plus the advantages taken),
    its choices, its decisions, its result (won or not) and V at the first decision."""

    value: float
    line: tuple[int, ...]
    decisions: int
    won: bool
    start: float


class Penalised:
    """V: `base` (at `params`) played out `rollouts` times from each option; the objective
    a win/lose one (clairvoyant.WIN_OBJECTIVES). `offset` moves the inner samples to
    other streams (a fresh estimate of the same line)."""

    def __init__(self, rules: Ruleset, objective: WinObjective, base: DecidePolicy,
                 params: dict | None, rollouts: int, offset: int = 0):
        if not 1 <= rollouts <= MOST:
            raise ValueError(f"the inner samples need 1 to {MOST:,} rollouts per option")
        self.objective = objective
        self.rollouts = rollouts
        self.first = INNER + offset
        self.player = Lookahead(rules, rollouts, base, OBJECTIVES[0], params)

    def q(self, seed: int, game: int, point: Point) -> np.ndarray:
        """The estimate of Q(s, a) of every option a: the share of its inner rollouts won."""
        n, r = len(point.options), self.rollouts
        options = np.repeat(np.arange(n, dtype=np.int64), r)
        numbers = np.tile(np.arange(self.first, self.first + r, dtype=np.int64), n)
        rows, _, _ = self.player._play(point.at.snapshot, point.at.script, options, numbers,
                                       ROLLOUT, seed, game)
        won = np.array([self.objective.won(row) for row in rows], dtype=float)
        return won.reshape(n, r).mean(axis=1)

    def evaluate(self, seed: int, game: int, choose) -> Line:
        """Walk one line on the game's tape: at each decision, choose(point, q) is the
        option taken (q: the estimates of its options)."""
        at = Position(SETUP, [])
        row, point = self.player.next_decision(seed, game, at)
        start, total, line = None, 0.0, []
        while point is not None:
            q = self.q(seed, game, point)
            start = q[point.base_choice] if start is None else start
            a = choose(point, q)
            total += q[a] - q[point.base_choice]
            line.append(a)
            at = Position(point.at.snapshot, [*point.at.script, a])
            row, point = self.player.next_decision(seed, game, at)
        won = self.objective.won(row)
        if start is None:  # no decision: the game's one line
            return Line(float(won), (), 0, won, float(won))
        return Line(start + total, tuple(line), len(line), won, start)

    def greedy(self, seed: int, game: int) -> Line:
        """The line of the highest estimated advantage at every decision (the base's
        choice on a tie)."""

        def choose(point: Point, q: np.ndarray) -> int:
            best = int(np.argmax(q))
            return best if q[best] > q[point.base_choice] else point.base_choice

        return self.evaluate(seed, game, choose)

    def replay(self, seed: int, game: int, line: tuple[int, ...]) -> Line:
        """A given line's penalised value on these inner samples (the base's choices
        after it)."""
        k = [0]

        def choose(point: Point, q: np.ndarray) -> int:
            k[0] += 1
            return line[k[0] - 1] if k[0] <= len(line) else point.base_choice

        return self.evaluate(seed, game, choose)
