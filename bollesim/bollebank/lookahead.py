"""The lookahead player (policies/lookahead.py): at the decisions that matter, the legal
options are scored by Monte Carlo rollouts and the best is taken.

A rollout rebuilds the state of the decision by replaying the game's phase from its
snapshot with the choices made since (engine/rollout.py), takes the option, and plays the
game out under a base policy on a chance stream of its own: it draws nothing the game
itself would draw after the decision, and its base policy sees only the observation. All
options of a decision are scored on the same rollout streams (common random numbers), so
their differences are not luck. Rollouts go where they decide: successive halving over
the options (engine/lookahead.py), and only at the kinds of decision LOOKED_AT; the
others, and the lone options, are the base's. The best option is taken when it beats the
base policy's own choice on the same rollouts by `confidence` standard errors of the
paired difference (engine/lookahead.py: choose), so with no evidence the player plays as
its base. The default base is the plan family at EXPERT_BASE (expert_base.toml).

A whole game is one kernel call (engine/lookahead.py: play_lookahead). With
engine="reference" the reference engine then plays the same choices, and both give the
same result row.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from bollesim.bollebank import decisions as D
from bollesim.bollebank import observation
from bollesim.bollebank.engine import layout, rollout
from bollesim.bollebank.engine import lookahead as EL
from bollesim.bollebank.engine.player import FAMILY
from bollesim.bollebank.engine.script import PAUSE, ROLLOUT
from bollesim.bollebank.expert import IMPOSED_PARAMETERS, FirstFire, expert_base, with_trigger
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.errors import UsageError
from bollesim.game.policy import DecidePolicy, Policy, load_policy
from bollesim.game.result import Objective

OUTCOME_COLUMNS = RESULT.flags  # the first slots of a result row (engine/layout.py)


OBJECTIVES = (  # the values of the lookahead policy's `objective` parameter
    Objective("operational victory and no defeat", {"operational": 1, "defeat": -1}),
    Objective("no defeat", {"defeat": -1}),
    Objective("operational victory", {"operational": 1}),
    Objective("victories, the four types added", {v: 1 for v in RESULT.wins}),
)
BASES = ("expert", "historical", "cautious", "fire_at_roe", "hold_fire", "rush", "random",
         "plan", "apprentice")
"""The values of the `base` parameter: the policy that plays the rollouts out. "expert":
the plan family at EXPERT_BASE; "apprentice": the learned player over it
(policies/apprentice.py); the others at their defaults (`plan` at other parameters:
play_games' base_params, with_base)."""

def base_of(name: str, base_params: dict[str, float] | None) -> tuple[Policy, dict | None]:
    """(the policy, its parameters) of a value of BASES."""
    if name == "expert":
        return load_policy("plan"), {**expert_base(), **(base_params or {})}
    return load_policy(name), base_params


LOOKED_AT = (D.ISSUE_ORDER,)
"""The kinds of decision the player looks ahead at: the order to give. It leaves the others
to its base: looking at drawing, VL2's destination, Extra orders and stopping on a victory
too cost 40% more rollouts for no measured gain (docs/lookahead.md)."""
FIRST_ROUND = 1
"""Rollouts of every option in the first round of successive halving."""
SCREEN = 6
"""Rollouts of the base's choice first: a decision whose outcome is the same in all of
them looks settled and is left to the base (engine/lookahead.py)."""


@dataclass(frozen=True)
class Position:
    """Where a game stands: a snapshot at the start of a phase (engine/rollout.py) and
    the choices made since."""

    snapshot: np.ndarray
    script: list[int]


SETUP = np.zeros(rollout.SNAP_SIZE, dtype=np.int64)
SETUP[rollout.SNAP_PHASE] = -1  # rollout.restore: from setup


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
    scores: np.ndarray  # the objective's mean over each option's rollouts (nan: none)
    base_choice: int  # the index the base policy would have chosen
    choice: int  # the index taken
    rollouts: int  # rollouts spent on it (0: left to the base)
    obs: np.ndarray | None = None  # the observation it was taken on (play(observe=True))


LOG_ROWS = layout.MAX_SCRIPT  # decisions of a game kept for the reference engine and `play`
LOG_OPTIONS = 1 << 16  # their options, flat


class Lookahead:
    """A lookahead player for one ruleset: the most rollouts an option gets, base policy
    (at its parameters base_params, default its defaults), objective, the confidence its
    best option needs to be taken over the base's choice (choose), the first round of
    successive halving, the kinds of decision looked at, an imposed first Fire order (the
    base's own trigger is then set to it, so that its rollouts obey it too), and the
    rollouts that screen a decision (SCREEN)."""

    def __init__(self, rules: Ruleset, rollouts: int, base: Policy, objective: Objective,
                 base_params: dict[str, float] | None = None, confidence: float = 0.0,
                 first: int = FIRST_ROUND, kinds: tuple[int, ...] = LOOKED_AT,
                 first_fire: FirstFire = FirstFire(), screen: int = SCREEN):
        if not isinstance(base, DecidePolicy):
            raise ValueError(f"{base.name} cannot be the base of a lookahead player")
        keeps_trigger = {p.name for p in IMPOSED_PARAMETERS} <= {p.name for p in base.parameters}
        if first_fire.imposed and not (base.compiled_in == FAMILY or keeps_trigger):
            raise UsageError(f"an imposed first Fire order needs a base of the plan family "
                             f"or the apprentice, not {base.name}")
        self.rules = rules
        self.rollouts = rollouts
        self.confidence = confidence
        self.objective = objective
        self.first_fire = first_fire
        self.base = base
        self.base_vector = base.param_vector(base_params)
        if first_fire.imposed and keeps_trigger:  # the base's own restricted play
            self.base_vector = base.param_vector({**(base_params or {}),
                                                  "imposed_roe": first_fire.roe,
                                                  "imposed_turn": first_fire.turn})
        elif first_fire.imposed:  # the family itself, at the point with the trigger imposed
            self.base = load_policy("plan")
            self.base_vector = with_trigger(base.kernel_params(self.base_vector), first_fire)
        self._params = np.require(self.base.kernel_params(self.base_vector), np.float64,
                                  ["C", "W"])
        self._game_kernel, self._decide, self._scripted = _kernel(self.base, game=True)
        config = np.zeros(EL.CFG_SIZE)
        config[EL.CFG_WEIGHTS : EL.CFG_WEIGHTS + EL.N_OUTCOMES] = objective.over(OUTCOME_COLUMNS)
        config[EL.CFG_ROLLOUTS] = rollouts
        config[EL.CFG_FIRST] = first
        config[EL.CFG_CONFIDENCE] = confidence
        config[EL.CFG_KINDS] = sum(1 << k for k in set(kinds))
        config[EL.CFG_FIRE_ROE] = first_fire.roe
        config[EL.CFG_FIRE_TURN] = first_fire.turn
        config[EL.CFG_SCREEN] = screen
        self.config = config

    @cached_property
    def _kernel(self):
        """rollout.play_scripted for the base (loaded on first use)."""
        return _kernel(self.base)[0]

    def _play(self, start, script, options, rollouts, mode, seed, game):
        out = np.zeros((len(options), layout.N_RESULTS), dtype=np.int64)
        point = np.zeros(rollout.POINT_WIDTH, dtype=np.int64)
        snapshot = np.zeros(rollout.SNAP_SIZE, dtype=np.int64)
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
        since = int(snapshot[rollout.SNAP_AT] - at.snapshot[rollout.SNAP_AT])  # choices before its phase
        where = Position(snapshot, at.script[since:])
        obs = point[3 : 3 + observation.SIZE].copy()
        return out[0], Point(where, kind, point[3 + observation.SIZE : 3 + observation.SIZE + n].copy(), obs, choice)

    def values(self, seed: int, game: int, point: Point) -> np.ndarray:
        """(options, rollouts): the objective's value of each of `rollouts` rollouts of
        each option of the decision; column r holds the rollouts on the same streams."""
        n, r = len(point.options), self.rollouts
        options = np.repeat(np.arange(n, dtype=np.int64), r)
        rollouts = np.tile(np.arange(r, dtype=np.int64), n)
        at = point.at
        out, _, _ = self._play(at.snapshot, at.script, options, rollouts, ROLLOUT, seed, game)
        return (out[:, : len(OUTCOME_COLUMNS)] @ self.objective.over(OUTCOME_COLUMNS)).reshape(n, r)

    def scores(self, seed: int, game: int, point: Point) -> np.ndarray:
        """The objective's mean over `rollouts` rollouts of each option of the decision."""
        return self.values(seed, game, point).mean(axis=1)

    def choose(self, values: np.ndarray, base_choice: int) -> int:
        """The best-scored option of values (options, rollouts), if it beats the base
        policy's choice on the same rollouts by `confidence` standard errors of their
        paired difference; else the base's choice (engine/lookahead.py: choose)."""
        best = int(np.argmax(values.mean(axis=1)))
        d = np.ascontiguousarray(values[best] - values[base_choice], dtype=np.float64)
        return int(EL.choose(d, best, base_choice, float(self.confidence)))

    def play(self, seed: int, game: int, record: bool = True,
             at: Position | None = None, observe: bool = False) -> tuple[np.ndarray, list[Decision]]:
        """One game, from setup or from `at`: its result row (layout.R_*) and, if record,
        the decisions it took (from `at`), with their observations if observe."""
        at = at or Position(SETUP, [])
        out = np.zeros(layout.N_RESULTS, dtype=np.int64)
        tally = np.zeros(3, dtype=np.int64)
        rows, flat = (LOG_ROWS, LOG_OPTIONS) if record else (0, 0)
        log = np.zeros((rows, EL.LOG_WIDTH), dtype=np.int64)
        options = np.zeros(flat, dtype=np.int64)
        scores = np.zeros(flat, dtype=np.float64)
        seen = np.zeros((rows if observe else 0, observation.SIZE), dtype=np.int64)
        self._game_kernel(self.rules.packed, self._decide, self._scripted, self._params, seed,
                          game, at.snapshot, np.asarray(at.script, dtype=np.int64), self.config,
                          out, tally, log, options, scores, seen)
        asked = int(tally[EL.TALLY_DECISIONS])
        if record and (asked > rows or (log[:asked, EL.LOG_N] == 0).any()):
            raise ValueError(f"game {game}: more decisions than the log holds")
        decisions = []
        for k in range(asked if record else 0):
            kind, n, base, choice, turn, spent, at = (int(x) for x in log[k])
            decisions.append(Decision(turn, kind, options[at : at + n].copy(),
                                      scores[at : at + n].copy(), base, choice, spent,
                                      seen[k].copy() if observe else None))
        return out, decisions

    def reference_row(self, seed: int, game: int, decisions: list[Decision]) -> np.ndarray:
        """The reference engine's result row of the game `decisions` were taken in."""
        from bollesim.bollebank.reference.play import play_game

        policy = replaying(self.base, decisions)
        row = play_game(self.rules, policy, self.base_vector, seed, game)
        return np.array(RESULT.ints(row), dtype=np.int64)


def _kernel(base: Policy, game: bool = False):
    """(the kernel for the base policy: rollout.play_scripted, or with game
    lookahead.play_lookahead; its decide and scripted arguments)."""
    from bollesim.bollebank.engine.play import for_policy

    if game:
        return for_policy(EL.play_lookahead, EL.LOOKAHEAD_ARGS, base)
    return for_policy(rollout.play_scripted, rollout.SCRIPTED_ARGS, base)


def player(rules: Ruleset, params: np.ndarray, base_params: dict | None = None) -> Lookahead:
    """The lookahead player of one parameter row of policies/lookahead.py."""
    rollouts, objective, base, _, roe, turn = (int(x) for x in params[:6])
    policy, base_params = base_of(BASES[base], base_params)
    return Lookahead(rules, rollouts, policy, OBJECTIVES[objective], base_params,
                     float(params[3]), first_fire=FirstFire(roe, turn))


def with_base(base_params: dict[str, float]) -> Policy:
    """The lookahead policy with its base (`base` = plan, say) at base_params: for the
    Python API (a cluster's workers load policies by name, with their defaults)."""
    from functools import partial

    lookahead = load_policy("lookahead")
    return replace(lookahead, play_games=partial(play_games, base_params=base_params))


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
    reference = engine == "reference"

    def one(g: int) -> np.ndarray:
        chosen = players[tuple(params[g])]
        row, decisions = chosen.play(seed, first_game + g, record=reference)
        if reference:
            return chosen.reference_row(seed, first_game + g, decisions)
        return row

    out = np.zeros((params.shape[0], layout.N_RESULTS), dtype=np.int64)
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
        notes.setdefault(len(trace), []).append(
            decision_line(narrator, decisions[i], chosen.confidence))

    policy = replaying(chosen.base, decisions, note)
    row = play_game(rules, policy, chosen.base_vector, seed, game, trace)
    head = (
        f"Lookahead: at most {chosen.rollouts} rollouts per option (successive halving), "
        f"played out by {chosen.base.name}; an option's score is the mean over its rollouts "
        f"of '{chosen.objective.label}' ({chosen.objective.weights_text}); the best is taken "
        f"when it beats the base policy's choice by {chosen.confidence:g} standard errors."
    )
    return [head, *narrator.narrate(trace, notes), "", outcome_line(row)], row


SHOWN = 3  # the other options a narrated decision shows, best first


def decision_line(narrator, d: Decision, confidence: float) -> str:
    """One decision of a narrated lookahead game: the choice, its score, the best others,
    and why the base policy's choice was kept when another scored higher (the best is
    taken only when it beats it by `confidence` standard errors)."""

    def scored(i: int) -> str:
        return f"{narrator.option(d.kind, int(d.options[i]))} {d.scores[i]:+.2f}"

    name = D.KIND_NAMES[d.kind].replace("_", " ")
    if d.rollouts == 0:
        return (f"  > lookahead, {name} ({len(d.options)} options): "
                f"{narrator.option(d.kind, int(d.options[d.choice]))} (not looked at)")
    ranked = [int(i) for i in np.argsort(-np.nan_to_num(d.scores, nan=-np.inf), kind="stable")
               if not np.isnan(d.scores[i])]
    others = [i for i in ranked if i != d.choice][:SHOWN]
    if d.choice != d.base_choice:
        base = f"the base policy: {narrator.option(d.kind, int(d.options[d.base_choice]))}"
    elif np.nanmax(d.scores) > d.scores[d.choice]:
        lead = float(np.nanmax(d.scores) - d.scores[d.choice])
        base = (f"the base policy's, kept: the best scores {lead:.2f} more, short of the "
                f"{confidence:g} standard errors the lookahead needs to leave it")
    else:
        base = "as the base policy"
    more = f"; others: {', '.join(scored(i) for i in others)}" if others else ""
    return (f"  > lookahead, {name} ({len(d.options)} options, {d.rollouts} rollouts): "
            f"{scored(d.choice)} ({base}){more}")
