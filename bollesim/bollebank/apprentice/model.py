"""How the apprentice decides, inside the engine, and where its model lives.

At an order decision (§5.3-5.4) the apprentice first asks its base, the plan family at the
lookahead player's point (lookahead.expert_base), then two forests (learn/forest.py):

- the gate scores the base's choice: does the expert leave it here? Up to the model's
  threshold (a raw score, log-odds; train.py chooses it by play on games of their own)
  the base's choice stands, as it does for the expert in most decisions;
- otherwise the chooser scores every other option, and the best-scored one is taken: its
  first `screen` trees score them all, and its other trees the `shortlist` best of those
  (a cascade: the few options that could win get the whole forest; both sizes ride in the
  model, SCREEN and SHORTLIST by default).

Every other decision is the base's, as for the lookahead player (lookahead.LOOKED_AT).

The model is one float64 array (HEADER, then the two forests). Its address and length
ride in the policy's kernel vector after the family's parameters (the policy parameters
cannot hold an array, and the engines hand decide only that vector), so no Python runs
per decision: decide views the array where it lies. The array is kept alive for the
process (load).

With an imposed first Fire order (restricted play, as the lookahead's), the apprentice
only departs from its base to an option that is a Fire order exactly when the base's
choice is, until the first Fire order: the base's trigger then decides when it comes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from numba import carray

from bollesim.bollebank import codes, decisions, observation
from bollesim.bollebank.apprentice import features
from bollesim.bollebank.scripted import plan as F
from bollesim.bollebank.scripted import space
from bollesim.jit import compiled
from bollesim.learn import forest
from bollesim.pointer import as_pointer

MAGIC = 7_716_054.0  # the first value of every apprentice model (of this header)
(HEAD_MAGIC, HEAD_FEATURES, HEAD_GATE, HEAD_CHOOSER, HEAD_SIZE, HEAD_THRESHOLD, HEAD_SCREEN,
 HEAD_SHORTLIST) = range(8)
HEADER = 8

# The chooser's first SCREEN trees score every option, and the rest only the SHORTLIST
# best-scored (its sum is additive). Chosen by play on games of seed 1000, with the
# forests' sizes (train.py): the smallest cascade that played as well as the whole chooser
# on every option (docs/apprentice.md).
SCREEN = 8
SHORTLIST = 4

# The kernel vector: the family's parameters, then the model's address and length, and
# whether the first Fire order is imposed.
ADDRESS = space.N_PARAMETERS
LENGTH = ADDRESS + 1
IMPOSED = LENGTH + 1
KERNEL_SIZE = IMPOSED + 1


def compose(gate: np.ndarray, chooser: np.ndarray, threshold: float) -> np.ndarray:
    """One model array of two packed forests (forest.pack), the gate's threshold and the
    default cascade."""
    head = np.zeros(HEADER)
    head[HEAD_THRESHOLD] = threshold
    head[HEAD_SCREEN] = SCREEN
    head[HEAD_SHORTLIST] = SHORTLIST
    head[HEAD_MAGIC] = MAGIC
    head[HEAD_FEATURES] = features.SIZE
    head[HEAD_GATE] = HEADER
    head[HEAD_CHOOSER] = HEADER + len(gate)
    head[HEAD_SIZE] = HEADER + len(gate) + len(chooser)
    return np.concatenate([head, gate, chooser])


def digest(model: np.ndarray) -> str:
    """The model's identity: a hash of its values."""
    return hashlib.sha256(np.ascontiguousarray(model, dtype="<f8").tobytes()).hexdigest()[:16]


_LOADED: dict[str, np.ndarray] = {}


def load(path: Path) -> np.ndarray:
    """The model saved at path (train.save), checked, and kept alive for the process."""
    key = str(Path(path).resolve())
    if key not in _LOADED:
        with np.load(path) as data:
            model = np.ascontiguousarray(data["model"], dtype=np.float64)
        check(model, path)
        _LOADED[key] = model
    return _LOADED[key]


