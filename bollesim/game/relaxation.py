"""Information relaxation with a penalty (Brown, Smith and Sun, "Information relaxations
and duality in stochastic dynamic programs", Operations Research 58(4), 2010): an upper
bound on the best play of a game with chance, made game by game.

A clairvoyant sees the game's whole chance tape and picks its choices against it; the
mean of its results bounds every honest player's from above, but loosely (it wins games
no honest player could). The penalty charges it for what it sees. At each step, after
the choice a in state s, the tape's chance leads to the next state s'; the penalty is

    pi = V(s') - E[V(s') | s, a]

for a value estimate V of the caller's choosing. Given the history, pi has mean zero
whatever the choices, so for every honest policy E[result] = E[result - sum pi] <=
E[max over the tape's lines of (result - sum pi)]: the mean over games of `bound` is an
upper bound on the best honest mean, whatever V is. With V = 0 it is the plain
clairvoyant's; with V the true optimal value it equals the optimum on every single game;
in between, the better V, the tighter.

The expectation E[V(s') | s, a] comes from the caller: by enumerating the chance
outcomes to the next decision, or by inner samples drawn off the tape. An unbiased inner
estimate keeps pi's mean zero (the bound stays valid), but the search's max over lines
picks up its noise: the bound is then looser by that bias, never tighter.

The first penalty is charged from the start, before the tape's first chance (so with the
true V every game's bound is the optimum itself, not the value of its first state).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol


class Tape(Protocol):
    """One game's fixed chance outcomes, as the search walks them. A state is whatever the
    game needs; the search only passes states back."""

    def start(self):
        """The state before the tape's first chance outcome."""

    def step(self, state, action):
        """The state that the action (None: from the start) and then the tape's chance
        lead to: the next decision, or the game's end."""

    def options(self, state) -> Sequence:
        """The choices at a decision; empty at the game's end."""

    def result(self, state) -> float:
        """The game's result at its end (the objective the bound is on)."""

    def key(self, state) -> Hashable:
        """Equal for two states whose lines ahead are the same on this tape (memoised)."""


class Baseline(Protocol):
    """The value estimate V of a penalty, and its expectation after a choice."""

    def value(self, state) -> float:
        """V at a decision or at the game's end."""

    def expected(self, state, action) -> float:
        """E[V(next state) | state, action] over the chance outcomes (action None: from
        the start)."""


class Zero:
    """V = 0: no penalty, the plain clairvoyant."""

    def value(self, state) -> float:
        return 0.0

    def expected(self, state, action) -> float:
        return 0.0


@dataclass(frozen=True)
class Bound:
    """One game's penalised bound: max over the tape's lines of the result minus the
    penalties; the line that reaches it; the decisions searched."""

    value: float
    line: tuple
    nodes: int


def bound(tape: Tape, baseline: Baseline) -> Bound:
    """The exact penalised bound of one game: a depth-first search of every line on the
    tape, each state's best continuation memoised by its key."""
    memo: dict = {}
    nodes = [0]

    def best(state) -> tuple[float, tuple]:
        """(max over the lines from `state` of the result minus the penalties charged
        from here, the line that reaches it)."""
        options = tape.options(state)
        if not options:
            return float(tape.result(state)), ()
        key = tape.key(state)
        if key in memo:
            return memo[key]
        nodes[0] += 1
        top, line = float("-inf"), ()
        for action in options:
            value, rest = charged(state, action)
            if value > top:
                top, line = value, (action, *rest)
        memo[key] = top, line
        return top, line

    def charged(state, action) -> tuple[float, tuple]:
        nxt = tape.step(state, action)
        penalty = baseline.value(nxt) - baseline.expected(state, action)
        value, line = best(nxt)
        return value - penalty, line

    value, line = charged(tape.start(), None)
    return Bound(value, line, nodes[0])
