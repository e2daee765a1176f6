"""§8 End phase: victory assessment, hull markers flip, the turn advances."""

from __future__ import annotations

from bollesim.bollebank import codes, decisions, events
from bollesim.bollebank.reference.effects import ability_at, ability_ready, end_game, spend_ability
from bollesim.bollebank.reference.orders import in_saraci
from bollesim.bollebank.reference.state import Game, artillery_silent
from bollesim.bollebank.reference.table import Table


def end_phase(table: Table) -> None:
    """§4 step 4: a. victory assessment, b. flip hull markers, c. advance the turn."""
    game, rules = table.game, table.rules
    extra_turn(table)
    operational, tactical = assess(game)
    if rules.p("interpretations", "victories_sticky"):
        game.operational |= operational
        game.tactical |= tactical
    else:
        game.operational, game.tactical = operational, tactical
    if operational or tactical:  # I-END: stopping is the player's choice
        stop = table.ask(decisions.STOP_ON_VICTORY, [0, 1])
        table.log(events.VICTORY, operational, tactical, stop)
        if stop:
            end_game(table, events.END_VICTORY)
            return
    for v in game.vehicles:
        if codes.HULL in v.heavy:
            v.hull_green = not v.hull_green
            table.log(events.HULL_FLIP, v.index, v.hull_green)
    if game.turn >= rules.turn_limit:
        won = game.operational or game.tactical
        extended = rules.p("game", "extend_to_40")
        end_game(table, events.END_TURN_40 if extended and not won else events.END_TURN_LIMIT)
        return
    game.turn += 1


def extra_turn(table: Table) -> None:
    """§5.5 Extra turn (I-ABILITY-PHASE): with its vehicle (QL3) at Kalesija, the T2
    deadline marker moves one box toward turn 20."""
    game, rules = table.game, table.rules
    a = ability_ready(table, codes.EXTRA_TURN)
    if a < 0 or not ability_at(table, a, rules.extra_turn_at):
        return
    if game.deadline >= rules.p("game", "deadline_max") or not table.ask(
        decisions.USE_ABILITY, [0, 1], (a, 0)
    ):
        return
    spend_ability(table, a)
    game.deadline += 1
    table.log(events.DEADLINE, game.deadline, 1)


def note_tango2(game: Game) -> None:
    """I-OPV: enough tanks stand in Tango 2 by the deadline (the operational victory's
    first condition, §8)."""
    rules = game.rules
    at_t2 = sum(1 for v in game.vehicles if v.is_tank and v.position == rules.tango2)
    if game.turn <= game.deadline and at_t2 >= rules.p("game", "tanks_needed_at_t2"):
        game.t2_reached = True


def assess(game: Game) -> tuple[bool, bool]:
    """§8 operational (I-OPV) and tactical (I-TACV) victory at this turn's end."""
    rules = game.rules
    tanks_at_t2 = sum(1 for v in game.vehicles if v.is_tank and v.position == rules.tango2)
    game.tanks_at_t2 = max(game.tanks_at_t2, tanks_at_t2)
    note_tango2(game)
    silent = artillery_silent(game)
    operational = game.t2_reached and silent
    tactical = (
        silent
        and game.turn <= rules.p("game", "turn_limit")
        and all(not game.tracks[t] for t in codes.DIRECT_TRACKS)
        and all(in_saraci(game, v.position) for v in game.vehicles if v.heavy)
    )
    return operational, tactical
