"""The Balkan Wars' apprentice, declared for the generic one (the names of
bollesim/strong/apprentice.py DECLARED): it learns three of the attacker's declared
decisions (tactics.py: TROOPS_ADVANCE, GUNS_ADVANCE, CLOSE_ASSAULT), plays over the
scripted family `assault` at the point its teacher plays its rollouts out by
(lookahead.SEARCHED), and may have a close-assault trigger imposed (imposed_losses:
the close assault is then its base's, at that trigger; every order its own).

- The digit (tactics.DIGIT) it leaves to its base, the farthest group: its teacher left
  the farthest at 13 of 619 digits in 200 engagements, each time to keep the digits, and
  learning it cost 11% of the apprentice's speed (docs/balkan-wars.md).
- Its base: the family's answer (tactics.family_decide) at that point; the family plays
  every other choice of the attacker, compiled into both engines, from the same vector
  (its first BASE_SIZE values are the family's parameters).
- Its teacher: the lookahead player at its defaults (lookahead.teacher), rollouts played
  out by that base; or over the policy `base` (a later round's apprentice).

What it sees of an option (one float64 row, the same in training and in play):

    [0 .. OBS)        the observation (tactics.OBSERVATION_SIZE slots), as the engines give it
    KIND, N_OPTIONS   the decision's kind and how many options it has
    BASE_CHOICE       the base's choice (an option's code is its index)
    NEAR_HALT         the arm's nearest stand's gap less the base's halt for that arm
    FAR_HALT          the farthest's, the same way
    ODDS              the close assault's stands able to go in less the defender's met
    OPTION            the option's code
    SAME              1 when it is the base's choice
    STEP              the option's code less the base's choice
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path

import numpy as np

from bollesim.balkan import tactics
from bollesim.jit import compiled
from bollesim.strong.apprentice import Forests

POLICY = "apprentice"
KINDS = (tactics.CLOSE_ASSAULT, tactics.TROOPS_ADVANCE, tactics.GUNS_ADVANCE)
OBS = tactics.OBSERVATION_SIZE
KIND, N_OPTIONS, BASE_CHOICE, NEAR_HALT, FAR_HALT, ODDS, OPTION, SAME, STEP = range(OBS, OBS + 9)
FEATURES = OBS + 9
BASE_SIZE = 4  # the family's parameters (policies/balkan_wars/assault.py), then the model
MODEL_FILE = Path(__file__).with_name("shipped.npz")  # made by the command in shipped.toml
RECORD_FILE = Path(__file__).with_name("shipped.toml")
TEACHER = "bollesim.balkan.lookahead"  # its teacher(rules, base), imported by training only
FORESTS = Forests(gate_trees=12)
"""Bøllebank's forests but a gate of 12 trees, not 30: on 20,000 engagements of the tune
seed (1000), the shipped 30-tree gate cut to its first 8, 10, 12, 15 or 20 trees played as
well as all 30 (each within 0.1 point, every paired interval across zero; 6 trees lost
0.2), and 12 (three walks of four trees side by side) plays about 13% more engagements a
second (docs/balkan-wars.md)."""


def names() -> list[str]:
    """A name for every feature, in order (for reading the model)."""
    return [f"obs_{i}" for i in range(OBS)] + ["kind", "n_options", "base_choice", "near_halt",
                                              "far_halt", "odds", "option", "same", "step"]


@compiled
def base(kind, obs, rules, options, n_options, params):
    """The family's answer (tactics.family_decide; it draws nothing)."""
    return tactics.family_decide(kind, obs, rules, options, n_options, params, options)


@compiled
def prepare(kind, obs, rules, params, options, n_options, notes, x):
    """The base's choice, and the features every option shares into x; notes: unused
    (0)."""
    choice = base(kind, obs, rules, options, n_options, params)
    for i in range(OBS):
        x[i] = obs[i]
    for i in range(n_options):
        notes[i] = 0.0
    x[KIND] = kind
    x[N_OPTIONS] = n_options
    x[BASE_CHOICE] = options[choice]
    halt = params[tactics.GUNS_TO] if kind == tactics.GUNS_ADVANCE else params[tactics.ADVANCE_TO]
    advancing = kind != tactics.CLOSE_ASSAULT
    x[NEAR_HALT] = obs[tactics.O_NEAREST] - halt if advancing else 0.0
    x[FAR_HALT] = obs[tactics.O_FARTHEST] - halt if advancing else 0.0
    x[ODDS] = 0.0 if advancing else obs[tactics.O_CANDIDATES] - obs[tactics.O_DEFENDING]
    return choice


@compiled
def fill(kind, obs, rules, params, options, n_options, notes, base, option, x):
    """The features of options[option] into x, whose shared part prepare wrote."""
    x[OPTION] = options[option]
    x[SAME] = options[option] == options[base]
    x[STEP] = options[option] - options[base]


@compiled
def departs(kind, obs, options, base, option, restriction):
    """Whether the apprentice may take options[option] instead of its base's choice:
    always, but with a close-assault trigger imposed (restriction: 1 and the defender's
    losses; zeros: none) never at a close assault, where its base answers as the imposed
    trigger says."""
    return not (restriction[0] > 0 and kind == tactics.CLOSE_ASSAULT)


@cache
def family() -> np.ndarray:
    """The family's vector at the point its teacher's rollouts play (lookahead.SEARCHED;
    the teacher's module found by its name, as training finds it, so the compile cache's
    key leaves the lookahead and the reference engine out: jit_cache.py)."""
    from bollesim.game.policy import load_policy

    teacher = importlib.import_module(TEACHER)
    assault = load_policy(teacher.BASE, "balkan-wars")
    return assault.kernel_params(assault.param_vector(teacher.SEARCHED))


def vectors(row) -> tuple[np.ndarray, np.ndarray]:
    """(the base's kernel vector, the restriction) of a row of the policy's parameters
    (imposed_losses: -1 none; else the family's trigger set to it, closing at the first
    won firefight once the defender has lost that many figures)."""
    imposed = int(row[0]) if len(row) else -1
    if imposed < 0:
        return family(), np.zeros(2)
    vector = family().copy()
    vector[tactics.LOSSES], vector[tactics.MIN_STANDS] = imposed, 1
    return vector, np.array([1.0, imposed])


def rules_vector(rules) -> np.ndarray:
    """The ruleset as the decide functions take it: its scalars (engine.play_games' sc)."""
    return np.ascontiguousarray(rules.scalars, dtype=np.int64)
