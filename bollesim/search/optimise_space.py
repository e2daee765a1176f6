"""The search a spec asks for (`Search`, its `Axis` of each searched parameter), the
searched space as the sampler sees it (optuna distributions, a point's vector and
back), and the points a search starts from: the defaults, the grid, the presets."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bollesim.batch.limits import held_out_games, search_budget
from bollesim.batch.source import RulesetSource
from bollesim.game.declaration import Game, Ruleset
from bollesim.game.policy import Policy, load_policy
from bollesim.game.result import Objective

# --------------------------------------------------------------------------- the search


@dataclass(frozen=True)
class Axis:
    """A searched parameter: its index in the policy's vector and its range."""

    name: str
    index: int
    low: float
    high: float
    whole: bool
    choices: tuple[str, ...] | None = None  # a categorical parameter's value names

    def values(self) -> list[float]:
        return [float(v) for v in range(int(self.low), int(self.high) + 1)]


@dataclass(frozen=True)
class Search:
    """A validated optimise spec of a game."""

    name: str
    game: Game
    description: str
    policy: Policy
    seed: int
    holdout_seed: int
    budget: int
    candidates: int
    trial_games: int
    eta: int
    finalists: int
    holdout_games: int
    objectives: tuple[Objective, ...]  # one, or two in Pareto mode
    axes: tuple[Axis, ...]
    base: np.ndarray  # the parameter vector: defaults, with the spec's fixed values
    rules: Ruleset = field(repr=False)
    ruleset_source: RulesetSource = field(default_factory=RulesetSource)
    path: Path | None = None
    spec: dict = field(default_factory=dict, repr=False)

    @property
    def held_out_games(self) -> int:
        """Games of the held-out replay (limits.held_out_games)."""
        return held_out_games(self.finalists, self.holdout_games)

    @property
    def search_games(self) -> int:
        """Games the races may play: `budget` less the held-out games."""
        return search_budget(self.budget, self.finalists, self.holdout_games)

    @property
    def pareto(self) -> bool:
        return len(self.objectives) == 2


def is_whole(p) -> bool:
    """A parameter searched in whole numbers: its default and range are whole
    (Parameter.whole)."""
    return p.whole


# --------------------------------------------------------------------------- the space


def distributions(search: Search) -> dict:
    """The sampler's view of the searched parameters (optuna distributions): a parameter
    declared with `choices` is a categorical choice among the names of its values, a
    whole-numbered one an integer, any other a float."""
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    out = {}
    for axis in search.axes:
        if axis.choices is not None:
            out[axis.name] = CategoricalDistribution(axis.choices[int(axis.low):int(axis.high) + 1])
        elif axis.whole:
            out[axis.name] = IntDistribution(int(axis.low), int(axis.high))
        else:
            out[axis.name] = FloatDistribution(axis.low, axis.high)
    return out


def vector_of(search: Search, params: dict) -> np.ndarray:
    """The parameter vector of a sampler's point (choice names back to their indices)."""
    vector = search.base.copy()
    for axis in search.axes:
        value = params[axis.name]
        vector[axis.index] = axis.choices.index(value) if axis.choices is not None else value
    return vector


def params_of(search: Search, vector: np.ndarray) -> dict:
    """The sampler's point of a parameter vector (the inverse of vector_of)."""
    out = {}
    for axis in search.axes:
        value = vector[axis.index]
        out[axis.name] = (axis.choices[int(value)] if axis.choices is not None
                          else int(value) if axis.whole else float(value))
    return out


def in_space(search: Search, vector: np.ndarray) -> bool:
    """Whether a parameter vector lies in the searched space: its fixed parameters at the
    spec's values, its searched ones within their ranges."""
    searched = np.zeros(len(vector), dtype=bool)
    for axis in search.axes:
        searched[axis.index] = True
        if not axis.low <= vector[axis.index] <= axis.high:
            return False
    return bool(np.array_equal(vector[~searched], search.base[~searched]))


def grid_size(search: Search) -> float:
    """The number of points of the searched space (inf when a parameter is a float)."""
    if not all(a.whole for a in search.axes):
        return math.inf
    return math.prod(len(a.values()) for a in search.axes)


# --------------------------------------------------------------------------- the seeds


def seed_points(search: Search) -> list[tuple[np.ndarray, str]]:
    """The points the search starts from, each with its name: the defaults (a default
    outside a sub-range moved to its nearest bound); the whole grid of the searched
    parameters when they are all whole-numbered and it has at most `candidates` points;
    and, for the scripted family, every preset (policies/ modules with PRESET) at every
    value of its own parameters and of its family's seeded knobs (Game.space) that lies in
    the searched space. No
    duplicates: the first name of a point is kept."""
    first = search.base.copy()
    for axis in search.axes:
        first[axis.index] = min(max(first[axis.index], axis.low), axis.high)
    points = [(first, "defaults")]
    if grid_size(search) <= search.candidates:
        for combo in itertools.product(*(a.values() for a in search.axes)):
            row = search.base.copy()
            row[[a.index for a in search.axes]] = combo
            points.append((row, "grid"))
    if search.policy.name == search.game.scripted:
        points += [(v, label) for v, label in preset_points(search.game) if in_space(search, v)]
    seen, out = set(), []
    for vector, label in points:
        if vector.tobytes() not in seen:
            seen.add(vector.tobytes())
            out.append((vector, label))
    return out


def preset_points(game: Game) -> list[tuple[np.ndarray, str]]:
    """Every preset of the game's scripted family as points of it (its PRESET mapping), over the
    grid of its own whole-numbered parameters that are not shared knobs and of the
    family's seeded knobs (Game.space), e.g. ("fire_at_roe k=8 stop_at_tanks=0", its
    family vector)."""
    from bollesim.game.policy import Preset, available_policies

    if not game.space:
        return []
    space = game.space_module
    fixed_knobs = {p.name for p in space.knobs()} - set(space.SEEDED_KNOBS)
    out = []
    for name in available_policies(game):
        preset = load_policy(name, game)
        if not isinstance(preset, Preset):
            continue
        varied = [p for p in preset.parameters if p.name not in fixed_knobs and is_whole(p)]
        for combo in itertools.product(*(range(int(p.low), int(p.high) + 1) for p in varied)):
            values = dict(zip((p.name for p in varied), combo, strict=True))
            vector = preset.kernel_params(preset.param_vector(values))
            label = " ".join([name] + [f"{k}={v}" for k, v in values.items()])
            out.append((vector, label))
    return out