def check(model: np.ndarray, source) -> None:
    """ValueError unless model is an apprentice model for these features."""
    if (model.ndim != 1 or len(model) < HEADER or model[HEAD_MAGIC] != MAGIC
            or model[HEAD_SIZE] != len(model)):
        raise ValueError(f"{source}: not an apprentice model")
    if model[HEAD_SCREEN] < 1 or model[HEAD_SHORTLIST] < 1:
        raise ValueError(f"{source}: an apprentice model whose chooser looks at no option")
    if model[HEAD_FEATURES] != features.SIZE:
        raise ValueError(f"{source}: a model for {model[HEAD_FEATURES]:g} features, not "
                         f"{features.SIZE}: train it again (bollesim train)")


def with_threshold(model: np.ndarray, threshold: float) -> np.ndarray:
    """A copy of model with the gate's threshold set."""
    out = model.copy()
    out[HEAD_THRESHOLD] = threshold
    return out


def with_cascade(model: np.ndarray, screen: int, shortlist: int) -> np.ndarray:
    """A copy of model whose chooser screens with `screen` trees, then plays the rest on
    `shortlist` options."""
    out = model.copy()
    out[HEAD_SCREEN], out[HEAD_SHORTLIST] = screen, shortlist
    return out


def kernel_vector(family: np.ndarray, model: np.ndarray, imposed: bool) -> np.ndarray:
    """The vector decide takes: the family's parameters, then where the model lies."""
    out = np.zeros(KERNEL_SIZE)
    out[:ADDRESS] = family
    out[ADDRESS] = float(model.ctypes.data)
    out[LENGTH] = len(model)
    out[IMPOSED] = imposed
    return out


@compiled
def model_of(params):
    """The model array a kernel vector points at."""
    n = np.int64(params[LENGTH])
    model = carray(as_pointer(np.int64(params[ADDRESS])), n, np.float64)
    if n < HEADER or model[HEAD_MAGIC] != MAGIC or model[HEAD_SIZE] != n:
        raise ValueError("the apprentice's kernel vector points at no model")
    return model


@compiled
def is_fire(code):
    return code != decisions.PASS and decisions.order_kind(code) == codes.FIRE


@compiled
def choose(obs, rules, params, model, options, n_options):
    """The apprentice's order among options[:n_options]."""
    plan = F.order_plan(obs, rules, params)
    scores, base = features.plan_scores(obs, rules, plan, options, n_options)
    x = np.empty(features.SIZE)
    features.fill_decision(obs, options, n_options, scores, base, x)
    features.fill_option(obs, options, n_options, scores, base, base, x)
    if forest.score(model, np.int64(model[HEAD_GATE]), x) <= model[HEAD_THRESHOLD]:
        return base
    imposed = params[IMPOSED] > 0 and not obs[observation.FIRED]
    candidates = np.empty(n_options, dtype=np.int64)
    n = 0
    for i in range(n_options):
        if i != base and not (imposed and is_fire(options[i]) != is_fire(options[base])):
            candidates[n] = i
            n += 1
    if n == 0:
        return base
    chooser = np.int64(model[HEAD_CHOOSER])
    trees = np.int64(model[chooser])
    screen = min(np.int64(model[HEAD_SCREEN]), trees)
    first = np.empty(n)
    for r in range(n):  # x's option part is the candidate's, its shared part stays
        features.fill_option(obs, options, n_options, scores, base, candidates[r], x)
        first[r] = forest.walk(model, chooser, x, 0, screen)
    shortlist = np.argsort(-first, kind="mergesort")[:np.int64(model[HEAD_SHORTLIST])]
    best, best_total = base, -np.inf  # ties: the earlier option (the sort is stable)
    for r in shortlist:
        features.fill_option(obs, options, n_options, scores, base, candidates[r], x)
        total = first[r] + forest.walk(model, chooser, x, screen, trees)
        if total > best_total:
            best, best_total = candidates[r], total
    return best


@compiled
def decide(kind, obs, rules, options, n_options, params):
    """Every decision of the apprentice (the policy protocol of game/policy.py)."""
    if kind != decisions.ISSUE_ORDER:
        return F.play(kind, obs, rules, options, n_options, params)
    return choose(obs, rules, params, model_of(params), options, n_options)
