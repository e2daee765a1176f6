"""What a game declares for `bollesim headroom` (its skill ladder, the outcomes its
clairvoyant bounds, its value estimate V, its trigger sweeps), and the players and lines
made from it. A game's package gives a `Headroom` (Game.headroom names the module holding
it as HEADROOM); the command (cli/headroom.py, cli/headroom_make.py) reads that and the
game's declaration, nothing else of the game.

The best known points file (a game's `points`, TOML):

    [baseline]                            # the best simple preset: the headline's reference
    label = "...", policy = "...", params = { ... }
    [[best]]                              # one per win objective searched
    objective = "...", label = "...", policy = "...", params = { ... }, source = "..."
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bollesim.errors import UsageError
from bollesim.game.policy import load_policy
from bollesim.inputs import TOML_LIMIT, InputError, LimitError, loads_toml, read_text
from bollesim.strong.clairvoyant import WON, win_objectives


@dataclass(frozen=True)
class Player:
    """A rung of the ladder: its label, its policy and its parameters (None: defaults)."""

    label: str
    policy: str
    params: dict | None = None


@dataclass(frozen=True)
class Headroom:
    """A game's headroom report, declared.

    seed: the report's games (`--seed`'s default: a seed its searches did not play);
    beginner: the relative skill's beginner (a policy); presets: policies played at their
    defaults; strong: the strong player (None: none).
    expert: the expert policy ("" for none), played at each of expert_factors times the
    default of its parameter expert_knob; beside_expert: more players on the expert's games.
    points: the best known points file, a path from the repository's folder (None: none;
    the baseline is then the game's baseline policy at its defaults).
    bounds: {outcome: win objective} the clairvoyant searches (its win objectives:
    clairvoyant.win_objectives of the game's result); inherited: {outcome: outcome} bounded
    by another's bound, not searched, and inherited_note, the sentence that says why.
    clairvoyant_also: policies whose playouts the clairvoyant tries besides the best points;
    nearer and cut: the clairvoyant's hints (clairvoyant.Clairvoyant).
    penalised: {outcome: win objective} the penalised clairvoyant is measured on; V is
    fitted on value_policy's games of value_seed (not `seed`), one V per value_trees.
    spec: the trigger sweeps' spec (None: no sweeps); family: the policy family the best
    point plays, and family_triggers {preset: the family's parameter its trigger sets}.
    question: the sweeps' section title; imposed: how a player with the trigger imposed
    is named ("with its first Fire order imposed"; "" for a game whose strong player
    imposes none, Trigger.strong); chance: what the clairvoyant foresees;
    baseline_called: what the baseline is, in full and short, in the headline.
    """

    seed: int
    beginner: str
    bounds: dict[str, str]
    presets: tuple[str, ...] = ()
    strong: Player | None = None
    expert: str = ""
    expert_knob: str = "rollouts"
    expert_factors: tuple[float, ...] = (1,)
    beside_expert: tuple[Player, ...] = ()
    points: str | None = None
    inherited: dict[str, str] = field(default_factory=dict)
    inherited_note: str = ""
    clairvoyant_also: tuple[str, ...] = ()
    nearer: tuple[tuple[str, int], ...] = ()
    cut: Callable | None = None
    penalised: dict[str, str] = field(default_factory=dict)
    value_policy: str = ""
    value_seed: int = 0
    value_trees: tuple[int, ...] = (10, 100)
    spec: str | None = None
    family: str = ""
    family_triggers: dict[str, str] = field(default_factory=dict)
    question: str = "When the player first acts"
    imposed: str = ""
    chance: str = "the chance outcomes"
    baseline_called: tuple[str, str] = ("the best simple preset", "the preset")

    def check(self, game) -> None:
        """ValueError naming the first thing the declaration gets wrong for the game."""
        objectives = win_objectives(game.result)
        outcomes = game.result.headline
        for what, table in (("bounds", self.bounds), ("penalised", self.penalised)):
            for outcome, objective in table.items():
                if outcome not in outcomes or objective not in objectives:
                    raise ValueError(f"headroom {what}: {outcome} -> {objective} is not an "
                                     "outcome and a win objective of the game")
        if game.result.main not in self.bounds:
            raise ValueError("headroom bounds: the main outcome is not bounded")
        if any(source not in self.bounds for source in self.inherited.values()):
            raise ValueError("headroom inherited: an outcome inherits an unbounded one")
        if self.penalised and not self.value_policy:
            raise ValueError("headroom penalised: no value_policy")
        if self.expert and self.expert_knob not in {
                p.name for p in load_policy(self.expert, game.name).parameters}:
            raise ValueError(f"headroom expert: {self.expert} has no parameter {self.expert_knob}")
        if bool(self.imposed) != bool(imposed(game)):
            raise ValueError("headroom imposed: named for a game whose strong player imposes "
                             "no trigger, or missing for one whose does (Trigger.strong)")
        if imposed(game) and set(imposed(game).values()) - {
                p.name for p in load_policy(game.strong, game.name).parameters}:
            raise ValueError(f"headroom imposed: a Trigger.strong that is not a parameter of "
                             f"the strong player {game.strong}")
        if set(self.family_triggers) - {t.policy for t in game.triggers}:
            raise ValueError("headroom family_triggers: a preset that is not one of the game's "
                             "triggers")


def declared_headroom(game) -> Headroom:
    """The game's Headroom: UsageError (one line) for a game without decision points or
    without a declared ladder."""
    import importlib

    _ = game.positions_module  # a game without decision points is refused here
    if not game.headroom:
        raise UsageError(f"{game.title} declares no headroom report (Game.headroom): "
                         "its ladder and bounds are not declared")
    headroom = importlib.import_module(game.headroom).HEADROOM
    headroom.check(game)
    return headroom


def read_points(game, headroom: Headroom, path: Path | None) -> tuple[dict, list[dict]]:
    """(the baseline, the best known points) of a best points file, each {label, policy,
    params} (best ones with their objective), checked: UsageError naming the problem.
    Without a file: the game's baseline policy at its defaults, and no best points."""
    if path is None:
        return {"label": game.baseline, "policy": game.baseline, "params": None}, []
    try:
        data = loads_toml(read_text(path, TOML_LIMIT))
        baseline, best = data["baseline"], data["best"]
        for p in [baseline, *best]:
            _check_point(game, p)
        objectives = win_objectives(game.result)
        for p in best:
            if p.get("objective") not in objectives:
                raise ValueError(f"{p['label']}: objective {p.get('objective')!r} is not one "
                                 f"of {', '.join(objectives)}")
    except (InputError, LimitError) as exc:
        raise UsageError(f"{path}: cannot read the best known points ({exc})") from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:  # TOMLDecodeError too
        raise UsageError(f"{path}: cannot read the best known points ({exc})") from None
    return baseline, best


def _check_point(game, p: dict) -> None:
    if not isinstance(p, dict) or not isinstance(p.get("label"), str):
        raise ValueError("a point without a label")
    params = p.setdefault("params", None)
    if params is not None and not isinstance(params, dict):
        raise ValueError(f"{p['label']}: params is not a table")
    load_policy(str(p["policy"]), game.name).param_vector(params)


def best_point(best: list[dict], objective: str) -> dict | None:
    """The best known point of a win objective, or None."""
    return next((p for p in best if p["objective"] == objective), None)


def main_point(game, headroom: Headroom, best: list[dict]) -> dict | None:
    """The best known point of the main outcome's win objective, or None."""
    return best_point(best, headroom.bounds[game.result.main])


def honest_players(headroom: Headroom, baseline: dict, best: list[dict]) -> list[Player]:
    """The beginner, the presets at their defaults, the strong player, the baseline and the
    best known point of each objective (one row per distinct label)."""
    h = headroom
    out = [Player(h.beginner, h.beginner), *(Player(name, name) for name in h.presets),
           *([h.strong] if h.strong else [])]
    for p in [baseline, *best]:
        if p["label"] not in [r.label for r in out]:
            out.append(Player(p["label"], p["policy"], p["params"]))
    return out


def expert_players(game, headroom: Headroom) -> list[Player]:
    """The expert at each of its factors of its knob's default, and the players beside it."""
    h = headroom
    if not h.expert:
        return list(h.beside_expert)
    knob = next(p for p in load_policy(h.expert, game.name).parameters if p.name == h.expert_knob)
    return [*(Player(f"expert ({h.expert}), {f}x: {int(f * knob.default)} {h.expert_knob}",
                     h.expert, {h.expert_knob: int(f * knob.default)})
              for f in h.expert_factors), *h.beside_expert]


def clairvoyant_bases(game, headroom: Headroom, baseline: dict, best: list[dict]) -> list[tuple]:
    """The clairvoyant's playouts (policy, params): the best known points, the baseline
    and clairvoyant_also (the first plays every node's)."""
    return [*((load_policy(p["policy"], game.name), p["params"]) for p in [*best, baseline]),
            *((load_policy(name, game.name), None) for name in headroom.clairvoyant_also)]


def penalised_candidates(game, headroom: Headroom, baseline: dict, best: list[dict],
                         objective: str, plain: list) -> tuple[tuple, list[list]]:
    """The penalised clairvoyant's players (policy name, parameters: the value policy,
    then the clairvoyant's bases) and each game's candidate lines (player, choices) for
    the win objective: the value policy's own game, the objective's best known point's
    (if any), and the plain clairvoyant's line (its verdicts `plain`, clairvoyant.Verdict)."""
    bases = clairvoyant_bases(game, headroom, baseline, best)
    players = ((headroom.value_policy, None), *((policy.name, params) for policy, params in bases))
    named = [p["objective"] for p in best]
    own = [(1 + named.index(objective), ())] if objective in named else []
    lines = [list(dict.fromkeys([(0, ()), *own, (1 + v.base if v.status == WON
                                                 and not v.line else 1, v.line)]))
             for v in plain]
    return players, lines


def imposed(game) -> dict[str, str]:
    """{a trigger's parameter: its strong player's parameter that imposes it}."""
    return {t.param: t.strong for t in game.triggers if t.strong}


def imposing_rows(game, games, param: str):
    """The rows of a restricted player's sweep (a polars frame of one policy's games) in
    which its parameter `param` imposes a trigger: every setting but the parameter's
    default, "not imposed" (Bøllebank's 0, the Balkan Wars' -1, whose 0 is a trigger)."""
    import polars as pl

    policy = load_policy(str(games["policy"][0]), game.name)
    default = next(p.default for p in policy.parameters if p.name == param)
    return games.filter(pl.col(param) != default)
