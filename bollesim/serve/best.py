"""Where the page opens: `bollesim serve --from DIR` starts it at the best parameters an
optimisation found; without it, where its game's declaration opens it (Game.opening).

The contract with `bollesim optimise` (which writes it): DIR/best.json is one UTF-8 JSON
object

    {"policy": "fire_at_roe", "params": {"k": 14, "stop_at_tanks": 2}}

`policy` names a policy of the game served (`bollesim policies`); `params` maps some or all of
its parameter names to numbers within their declared ranges (a parameter left out takes
its default). Other fields are ignored. The page opens with that policy and those
parameters and keeps them under "best found by optimise" to come back to. A file that
breaks the contract is refused with one `error:` line naming DIR/best.json and the
problem.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from bollesim.errors import UsageError
from bollesim.game.declaration import Game
from bollesim.inputs import MIB, LimitError, loads_json, read_text

BEST_FILE = "best.json"


def read_best(folder: str | Path, game: Game) -> dict:
    """{"policy", "params"} of DIR/best.json, checked against the declaration of the
    game's policy; UsageError (one line) when it breaks the contract."""
    from bollesim.game.policy import available_policies, load_policy

    path = Path(folder) / BEST_FILE
    text = read_text(path, MIB)
    try:
        data = loads_json(text, parse_constant=lambda name: math.nan)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: not valid JSON ({exc})") from None
    except LimitError as exc:
        raise UsageError(f"{path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("policy"), str) \
            or not isinstance(data.get("params", {}), dict):
        raise UsageError(f'{path}: expected {{"policy": NAME, "params": {{NAME: VALUE}}}}')
    policy = data["policy"]
    known = available_policies(game, deciding=True)  # the page plays these
    if policy not in known:
        raise UsageError(f"{path}: unknown policy {policy!r} (known: {', '.join(known)})")
    params = data.get("params", {})
    for name, value in params.items():
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            raise UsageError(f"{path}: params.{name}: must be a number, got {value!r}")
    chosen = load_policy(policy, game)  # its decide is compiled on first use, not here
    parameters = chosen.parameters
    try:
        vector = chosen.param_vector(params)
    except UsageError as exc:
        raise UsageError(f"{path}: {exc}") from None
    return {"policy": policy,
            "params": {p.name: v for p, v in zip(parameters, vector.tolist(), strict=True)}}

