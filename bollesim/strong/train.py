"""How any game's apprentice learns (expert iteration, Anthony et al. 2017, one round by
default), from what the game declares (its apprentice module: strong/apprentice.py DECLARED):

1. label: the game's teacher, a lookahead player, plays games of the training seed;
   every decision of a kind learned with more than one option is kept as it met it (the
   observation, the options, the lookahead's choice: Lookahead.play(observe=True));
2. fit: LightGBM fits the gate (did the lookahead leave its base's choice? binary) on
   every decision, and the chooser (which option did it take instead? lambdarank, one
   group a decision) on the decisions where it left it;
3. tune: the gate's threshold is chosen by play, on games of a seed of its own (the
   apprentice is fast enough to play each candidate on thousands of games), by the
   teacher's own objective;
4. round two, if asked: the lookahead over the new apprentice labels again, and the fit
   uses every round's labels (as DAgger aggregates).

Every step is seeded: the same command gives the same model, digest included (LightGBM
with deterministic=True on a fixed thread count). `own`, below: the game's apprentice
module (the names of strong/apprentice.py DECLARED).
"""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

from bollesim.game.policy import load_policy
from bollesim.strong import apprentice as A


class TooFewLabels(ValueError):
    """The games labelled give nothing to fit one of the forests to."""


@dataclass(frozen=True)
class Labels:
    """The lookahead's decisions of the kinds learned, as it met them: features are built
    from them when the forests are fitted (rows), so a change of a game's features needs
    no new games."""

    obs: np.ndarray  # (decisions, observation size): the observation of each
    options: np.ndarray  # every decision's options, one after the other (as the game codes them)
    starts: np.ndarray  # (decisions + 1,): where each decision's options start in options
    choice: np.ndarray  # (decisions,): the option the lookahead took
    params: np.ndarray  # the kernel vector of the base the apprentice plays over
    kinds: np.ndarray  # (decisions,): the kind of each

    def digest(self) -> str:
        """A hash of the labels; the kinds count only where they differ (so the labels of
        a game that learns one kind hash as they did before kinds were kept)."""
        h = hashlib.sha256()
        for a in (self.obs, self.options, self.starts, self.choice, self.params):
            h.update(np.ascontiguousarray(a).tobytes())
        if len(np.unique(self.kinds)) > 1:
            h.update(np.ascontiguousarray(self.kinds).tobytes())
        return h.hexdigest()[:16]

    def __add__(self, other: Labels) -> Labels:
        return Labels(np.vstack([self.obs, other.obs]),
                      np.concatenate([self.options, other.options]),
                      np.concatenate([self.starts, other.starts[1:] + self.starts[-1]]),
                      np.concatenate([self.choice, other.choice]), self.params,
                      np.concatenate([self.kinds, other.kinds]))


@dataclass(frozen=True)
class Rows:
    """Labels as the forests' training rows (the game's features)."""

    gate_x: np.ndarray  # (decisions, features): the base's choice of each decision
    gate_y: np.ndarray  # 1 where the lookahead left it
    choose_x: np.ndarray  # (rows, features): every other option of the decisions it left
    choose_y: np.ndarray  # 1 for the option it took
    groups: np.ndarray  # rows per decision left, in order


def rows(own, labels: Labels, rules) -> Rows:
    """The training rows of labels: the gate's (did the lookahead leave its base's
    choice?) and the chooser's (which other option did it take?)."""
    decisions = len(labels.choice)
    vector = own.rules_vector(rules)
    gate_x = np.empty((decisions, own.FEATURES))
    gate_y = np.empty(decisions, dtype=np.int8)
    choose_x, choose_y, groups = [], [], []
    for d in range(decisions):
        options = labels.options[labels.starts[d]:labels.starts[d + 1]]
        table, base = A.table(own, int(labels.kinds[d]), labels.obs[d], vector,
                              labels.params, options)
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


def label(own, rules, seed: int, games: int, base=None,
          threads: int = 2, progress=None) -> tuple[Labels, np.ndarray, object]:
    """(the decisions of the kinds learned, with more than one option, of `games` games
    of `seed` played by the game's teacher (over `base`, if given), their result rows,
    the teacher); progress(n) is called as games finish."""
    player = A.teacher(own, rules, base)
    params = np.ascontiguousarray(player._params[:own.BASE_SIZE])
    learned = set(own.KINDS)

    def one(g):
        row, decisions = player.play(seed, g, record=True, observe=True)
        return row, [d for d in decisions if d.kind in learned and len(d.options) > 1]

    obs, options, starts, choice, kinds, result = [], [], [0], [], [], []
    with ThreadPoolExecutor(threads) as pool:
        for row, decisions in pool.map(one, range(games)):
            result.append(row)
            for d in decisions:
                obs.append(d.obs)
                options.append(np.asarray(d.options, dtype=np.int64))
                starts.append(starts[-1] + len(d.options))
                choice.append(d.choice)
                kinds.append(d.kind)
            if progress is not None:
                progress(1)
    size = player.positions.OBSERVATION_SIZE
    labels = Labels(np.array(obs, dtype=np.int64).reshape(-1, size),
                    np.concatenate(options) if options else np.zeros(0, np.int64),
                    np.array(starts, dtype=np.int64), np.array(choice, dtype=np.int64),
                    params, np.array(kinds, dtype=np.int64))
    return labels, np.array(result), player


