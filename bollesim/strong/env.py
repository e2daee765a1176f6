"""Any game that declares its decision points as a Gymnasium environment (the `agents`
extra: pip install 'bollesim[agents]'), one decision per step (strong/state.py). Importing
this module registers one id per game: `bollesim/Bollebank-v0`, `bollesim/BalkanWars-v0`
(env_id(name)).

Observation: what a player sees, the game's int64 observation vector (Box of the game's
OBSERVATION_SIZE), the same that a policy's decide gets. The decision it is for is in
info: info["kind"] (the game's kind number; info["kind_name"] its name),
info["options"], the legal options as the game codes them, and info["option_names"].

Action: the index of an option, Discrete(max_options) (default: the game's MAX_OPTIONS,
its engines' bound on the options of one decision). Only the first len(info["options"])
indices are legal: info["action_mask"] and action_masks() (sb3-contrib's MaskablePPO
reads it) mark them; step refuses any other action, and anything but a whole number
(Python's or numpy's), with IllegalChoice.

Reward: 0 until the game ends, then reward(result row); by default 1 for the game's main
win (Result.main), -1 for its loss, 0 otherwise. info["result"] holds the row (plain
Python values) once the game is over. There is no truncation: every game ends.

Games: reset(seed=s) starts game 0 of run seed s, each later reset() the next game, so the
episodes are the games bollesim.simulate(policy, n, seed=s) plays; the first reset
without a seed draws one. reset(options={"game": g}) starts game g of the run seed.

    import gymnasium, bollesim.strong.env
    env = gymnasium.make("bollesim/BalkanWars-v0")
    obs, info = env.reset(seed=1)
    while True:
        action = env.action_space.sample(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated:
            break
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

try:
    import gymnasium as gym
except ImportError as exc:  # an optional dependency
    raise ImportError("the Gymnasium environment needs the agents extra: "
                      "pip install 'bollesim[agents]'") from exc

from bollesim.errors import IllegalChoice
from bollesim.game.registry import load_game, registered
from bollesim.strong.state import State, whole_number


def env_id(name: str) -> str:
    """The registered id of the game `name`: bollebank -> bollesim/Bollebank-v0."""
    return "bollesim/" + "".join(p.capitalize() for p in re.split(r"[-_.]", name) if p) + "-v0"


def default_reward(result) -> Callable[[dict], float]:
    """reward(row): 1 for the game's main win, -1 for its loss, 0 otherwise."""

    def reward(row: dict) -> float:
        return 1.0 if row[result.main] else -1.0 if row[result.loss] else 0.0

    return reward


class GameEnv(gym.Env):
    """One game of `game` (a registered name, or a Game) per episode, one decision per step."""

    metadata = {"render_modes": []}

    def __init__(self, game="bollebank", rules=None, max_options: int | None = None,
                 reward: Callable[[dict], float] | None = None):
        self.game = load_game(game)
        positions = self.game.positions_module
        self.rules = rules if rules is not None else self.game.load_ruleset()
        self.run_seed: int | None = None
        self.next_game = 0
        self.reward = reward or default_reward(self.game.result)
        bound = np.iinfo(np.int64)
        self.observation_space = gym.spaces.Box(bound.min, bound.max,
                                                (positions.OBSERVATION_SIZE,), np.int64)
        self.action_space = gym.spaces.Discrete(max_options or positions.MAX_OPTIONS)
        self.state: State | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None or self.run_seed is None:
            run_seed = seed if seed is not None else int(self.np_random.integers(2**63 - 1))
            self.run_seed, self.next_game = whole_number("seed", run_seed, 2**63 - 1), 0
        game = whole_number("options['game']", (options or {}).get("game", self.next_game), 10**15)
        self.next_game = game + 1
        self.state = State(self.game, self.rules, self.run_seed, game)
        return self.state.observation.copy(), self.info()

    def step(self, action):
        if self.state is None:
            raise IllegalChoice("step before reset")
        self.state.apply(action)
        over = self.state.is_terminal
        reward = self.reward(self.state.result) if over else 0.0
        return self.state.observation.copy(), reward, over, False, self.info()

    def action_masks(self) -> np.ndarray:
        """1 for each legal action (int8, as Discrete.sample(mask) takes it)."""
        mask = np.zeros(self.action_space.n, dtype=np.int8)
        n = len(self.state.options)
        if n > self.action_space.n:
            raise ValueError(f"{n} options for {self.state.kind_name}: more than max_options "
                             f"{self.action_space.n}")
        mask[:n] = 1
        return mask

    def info(self) -> dict:
        state = self.state
        out = {
            "seed": state.seed,
            "game": state.index,
            "kind": state.kind,
            "kind_name": state.kind_name,
            "options": np.array(state.options, dtype=np.int64),
            "option_names": state.option_names() if not state.is_terminal else [],
            "action_mask": self.action_masks(),
        }
        if state.is_terminal:
            out["result"] = state.result
        return out


for _name in registered():
    gym.register(env_id(_name), entry_point=GameEnv, kwargs={"game": _name})
