"""One game of the reference engine driven a decision at a time, as OpenSpiel, Pgx and
PettingZoo users drive a game: the legal options, apply one, clone, the observation, the
result (env.py wraps it as a Gymnasium environment).

The engine asks its player (policy.py's decide) at every decision; here the caller
answers instead. A position is its game (seed, game index) and the choices made so far,
and is found by replaying the game from setup with those choices: the luck is keyed
(docs/architecture.md §3), so the replay is exact, and a clone is a copy of the choice
list. Each step replays the game so far, so a whole game costs about steps² / 2 replayed
decisions: 0.15 s (random play, 40 decisions) to 1.5 s (the historical policy's 120),
the price of keeping the engine a plain call stack.

    state = GameState(load_ruleset(), seed=1, game_index=0)
    while not state.is_terminal:
        state = state.child(0)          # or state.apply(i): 0 <= i < len(state.options)
    state.result                        # the result row, as play_game returns it
"""

from __future__ import annotations

import copy

import numpy as np

from bollesim.bollebank import decisions
from bollesim.bollebank.observation import new_observation
from bollesim.bollebank.reference.play import play_game
from bollesim.bollebank.reference.state import Game, new_game, observe
from bollesim.bollebank.reference.table import IllegalChoice
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.game.policy import DecidePolicy


class _Asked(Exception):
    """Unwinds the replay at the first decision the choices do not answer."""

    def __init__(self, kind: int, obs: np.ndarray, options: list[int]):
        self.kind, self.obs, self.options = kind, obs, options


class GameState:
    """A position of one game: the decision to take (kind, observation, options) or, once
    over, its result row. game and trace are the reference engine's state and events at
    this point (for reading; they are replaced at each step)."""

    def __init__(self, rules: Ruleset, seed: int, game_index: int = 0, choices: tuple[int, ...] = ()):
        self.rules = rules
        self.seed = seed
        self.game_index = game_index
        self.choices = tuple(choices)
        self._replay()

    def _replay(self) -> None:
        script = iter(self.choices)

        def decide(kind, obs, rules, options, n_options, params, prng):
            index = next(script, None)
            if index is None:
                raise _Asked(kind, obs.copy(), [int(o) for o in options[:n_options]])
            return index

        player = DecidePolicy("the caller", "", (), decide, game="bollebank")
        self.game: Game = new_game(self.rules)
        self.trace: list = []
        try:
            self.result: dict | None = play_game(self.rules, player, np.zeros(0), self.seed,
                                                 self.game_index, self.trace, game=self.game)
        except _Asked as asked:
            self.result = None
            self.kind: int | None = asked.kind
            self.observation = asked.obs
            self.options = asked.options
        else:
            self.kind = None
            self.observation = observe(self.game, new_observation())
            self.options = []

    @property
    def is_terminal(self) -> bool:
        return self.result is not None

    @property
    def kind_name(self) -> str | None:
        """The decision's name (decisions.KIND_NAMES), None once the game is over."""
        return None if self.kind is None else decisions.KIND_NAMES[self.kind]

    def legal_actions(self) -> range:
        """The indices of the options: a choice is an index into options."""
        return range(len(self.options))

    def apply(self, index: int) -> None:
        """Take option `index` and play on to the next decision or the end of the game;
        an index outside the options raises IllegalChoice and changes nothing."""
        if not 0 <= index < len(self.options):
            raise IllegalChoice(
                f"option {index} of {len(self.options)}"
                + ("" if self.kind is None else f" for {self.kind_name}")
                + (": the game is over" if self.is_terminal else "")
            )
        self.choices = (*self.choices, int(index))
        self._replay()

    def clone(self) -> GameState:
        """The same position, to be played on apart (no replay: the choices are the state)."""
        state = copy.copy(self)
        state.observation = self.observation.copy()
        return state

    def child(self, index: int) -> GameState:
        """A clone with option `index` applied."""
        state = self.clone()
        state.apply(index)
        return state
