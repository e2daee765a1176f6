"""Operation Bøllebank as a Gymnasium environment (the `agents` extra: pip install
'bollesim[agents]'), one decision per step of the reference engine (reference/steps.py).

Observation: what a player sees, observation.py's int64 vector (Box of shape
(observation.SIZE,)), the same that a policy's decide gets. The decision it is for is in
info: info["kind"] (a decisions.py constant; info["kind_name"] its name) and
info["options"], the legal options as decisions.py packs them.

Action: the index of an option, Discrete(max_options) (default decisions.MAX_OPTIONS, the
engines' bound on the options of one decision). Only the first len(info["options"])
indices are legal: info["action_mask"] and action_masks() (sb3-contrib's MaskablePPO
reads it) mark them; step refuses any other with IllegalChoice.

Reward: 0 until the game ends, then reward(result row); by default 1 for the main
mission's victory (result.py: operational), -1 for a defeat, 0 otherwise. info["result"]
holds the row once the game is over. There is no truncation: every game ends (§4).

Games: reset(seed=s) starts game 0 of run seed s, each later reset() the next game, so the
episodes are the games bollesim.simulate(policy, n, seed=s) plays; the first reset
without a seed draws one. reset(options={"game": g}) starts game g of the run seed.

    env = gymnasium.make("bollesim/Bollebank-v0")
    obs, info = env.reset(seed=1)
    while True:
        action = env.action_space.sample(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated:
            break
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

try:
    import gymnasium as gym
except ImportError as exc:  # an optional dependency
    raise ImportError("the Gymnasium environment needs the agents extra: "
                      "pip install 'bollesim[agents]'") from exc

from bollesim.bollebank import decisions, observation
from bollesim.bollebank.reference.steps import GameState
from bollesim.bollebank.reference.table import IllegalChoice
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules.loader import Ruleset, load_ruleset

ENV_ID = "bollesim/Bollebank-v0"


def default_reward(row: dict) -> float:
    """1 for the main mission's victory, -1 for a defeat, 0 otherwise."""
    return 1.0 if row[RESULT.main] else -1.0 if row[RESULT.loss] else 0.0


class BollebankEnv(gym.Env):
    """One game of Operation Bøllebank per episode, one decision per step."""

    metadata = {"render_modes": []}

    def __init__(self, rules: Ruleset | None = None, max_options: int = decisions.MAX_OPTIONS,
                 reward: Callable[[dict], float] = default_reward):
        self.rules = rules if rules is not None else load_ruleset()
        self.run_seed: int | None = None
        self.next_game = 0
        self.reward = reward
        bound = np.iinfo(np.int64)
        self.observation_space = gym.spaces.Box(bound.min, bound.max, (observation.SIZE,), np.int64)
        self.action_space = gym.spaces.Discrete(max_options)
        self.state: GameState | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None or self.run_seed is None:
            run_seed = seed if seed is not None else int(self.np_random.integers(2**63 - 1))
            self.run_seed, self.next_game = run_seed, 0
        game = (options or {}).get("game", self.next_game)
        self.next_game = game + 1
        self.state = GameState(self.rules, self.run_seed, game)
        return self.state.observation.copy(), self.info()

    def step(self, action):
        if self.state is None:
            raise IllegalChoice("step before reset")
        self.state.apply(int(action))
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
            "game": state.game_index,
            "kind": state.kind,
            "kind_name": state.kind_name,
            "options": np.array(state.options, dtype=np.int64),
            "action_mask": self.action_masks(),
        }
        if state.is_terminal:
            out["result"] = state.result
        return out


gym.register(ENV_ID, entry_point=BollebankEnv)
