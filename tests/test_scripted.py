"""The scripted family `plan` (policies/bollebank/plan.py) and its presets.

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

from bollesim.batch.runner import play_chunk
from bollesim.bollebank import codes
from bollesim.bollebank.engine.player import DECIDE, FAMILY
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.bollebank.scripted import space
from bollesim.game.policy import load_policy

N = 400
SEED = 13


@cache
def rules():
    return load_ruleset()


def general(policy):
    """The policy played through the general protocol (engine/player.py)."""
    return replace(policy, compiled_in=DECIDE)


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
    ("cautious", {}, {"fire_unrestricted": 1, "airstrike": space.AIRSTRIKE_FIRST,
                      "stop_at_tanks": 0, "tow_immobile": 1, "withdraw": 1}),
    ("rush", {}, {"t2_tanks": 7, "fire_first": 0, "ql3_post": space.OP_N}),
    ("rush", {"apcs": 1}, {"t2_tanks": 7, "fire_first": 0, "vl2_post": space.KALESIJA,
                           "ql3_post": space.KALESIJA}),
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
        [[gen.integers(p.low, p.high + 1) for p in space.PARAMETERS] for _ in range(n)],
        dtype=np.float64,
    )


def test_compiled_family_equals_general_protocol():
    plan = load_policy("plan")
    assert plan.compiled_in == FAMILY
    params = random_points(600, 3)
    compiled = play_chunk(rules(), plan, params, SEED, 0, "fast")
    listed = play_chunk(rules(), general(plan), params, SEED, 0, "fast")
    assert np.array_equal(compiled, listed)


# ------------------------------------------------------------------ t2_together


def test_t2_together_changes_games():
    assert not np.array_equal(family_rows({}), family_rows({"t2_together": 1}))


def wishes_at(positions: dict[int, int], point: dict, towed: tuple[int, ...] = ()) -> dict:
    """The family's wish (_plan.routes) for each vehicle, turn 1, with the given vehicles
    at the given positions (the others in Saraci), `towed` in tow."""
    from bollesim.bollebank import observation
    from bollesim.bollebank.scripted import plan as _plan
    from bollesim.bollebank.scripted.tactics import place_of

    packed = rules().packed
    params = load_policy("plan").param_vector(point)
    obs = np.zeros(observation.SIZE, dtype=np.int64)
    obs[observation.TURN] = 1
    for v in range(codes.N_VEHICLES):
        at = observation.VEH + observation.V_FIELDS * v
        obs[at + observation.V_POS] = positions.get(v, rules().position("SAR"))
        obs[at + observation.V_DEST] = -1
        obs[at + observation.V_TOWED_BY] = 1 if v in towed else -1
        obs[at + observation.V_TOW_TARGET] = -1
    goal = _plan.goals(packed, params)
    wishes = _plan.routes(obs, packed, params, goal, (1 << codes.N_VEHICLES) - 1)
    return {v: place_of(wishes, v) for v in range(codes.N_VEHICLES)}


def test_t2_together_waits_in_kalesija_for_the_last_tank():
    """The four tanks bound for Tango 2 (t2_tanks 4): three in Kalesija wait there while
    the fourth is still on its way, unless it is in tow; with all four there they go on,
    as they do at once without t2_together."""
    kalesija, saraci = rules().position("KAL"), rules().position("SAR")
    bound = (codes.QL1, codes.AQ, codes.EA, codes.FA)
    three = {v: kalesija for v in bound[:3]}
    everyone = {v: kalesija for v in bound}
    waiting = wishes_at(three, {"t2_together": 1})
    assert [waiting[v] for v in bound[:3]] == [kalesija] * 3
    assert waiting[bound[3]] not in (saraci, -1)  # the last one comes on
    for case in (wishes_at(three, {}), wishes_at(everyone, {"t2_together": 1}),
                 wishes_at(three, {"t2_together": 1}, towed=(bound[3],))):
        assert all(case[v] not in (kalesija, -1) for v in bound[:3])
