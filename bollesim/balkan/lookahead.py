"""Balkan Wars' lookahead player (policies/balkan_wars/lookahead.py): the generic one
(bollesim/strong/lookahead.py) over this game's positions (positions.py), the scripted
family `assault` as its base (at SEARCHED, or at its defaults) and the attack won as its
objective. It looks
ahead at every declared decision of the attacker (positions.LOOKED_AT: each arm's order a
bound, the group each move digit moves, the close assault).

With engine="reference" the reference engine then plays the same choices, and both give
the same result row.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from bollesim.balkan import positions
from bollesim.game.policy import load_policy, replaying
from bollesim.game.result import Objective
from bollesim.strong import lookahead as generic
from bollesim.strong.lookahead import Lookahead

OBJECTIVES = (
    Objective("attack won", {"won": 1}),
    Objective("attack won and not broken", {"won": 1, "lost": -1}),
)
BASE = "assault"
BASES = ("searched", "defaults")
"""Where the base plays its rollouts out: `assault` at SEARCHED, or at its defaults."""
SEARCHED = {"advance_to": 8, "guns_to": 8}
"""The point of `assault` a search found best for the attack won (experiments/
balkan_lookahead.py, seed 1: troops halting within the rifles' maximum range, 93.6%
against 75.8% at the defaults; docs/balkan-wars.md), the rest at the family's defaults."""


def player(rules, params: np.ndarray, base_params: dict | None = None) -> Lookahead:
    """The lookahead player of one parameter row of policies/balkan_wars/lookahead.py:
    (rollouts, objective, confidence, base, first, screen); base_params over the base's
    point."""
    from bollesim.balkan.game import GAME

    rollouts, objective, first, screen = (int(params[i]) for i in (0, 1, 4, 5))
    base = load_policy(BASE, GAME)
    point = {**(SEARCHED if BASES[int(params[3])] == "searched" else {}), **(base_params or {})}
    return Lookahead(GAME, rules, rollouts, base, OBJECTIVES[objective],
                     base.param_vector(point), float(params[2]), first=first, screen=screen)


def teacher(rules, base=None) -> Lookahead:
    """The lookahead player the apprentice learns from (apprentice/declaration.py TEACHER):
    at its defaults, its rollouts played out by `assault` at SEARCHED; or over the policy
    `base` (a later round's apprentice) at its defaults."""
    from bollesim.balkan.game import GAME

    expert = player(rules, load_policy("lookahead", GAME).param_vector())
    if base is None:
        return expert
    return Lookahead(GAME, rules, expert.rollouts, base, expert.objective, base.param_vector(),
                     expert.confidence)


def play_games(rules, params: np.ndarray, seed: int, first_game: int, engine: str = "fast",
               base_params: dict | None = None) -> np.ndarray:
    """Result rows of games first_game .. first_game + n - 1, game g played with parameter
    row params[g] (strong/lookahead.play_games)."""
    return generic.play_games(partial(player, rules, base_params=base_params), params, seed,
                              first_game, engine)


def narrated_game(rules, params: np.ndarray, seed: int, game: int) -> tuple[list[str], dict]:
    """The engagement told bound by bound (narrate.py), each declared decision with
    its options' scores, and its result row: the reference engine plays the choices the
    fast engine's rollouts found."""
    from bollesim.balkan import narrate, reference

    chosen = player(rules, params)
    _, decisions = chosen.play(seed, game)
    b = narrate.new_narrated_battle(rules, seed, game)

    def note(i: int) -> None:
        b.note("lookahead", generic.decision_line(
            lambda kind, option: positions.option_name(rules, kind, option), positions.KINDS,
            decisions[i], chosen.confidence))

    policy = replaying(chosen.base, [d.choice for d in decisions], note)
    row = reference.play(rules, chosen.base.kernel_params(chosen.base_vector), seed, game, b,
                         decide=policy.decide)
    head = (f"Lookahead: at most {chosen.rollouts} rollouts per option, played out by "
            f"{chosen.base.name} ({BASES[int(params[3])]} point); an option's score is the mean over its rollouts of "
            f"'{chosen.objective.label}' ({chosen.objective.weights_text}); the best is taken "
            f"when it beats the base policy's choice by {chosen.confidence:g} standard errors.")
    lines = [head, *narrate.Teller(rules).lines(b.log), "", narrate.outcome(row)]
    return lines, row
