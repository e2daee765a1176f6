"""One game of any game that declares its decision points, driven a decision at a time as
OpenSpiel, pgx and PettingZoo users drive a game: the legal options and their names, apply
one, clone, the observation a learner sees, the result; and play on from here (the game's
own tape) or roll out with fresh luck. strong/env.py wraps it as a Gymnasium environment.

A state is its game (seed, game index), the position of its next decision (a snapshot of
the game's own making and the choices since: strong/replay.py) and the choices made from
setup. The luck is keyed (docs/architecture.md §3), so the position replays exactly, a
clone is a copy, and a step costs one replay of the stretch since the last snapshot.

    state = State(load_game("bollebank"), rules, seed=1, index=0)
    while not state.is_terminal:
        state.apply(0)                  # an index into state.options
    state.result                        # the result row, as simulate gives it
"""

from __future__ import annotations

import copy
import numbers

import numpy as np

from bollesim.errors import IllegalChoice
from bollesim.game.policy import DecidePolicy
from bollesim.strong.replay import Point, Replayer


def is_whole(value) -> bool:
    """A whole number, Python's or numpy's, and not a bool."""
    return isinstance(value, numbers.Integral | np.integer) and not isinstance(value, bool | np.bool_)


def whole_number(what: str, value, highest: int) -> int:
    """`value` if it is a whole number from 0 to `highest`; else IllegalChoice saying so."""
    if not is_whole(value) or not 0 <= int(value) <= highest:
        raise IllegalChoice(f"{what} must be a whole number from 0 to {highest:,}, got {value!r}")
    return int(value)


def checked_index(action, n: int, what: str) -> int:
    """`action` as an index into n options: a whole number (Python's or numpy's, not a
    bool) from 0 to n - 1; else IllegalChoice naming the options that exist."""
    if not is_whole(action) or not 0 <= int(action) < n:
        exist = f"options 0 to {n - 1}" if n else "no options: the game is over"
        raise IllegalChoice(f"{what}: {action!r} is not an option ({exist})")
    return int(action)


class State:
    """A position of one game: the decision to take (kind, options, observation) or, once
    over, its result row. `policy` (a policy the engines ask, at `params`: a parameter
    vector or {name: value}) is who plays on in play_on and rollouts; the choices it would
    make here are `base_choice`."""

    def __init__(self, game, rules, seed: int, index: int = 0, policy: DecidePolicy | None = None,
                 params=None):
        if policy is None:
            from bollesim.game.policy import load_policy

            policy = load_policy(game.baseline, game.name)
        vector = params if params is None or isinstance(params, np.ndarray) else policy.param_vector(params)
        self.game = game
        self.rules = rules
        self.seed = seed
        self.index = index
        self.choices: tuple[int, ...] = ()
        self._replay = Replayer(game, rules, policy, vector)
        self._row, self._point = self._replay.next_decision(seed, index, self._replay.setup)

    @property
    def is_terminal(self) -> bool:
        return self._point is None

    @property
    def point(self) -> Point | None:
        """The decision to take (strong/replay.Point), None once the game is over."""
        return self._point

    @property
    def kind(self) -> int | None:
        return None if self._point is None else self._point.kind

    @property
    def kind_name(self) -> str | None:
        """The decision's name (the game's KINDS), None once the game is over."""
        return None if self._point is None else self._replay.positions.KINDS[self._point.kind]

    @property
    def options(self) -> np.ndarray:
        """The legal options as the game codes them; empty once the game is over."""
        return np.zeros(0, np.int64) if self._point is None else self._point.options

    @property
    def observation(self) -> np.ndarray:
        """What the player sees at the decision (or the game's last, once it is over)."""
        if self._point is not None:
            return self._point.obs
        return np.zeros(self._replay.positions.OBSERVATION_SIZE, dtype=np.int64)

    @property
    def turn(self) -> int:
        return int(self.observation[self._replay.positions.TURN_SLOT])

    @property
    def base_choice(self) -> int | None:
        """The index the state's policy would choose here."""
        return None if self._point is None else self._point.base_choice

    @property
    def result(self) -> dict | None:
        """The result row (the game's declared columns) once the game is over."""
        return None if self._point is not None else self.game.result.row(self._row)

    def option_names(self) -> list[str]:
        """The options in words, as the game's narration says them."""
        name = self._replay.positions.option_name
        return [name(self.rules, self.kind, int(o)) for o in self.options]

    def legal_actions(self) -> range:
        """The indices of the options: a choice is an index into options."""
        return range(len(self.options))

    def apply(self, action) -> None:
        """Take option `action` (an index) and play on to the next decision or the end; a
        choice that is not an option raises IllegalChoice and changes nothing."""
        where = "the game is over" if self._point is None else self.kind_name
        index = checked_index(action, len(self.options), where)
        at = self._point.at
        row, point = self._replay.next_decision(
            self.seed, self.index, type(at)(at.snapshot, [*at.script, index]))
        self.choices = (*self.choices, index)
        self._row, self._point = row, point

    def clone(self) -> State:
        """The same position, to be played on apart."""
        return copy.copy(self)

    def child(self, action) -> State:
        """A clone with option `action` applied."""
        state = self.clone()
        state.apply(action)
        return state

    def play_on(self) -> dict:
        """The result row if the state's policy plays on from here on the game's own tape."""
        if self._point is None:
            return self.result
        row, _ = self._replay.next_decision(self.seed, self.index, self._point.at)
        return self.game.result.row(row)
