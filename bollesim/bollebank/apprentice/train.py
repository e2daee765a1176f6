"""How the apprentice learns (expert iteration, Anthony et al. 2017, one round by default):

1. label: the lookahead player (at its defaults, over `base`) plays games of the
   training seed; every order decision it met is kept with its observation, its options,
   the base's choice and the lookahead's choice (lookahead.Lookahead.play, observe=True);
2. fit: LightGBM fits the gate (did the lookahead leave its base's choice? binary) on
   every decision, and the chooser (which option did it take instead? lambdarank, one
   group a decision) on the decisions where it left it;
3. tune: the gate's threshold is chosen by play, on games of a seed of its own (the
   apprentice is fast enough to play each candidate on thousands of games);
4. round two, if asked: the lookahead over the new apprentice labels again.

Every step is seeded: the same command gives the same model, digest included (LightGBM
with deterministic=True on a fixed thread count).
"""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

from bollesim.bollebank import decisions as D
from bollesim.bollebank import lookahead, observation
from bollesim.bollebank.apprentice import features
from bollesim.bollebank.apprentice import model as M
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.scripted import space
from bollesim.game.policy import load_policy

# The gate is asked at every order decision and the chooser only where the gate opens,
# at the options its first trees shortlist (model.py). Both are small and shallow: a walk
# of a tree is memory the engine's other work has pushed out of the cache, so the cost of
# a decision is the trees it walks. The sizes were chosen by play on games of seed 1000
# among larger and smaller ones, as the smallest that played as well as the largest
# (docs/apprentice.md).
GATE = {"objective": "binary", "learning_rate": 0.4, "num_leaves": 31, "max_depth": 6,
        "min_data_in_leaf": 20, "feature_fraction": 0.8, "lambda_l2": 1.0}
CHOOSER = {"objective": "lambdarank", "learning_rate": 0.25, "num_leaves": 31, "max_depth": 6,
           "min_data_in_leaf": 10, "feature_fraction": 0.8, "lambda_l2": 1.0,
           "lambdarank_truncation_level": 3, "eval_at": [1]}
GATE_ROUNDS = 30  # trees of the gate
CHOOSER_ROUNDS = 100  # trees of the chooser
THRESHOLDS = (-2.5, -2.25, -2.0, -1.75, -1.5, -1.0)
"""The gate thresholds tried by play (log-odds; 0: even odds)."""


class TooFewLabels(ValueError):
    """The games labelled give nothing to fit one of the forests to."""


@dataclass(frozen=True)
class Labels:
    """The lookahead's order decisions, as it met them: features are built from them when
    the forests are fitted (rows), so a change of features.py needs no new games."""

    obs: np.ndarray  # (decisions, O.SIZE): the observation of each
    options: np.ndarray  # every decision's options, one after the other (packed orders)
    starts: np.ndarray  # (decisions + 1,): where each decision's options start in options
    choice: np.ndarray  # (decisions,): the option the lookahead took
    family: np.ndarray  # the plan family's parameters the apprentice's base plays

    def digest(self) -> str:
        h = hashlib.sha256()
        for a in (self.obs, self.options, self.starts, self.choice, self.family):
            h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()[:16]

    def __add__(self, other: Labels) -> Labels:
        return Labels(np.vstack([self.obs, other.obs]),
                      np.concatenate([self.options, other.options]),
                      np.concatenate([self.starts, other.starts[1:] + self.starts[-1]]),
                      np.concatenate([self.choice, other.choice]), self.family)


@dataclass(frozen=True)
class Rows:
    """Labels as the forests' training rows (features.py)."""

    gate_x: np.ndarray  # (decisions, X.SIZE): the base's choice of each decision
    gate_y: np.ndarray  # 1 where the lookahead left it
    choose_x: np.ndarray  # (rows, X.SIZE): every other option of the decisions it left
    choose_y: np.ndarray  # 1 for the option it took
    groups: np.ndarray  # rows per decision left, in order


def rows(labels: Labels, rules) -> Rows:
    """The training rows of labels: the gate's (did the lookahead leave the plan's
    choice?) and the chooser's (which other option did it take?)."""
    decisions = len(labels.choice)
    gate_x, gate_y = np.empty((decisions, features.SIZE)), np.empty(decisions, dtype=np.int8)
    choose_x, choose_y, groups = [], [], []
    for d in range(decisions):
        options = labels.options[labels.starts[d]:labels.starts[d + 1]]
        table, base = features.table(labels.obs[d], rules.packed, labels.family, options,
                              len(options))
        gate_x[d] = table[base]
        left = labels.choice[d] != base
        gate_y[d] = left
        if left:
            others = np.arange(len(options)) != base
            choose_x.append(table[others])
            choose_y.append(np.flatnonzero(others) == labels.choice[d])
            groups.append(len(options) - 1)
    if not choose_x or gate_y.all():
        raise TooFewLabels("the lookahead never left its base's choice in these games (or "
                           "always did): label more games")
    return Rows(gate_x, gate_y, np.vstack(choose_x), np.concatenate(choose_y).astype(np.int8),
                np.array(groups, dtype=np.int64))


def expert(rules, base=None) -> lookahead.Lookahead:
    """The lookahead player at its defaults over the plan family at its expert point (the
    teacher: not over the apprentice, which `-P lookahead` plays by default, so the labels
    do not depend on the model they train), or over the policy `base`."""
    player = lookahead.player(rules, load_policy("lookahead").param_vector({"base": "expert"}))
    if base is None:
        return player
    return lookahead.new_lookahead(rules, player.rollouts, base, player.objective,
                                   confidence=player.confidence)


