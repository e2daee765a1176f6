"""The apprentice of any game: its lookahead player's choices, learned, and played inside
the compiled engine with no Python per decision (docs/apprentice.md; strong/train.py
learns it).

At a decision of a kind it learns, the apprentice starts from its base policy's choice and
asks two forests (learn/forest.py):

- the gate scores the base's choice: would the expert (the lookahead player) leave it
  here? Up to the model's threshold (a raw score, log-odds, chosen by play) the base's
  choice stands, as it does for the expert in most decisions;
- otherwise the chooser scores every other option the restriction leaves it, and the
  best-scored is taken: its first `screen` trees score them all, its other trees the
  `shortlist` best of those (a cascade; the score is a sum, so the shortlist is the
  options that could still win).

Every other decision is the base's.

A game declares its apprentice in one module of its own (its positions module names it:
APPRENTICE = "package.module"), which provides the names of DECLARED below. Its compiled
functions have fixed signatures:

    prepare(kind, obs, rules, params, options, n_options, notes, x) -> base
        the base policy's choice among options[:n_options] (its index), with the features
        every option of the decision shares written into x, and whatever fill needs of
        each option into notes (n_options float64 values: the base's score of each, say);
    fill(kind, obs, rules, params, options, n_options, notes, base, option, x)
        the features of options[option] into x, whose shared part prepare wrote (x is
        reused from option to option, so fill writes every slot that is the option's);
    departs(kind, obs, options, base, option, restriction) -> bool
        whether a restricted apprentice may take options[option] instead of its base's
        choice (restriction: the values the module's `vectors` gave; when they are all
        zeros, nothing is imposed and departs is not asked);
    base(kind, obs, rules, options, n_options, params) -> index
        the base policy's choice at the decisions not learned.

`obs`, `rules`, `options` are int64 and `params`, `notes`, `x`, `restriction` float64, as
the game's decide functions take them (bollesim/game/policy.py). The game's apprentice
policy and its engine call `decide(..., module)` with the module itself: numba compiles
decide for that module, its functions called directly (no pointer, inlined where LLVM
sees fit), so a game can call its apprentice compiled in (a policy's COMPILED_IN) at
the cost of a plain call. (A module is passed as a value that holds nothing: the compile
stays cached on disk. The game's functions themselves, passed one by one from a global
name, would not be: numba embeds their address.)

The model is one float64 array (HEADER, then the two forests). Its address and length
ride in the policy's kernel vector, after its base's parameters and before the
restriction (kernel_vector), since a policy's parameters cannot hold an array; the array
is kept alive for the process (load).
"""

from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np
from numba import carray, types

from bollesim.errors import UsageError
from bollesim.jit import compiled
from bollesim.learn import forest
from bollesim.pointer import as_pointer

MAGIC = 7_716_054.0  # the first value of every apprentice model (of this header)
(HEAD_MAGIC, HEAD_FEATURES, HEAD_GATE, HEAD_CHOOSER, HEAD_SIZE, HEAD_THRESHOLD, HEAD_SCREEN,
 HEAD_SHORTLIST) = range(8)
HEADER = 8

I64, F64 = types.int64, types.float64
PREPARE_SIGNATURE = I64(I64, I64[::1], I64[::1], F64[::1], I64[::1], I64, F64[::1], F64[::1])
FILL_SIGNATURE = types.void(I64, I64[::1], I64[::1], F64[::1], I64[::1], I64, F64[::1], I64, I64,
                            F64[::1])
"""The signatures of a game's prepare and fill (the module docstring), for training's
features_table, which takes them as first-class functions."""

