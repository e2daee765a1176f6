"""The table a game is played on: the state, the luck, the player and the record.

Every phase module takes a Table. `ask` puts a decision to the policy; `log` records an
event when a trace is kept (docs/architecture.md §6).
"""

from __future__ import annotations

import numpy as np

from bollesim import rng
from bollesim.bollebank import decisions
from bollesim.bollebank.observation import new_observation
from bollesim.bollebank.reference.state import Game, observe
from bollesim.errors import IllegalChoice
from bollesim.game.policy import DecidePolicy


class Table:
    def __init__(
        self,
        game: Game,
        chance,
        policy: DecidePolicy,
        params: np.ndarray,
        seed: int,
        game_index: int,
        trace: list | None = None,
    ):
        self.game = game
        self.rules = game.rules
        self.chance = chance
        self.policy = policy
        self.params = params
        self.prng = rng.new_stream(seed, game_index, rng.POLICY)
        self.trace = trace
        self._obs = new_observation()
        self._options = np.zeros(decisions.MAX_OPTIONS, dtype=np.int64)

    def log(self, kind: int, a: int = 0, b: int = 0, c: int = 0, d: int = 0) -> None:
        if self.trace is not None:
            self.trace.append((self.game.turn, kind, int(a), int(b), int(c), int(d)))

    def pick(self, items: list, purpose: int) -> int:
        """Index of the item of `items` drawn for `purpose` (luck.py) this turn."""
        return self.chance.pick(items, purpose, self.game.turn)

    def coin(self, purpose: int) -> int:
        return self.chance.coin(purpose, self.game.turn)

    def d6(self, purpose: int) -> int:
        return self.chance.d6(purpose, self.game.turn)

    def two_d6(self, purpose: int) -> int:
        return self.chance.two_d6(purpose, self.game.turn)

    def ask(self, kind: int, options: list[int], context: tuple[int, int] = (0, 0)) -> int:
        """The policy's choice among options (returned as the option itself)."""
        if len(options) == 1:
            return options[0]
        self.game.context = context
        n = len(options)
        self._options[:n] = options
        observe(self.game, self._obs)
        index = self.policy.decide(
            kind, self._obs, self.rules.packed, self._options, n, self.params, self.prng
        )
        if not 0 <= index < n:
            raise IllegalChoice(
                f"policy {self.policy.name} chose option {index} of {n} for {decisions.KIND_NAMES[kind]}"
            )
        return options[index]
