"""The policy protocol: a policy is a module in policies/ with PARAMETERS and decide().

    PARAMETERS = (Parameter("stop_at_tanks", 3, 0, 4, "stop drawing at this many tank chits"),)

    def decide(kind, obs, rules, options, n_options, params, prng):
        return index  # of the chosen option in options[:n_options]

decide must be numba-compilable: `kind` is a decisions.* constant, `obs` the int64
observation (observation.py: what the player sees, nothing more), `rules` the packed
ruleset (rules/packed.py, read with rules/access.py: the map, the thresholds, every
table of the ruleset being played), `params` a float64 vector in PARAMETERS order, `prng`
the policy's own int64[2] random stream (rng.py). Both engines hand it the same arrays,
so a policy is written once and plays whatever ruleset it is given
(docs/architecture.md).

A module may declare COMPILED_IN, the fast engine's code for a player its kernel calls
directly instead of through decide's pointer (engine/player.py): the scripted family
`plan` (policies/bollebank/plan.py), whose orders the kernel finds without listing them
(engine/orders.py), and the apprentice. A module with
PRESET instead of decide is a point of that family (bollesim/bollebank/scripted/space.py): its own
PARAMETERS name the rows' columns, and PRESET maps them to the family's parameters.
A module with play_games (and CHUNK, narrated_game) instead plays whole games itself. A
decide module may define KERNEL_PARAMS(rows) -> vectors, the vectors its decide takes.

One kind per shape, each playing its own games (Policy.play_chunk): DecidePolicy (the
game's engines call its decide; the scripted family is one), Preset (a point of the
scripted family) and GamePlayer. from_module picks the kind from what a module defines.
"""

from __future__ import annotations

import importlib
import pkgutil
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache
from types import ModuleType

import numpy as np
from numba import njit, types

from bollesim.errors import UsageError
from bollesim.game.declaration import Game, Ruleset
from bollesim.game.params import Parameter
from bollesim.game.registry import DEFAULT_GAME, load_game
from bollesim.jit import cache_on_disk

# decide(kind, obs, rules, options, n_options, params, prng) -> index. One signature for
# every policy, so the fast engine's general kernel is compiled once and takes any policy
# as a function pointer.
DECIDE_SIGNATURE = types.int64(
    types.int64,
    types.int64[::1],
    types.int64[::1],
    types.int64[::1],
    types.int64,
    types.float64[::1],
    types.int64[::1],
)


@dataclass(frozen=True)
class Policy(ABC):
    """What every kind of policy has: its name, what it does (its module's first
    paragraph) and its parameters, the rows' columns. Each kind knows how its games are
    played (play_chunk)."""

    name: str
    doc: str
    parameters: tuple[Parameter, ...]
    game: str = field(kw_only=True)
    """The name of its game (registry.load_game), so it plays that game's games wherever
    it is played (another thread, a cluster's worker): a name pickles, a Game need not."""
    chunk = None
    """Games per piece of work, for a policy far slower than the engines (None: the engine's)."""

    @abstractmethod
    def play_chunk(self, rules: Ruleset, params: np.ndarray, seed: int, first_game: int,
                   engine: str) -> np.ndarray:
        """Result rows (n, result columns) int64 of games first_game .. first_game + n - 1,
        game g played at parameter row params[g] (float64, writable and contiguous)."""

    def check_names(self, names) -> None:
        """UsageError naming the first of `names` that is not a parameter of this policy."""
        known = [p.name for p in self.parameters]
        for name in names:
            if name not in known:
                raise UsageError(
                    f"policy {self.name!r} has no parameter {name!r} "
                    f"(its parameters: {', '.join(known) or 'none'})"
                )

    def param_vector(self, values: dict[str, float | str] | None = None) -> np.ndarray:
        """The parameter vector, defaults overridden by values (numbers, or a choice's
        name, Parameter.value); bad names or values raise."""
        values = dict(values or {})
        self.check_names(values)
        out = np.empty(len(self.parameters), dtype=np.float64)
        for i, p in enumerate(self.parameters):
            try:
                value = p.value(values.get(p.name, p.default))
            except ValueError as exc:
                raise UsageError(f"{self.name}.{exc}") from None
            if not p.low <= value <= p.high:
                raise UsageError(
                    f"{self.name}.{p.name} = {value:g} is outside its range {p.low:g}..{p.high:g}"
                )
            out[i] = value
        return out