DECLARED = (
    "POLICY",  # the game's policy that plays a model: its module has KERNEL_PARAMS =
    #            partial(kernel_rows, this module) and a decide calling decide(..., this module)
    "KINDS",  # the kinds of decision learned, a tuple (among those its teacher looks at)
    "FEATURES",  # how many values prepare and fill write
    "BASE_SIZE",  # the length of the base's kernel vector: the model's address follows it
    "prepare", "fill", "departs", "base",  # compiled (the module docstring)
    "vectors",  # (row) -> (the base's kernel vector, the restriction) for a row of the
    #             policy's parameters (the base's own trigger set to an imposed choice)
    "TEACHER",  # the module whose teacher(rules, base) is the strong.lookahead.Lookahead
    #             whose choices are learned (base None: the first round's, over the game's
    #             plain base; else over the policy `base`, an apprentice). Named, not
    #             imported: compiled code reaches this module, and the lookahead player is
    #             plain Python that training alone needs
    "rules_vector",  # (rules) -> the ruleset as the game's decide functions take it
    "MODEL_FILE", "RECORD_FILE",  # the shipped model (.npz) and its record (.toml: the
    #                              command that made it)
)
"""What a game's apprentice module provides; FORESTS (a Forests) is optional."""


# The forests' sizes and LightGBM's settings. The gate is asked at every decision learned
# and the chooser only where the gate opens, at the options its first trees shortlist. Both
# are small and shallow: a walk of a tree is memory the engine's other work has pushed out
# of the cache, so a decision costs the trees it walks. Chosen on Bøllebank by play among
# larger and smaller ones, as the smallest that played as well as the largest
# (docs/apprentice.md); a game may declare others.
GATE = {"objective": "binary", "learning_rate": 0.4, "num_leaves": 31, "max_depth": 6,
        "min_data_in_leaf": 20, "feature_fraction": 0.8, "lambda_l2": 1.0}
CHOOSER = {"objective": "lambdarank", "learning_rate": 0.25, "num_leaves": 31, "max_depth": 6,
           "min_data_in_leaf": 10, "feature_fraction": 0.8, "lambda_l2": 1.0,
           "lambdarank_truncation_level": 3, "eval_at": [1]}


@dataclass(frozen=True)
class Forests:
    """How big the apprentice's forests are and how they are fitted: LightGBM's settings
    and trees of the gate (binary) and the chooser (lambdarank), the chooser's cascade
    (its first `screen` trees score every option, the rest the `shortlist` best), and the
    gate thresholds (log-odds) tried by play."""

    gate: dict = field(default_factory=lambda: dict(GATE))
    chooser: dict = field(default_factory=lambda: dict(CHOOSER))
    gate_trees: int = 30
    chooser_trees: int = 100
    screen: int = 8
    shortlist: int = 4
    thresholds: tuple[float, ...] = (-2.5, -2.25, -2.0, -1.75, -1.5, -1.0)


def teacher(own: ModuleType, rules, base=None):
    """The lookahead player the game's apprentice learns from (its TEACHER's teacher)."""
    return importlib.import_module(own.TEACHER).teacher(rules, base)


def forests(own: ModuleType) -> Forests:
    """The game's forests (its FORESTS, else the defaults)."""
    return getattr(own, "FORESTS", None) or Forests()


def apprenticeship(game) -> ModuleType:
    """The module of the apprentice a game declares (its positions module's APPRENTICE);
    UsageError for a game that declares no decision points or no apprentice."""
    name = getattr(game.positions_module, "APPRENTICE", "")
    if not name:
        raise UsageError(f"{game.title} declares no apprentice: its decision points have no "
                         "features to learn from")
    own = importlib.import_module(name)
    missing = [n for n in DECLARED if not hasattr(own, n)]
    if missing:
        raise TypeError(f"game {game.name!r}: its apprentice module {name} lacks {missing[0]}")
    return own


# ------------------------------------------------------------------ the model array


