"""Operation Bøllebank's lookahead player (policies/bollebank/lookahead.py), the generic one
(bollesim/strong/lookahead.py) over this game's positions (positions.py): its objectives,
its bases, and restricted play, an imposed first Fire order (expert.py). The default base
is the apprentice; "expert" is the plan family at EXPERT_BASE (expert_base.toml).

With engine="reference" the reference engine then plays the same choices, and both give
the same result row.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np

from bollesim.bollebank import positions
from bollesim.bollebank.engine.player import FAMILY
from bollesim.bollebank.expert import IMPOSED_PARAMETERS, FirstFire, expert_base, with_trigger
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.errors import UsageError
from bollesim.game.policy import Policy, load_policy, replaying
from bollesim.game.result import Objective
from bollesim.strong import lookahead as generic
from bollesim.strong.lookahead import FIRST_ROUND, SCREEN, Lookahead

OUTCOME_COLUMNS = RESULT.flags  # the first slots of a result row (engine/layout.py)


OBJECTIVES = (  # the values of the lookahead policy's `objective` parameter
    Objective("operational victory and no defeat", {"operational": 1, "defeat": -1}),
    Objective("no defeat", {"defeat": -1}),
    Objective("operational victory", {"operational": 1}),
    Objective("victories, the four types added", {v: 1 for v in RESULT.wins}),
)
BASES = ("expert", "historical", "cautious", "fire_at_roe", "hold_fire", "rush", "random",
         "plan", "apprentice")
"""The values of the `base` parameter: the policy that plays the rollouts out. "expert":
the plan family at EXPERT_BASE; "apprentice": the learned player over it
(policies/bollebank/apprentice.py); the others at their defaults (`plan` at other parameters:
play_games' base_params, with_base)."""

def base_of(name: str, base_params: dict[str, float] | None) -> tuple[Policy, dict | None]:
    """(the policy, its parameters) of a value of BASES."""
    if name == "expert":
        return load_policy("plan"), {**expert_base(), **(base_params or {})}
    return load_policy(name), base_params


LOOKED_AT = positions.LOOKED_AT
SETUP = positions.SETUP


def new_lookahead(rules: Ruleset, rollouts: int, base: Policy, objective: Objective,
                  base_params: dict[str, float] | None = None, confidence: float = 0.0,
                  first: int = FIRST_ROUND, kinds: tuple[int, ...] = LOOKED_AT,
                  first_fire: FirstFire = FirstFire(), screen: int = SCREEN) -> Lookahead:
    """A lookahead player of this game for one ruleset (strong/lookahead.Lookahead), its
    base at base_params (default: its defaults), with an imposed first Fire order if
    first_fire says so: the base's own trigger is then set to it, so that its rollouts obey
    it too (the apprentice's restricted play, or the plan family at the point with the
    trigger imposed)."""
    from bollesim.bollebank.game import GAME

    keeps_trigger = {p.name for p in IMPOSED_PARAMETERS} <= {p.name for p in base.parameters}
    if first_fire.imposed and not (getattr(base, "compiled_in", 0) == FAMILY or keeps_trigger):
        raise UsageError(f"an imposed first Fire order needs a base of the plan family "
                         f"or the apprentice, not {base.name}")
    base_vector = base.param_vector(base_params)
    if first_fire.imposed and keeps_trigger:  # the base's own restricted play
        base_vector = base.param_vector({**(base_params or {}),
                                         "imposed_roe": first_fire.roe,
                                         "imposed_turn": first_fire.turn})
    elif first_fire.imposed:  # the family itself, at the point with the trigger imposed
        family = load_policy("plan")
        base_vector = with_trigger(base.kernel_params(base_vector), first_fire)
        base = family
    restriction = np.array([first_fire.roe, first_fire.turn], dtype=np.float64)
    return Lookahead(GAME, rules, rollouts, base, objective, base_vector, confidence, first,
                     kinds, restriction, screen)


def player(rules: Ruleset, params: np.ndarray, base_params: dict | None = None) -> Lookahead:
    """The lookahead player of one parameter row of policies/bollebank/lookahead.py."""
    rollouts, objective, base, _, roe, turn = (int(x) for x in params[:6])
    policy, base_params = base_of(BASES[base], base_params)
    return new_lookahead(rules, rollouts, policy, OBJECTIVES[objective], base_params,
                         float(params[3]), first_fire=FirstFire(roe, turn))


def teacher(rules: Ruleset, base: Policy | None = None) -> Lookahead:
    """The lookahead player the apprentice learns from (apprentice/declaration.py TEACHER):
    at its defaults over the plan family at its expert point, not over the apprentice,
    which `-P lookahead` plays by default, so the labels do not depend on the model they
    train; or over the policy `base` (a later round's apprentice)."""
    expert = player(rules, load_policy("lookahead", "bollebank").param_vector({"base": "expert"}))
    if base is None:
        return expert
    return new_lookahead(rules, expert.rollouts, base, expert.objective,
                         confidence=expert.confidence)


def with_base(base_params: dict[str, float]) -> Policy:
    """The lookahead policy with its base (`base` = plan, say) at base_params: for the
    Python API (a cluster's workers load policies by name, with their defaults)."""
    from functools import partial

    lookahead = load_policy("lookahead")
    return replace(lookahead, play_games=partial(play_games, base_params=base_params))


def play_games(
    rules: Ruleset, params: np.ndarray, seed: int, first_game: int, engine: str = "fast",
    base_params: dict | None = None,
) -> np.ndarray:
    """Result rows of games first_game .. first_game + n - 1, game g played with parameter
    row params[g] (strong/lookahead.play_games)."""
    return generic.play_games(partial(player, rules, base_params=base_params), params, seed,
                              first_game, engine)


def narrated_game(rules: Ruleset, params: np.ndarray, seed: int, game: int) -> tuple[list[str], dict]:
    """The turn-by-turn account of a lookahead game (replay.narrated_game), each decision
    with its options' scores, and its result row. The reference engine plays the choices
    the fast engine's rollouts found."""
    from bollesim.bollebank.narrate import Narrator, outcome_line
    from bollesim.bollebank.reference.play import play_game

    chosen = player(rules, params)
    _, decisions = chosen.play(seed, game)
    trace: list[tuple] = []
    notes: dict[int, list[str]] = {}
    narrator = Narrator(rules)

    def note(i: int) -> None:
        notes.setdefault(len(trace), []).append(generic.decision_line(
            narrator.option, positions.KINDS, decisions[i], chosen.confidence))

    policy = replaying(chosen.base, [d.choice for d in decisions], note)
    row = play_game(rules, policy, chosen.base_vector, seed, game, trace)
    head = (
        f"Lookahead: at most {chosen.rollouts} rollouts per option (successive halving), "
        f"played out by {chosen.base.name}; an option's score is the mean over its rollouts "
        f"of '{chosen.objective.label}' ({chosen.objective.weights_text}); the best is taken "
        f"when it beats the base policy's choice by {chosen.confidence:g} standard errors."
    )
    return [head, *narrator.narrate(trace, notes), "", outcome_line(row)], row