def fit(own, data: Rows, seed: int, threads: int = 2) -> np.ndarray:
    """The model (two forests, threshold 0) fitted to the training rows."""
    import lightgbm as lgb

    from bollesim.learn.forest import pack

    sizes = A.forests(own)
    common = {"seed": seed, "deterministic": True, "force_row_wise": True,
              "num_threads": threads, "verbose": -1}
    gate = lgb.train({**sizes.gate, **common}, lgb.Dataset(data.gate_x, data.gate_y),
                     num_boost_round=sizes.gate_trees)
    chooser = lgb.train({**sizes.chooser, **common},
                        lgb.Dataset(data.choose_x, data.choose_y, group=data.groups),
                        num_boost_round=sizes.chooser_trees)
    return A.compose(pack(gate), pack(chooser), 0.0, own.FEATURES, sizes.screen,
                     sizes.shortlist)


def policy_with(own, game: str, model: np.ndarray):
    """The game's apprentice policy playing `model`."""
    policy = load_policy(own.POLICY, game)
    return replace(policy, to_kernel=partial(A.kernel_rows, own, model=model))


def play(own, game, rules, model: np.ndarray, seed: int,
         games: int) -> np.ndarray:
    """Result rows of `games` apprentice games of `seed` under model, at the policy's
    defaults (no restriction)."""
    policy = policy_with(own, game.name, model)
    params = np.tile(policy.param_vector(), (games, 1))
    return game.play_chunk(rules, policy, params, seed, 0, "fast")


def objective(game, teacher, rows: np.ndarray) -> float:
    """The mean of the teacher's objective over result rows: its weight of each outcome
    times that outcome's rate, added in the result's order."""
    flags = game.result.flags
    total = 0.0
    for i, weight in enumerate(teacher.objective.over(flags)):
        if weight:
            total += weight * rows[:, i].mean()
    return float(total)


def tune(own, game, rules, model: np.ndarray, seed: int, games: int,
         teacher) -> tuple[float, dict[float, float]]:
    """(the threshold whose games of `seed` score best, every threshold's score; ties: the
    threshold nearer zero)."""
    scores = {t: objective(game, teacher,
                           play(own, game, rules, A.with_threshold(model, t), seed, games))
              for t in A.forests(own).thresholds}
    return max(scores, key=lambda t: (scores[t], -abs(t))), scores


@dataclass(frozen=True)
class Trained:
    model: np.ndarray
    record: dict


def train(game, rules, seed: int, games: int, tune_seed: int, tune_games: int,
          rounds: int = 1, threads: int = 2, progress=None) -> Trained:
    """The game's apprentice (game: a bollesim.game.declaration.Game) trained on `games`
    lookahead games a round (seeds seed, seed + 1, ...; from the second round, the
    lookahead over the apprentice of the round before), each round fitted to every
    round's labels so far, its threshold tuned on tune_games of tune_seed."""
    own = A.apprenticeship(game)
    started = time.monotonic()
    model, labels, history = None, None, []
    for r in range(rounds):
        base = None if model is None else policy_with(own, game.name, model)
        new, results, teacher = label(own, rules, seed + r, games, base, threads, progress)
        labels = new if labels is None else labels + new
        data = rows(own, labels, rules)
        model = fit(own, data, seed + r, threads)
        threshold, scores = tune(own, game, rules, model, tune_seed, tune_games, teacher)
        model = A.with_threshold(model, threshold)
        history.append({
            "round": r + 1, "base": "expert" if base is None else own.POLICY,
            "seed": seed + r, "games": games,
            "decisions": int(len(data.gate_y)), "left": int(data.gate_y.sum()),
            "data_digest": labels.digest(), "expert_objective": objective(game, teacher, results),
            "threshold": threshold,
            "tuning": {f"{t:g}": round(s, 4) for t, s in scores.items()},
        })
    record = {"model_digest": A.digest(model), "tune_seed": tune_seed,
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