def label(rules, seed: int, games: int, base=None, threads: int = 2,
          progress=None) -> tuple[Labels, np.ndarray]:
    """(the order decisions of `games` lookahead games of `seed` with more than one
    option, their result rows); progress(n) is called as games finish."""
    player = expert(rules, base)
    family = np.ascontiguousarray(player._params[:space.N_PARAMETERS])

    def one(g):
        row, decisions = player.play(seed, g, record=True, observe=True)
        return row, [d for d in decisions if d.kind == D.ISSUE_ORDER and len(d.options) > 1]

    obs, options, starts, choice, result = [], [], [0], [], []
    with ThreadPoolExecutor(threads) as pool:
        for row, decisions in pool.map(one, range(games)):
            result.append(row)
            for d in decisions:
                obs.append(d.obs)
                options.append(np.asarray(d.options, dtype=np.int64))
                starts.append(starts[-1] + len(d.options))
                choice.append(d.choice)
            if progress is not None:
                progress(1)
    labels = Labels(np.array(obs, dtype=np.int64).reshape(-1, observation.SIZE),
                    np.concatenate(options) if options else np.zeros(0, np.int64),
                    np.array(starts, dtype=np.int64), np.array(choice, dtype=np.int64),
                    family)
    return labels, np.array(result)


def fit(data: Rows, seed: int, threads: int = 2) -> np.ndarray:
    """The model (two forests, threshold 0) fitted to the training rows."""
    import lightgbm as lgb

    from bollesim.learn.forest import pack

    common = {"seed": seed, "deterministic": True, "force_row_wise": True,
              "num_threads": threads, "verbose": -1}
    gate = lgb.train({**GATE, **common}, lgb.Dataset(data.gate_x, data.gate_y),
                     num_boost_round=GATE_ROUNDS)
    chooser = lgb.train({**CHOOSER, **common},
                        lgb.Dataset(data.choose_x, data.choose_y, group=data.groups),
                        num_boost_round=CHOOSER_ROUNDS)
    return M.compose(pack(gate), pack(chooser), 0.0)


def policy_with(model: np.ndarray):
    """The apprentice policy playing `model`."""
    from bollesim.bollebank.apprentice.shipped import kernel_rows

    return replace(load_policy("apprentice"), to_kernel=partial(kernel_rows, model=model))


def play(rules, model: np.ndarray, seed: int, games: int) -> np.ndarray:
    """Result rows of `games` apprentice games of `seed` under model."""
    from bollesim.bollebank.play import play_chunk

    rows = np.zeros((games, 2))
    return play_chunk(rules, policy_with(model), rows, seed, 0, "fast")


def objective(rows: np.ndarray) -> float:
    """What the lookahead's default objective counts: operational victory and no defeat."""
    flag = RESULT.flags.index
    return float(rows[:, flag("operational")].mean() - rows[:, flag("defeat")].mean())


def tune(rules, model: np.ndarray, seed: int, games: int) -> tuple[float, dict[float, float]]:
    """(the threshold whose games of `seed` score best, every threshold's score)."""
    scores = {t: objective(play(rules, M.with_threshold(model, t), seed, games))
              for t in THRESHOLDS}
    return max(scores, key=lambda t: (scores[t], -abs(t))), scores


@dataclass(frozen=True)
class Trained:
    model: np.ndarray
    record: dict


def train(rules, seed: int, games: int, tune_seed: int, tune_games: int, rounds: int = 1,
          threads: int = 2, progress=None) -> Trained:
    """The apprentice trained on `games` lookahead games a round (seeds seed, seed + 1,
    ...; from the second round, the lookahead over the apprentice of the round before),
    each round fitted to every round's labels so far (as DAgger aggregates), its
    threshold tuned on tune_games of tune_seed."""
    started = time.monotonic()
    model, labels, history = None, None, []
    for r in range(rounds):
        base = None if model is None else policy_with(model)
        new, results = label(rules, seed + r, games, base, threads, progress)
        labels = new if labels is None else labels + new
        data = rows(labels, rules)
        model = fit(data, seed + r, threads)
        threshold, scores = tune(rules, model, tune_seed, tune_games)
        model = M.with_threshold(model, threshold)
        history.append({
            "round": r + 1, "base": "expert" if base is None else "apprentice",
            "seed": seed + r, "games": games,
            "decisions": int(len(data.gate_y)), "left": int(data.gate_y.sum()),
            "data_digest": labels.digest(), "expert_objective": objective(results),
            "threshold": threshold,
            "tuning": {f"{t:g}": round(s, 4) for t, s in scores.items()},
        })
    record = {"model_digest": M.digest(model), "tune_seed": tune_seed,
              "tune_games": tune_games, "seconds": round(time.monotonic() - started),
              "rounds": history}
    return Trained(model, record)


def save(path: Path, trained: Trained, command: str) -> None:
    """The model (path, .npz) and its record (path with .toml) side by side, each
    written whole (a temporary file, then renamed)."""
    path = Path(path)
    lines = ["# How this apprentice was made: the same command gives the same model digest",
             "# (docs/apprentice.md).",
             f"command = {command!r}".replace("'", '"'),
             f'model_digest = "{trained.record["model_digest"]}"']
    for key in ("tune_seed", "tune_games", "seconds"):
        lines.append(f"{key} = {trained.record[key]}")
    for h in trained.record["rounds"]:
        lines.append("\n[[rounds]]")
        for key, value in h.items():
            if key == "tuning":
                continue
            lines.append(f'{key} = "{value}"' if isinstance(value, str) else f"{key} = {value}")
        lines.append("tuning = { " + ", ".join(f'"{t}" = {s}' for t, s in h["tuning"].items())
                     + " }")
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, model=trained.model)
    tmp.replace(path)
    toml = path.with_suffix(".toml")
    tmp = toml.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(toml)
