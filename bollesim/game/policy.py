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

The scripted family `plan` (policies/plan.py) is compiled into the fast engine's kernel,
which asks it for its orders without listing them (engine/orders.py). A module with
PRESET instead of decide is a point of that family (bollesim/bollebank/scripted/space.py): its own
PARAMETERS name the rows' columns, and PRESET maps them to the family's parameters.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from types import ModuleType

import numpy as np
from numba import njit, types

from bollesim.errors import UsageError
from bollesim.game.declaration import declared
from bollesim.game.params import Parameter

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
class Policy:
    """A policy: its parameters (the rows' columns), its compiled decide, and how the
    engines play it. scripted: the fast engine plays it with the scripted family compiled
    into its kernel (decide is then the family's). to_kernel maps rows of `parameters` to
    the vectors decide takes (a preset's point of the family); None: the same.
    plays_games: for a policy that plays whole games itself (the lookahead player, which
    looks ahead with the fast engine), play_games(rules, params, seed, first_game, engine,
    on_game) -> result rows, as runner.play_chunk; decide is then None."""

    name: str
    doc: str
    parameters: tuple[Parameter, ...]
    decide: object  # numba dispatcher; None for a policy that plays whole games
    scripted: bool = False
    to_kernel: Callable[[np.ndarray], np.ndarray] | None = None
    plays_games: Callable | None = None
    chunk: int | None = None  # games per piece of work, for a policy far slower than the engines

    def kernel_params(self, params: np.ndarray) -> np.ndarray:
        """The vectors decide and the kernels take for parameter rows (one row, or n)."""
        params = np.asarray(params, dtype=np.float64)
        if self.to_kernel is None:
            return params
        out = self.to_kernel(params)
        return out[0] if params.ndim == 1 else out

    def check_names(self, names) -> None:
        """UsageError naming the first of `names` that is not a parameter of this policy."""
        known = [p.name for p in self.parameters]
        for name in names:
            if name not in known:
                raise UsageError(
                    f"policy {self.name!r} has no parameter {name!r} "
                    f"(its parameters: {', '.join(known) or 'none'})"
                )

    def param_vector(self, values: dict[str, float] | None = None) -> np.ndarray:
        """The parameter vector, defaults overridden by values; bad names or values raise."""
        values = dict(values or {})
        self.check_names(values)
        out = np.empty(len(self.parameters), dtype=np.float64)
        for i, p in enumerate(self.parameters):
            value = float(values.get(p.name, p.default))
            if not p.low <= value <= p.high:
                raise UsageError(
                    f"{self.name}.{p.name} = {value:g} is outside its range {p.low:g}..{p.high:g}"
                )
            out[i] = value
        return out


def available_policies(deciding: bool = False) -> list[str]:
    """Names of the modules in the policies package; deciding: only those with a decide
    function (not those that play whole games)."""
    package = importlib.import_module(declared().policies)
    names = sorted(
        m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")
    )
    return [n for n in names if load_policy(n).decide is not None] if deciding else names


def from_module(module: ModuleType, name: str | None = None) -> Policy:
    """A Policy from any module (or notebook namespace) with PARAMETERS and decide, or
    PARAMETERS and PRESET (a point of the scripted family), or PARAMETERS and play_games."""
    first_paragraph = (module.__doc__ or "").strip().split("\n\n")[0]
    name = name or module.__name__.rsplit(".", 1)[-1]
    doc = " ".join(first_paragraph.split())
    parameters = tuple(module.PARAMETERS)
    if hasattr(module, "play_games"):
        return Policy(name, doc, parameters, None, plays_games=module.play_games,
                      chunk=module.CHUNK)
    if hasattr(module, "PRESET"):
        family = load_policy(declared().scripted)
        return Policy(name, doc, parameters, family.decide, True, module.PRESET)
    # Compiled on first use: for the signature from Python (the reference engine), or for
    # DECIDE_SIGNATURE when the fast engine takes it as a function pointer.
    decide = njit(cache=hasattr(module, "__file__"))(module.decide)
    scripted = module.__name__ == f"{declared().policies}.{declared().scripted}"
    return Policy(name, doc, parameters, decide, scripted)


@cache
def load_policy(name: str) -> Policy:
    """The policy named `name` from policies/; an unknown name raises UsageError."""
    if name not in available_policies():
        raise UsageError(f"unknown policy {name!r} (known: {', '.join(available_policies())})")
    return from_module(declared().policy_module(name), name)