@dataclass(frozen=True)
class DecidePolicy(Policy):
    """A policy the engines ask for each choice: its compiled decide, which both engines
    call. compiled_in: the fast engine's code for it when its kernel calls it directly
    instead of decide (the module's COMPILED_IN: the scripted family, say); 0 when not."""

    decide: object  # numba dispatcher
    compiled_in: int = 0
    to_kernel: Callable[[np.ndarray], np.ndarray] | None = field(default=None, kw_only=True)
    """Maps rows (n, parameters) to the vectors decide takes (a module's KERNEL_PARAMS:
    a learned player's model rides there); None: the rows themselves."""

    def kernel_params(self, params: np.ndarray) -> np.ndarray:
        """The vectors decide and the kernels take for parameter rows (one row, or n)."""
        params = np.asarray(params, dtype=np.float64)
        if self.to_kernel is None:
            return params
        out = self.to_kernel(np.atleast_2d(params))
        return out[0] if params.ndim == 1 else out

    def play_chunk(self, rules: Ruleset, params: np.ndarray, seed: int, first_game: int,
                   engine: str) -> np.ndarray:
        return load_game(self.game).play_chunk(rules, self, params, seed, first_game, engine)


@dataclass(frozen=True)
class Preset(DecidePolicy):
    """A point of the scripted family: it plays with the family's decide, and to_family
    maps rows of its own parameters (the rows' columns) to the family's vectors."""

    to_family: Callable[[np.ndarray], np.ndarray] = field(kw_only=True)

    def kernel_params(self, params: np.ndarray) -> np.ndarray:
        params = np.asarray(params, dtype=np.float64)
        out = self.to_family(params)
        return out[0] if params.ndim == 1 else out


@dataclass(frozen=True)
class GamePlayer(Policy):
    """A policy that plays whole games itself (the lookahead player, which looks ahead
    with the fast engine): play_games(rules, params, seed, first_game, engine) gives the
    result rows, as play_chunk; narrated_game(rules, params, seed, game) gives the
    account of one game and its result row, as batch/replay.py's."""

    play_games: Callable[..., np.ndarray]
    chunk: int | None = None
    narrated_game: Callable[..., tuple[list[str], dict]] | None = None

    def play_chunk(self, rules: Ruleset, params: np.ndarray, seed: int, first_game: int,
                   engine: str) -> np.ndarray:
        return self.play_games(rules, params, seed, first_game, engine)


def available_policies(game: str | Game = DEFAULT_GAME, deciding: bool = False) -> list[str]:
    """Names of the modules in the game's policies package (Game.policies); deciding: only
    those the engines ask for each choice (decide policies and presets, not players of
    whole games)."""
    package = importlib.import_module(load_game(game).policies)
    names = sorted(
        m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")
    )
    if not deciding:
        return names
    return [n for n in names if isinstance(load_policy(n, game), DecidePolicy)]


def from_module(module: ModuleType, name: str | None = None,
                game: str | Game = DEFAULT_GAME) -> Policy:
    """The policy of any module (or notebook namespace) with PARAMETERS and one of:
    decide (a DecidePolicy), PRESET (a Preset of the scripted family) or play_games (a
    GamePlayer, with CHUNK and narrated_game), of the game `game` (a name or a Game)."""
    game = load_game(game).name
    first_paragraph = (module.__doc__ or "").strip().split("\n\n")[0]
    name = name or module.__name__.rsplit(".", 1)[-1]
    doc = " ".join(first_paragraph.split())
    parameters = tuple(module.PARAMETERS)
    if hasattr(module, "play_games"):
        return GamePlayer(name, doc, parameters, module.play_games, module.CHUNK,
                          module.narrated_game, game=game)
    if hasattr(module, "PRESET"):
        family = load_policy(load_game(game).scripted, game)
        return Preset(name, doc, parameters, family.decide, family.compiled_in,
                      to_family=module.PRESET, game=game)
    # Compiled on first use: for the signature from Python (the reference engine), or for
    # DECIDE_SIGNATURE when the fast engine takes it as a function pointer.
    decide = njit(module.decide)
    if hasattr(module, "__file__"):
        cache_on_disk(decide)
    return DecidePolicy(name, doc, parameters, decide, getattr(module, "COMPILED_IN", 0),
                        to_kernel=getattr(module, "KERNEL_PARAMS", None), game=game)


def load_policy(name: str, game: str | Game = DEFAULT_GAME) -> Policy:
    """The policy named `name` of the game `game` (a name or a Game); an unknown name
    raises UsageError."""
    return _load_policy(name, load_game(game).name)


@cache
def _load_policy(name: str, game: str) -> Policy:
    known = available_policies(game)
    if name not in known:
        raise UsageError(f"unknown policy {name!r} of {load_game(game).title} (known: {', '.join(known)})")
    return from_module(load_game(game).policy_module(name), name, game)


def replaying(base: DecidePolicy, choices, on_decision=None) -> DecidePolicy:
    """A policy for a game's reference engine that takes the recorded choices (option
    indices, in the order the decisions are asked), then plays as base; on_decision(i) is
    called as the i-th recorded choice is taken."""
    taken = [0]
    choices = [int(c) for c in choices]

    def decide(kind, obs, rules, options, n_options, params, prng):
        i = taken[0]
        if i == len(choices):
            return base.decide(kind, obs, rules, options, n_options, params, prng)
        taken[0] += 1
        if on_decision is not None:
            on_decision(i)
        return choices[i]

    return replace(base, decide=decide)
