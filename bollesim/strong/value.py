"""A value estimate V of a state of any game that declares its decision points: the
chance that a policy meets a win objective from a decision on, as a function of the
decision's kind and observation (the game's point layout). The penalised clairvoyant's
baseline (penalised.py, docs/skill.md).

V is a LightGBM classifier of the objective's outcome, fitted on the decisions of games
the policy plays (its own states, each labelled by how its game ended). Any V keeps the
penalised bound a bound; the nearer V is to the best play's value, the tighter it is.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from bollesim.game.policy import DecidePolicy
from bollesim.game.result import Objective
from bollesim.strong.clairvoyant import WinObjective
from bollesim.strong.lookahead import Lookahead

PARAMS = {"objective": "binary", "learning_rate": 0.1, "num_leaves": 63,
          "min_data_in_leaf": 50, "verbose": -1, "deterministic": True, "seed": 1}


def n_features(game) -> int:
    """The length of a row V reads: the decision's kind, then the game's observation."""
    return 1 + game.positions_module.OBSERVATION_SIZE


def features(kinds: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """The rows V reads: (kind, observation...) per decision."""
    return np.column_stack([np.asarray(kinds, dtype=float), np.asarray(obs, dtype=float)])


def decisions(game, rules, objective: WinObjective, policy: DecidePolicy,
              params: dict | None, seed: int, games: int,
              threads: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(rows of features, whether each one's game met the objective): every decision of
    `games` games of `seed` played by the policy."""
    main = game.result.main  # a player that looks at no decision: the policy's own game
    player = Lookahead(game, rules, 1, policy, Objective(main, {main: 1}),
                       policy.param_vector(params), kinds=())

    def one(g: int):
        row, taken = player.play(seed, g, observe=True)
        won = objective.won(row)
        return (features([d.kind for d in taken], [d.obs for d in taken]),
                np.full(len(taken), won, dtype=float))

    with ThreadPoolExecutor(threads) as pool:
        parts = list(pool.map(one, range(games)))
    x = np.concatenate([p[0] for p in parts if len(p[1])])
    y = np.concatenate([p[1] for p in parts if len(p[1])])
    return x, y


@dataclass
class Value:
    """V: a fitted classifier's probability of meeting the objective; `trees` its size."""

    booster: object
    trees: int

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        return self.booster.predict(rows, num_threads=1)

    @property
    def text(self) -> str:
        """V as LightGBM's model text (`read` gives it back, predicting the same)."""
        return self.booster.model_to_string()

    @classmethod
    def read(cls, text: str) -> Value:
        import lightgbm

        booster = lightgbm.Booster(model_str=text)
        return cls(booster, booster.num_trees())


def fit(x: np.ndarray, y: np.ndarray, trees: int, threads: int = 2) -> Value:
    """V fitted on (x, y) with `trees` boosting rounds (seeded: the same data, the same V)."""
    import lightgbm

    data = lightgbm.Dataset(x, y, free_raw_data=False)
    booster = lightgbm.train({**PARAMS, "num_threads": threads}, data, num_boost_round=trees)
    return Value(booster, trees)
