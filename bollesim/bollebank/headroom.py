"""The headroom report's players and bounds for this game (`bollesim headroom`,
bollesim/cli/headroom.py writes it): the skill ladder, the outcomes the clairvoyant
bounds with which of its win objectives, and the first Fire order's triggers."""

from __future__ import annotations

import tomllib
from pathlib import Path

from bollesim.bollebank.clairvoyant import WON
from bollesim.errors import UsageError
from bollesim.game.policy import load_policy

SPEC = Path("experiments/first_fire.toml")  # the trigger sweeps compared
POINTS = Path("experiments/best_points.toml")  # the best known point of each objective
SEED = 3  # the searches played seed 1 and held out seed 2: these games are new to them
BEGINNER = "random"  # the relative skill's beginner
PRESETS = ("historical", "cautious", "fire_at_roe", "fire_at_turn", "hold_fire", "rush")
EXPERT = "lookahead"
FAMILY = "plan"  # the family the best points and the trigger sweeps of the best point play
EXPERT_FACTORS = (1, 2, 4, 8)  # the expert's rollouts, times its default
BOUNDS = {  # ladder outcome -> the clairvoyant's win objective (defeat: 1 - no defeat)
    "operational": "operational victory", "tactical": "tactical victory",
    "strategic": "strategic victory", "political": "political victory",
    "defeat": "no defeat",
}
INHERITED = {"perfect": "tactical"}
"""Outcomes bounded by another's bound, not searched: all four victories are a tactical
victory, whose search already leaves most games undecided."""
TRIGGERS = {"fire_at_roe": ("k", "fire_roe"), "fire_at_turn": ("t", "fire_turn")}
"""A preset's trigger parameter and the family's parameter it sets
(bollesim/bollebank/scripted/space.py)."""
STRONG = "apprentice (the strong player)"
TEACHER = "the apprentice's teacher (lookahead over the plan family)"
"""The lookahead over its former base, the plan family at the expert point: the player the
apprentice learned from, kept on the ladder so the step its apprentice gave shows."""
IMPOSED = {"k": "imposed_roe", "t": "imposed_turn"}
"""The restricted expert's parameter that imposes each preset trigger (policies/bollebank/lookahead.py;
0: not imposed)."""
MAIN_OBJECTIVE = "operational victory"  # the best point whose triggers are swept
PENALISED = {"operational": "operational victory", "defeat": "no defeat"}
"""Outcomes the penalised clairvoyant is measured on (bollebank/penalised.py), with its
win objective."""
VALUE_POLICY = "apprentice"  # whose games V is fitted on (bollebank/value.py)
VALUE_SEED = 11  # their seed: not the report's
VALUE_TREES = (10, 100)  # the ladder of V: its boosting rounds, each a step the report measures
CLAIRVOYANT_ALSO = ("cautious", "historical")  # its playouts besides the best points


def read_points(path: Path = POINTS) -> tuple[dict, list[dict]]:
    """(the baseline, the best known points) of experiments/best_points.toml."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        return data["baseline"], data["best"]
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError) as exc:
        raise UsageError(f"{path}: cannot read the best known points ({exc})") from None


def main_point(best: list[dict]) -> dict:
    """The best known point of the operational victory."""
    return best_point(best, MAIN_OBJECTIVE)


def best_point(best: list[dict], objective: str) -> dict:
    """The best known point of a win objective (clairvoyant.WIN_OBJECTIVES)."""
    return next(p for p in best if p["objective"] == objective)


def honest_players(baseline: dict, best: list[dict]) -> list[tuple[str, str, dict | None]]:
    """(label, policy, parameters): random, the presets at their defaults, the strong
    player, the baseline and the best known point of each objective (one row per distinct
    point)."""
    out = [(BEGINNER, BEGINNER, None), *((name, name, None) for name in PRESETS),
           (STRONG, "apprentice", None)]
    for p in [baseline, *best]:
        if p["label"] not in [label for label, _, _ in out]:
            out.append((p["label"], p["policy"], p["params"]))
    return out


def expert_players() -> list[tuple[str, str, dict]]:
    """The expert (the lookahead over the apprentice, its default base) at each of
    EXPERT_FACTORS, and the apprentice's teacher at its defaults."""
    default = next(p.default for p in load_policy(EXPERT).parameters if p.name == "rollouts")
    return [*((f"expert (lookahead), {f}x: {int(f * default)} rollouts", EXPERT,
               {"rollouts": int(f * default)}) for f in EXPERT_FACTORS),
            (TEACHER, EXPERT, {"base": "expert"})]


def clairvoyant_bases(baseline: dict, best: list[dict]) -> list[tuple]:
    """The clairvoyant's playouts: the best known points, the baseline, cautious and
    historical (the first plays every node's)."""
    return [*((load_policy(p["policy"]), p["params"]) for p in [*best, baseline]),
            *((load_policy(name), None) for name in CLAIRVOYANT_ALSO)]


def penalised_candidates(baseline: dict, best: list[dict], objective: str,
                         plain: list) -> tuple[tuple, list[list]]:
    """The penalised clairvoyant's players (policy name, parameters: the strong player,
    then the clairvoyant's bases) and each game's candidate lines (player, choices) for
    the win objective: the strong player's own game, the objective's best known point's,
    and the plain clairvoyant's line (its verdicts `plain`, clairvoyant.Verdict)."""
    players = ((VALUE_POLICY, None),
               *((policy.name, params) for policy, params in clairvoyant_bases(baseline, best)))
    own = 1 + [p["objective"] for p in best].index(objective)
    lines = [list(dict.fromkeys([(0, ()), (own, ()), (1 + v.base if v.status == WON
                                                      and not v.line else 1, v.line)]))
             for v in plain]
    return players, lines
