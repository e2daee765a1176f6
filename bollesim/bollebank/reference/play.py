"""The reference engine's game loop and its one result row per game (docs/architecture.md §5)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bollesim.bollebank import events
from bollesim.bollebank.narrate import WEAPON_WORDS
from bollesim.bollebank.reference.chance import Chance
from bollesim.bollebank.reference.end import end_phase
from bollesim.bollebank.reference.execution import execution_phase
from bollesim.bollebank.reference.orders import orders_phase
from bollesim.bollebank.reference.reaction import reaction_phase
from bollesim.bollebank.reference.state import Game, new_game
from bollesim.bollebank.reference.table import Table
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.game.policy import DecidePolicy

PHASES = (orders_phase, execution_phase, reaction_phase, end_phase)  # §4

# after_phase(table, phase): called after each phase that ran, with the phase function.
AfterPhase = Callable[[Table, Callable[[Table], None]], None]


def play_turns(table: Table, after_phase: AfterPhase | None = None) -> None:
    """§4: turns of four phases until the game is over. `after_phase`, if given, is
    called after every phase played, also the one that ended the game (for tests)."""
    game = table.game
    while not game.over:
        table.log(events.TURN_START, game.turn, game.deadline, game.roe, game.fire_roe)
        for phase in PHASES:
            phase(table)
            if after_phase is not None:
                after_phase(table, phase)
            if game.over:
                break


def play_game(
    rules: Ruleset,
    policy: DecidePolicy,
    params: np.ndarray,
    seed: int,
    game_index: int,
    trace: list | None = None,
    chance=None,
    game: Game | None = None,
    after_phase: AfterPhase | None = None,
) -> dict:
    """Play one game from setup (or from `game`) and return its result row. params: the
    policy's parameters (policy.parameters order)."""
    params = policy.kernel_params(params)
    game = game if game is not None else new_game(rules)
    chance = chance if chance is not None else Chance(seed, game_index)
    table = Table(game, chance, policy, params, seed, game_index, trace)
    play_turns(table, after_phase)
    return result_row(game, chance.draws)


def result_row(game: Game, draws: int) -> dict:
    """§8 outcome of a finished game: victory types, defeat and what led there."""
    rules = game.rules
    defeat = game.end_reason in (events.END_DESTROYED, events.END_VL2_KILLED, events.END_TURN_40)
    operational = game.operational and not defeat
    tactical = game.tactical and not defeat
    military = operational or tactical
    strategic = not game.fired or game.fire_roe >= rules.p("roe", "unrestricted")
    political = not game.fired or game.fire_roe <= game.roe
    if rules.p("interpretations", "diplomatic_needs_military") or defeat:  # I-DIPLO
        strategic, political = strategic and military, political and military
    return {
        "operational": operational,
        "tactical": tactical,
        "strategic": strategic,
        "political": political,
        "defeat": defeat,
        "end_turn": game.turn,
        "end_reason": events.END_REASONS[game.end_reason],
        "first_fire_turn": game.fire_turn if game.fired else None,
        "first_fire_roe": game.fire_roe if game.fired else None,
        "final_roe": game.roe,
        "deadline": game.deadline,
        "tanks_at_t2": game.tanks_at_t2,
        "airstrike_turn": game.airstrike_turn or None,
        "heavy_damage": game.heavy_hits,
        "light_damage": game.light_hits,
        "chits_drawn": game.chits_drawn,
        "random_draws": draws,
        **loss_columns(game),
    }


def loss_columns(game: Game) -> dict:
    """The first loss's turn, and the vehicle, weapon and place of the loss that ended the
    game (effects.note_loss; runner.RESULT_COLUMNS' note); None where there is none."""
    vehicle, weapon, place = game.loss if game.loss is not None else (None, None, None)
    return {
        "first_loss_turn": game.first_loss_turn or None,
        "loss_vehicle": None if vehicle is None else game.rules.vehicle_ids[vehicle],
        "loss_cause": None if weapon is None else WEAPON_WORDS[weapon],
        "loss_place": None if place is None else game.rules.position_names[place],
    }
