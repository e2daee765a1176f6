"""The clairvoyant player of any game that declares its decision points: an upper bound
on what any player can win, game by game.

It sees each game's own future. A script of choices replayed from setup on the game's own
chance stream (Replayer.next_decision: the game's `pause` primitive) is the game that
those choices play, so a search over scripts explores the game's real future draws. When
the game's luck is keyed by turn and purpose (as Bøllebank's is, docs/skill.md), a choice
does not shift the numbers drawn later, but what they decide depends on the state they
fall on, so the clairvoyant still picks among futures. The search is depth first, with
iterative deepening (lines that leave the base policy's play at few decisions first,
where the wins are found). For a win/lose objective (WinObjective, made from the game's
result flags) it proves, game by game, whether some sequence of choices wins:

- won: a line of choices that wins was found (every node's base playout is tried, so a
  game the base policy wins from any node reached is proven at once);
- lost: every line was searched and none wins (a line is cut where the game is over, or
  where the game's own `cut` says the objective can no longer be met; a state already
  proven lost is not searched again);
- undecided: the node budget ran out first. An undecided game counts as won, so the rate
  of games won or undecided is an upper bound on every player's rate on the same games.

An honest player takes the same decisions on the same chance stream, so a game it wins
has a winning line: the bound holds for it (tests/test_clairvoyant.py).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from bollesim.game.policy import DecidePolicy
from bollesim.game.result import Result
from bollesim.strong.replay import Point, Position, Replayer


@dataclass(frozen=True)
class WinObjective:
    """A game is won when its result row has the flag in slot `flag` at `value` for every
    (flag, value) of `needs`."""

    name: str
    needs: tuple[tuple[int, int], ...]

    def won(self, row: np.ndarray) -> bool:
        return all(int(row[flag]) == value for flag, value in self.needs)


def win_objectives(result: Result) -> dict[str, WinObjective]:
    """The win objectives of a game's result, by name: each win flag (by its label), no
    loss ("no " and the loss's label), the main win and no loss, and every win at once
    (the label of all_wins)."""
    labels, slot = result.labels, result.slot
    main, loss = (slot(result.main), 1), (slot(result.loss), 0)
    found = [WinObjective(labels[w], ((slot(w), 1),)) for w in result.wins]
    found += [WinObjective(f"no {labels[result.loss]}", (loss,)),
              WinObjective(f"{labels[result.main]} and no {labels[result.loss]}", (main, loss)),
              WinObjective(labels[result.all_wins], tuple((slot(w), 1) for w in result.wins))]
    return {w.name: w for w in found}


Cut = Callable[[np.ndarray], bool]
"""cut(observation) -> True where no line from the decision can meet the objective."""

WON, LOST, UNDECIDED = "line found", "proven lost", "undecided"
"""A verdict's status (not a game's outcome names: a game may call its own "won")."""


@dataclass(frozen=True)
class Verdict:
    """One game's verdict: WON, LOST or UNDECIDED; the nodes searched; the winning line
    (the choices from setup, then base number `base` plays on) and its result row, or for
    a lost or undecided game the first base's own game's row."""

    status: str
    nodes: int
    line: tuple[int, ...]
    row: np.ndarray
    base: int = 0

    @property
    def counted_won(self) -> bool:
        """Won for the bound: won, or undecided (so the rate stays an upper bound)."""
        return self.status != LOST


class _OutOfBudget(Exception):
    pass


class Clairvoyant:
    """A clairvoyant search of one game (a Game that declares positions) for one ruleset
    and win objective: `bases` (policy, params) play the playouts (the first plays each
    node's; all of them are tried from setup), and at most `budget` decisions are expanded
    per game. The game's hints, both optional: `nearer`, the result columns that rank a
    playout nearer to winning (column, +1 when higher is nearer, -1 when lower is), after
    the objective's needs met; `cut(rules, objective)`, None or a Cut for the objective."""

    def __init__(self, game, rules, objective: WinObjective,
                 bases: list[tuple[DecidePolicy, dict | None]], budget: int,
                 nearer: tuple[tuple[str, int], ...] = (), cut=None):
        if not bases:
            raise ValueError("a clairvoyant player needs at least one base policy")
        if budget < 1:
            raise ValueError("the node budget must be 1 or more")
        self.positions = game.positions_module
        self.rules = rules
        self.objective = objective
        self.budget = budget
        self.players = [Replayer(game, rules, policy, policy.param_vector(params))
                         for policy, params in bases]
        self.nearer = tuple((game.result.slot(column), sign) for column, sign in nearer)
        self.cut: Cut | None = cut(rules, objective) if cut is not None else None

    def hopeless(self, point: Point) -> bool:
        """The objective can no longer be met on any line from this decision (the
        game's cut)."""
        return self.cut is not None and bool(self.cut(point.obs))

    def order(self, rows: list[np.ndarray], base_choice: int) -> list[int]:
        """The options in the order searched: the base policy's choice first, then by
        their base playouts, nearest to winning first (needs met, then `nearer`)."""

        def key(i: int):
            row = rows[i]
            met = sum(int(row[flag]) == value for flag, value in self.objective.needs)
            return (i != base_choice, -met, *(-sign * int(row[s]) for s, sign in self.nearer), i)

        return sorted(range(len(rows)), key=key)

    def solve(self, seed: int, game: int) -> Verdict:
        """The verdict of one game."""
        root = Position(self.positions.SETUP, [])
        first_row = None
        for b, player in enumerate(self.players):
            row, _ = player.next_decision(seed, game, root)
            first_row = row if first_row is None else first_row
            if self.objective.won(row):
                return Verdict(WON, 0, (), row, b)
        main = self.players[0]
        _, point = main.next_decision(seed, game, root)
        if point is None:  # a game with no choice to make: its one line is lost
            return Verdict(LOST, 0, (), first_row)
        lost: set[bytes] = set()
        nodes = [0]
        line: list[int] = []
        most = self.positions.MAX_SCRIPT

        def search(point: Point, depth: int) -> tuple[np.ndarray | None, bool]:
            """(the winning row of a line through this decision within `depth` more
            decisions, or None; whether every line from it was searched to its end)."""
            if self.hopeless(point):
                return None, True
            key = _state_key(point)
            if key in lost:
                return None, True
            if depth == 0:
                return None, False
            if len(point.at.script) + 1 >= most or nodes[0] >= self.budget:
                raise _OutOfBudget
            nodes[0] += 1
            children = []
            for i in range(len(point.options)):
                at = Position(point.at.snapshot, [*point.at.script, i])
                child_row, child = main.next_decision(seed, game, at)
                if self.objective.won(child_row):
                    line.append(i)
                    return child_row, True
                children.append((child_row, child))
            complete = True
            for i in self.order([r for r, _ in children], point.base_choice):
                child = children[i][1]
                if child is None:
                    continue  # the game ended, and not won
                line.append(i)
                found, whole = search(child, depth - 1)
                if found is not None:
                    return found, True
                line.pop()
                complete &= whole
            if complete:
                lost.add(key)
            return None, complete

        depth = 1
        try:
            while True:  # iterative deepening: the short lines first, where wins are found
                found, complete = search(point, depth)
                if found is not None:
                    return Verdict(WON, nodes[0], tuple(line), found)
                if complete:
                    return Verdict(LOST, nodes[0], (), first_row)
                depth += 1
        except _OutOfBudget:
            return Verdict(UNDECIDED, nodes[0], (), first_row)

    def replay(self, seed: int, game: int, line: tuple[int, ...], base: int = 0) -> np.ndarray:
        """The result row of the game whose choices are `line`, then base number `base`'s."""
        main = self.players[base]
        at = Position(self.positions.SETUP, [])
        row, point = main.next_decision(seed, game, at)
        for choice in line:
            if point is None:
                raise ValueError("the line is longer than its game")
            at = Position(point.at.snapshot, [*point.at.script, choice])
            row, point = main.next_decision(seed, game, at)
        return row

    def solve_games(self, seed: int, first_game: int, n_games: int,
                    threads: int = 1) -> list[Verdict]:
        """Verdicts of games first_game .. first_game + n_games - 1 (the same whatever the
        threads: each game's search is its own)."""
        games = range(first_game, first_game + n_games)
        if threads <= 1:
            return [self.solve(seed, g) for g in games]
        with ThreadPoolExecutor(threads) as pool:
            return list(pool.map(lambda g: self.solve(seed, g), games))


def _state_key(point: Point) -> bytes:
    """Two decisions with the same key are the same decision in the same game state: the
    snapshot of their position (without its last value, the count of decisions asked
    before it) and the choices replayed since."""
    snap = point.at.snapshot
    return snap[:-1].tobytes() + np.asarray(point.at.script, np.int64).tobytes()


def bound(verdicts: list[Verdict]) -> dict[str, int]:
    """Counts of a set of verdicts: won, lost, undecided, and counted (won or undecided:
    the upper bound's successes)."""
    counts = {s: sum(v.status == s for v in verdicts) for s in (WON, LOST, UNDECIDED)}
    counts["counted"] = counts[WON] + counts[UNDECIDED]
    counts["games"] = len(verdicts)
    return counts