def compose(gate: np.ndarray, chooser: np.ndarray, threshold: float, features: int,
            screen: int, shortlist: int) -> np.ndarray:
    """One model array of two packed forests (forest.pack), the gate's threshold, the
    chooser's cascade and the feature count the forests were fitted on."""
    head = np.zeros(HEADER)
    head[HEAD_THRESHOLD] = threshold
    head[HEAD_SCREEN] = screen
    head[HEAD_SHORTLIST] = shortlist
    head[HEAD_MAGIC] = MAGIC
    head[HEAD_FEATURES] = features
    head[HEAD_GATE] = HEADER
    head[HEAD_CHOOSER] = HEADER + len(gate)
    head[HEAD_SIZE] = HEADER + len(gate) + len(chooser)
    return np.concatenate([head, gate, chooser])


def digest(model: np.ndarray) -> str:
    """The model's identity: a hash of its values."""
    return hashlib.sha256(np.ascontiguousarray(model, dtype="<f8").tobytes()).hexdigest()[:16]


_LOADED: dict[str, np.ndarray] = {}


def load(path: Path, features: int) -> np.ndarray:
    """The model saved at path (strong/train.py save), checked against the game's feature
    count, and kept alive for the process."""
    key = str(Path(path).resolve())
    if key not in _LOADED:
        with np.load(path) as data:
            model = np.ascontiguousarray(data["model"], dtype=np.float64)
        check(model, path, features)
        _LOADED[key] = model
    return _LOADED[key]


def check(model: np.ndarray, source, features: int) -> None:
    """ValueError unless model is an apprentice model of `features` features."""
    if (model.ndim != 1 or len(model) < HEADER or model[HEAD_MAGIC] != MAGIC
            or model[HEAD_SIZE] != len(model)):
        raise ValueError(f"{source}: not an apprentice model")
    if model[HEAD_SCREEN] < 1 or model[HEAD_SHORTLIST] < 1:
        raise ValueError(f"{source}: an apprentice model whose chooser looks at no option")
    if model[HEAD_FEATURES] != features:
        raise ValueError(f"{source}: a model for {model[HEAD_FEATURES]:g} features, not "
                         f"{features}: train it again (bollesim train)")


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


@cache
def _shipped(path: Path, features: int) -> np.ndarray:
    return load(path, features)


def shipped(own: ModuleType) -> np.ndarray:
    """The game's shipped model (load keeps it alive)."""
    return _shipped(Path(own.MODEL_FILE), own.FEATURES)


def record(own: ModuleType) -> dict:
    """How the shipped model was made: its command, seeds, data and model digests."""
    import tomllib

    with Path(own.RECORD_FILE).open("rb") as f:
        return tomllib.load(f)


# ------------------------------------------------------------------ the kernel vector


def kernel_vector(base: np.ndarray, model: np.ndarray, restriction: np.ndarray) -> np.ndarray:
    """The vector the apprentice's decide takes: its base's kernel vector, the model's
    address and length, then the restriction."""
    at = len(base)
    out = np.zeros(at + 2 + len(restriction))
    out[:at] = base
    out[at] = float(model.ctypes.data)
    out[at + 1] = len(model)
    out[at + 2:] = restriction
    return out


def kernel_rows(own: ModuleType, rows: np.ndarray, model: np.ndarray | None = None) -> np.ndarray:
    """The kernel vectors of rows of the apprentice policy's parameters, playing `model`
    (default: the shipped one): a game's KERNEL_PARAMS."""
    chosen = shipped(own) if model is None else model
    distinct, which = np.unique(np.asarray(rows, dtype=np.float64), axis=0, return_inverse=True)
    vectors = []
    for row in distinct:
        base, restriction = own.vectors(row)
        if len(base) != own.BASE_SIZE:
            raise ValueError(f"a base vector of {len(base)} values, not {own.BASE_SIZE}")
        vectors.append(kernel_vector(base, chosen, restriction))
    return np.array(vectors)[np.ravel(which)]


# ------------------------------------------------------------------ compiled


@compiled
def model_of(params, at):
    """The model array a kernel vector points at (its address at params[at])."""
    n = np.int64(params[at + 1])
    model = carray(as_pointer(np.int64(params[at])), n, np.float64)
    if n < HEADER or model[HEAD_MAGIC] != MAGIC or model[HEAD_SIZE] != n:
        raise ValueError("the apprentice's kernel vector points at no model")
    return model


