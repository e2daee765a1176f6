"""Pig race with keyed luck, and its exact optimum by dynamic programming: the game on
which the penalised clairvoyant (bollesim/game/relaxation.py) is proven.

The rules are play.py's (a bust face loses the turn's points; the game is won when the
banked points reach the target). The luck is keyed as Bøllebank's is: the i-th die of
turn t is a fixed entry of the game's tape, whatever was played before, so a game has
one future. A decision is (turn, dice rolled this turn, banked, busts, turn's points):
bank (True) or roll on (False); the end is END_WON or END_LOST.
"""

from __future__ import annotations

from functools import cache

import numpy as np

END_WON, END_LOST = ("end", 1), ("end", 0)


def tape_of(rules, seed: int, game: int) -> np.ndarray:
    """(turns, rolls) dice: the game's whole luck. A turn rolls at most target / 2 + 1
    dice before it reaches the target (every face that does not bust scores 2 or more)."""
    rolls = rules.target // (rules.bust_faces + 1) + 2
    return np.random.default_rng([seed, game]).integers(1, 7, size=(rules.turns, rolls))


class PigTape:
    """One game's tape, walked by the relaxation's search (relaxation.Tape)."""

    def __init__(self, rules, seed: int, game: int):
        self.rules = rules
        self.dice = tape_of(rules, seed, game)

    def start(self):
        return None

    def step(self, state, bank):
        if state is None:
            return walk(self.rules, self.dice, 1, 0, 0, 0, 0)
        turn, i, total, busts, points = state
        if bank:
            return walk(self.rules, self.dice, turn + 1, 0, total + points, busts, 0)
        return walk(self.rules, self.dice, turn, i, total, busts, points)

    def options(self, state):
        return () if state[0] == "end" else (True, False)

    def result(self, state) -> float:
        return float(state[1])

    def key(self, state):
        return state


def walk(r, dice, turn, i, total, busts, points):
    """The state that `dice` lead to from the i-th die of `turn` on: the next decision
    or the end."""
    while turn <= r.turns:
        roll = int(dice[turn - 1, i])
        if roll <= r.bust_faces:
            busts += 1
            if busts >= r.busts_to_lose:
                return END_LOST
            turn, i, points = turn + 1, 0, 0
            continue
        points += roll
        if total + points >= r.target:
            return END_WON
        return (turn, i + 1, total, busts, points)
    return END_LOST


def roll_value(rules, value, turn, total, busts, points) -> float:
    """E[value of the next decision or end] after rolling on in `turn` with `points`, by
    enumerating the faces (and the next turn's, after a bust) up to the next decision;
    value(turn, total, busts, points) at a decision, the result at an end."""
    if turn > rules.turns:
        return 0.0
    out = 0.0
    for face in range(1, 7):
        if face <= rules.bust_faces:
            lost = busts + 1 >= rules.busts_to_lose
            out += 0.0 if lost else roll_value(rules, value, turn + 1, total, busts + 1, 0)
        elif total + points + face >= rules.target:
            out += 1.0
        else:
            out += value(turn, total, busts, points + face)
    return out / 6


def bank_value(rules, value, turn, total, busts, points) -> float:
    return roll_value(rules, value, turn + 1, total + points, busts, 0)


def optimal_value(rules):
    """V*(turn, total, busts, points): the probability of reaching the target under the
    best play, by backward induction (every line ends within the turns)."""

    @cache
    def v(turn, total, busts, points):
        return max(bank_value(rules, v, turn, total, busts, points),
                   roll_value(rules, v, turn, total, busts, points))

    return v


def banker_value(rules, hold: int):
    """The value of banking once the turn's points reach `hold` (policies/banker.py, from
    the first turn): a rough V."""

    @cache
    def v(turn, total, busts, points):
        step = bank_value if points >= hold else roll_value
        return step(rules, v, turn, total, busts, points)

    return v


class Enumerated:
    """A baseline V (a function of the decision, the result at the end) with its
    expectation by enumerating the chance outcomes to the next decision
    (relaxation.Baseline); `faces_rules` are the rules the enumeration assumes (the
    game's own, or others to plant a biased penalty)."""

    def __init__(self, rules, value, faces_rules=None):
        self.rules = faces_rules or rules
        self.v = value
        self._expected = {}

    def value(self, state) -> float:
        return float(state[1]) if state[0] == "end" else self.v(*_at(state))

    def expected(self, state, bank) -> float:
        if state is None:
            return roll_value(self.rules, self.v, 1, 0, 0, 0)
        at = (_at(state), bank)
        if at not in self._expected:
            step = bank_value if bank else roll_value
            self._expected[at] = step(self.rules, self.v, *at[0])
        return self._expected[at]


class Sampled(Enumerated):
    """The same V, its expectation by `m` inner samples: the dice to the next decision
    drawn off the tape (a generator of their own, keyed by the game, state and choice).
    Unbiased, so the penalty keeps mean zero and the bound stays a bound; but the
    search's max over lines picks up their noise, so it is looser."""

    def __init__(self, rules, value, m: int, seed: int, game: int):
        super().__init__(rules, value)
        self.m, self.key = m, (seed, game)

    def expected(self, state, bank) -> float:
        if state is None:
            turn, total, busts, points = 1, 0, 0, 0
        else:
            turn, total, busts, points = _at(state)
            if bank:
                turn, total, points = turn + 1, total + points, 0
        rng = np.random.default_rng([*self.key, 1 + bool(bank), *(state or (0,) * 5)])
        dice = rng.integers(1, 7, size=(self.m, *tape_of(self.rules, 0, 0).shape))
        return float(np.mean([self.value(walk(self.rules, d, turn, 0, total, busts, points))
                              for d in dice]))


def _at(state):
    turn, _, total, busts, points = state
    return turn, total, busts, points


def optimum(rules) -> float:
    """The best probability of reaching the target from the start."""
    return roll_value(rules, optimal_value(rules), 1, 0, 0, 0)


def plain_clairvoyant(rules, dice: np.ndarray) -> bool:
    """Whether some schedule of banking reaches the target on these dice (a search of its
    own, without the relaxation's code)."""

    def win(turn, i, total, busts, points):
        if turn > rules.turns:
            return False
        roll = int(dice[turn - 1, i])
        if roll <= rules.bust_faces:
            return busts + 1 < rules.busts_to_lose and win(turn + 1, 0, total, busts + 1, 0)
        points += roll
        return (total + points >= rules.target or win(turn + 1, 0, total + points, busts, 0)
                or win(turn, i + 1, total, busts, points))

    return win(1, 0, 0, 0, 0)
