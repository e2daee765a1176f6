"""An optimise spec read and checked (its format: search/optimise.py): its objectives
and the searched space's axes, as a `Search`."""

from __future__ import annotations

import difflib
from pathlib import Path

import numpy as np

from bollesim.batch.limits import DEFAULT_SEED, LIMITS
from bollesim.batch.spec import Spec, read_spec, ruleset_of, spec_name
from bollesim.errors import UsageError
from bollesim.game.declaration import Game
from bollesim.game.policy import Policy, load_policy
from bollesim.game.result import Objective
from bollesim.search.optimise_space import Axis, Search, is_whole, seed_points
from bollesim.search.race import check_budget

SPEC_KEYS = (
    "name", "description", "policy", "seed", "holdout_seed", "budget", "candidates",
    "trial_games", "eta", "finalists", "holdout_games", "objective", "pareto", "ruleset",
    "partial", "overrides", "readings", "search",
)
OBJECTIVE_KEYS = ("weights", "label")
DEFAULTS = {"budget": 4_000_000, "candidates": 400, "trial_games": 20_000, "eta": 3,
            "finalists": 3, "holdout_games": 400_000}

# --------------------------------------------------------------------------- objectives


def _objective(s: Spec, raw, key: str) -> Objective:
    if isinstance(raw, str):
        _outcome(s, raw, key)
        return Objective(s.game.result.labels.get(raw, raw) + " rate", {raw: 1.0})
    if not isinstance(raw, dict):
        s.fail(key, 'expected an outcome name ("operational") or a table '
                    "{ weights = { operational = 1, defeat = -1 } }")
    _known(s, raw, OBJECTIVE_KEYS, key + ".")
    weights = raw.get("weights")
    if not isinstance(weights, dict) or not weights:
        s.fail(key + ".weights", "missing: give { outcome = weight, ... }, e.g. "
                                 "{ operational = 1, defeat = -1 }")
    checked = {}
    for column, weight in weights.items():
        _outcome(s, column, f"{key}.weights.{column}")
        checked[column] = s.number(weight, f"{key}.weights.{column}")
    default = " + ".join(f"{w:g} × {column}" for column, w in checked.items())
    label = s.text(raw, "label", default) or default
    return Objective(label, checked)


def _outcome(s: Spec, name: str, key: str) -> None:
    outcomes = s.game.result.outcome_names
    if name not in outcomes:
        s.fail(key, f"unknown outcome {name!r}{_nearest(name, outcomes)} "
                    f"(outcomes: {', '.join(outcomes)})")


def _nearest(word: str, known) -> str:
    close = difflib.get_close_matches(str(word), list(known), n=1, cutoff=0.5)
    return f"; did you mean {close[0]!r}?" if close else ""


def _known(s: Spec, table: dict, allowed, prefix: str = "") -> None:
    for key in table:
        if key not in allowed:
            s.fail(prefix + key, f"unknown key{_nearest(key, allowed)} (known: {', '.join(allowed)})")


# --------------------------------------------------------------------------- the spec


def load_search(path: str | Path, game: Game, budget: int | None = None) -> Search:
    """Read and check an optimise spec of the game (`budget` given over the spec's);
    errors are one line, `FILE: KEY: problem`."""
    path = Path(path)
    data = read_spec(path)
    s = Spec(path, game)
    _known(s, data, SPEC_KEYS)
    name = spec_name(s, data, path)
    description = s.text(data, "description", "", limit="description") or ""
    policy_name = data.get("policy")
    if not isinstance(policy_name, str):
        s.fail("policy", "missing: name a policy family (see `bollesim policies`)")
    try:
        policy = load_policy(policy_name, game)
    except UsageError as exc:
        s.fail("policy", str(exc))
    if not policy.parameters:
        s.fail("policy", f"{policy_name!r} has no parameters to search")
    seed = s.whole(data, "seed", "seed", default=DEFAULT_SEED)
    holdout_seed = s.whole(data, "holdout_seed", "seed", default=(seed + 1) % 2**63)
    if holdout_seed == seed:
        s.fail("holdout_seed", "must differ from seed: the held-out games are never searched")
    counts = {}
    for key in DEFAULTS:  # their ranges: limits.LIMITS
        low, high = LIMITS[key]
        value = budget if key == "budget" and budget is not None else data.get(key, DEFAULTS[key])
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            s.fail(key, f"expected a whole number from {low:,} to {high:,}, got {value!r}")
        counts[key] = value
    if ("objective" in data) == ("pareto" in data):
        s.fail("objective", "give either objective = ... (one objective) or "
                            "pareto = [first, second] (trace the front between two)")
    if "objective" in data:
        objectives = (_objective(s, data["objective"], "objective"),)
    else:
        pair = data["pareto"]
        if not isinstance(pair, list) or len(pair) != 2:
            s.fail("pareto", 'expected two objectives, e.g. ["operational", "strategic"]')
        objectives = tuple(_objective(s, raw, f"pareto[{i}]") for i, raw in enumerate(pair))
    rules, source = ruleset_of(s, data)
    axes, base = _axes(s, data.get("search"), policy)
    search = Search(name, game, description, policy, seed, holdout_seed, objectives=objectives,
                    axes=axes, base=base, rules=rules, ruleset_source=source, path=path,
                    spec=data, **counts)
    try:  # sized before anything is played
        check_budget(search, len(seed_points(search)))
    except UsageError as exc:
        s.fail("budget", str(exc))
    return search


def _axes(s: Spec, table, policy: Policy) -> tuple[tuple[Axis, ...], np.ndarray]:
    if table is None:  # no [search] table: every parameter over its declared range
        table = {p.name: True for p in policy.parameters}
    if not isinstance(table, dict):
        s.fail("search", "expected a table: parameter = true, [low, high] or a fixed value")
    names = [p.name for p in policy.parameters]
    for key in table:
        if key not in names:
            s.fail(f"search.{key}", f"policy {policy.name!r} has no parameter {key!r}"
                                    f"{_nearest(key, names)} (its parameters: {', '.join(names)})")
    base = policy.param_vector()
    axes = []
    for i, p in enumerate(policy.parameters):
        raw = table.get(p.name, p.default)
        key = f"search.{p.name}"
        if raw is True:
            raw = [p.low, p.high]
        if isinstance(raw, list):
            if len(raw) != 2:
                s.fail(key, "expected [low, high] or one fixed value")
            low, high = (s.param_value(p, v, key) for v in raw)
            if not p.low <= low <= high <= p.high:
                s.fail(key, f"expected {p.low:g} <= low <= high <= {p.high:g}, got [{low:g}, {high:g}]")
            whole = is_whole(p)
            if whole and not (low.is_integer() and high.is_integer()):
                s.fail(key, f"{p.name} is whole-numbered: give whole bounds")
            if low == high:
                base[i] = low
            else:
                axes.append(Axis(p.name, i, low, high, whole, p.choices))
        else:
            value = s.param_value(p, raw, key)
            try:
                policy.param_vector({p.name: value})
            except UsageError as exc:
                s.fail(key, str(exc))
            base[i] = value
    if not axes:
        s.fail("search", "every parameter is fixed: leave at least one to search")
    return tuple(axes), base
