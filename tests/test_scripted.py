"""The scripted family `plan` (policies/plan.py) and its presets.

- Each preset plays the same games as the point of the family that stands for it, written
  out here by hand (so a preset mapping that drifts fails).
- The fast engine's compiled family (orders.scripted_order: the best order found without
  listing the options) gives the same games as the family's own decide called through
  the general protocol (every option listed, a function pointer), over random points of
  the family's space.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
import pytest

from bollesim.policy import load_policy
from bollesim.rules.loader import load_ruleset
from bollesim.runner import play_chunk
from policies import _space as S

N = 400
SEED = 13


@cache
def rules():
    return load_ruleset()


def general(policy):
    """The policy played through the general protocol (engine/player.py)."""
    return replace(policy, scripted=False)


def family_rows(point: dict, n: int = N, seed: int = SEED) -> np.ndarray:
    plan = load_policy("plan")
    params = np.tile(plan.param_vector(point), (n, 1))
    return play_chunk(rules(), general(plan), params, seed, 0, "fast")


# (preset, its own parameters, the family's parameters at the point it stands for)
POINTS = [
    ("historical", {}, {}),
    ("historical", {"tow": 1, "target": 2},
     {"tow_immobile": 1, "withdraw": 1, "target": 2}),
    ("hold_fire", {}, {"fire_roe": 25}),
    ("fire_at_roe", {"k": 15, "max_pairs": 4}, {"fire_roe": 15, "max_pairs": 4}),
    ("fire_at_turn", {"t": 6, "play_on": 1}, {"fire_turn": 6, "play_on": 1}),
    ("cautious", {}, {"fire_unrestricted": 1, "airstrike": S.AIRSTRIKE_FIRST,
                      "stop_at_tanks": 0, "tow_immobile": 1, "withdraw": 1}),
    ("rush", {}, {"t2_tanks": 7, "fire_first": 0, "ql3_post": S.OP_N}),
    ("rush", {"apcs": 1}, {"t2_tanks": 7, "fire_first": 0, "vl2_post": S.KALESIJA,
                           "ql3_post": S.KALESIJA}),
]


@pytest.mark.parametrize(("preset", "own", "point"), POINTS)
def test_preset_plays_the_point_it_stands_for(preset, own, point):
    policy = load_policy(preset)
    params = np.tile(policy.param_vector(own), (N, 1))
    rows = play_chunk(rules(), policy, params, SEED, 0, "fast")
    assert np.array_equal(rows, family_rows(point))


def test_presets_are_distinct_points():
    """The presets are not all the same game: hold_fire never fires, historical does."""
    assert not np.array_equal(family_rows({}), family_rows({"fire_roe": 25}))


def random_points(n: int, seed: int) -> np.ndarray:
    """n random integer points of the family's space."""
    gen = np.random.default_rng(seed)
    return np.array(
        [[gen.integers(p.low, p.high + 1) for p in S.PARAMETERS] for _ in range(n)],
        dtype=np.float64,
    )


def test_compiled_family_equals_general_protocol():
    plan = load_policy("plan")
    assert plan.scripted
    params = random_points(600, 3)
    compiled = play_chunk(rules(), plan, params, SEED, 0, "fast")
    listed = play_chunk(rules(), general(plan), params, SEED, 0, "fast")
    assert np.array_equal(compiled, listed)
