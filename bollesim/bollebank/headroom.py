"""Operation Bøllebank's headroom report, declared (bollesim/strong/headroom.py): the
skill ladder, the outcomes the clairvoyant bounds with which of its win objectives, its
search's hints, V, and the first Fire order's trigger sweeps. `bollesim headroom` plays
it (bollesim/cli/headroom.py)."""

from __future__ import annotations

from bollesim.bollebank import observation
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules.packed import SLOTS
from bollesim.strong.headroom import Headroom, Player


def past_the_deadline(rules, objective):
    """The operational victory's cut (I-OPV: T2_REACHED is only set by the deadline): a
    decision after the latest turn the Tango 2 deadline can reach, without the tanks in
    Tango 2, cannot lead to one. None for an objective that does not need it, or where the
    ruleset lets something move the deadline later (§5.5 Extra turn moves it at most to
    deadline_max; artillery only moves it back)."""
    packed = rules.packed
    if (RESULT.slot(RESULT.main), 1) not in objective.needs or packed[SLOTS["S_ART_DEADLINE_T2"]] > 0:
        return None
    last = int(max(packed[SLOTS["S_DEADLINE_START"]], packed[SLOTS["S_DEADLINE_MAX"]]))
    return lambda obs: not obs[observation.T2_REACHED] and obs[observation.TURN] > last


HEADROOM = Headroom(
    seed=3,  # the searches played seed 1 and held out seed 2: these games are new to them
    beginner="random",
    presets=("historical", "cautious", "fire_at_roe", "fire_at_turn", "hold_fire", "rush"),
    strong=Player("apprentice (the strong player)", "apprentice"),
    expert="lookahead",  # over the apprentice, its default base
    expert_knob="rollouts",
    expert_factors=(1, 2, 4, 8),
    # The lookahead over its former base, the plan family at the expert point: the player the
    # apprentice learned from, kept on the ladder so the step its apprentice gave shows.
    beside_expert=(Player("the apprentice's teacher (lookahead over the plan family)",
                          "lookahead", {"base": "expert"}),),
    points="experiments/best_points.toml",
    bounds={"operational": "operational victory", "tactical": "tactical victory",
            "strategic": "strategic victory", "political": "political victory",
            "defeat": "no defeat"},  # defeat: 1 - no defeat
    # All four victories are a tactical victory, whose search already leaves most games
    # undecided.
    inherited={"perfect": "tactical"},
    inherited_note="The bound of all four victories is the tactical victory's: every game "
                   "with all four is a tactical victory.",
    clairvoyant_also=("cautious", "historical"),
    # The order the clairvoyant searches options in, after the objective's flags: tanks that
    # reached Tango 2, a later end, fewer heavy hits.
    nearer=(("tanks_at_t2", 1), ("end_turn", 1), ("heavy_damage", -1)),
    cut=past_the_deadline,
    penalised={"operational": "operational victory", "defeat": "no defeat"},
    value_policy="apprentice",
    value_seed=11,  # not the report's
    value_trees=(10, 100),  # the ladder of V: its boosting rounds, each a step the report measures
    spec="experiments/first_fire.toml",
    family="plan",  # the best points and the trigger sweeps of the best point play it
    family_triggers={"fire_at_roe": "fire_roe", "fire_at_turn": "fire_turn"},
    question="When to give the first Fire order",
    imposed="with its first Fire order imposed",
    chance="the chits and dice",
)
