"""The lookahead player (policies/lookahead.py): at every decision put to it, each legal
option is scored by Monte Carlo rollouts and the best is taken.

A rollout rebuilds the state of the decision by replaying the game from setup with the
choices made so far (engine/rollout.py), takes the option, and plays the game out under
a base policy on a chance stream of its own: it draws nothing the game itself would draw
after the decision, and its base policy sees only the observation. All options of a
decision are scored on the same rollout streams (common random numbers), so their
differences are not luck. A decision's score is the objective's mean over its rollouts;
the best option is taken when it beats the base policy's own choice on the same rollouts
by `confidence` standard errors of the paired difference (choose), so with no evidence the
player plays as its base.

The game is found by the fast engine; with engine="reference" the reference engine then
plays the same choices, and both give the same result row.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from bollesim.batch.runner import RESULT_COLUMNS
from bollesim.bollebank import observation as O
from bollesim.bollebank.engine import layout as L
from bollesim.bollebank.engine import rollout as R
from bollesim.bollebank.engine.script import PAUSE, ROLLOUT
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.game.policy import Policy, load_policy

OUTCOME_COLUMNS = tuple(name for name, _ in RESULT_COLUMNS[: L.R_DEFEAT + 1])  # the flags


@dataclass(frozen=True)
class Objective:
    """What a rollout is worth: the weighted sum of its outcome flags."""

    name: str
    weights: tuple[float, float, float, float, float]  # over OUTCOME_COLUMNS

    @property
    def weights_text(self) -> str:
        """The weights in words: "operational +1, defeat -1"."""
        return ", ".join(f"{name} {w:+g}" for name, w in zip(OUTCOME_COLUMNS, self.weights,
                                                             strict=True) if w)

    def score(self, rows: np.ndarray) -> np.ndarray:
        return rows[:, : len(OUTCOME_COLUMNS)] @ np.asarray(self.weights, dtype=np.float64)


OBJECTIVES = (  # the values of the lookahead policy's `objective` parameter
    Objective("operational victory and no defeat", (1, 0, 0, 0, -1)),
    Objective("no defeat", (0, 0, 0, 0, -1)),
    Objective("operational victory", (1, 0, 0, 0, 0)),
    Objective("victories, the four types added", (1, 1, 1, 1, 0)),
)
BASES = ("historical", "cautious", "fire_at_roe", "hold_fire", "rush", "random", "plan")
"""The values of the `base` parameter: the policy that plays the rollouts out, at its
defaults (`plan` at other parameters: play_games' base_params, with_base)."""



@dataclass(frozen=True)
class Position:
    """Where a game stands: a snapshot at the start of a phase (engine/rollout.py) and
    the choices made since."""

    snapshot: np.ndarray
    script: list[int]


SETUP = np.zeros(R.SNAP_SIZE, dtype=np.int64)
SETUP[R.SNAP_PHASE] = -1  # rollout.restore: from setup


@dataclass(frozen=True)
class Point:
    """A decision put to the player: where it stands, its kind, its options, the
    observation it is taken on and the base policy's choice."""

    at: Position
    kind: int
    options: np.ndarray
    obs: np.ndarray
    base_choice: int


@dataclass(frozen=True)
class Decision:
    """One decision of a lookahead game: its options, their scores, the choice."""

    turn: int
    kind: int
    options: np.ndarray  # the options (packed orders, tracks, vehicles, 0/1...)
    scores: np.ndarray  # the objective's mean over each option's rollouts
    base_choice: int  # the index the base policy would have chosen
    choice: int  # the index taken


class Lookahead:
    """A lookahead player for one ruleset: rollouts per option, base policy (at its
    parameters base_params, default its defaults), objective, and the confidence its best
    option needs to be taken over the base's choice (choose)."""

    def __init__(self, rules: Ruleset, rollouts: int, base: Policy, objective: Objective,
                 base_params: dict[str, float] | None = None, confidence: float = 0.0):
        if base.decide is None or base.plays_games is not None:
            raise ValueError(f"{base.name} cannot be the base of a lookahead player")
        self.rules = rules
        self.rollouts = rollouts
        self.confidence = confidence
        self.base = base
        self.objective = objective
        self.base_vector = base.param_vector(base_params)
        self._params = np.require(base.kernel_params(self.base_vector), np.float64, ["C", "W"])
        self._kernel, self._decide, self._scripted = _kernel(base)

    def _play(self, start, script, options, rollouts, mode, seed, game):
        out = np.zeros((len(options), L.N_RESULTS), dtype=np.int64)
        point = np.zeros(R.POINT_WIDTH, dtype=np.int64)
        snapshot = np.zeros(R.SNAP_SIZE, dtype=np.int64)
        self._kernel(
            self.rules.packed, self._decide, self._scripted, self._params, seed, game, start,
            np.asarray(script, dtype=np.int64), options, rollouts, mode, out, point, snapshot,
        )
        return out, point, snapshot

    def next_decision(self, seed: int, game: int, at: Position) -> tuple[np.ndarray, Point | None]:
        """(the result row if the base policy played on, the next decision after `at`, or
        None when the game ends first)."""
        none = np.full(1, -1, dtype=np.int64)
        out, point, snapshot = self._play(at.snapshot, at.script, none, none, PAUSE, seed, game)
        choice, kind, n = (int(x) for x in point[:3])
        if choice < 0:
            return out[0], None
        since = int(snapshot[R.SNAP_AT] - at.snapshot[R.SNAP_AT])  # choices before its phase
        where = Position(snapshot, at.script[since:])
        obs = point[3 : 3 + O.SIZE].copy()
        return out[0], Point(where, kind, point[3 + O.SIZE : 3 + O.SIZE + n].copy(), obs, choice)

    def values(self, seed: int, game: int, point: Point) -> np.ndarray:
        """(options, rollouts): the objective's value of each rollout of each option of the
        decision; column r holds the rollouts on the same streams."""
        n, r = len(point.options), self.rollouts
        options = np.repeat(np.arange(n, dtype=np.int64), r)
        rollouts = np.tile(np.arange(r, dtype=np.int64), n)
        at = point.at
        out, _, _ = self._play(at.snapshot, at.script, options, rollouts, ROLLOUT, seed, game)
        return self.objective.score(out).reshape(n, r)

    def scores(self, seed: int, game: int, point: Point) -> np.ndarray:
        """The objective's mean over `rollouts` rollouts of each option of the decision."""
        return self.values(seed, game, point).mean(axis=1)

    def choose(self, values: np.ndarray, base_choice: int) -> int:
        """The best-scored option, if it beats the base policy's choice on the same
        rollouts by `confidence` standard errors of their paired difference; else the
        base's choice. The best of many noisy scores is flattered by its luck (the
        winner's curse): without the margin, the player leaves good play for options
        that only drew well."""
        means = values.mean(axis=1)
        best = int(np.argmax(means))
        d = values[best] - values[base_choice]
        margin = self.confidence * np.sqrt((d * d).sum())
        return best if d.sum() > margin else base_choice

    def play(self, seed: int, game: int) -> tuple[np.ndarray, list[Decision]]:
        """One game: its result row (layout.R_*) and its decisions."""
        at = Position(SETUP, [])
        decisions: list[Decision] = []
        while True:
            row, point = self.next_decision(seed, game, at)
            if point is None:
                return row, decisions
            if len(point.at.script) + 1 >= L.MAX_SCRIPT:  # no room to replay more: base plays
                return row, decisions
            values = self.values(seed, game, point)
            scores = values.mean(axis=1)
            choice = self.choose(values, point.base_choice)
            turn = int(point.obs[O.TURN])
            decisions.append(
                Decision(turn, point.kind, point.options, scores, point.base_choice, choice)
            )
            at = Position(point.at.snapshot, [*point.at.script, choice])


    def reference_row(self, seed: int, game: int, decisions: list[Decision]) -> np.ndarray:
        """The reference engine's result row of the game `decisions` were taken in."""
        from bollesim.batch.runner import result_ints
        from bollesim.bollebank.reference.play import play_game

        policy = replaying(self.base, decisions)
        row = play_game(self.rules, policy, self.base_vector, seed, game)
        return np.array(result_ints(row), dtype=np.int64)


def _kernel(base: Policy):
    """(rollout.play_scripted for the base policy, its decide and scripted arguments)."""
    from bollesim.bollebank.engine.play import for_policy
    from bollesim.bollebank.engine.rollout import SCRIPTED_ARGS, play_scripted

    return for_policy(play_scripted, SCRIPTED_ARGS, base)


def player(rules: Ruleset, params: np.ndarray, base_params: dict | None = None) -> Lookahead:
    """The lookahead player of one parameter row of policies/lookahead.py."""
    rollouts, objective, base = (int(x) for x in params[:3])
    return Lookahead(rules, rollouts, load_policy(BASES[base]), OBJECTIVES[objective],
                     base_params, float(params[3]))


def with_base(base_params: dict[str, float]) -> Policy:
    """The lookahead policy with its base (`base` = plan, say) at base_params: for the
    Python API (a cluster's workers load policies by name, with their defaults)."""
    from functools import partial

    lookahead = load_policy("lookahead")
    return replace(lookahead, plays_games=partial(play_games, base_params=base_params))


def play_games(
    rules: Ruleset, params: np.ndarray, seed: int, first_game: int, engine: str = "fast",
    base_params: dict | None = None,
) -> np.ndarray:
    """Result rows (n, layout.N_RESULTS) of games first_game .. first_game + n - 1, game g
    played with parameter row params[g], one game per thread (numba's thread count)."""
    import numba

    players = {tuple(row): None for row in params}
    for key in players:
        players[key] = player(rules, np.asarray(key), base_params)

    def one(g: int) -> np.ndarray:
        chosen = players[tuple(params[g])]
        row, decisions = chosen.play(seed, first_game + g)
        if engine == "reference":
            return chosen.reference_row(seed, first_game + g, decisions)
        return row

    out = np.zeros((params.shape[0], L.N_RESULTS), dtype=np.int64)
    with ThreadPoolExecutor(numba.get_num_threads()) as pool:
        for g, row in enumerate(pool.map(one, range(params.shape[0]))):
            out[g] = row
    return out


def replaying(base: Policy, decisions: list[Decision], on_decision=None) -> Policy:
    """A policy for the reference engine that takes the recorded choices, then plays as
    base; on_decision(i) is called as the i-th recorded choice is taken."""
    taken = [0]

    def decide(kind, obs, rules, options, n_options, params, prng):
        i = taken[0]
        if i == len(decisions):
            return base.decide(kind, obs, rules, options, n_options, params, prng)
        taken[0] += 1
        if on_decision is not None:
            on_decision(i)
        return decisions[i].choice

    return replace(base, decide=decide)


def narrated_game(rules: Ruleset, params: np.ndarray, seed: int, game: int) -> tuple[list[str], dict]:
    """The turn-by-turn account of a lookahead game (replay.narrated_game), each decision
    with its options' scores, and its result row. The reference engine plays the choices
    the fast engine's rollouts found."""
    from bollesim.bollebank.narrate import Narrator, outcome_line
    from bollesim.bollebank.reference.play import play_game

    chosen = player(rules, params)
    _, decisions = chosen.play(seed, game)
    trace: list[tuple] = []
    notes: dict[int, list[str]] = {}
    narrator = Narrator(rules)

    def note(i: int) -> None:
        notes.setdefault(len(trace), []).append(decision_line(narrator, decisions[i]))

    policy = replaying(chosen.base, decisions, note)
    row = play_game(rules, policy, chosen.base_vector, seed, game, trace)
    head = (
        f"Lookahead: {chosen.rollouts} rollouts per option, played out by "
        f"{chosen.base.name}; an option's score is the mean over its rollouts of "
        f"'{chosen.objective.name}' ({chosen.objective.weights_text}); the best is taken "
        f"when it beats the base policy's choice by {chosen.confidence:g} standard errors."
    )
    return [head, *narrator.narrate(trace, notes), "", outcome_line(row)], row


SHOWN = 3  # the other options a narrated decision shows, best first


def decision_line(narrator, d: Decision) -> str:
    """One decision of a narrated lookahead game: the choice, its score, the best others."""
    from bollesim.bollebank import decisions as D

    def scored(i: int) -> str:
        return f"{narrator.option(d.kind, int(d.options[i]))} {d.scores[i]:+.2f}"

    others = [int(i) for i in np.argsort(-d.scores, kind="stable") if i != d.choice][:SHOWN]
    if d.choice != d.base_choice:
        base = f"the base policy: {narrator.option(d.kind, int(d.options[d.base_choice]))}"
    elif d.scores.max() > d.scores[d.choice]:
        base = "the base policy's, kept: no option beats it clearly"
    else:
        base = "as the base policy"
    more = f"; others: {', '.join(scored(i) for i in others)}" if others else ""
    return (f"  > lookahead, {D.KIND_NAMES[d.kind].replace('_', ' ')} ({len(d.options)} options): "
            f"{scored(d.choice)} ({base}){more}")