@compiled
def choose(kind, obs, rules, options, n_options, params, own):
    """The apprentice's choice among options[:n_options] (module docstring), with the
    functions of the game's apprentice module `own`."""
    at = own.BASE_SIZE  # the model's address, then its length, then the restriction
    model = model_of(params, at)
    x = np.empty(np.int64(model[HEAD_FEATURES]))
    notes = np.empty(n_options)
    base = own.prepare(kind, obs, rules, params, options, n_options, notes, x)
    own.fill(kind, obs, rules, params, options, n_options, notes, base, base, x)
    if forest.score(model, np.int64(model[HEAD_GATE]), x) <= model[HEAD_THRESHOLD]:
        return base
    restriction = params[at + 2:]
    free = not restriction.any()  # zeros impose nothing: departs is not asked
    candidates = np.empty(n_options, dtype=np.int64)
    n = 0
    for i in range(n_options):
        if i != base and (free or own.departs(kind, obs, options, base, i, restriction)):
            candidates[n] = i
            n += 1
    if n == 0:
        return base
    chooser = np.int64(model[HEAD_CHOOSER])
    trees = np.int64(model[chooser])
    screen = min(np.int64(model[HEAD_SCREEN]), trees)
    first = np.empty(n)
    for r in range(n):  # x's option part is the candidate's, its shared part stays
        own.fill(kind, obs, rules, params, options, n_options, notes, base, candidates[r], x)
        first[r] = forest.walk(model, chooser, x, 0, screen)
    shortlist = np.argsort(-first, kind="mergesort")[:np.int64(model[HEAD_SHORTLIST])]
    best, best_total = base, -np.inf  # ties: the earlier option (the sort is stable)
    for r in shortlist:
        own.fill(kind, obs, rules, params, options, n_options, notes, base, candidates[r], x)
        total = first[r] + forest.walk(model, chooser, x, screen, trees)
        if total > best_total:
            best, best_total = candidates[r], total
    return best


@compiled
def decide(kind, obs, rules, options, n_options, params, own):
    """Every decision of the apprentice of the game whose apprentice module is `own`: at
    a kind it learns, its choice (choose), at the others its base's. A game's policy
    (and its engine, compiled in) calls it with the module itself."""
    for learned in own.KINDS:
        if kind == learned:
            return choose(kind, obs, rules, options, n_options, params, own)
    return own.base(kind, obs, rules, options, n_options, params)


def features_table(kind, obs, rules, params, options, n_options, features, prepare, fill):
    """(the features of every option of a decision, (n_options, features); the base's
    choice), for training rows (strong/train.py)."""
    x = np.empty(features)
    notes = np.empty(n_options)
    base = prepare(kind, obs, rules, params, options, n_options, notes, x)
    out = np.empty((n_options, features))
    for i in range(n_options):
        out[i] = x
        fill(kind, obs, rules, params, options, n_options, notes, base, i, out[i])
    return out, base


TABLE_SIGNATURE = types.Tuple((F64[:, ::1], I64))(
    I64, I64[::1], I64[::1], F64[::1], I64[::1], I64, I64, types.FunctionType(PREPARE_SIGNATURE),
    types.FunctionType(FILL_SIGNATURE))


@cache
def table_kernel():
    """features_table, compiled for every game's prepare and fill (first-class functions:
    one compile, cached on disk)."""
    return compiled(features_table, signature=TABLE_SIGNATURE)


def table(own: ModuleType, kind: int, obs, rules, params, options):
    """features_table of one decision under the features of the game's apprentice module
    (rules: the ruleset's vector, own.rules_vector)."""
    def ints(a):
        return np.ascontiguousarray(a, dtype=np.int64)

    return table_kernel()(kind, ints(obs), ints(rules), np.ascontiguousarray(params, np.float64),
                          ints(options), len(options), own.FEATURES, own.prepare, own.fill)
