"""Operation Bøllebank's apprentice, declared for the generic one (the names of
bollesim/strong/apprentice.py DECLARED): it learns the order to give (§5.3-5.4), sees
features.py, plays over the plan family at the lookahead player's point (expert.py), and
keeps an imposed first Fire order.

- Its base: the plan family at EXPERT_BASE (expert_base.toml) scores every order and gives
  the first best-scored (features.prepare); the family plays every other decision.
- Restricted play (imposed_roe, imposed_turn, as the lookahead's): the base's trigger is
  set to the imposed one (expert.with_trigger), and until the first Fire order the
  apprentice leaves its base only for an order that is a Fire order exactly when the
  base's choice is (departs): the base's trigger decides when the first comes.
- Its teacher: the lookahead player at its defaults over that base (lookahead.teacher;
  not over the apprentice, which `-P lookahead` plays by default, so the labels do not
  depend on the model they train).

policies/bollebank/apprentice.py and the fast engine (engine/player.py APPRENTICE, compiled in)
call strong/apprentice.py decide with this module.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from bollesim.bollebank import codes, decisions, observation
from bollesim.bollebank.apprentice import features
from bollesim.bollebank.expert import FirstFire, expert_base, with_trigger
from bollesim.bollebank.scripted import plan as F
from bollesim.bollebank.scripted import space
from bollesim.jit import compiled

POLICY = "apprentice"
KINDS = (decisions.ISSUE_ORDER,)
FEATURES = features.SIZE
BASE_SIZE = space.N_PARAMETERS  # the kernel vector: the family's parameters, then the model
MODEL_FILE = Path(__file__).with_name("shipped.npz")  # made by the command in shipped.toml
RECORD_FILE = Path(__file__).with_name("shipped.toml")
TEACHER = "bollesim.bollebank.lookahead"  # its teacher(rules, base), imported by training only

prepare = features.prepare
fill = features.fill
base = F.play  # the plan family at every decision not learned


@compiled
def is_fire(code):
    return code != decisions.PASS and decisions.order_kind(code) == codes.FIRE


@compiled
def departs(kind, obs, options, base, option, restriction):
    """Whether the apprentice may take options[option] instead of its base's choice: always,
    but with a first Fire order imposed (restriction: from RoE, from turn; zeros: none)
    and not yet given, only an order as much a Fire order as the base's choice."""
    imposed = (restriction[0] > 0 or restriction[1] > 0) and not obs[observation.FIRED]
    return not imposed or is_fire(options[option]) == is_fire(options[base])


@cache
def family() -> np.ndarray:
    """The plan family's vector at the expert point (expert_base.toml)."""
    from bollesim.game.policy import load_policy

    plan = load_policy("plan", "bollebank")
    return plan.kernel_params(plan.param_vector(expert_base()))


def vectors(row) -> tuple[np.ndarray, np.ndarray]:
    """(the base's kernel vector, the restriction) of a row (imposed_roe, imposed_turn)."""
    first = FirstFire(int(row[0]), int(row[1]))
    vector = with_trigger(family(), first) if first.imposed else family()
    return vector, np.array([first.roe, first.turn], dtype=np.float64)


def rules_vector(rules) -> np.ndarray:
    """The ruleset as the decide functions take it (rules/packed.py)."""
    return rules.packed
