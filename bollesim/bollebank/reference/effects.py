"""Rules that several phases share: RoE changes, HQ ability markers, damage, game over."""

from __future__ import annotations

from bollesim.bollebank import codes, decisions, events
from bollesim.bollebank.reference.state import Vehicle
from bollesim.bollebank.reference.table import Table


def end_game(table: Table, reason: int) -> None:
    game = table.game
    if not game.over:
        game.over = True
        game.end_reason = reason
        table.log(events.GAME_END, reason)


def change_roe(table: Table, delta: int, cause: int) -> None:
    """Move the RoE marker, clamped to the track (I-ROE0), then check abilities (§5.5)."""
    game = table.game
    new = min(max(game.roe + delta, table.rules.p("roe", "min")), table.rules.p("roe", "max"))
    if new != game.roe:
        game.roe = new
        table.log(events.ROE, new, delta, cause)
    update_abilities(table)


def update_abilities(table: Table) -> None:
    """§5.5: a marker becomes available when the RoE reaches its level (the player picks
    the side) and goes back to the RoE track when the RoE drops below it (I-SPENT)."""
    game, rules = table.game, table.rules
    back_from_spent = rules.p("interpretations", "spent_returns_to_track")
    for a, marker in enumerate(game.abilities):
        level = rules.ability_level[a]
        if marker.state == codes.ON_TRACK and game.roe >= level:
            marker.side = table.ask(decisions.ABILITY_SIDE, [0, 1], (a, 0))
            marker.state = codes.AVAILABLE
            table.log(events.ABILITY, a, events.ABILITY_AVAILABLE, marker.side)
        elif game.roe < level and (
            marker.state == codes.AVAILABLE or (marker.state == codes.SPENT and back_from_spent)
        ):
            marker.state = codes.ON_TRACK
            table.log(events.ABILITY, a, events.ABILITY_RETURNED, marker.side)


def ability_ready(table: Table, ability: int) -> int:
    """The marker index if `ability` (codes.EXTRA_ORDER...) is face up in its box and its
    vehicle's commander lives (§5.5), else -1. Location conditions are the caller's."""
    game, rules = table.game, table.rules
    for a, marker in enumerate(game.abilities):
        if (
            marker.state == codes.AVAILABLE
            and rules.ability_sides[a, marker.side] == ability
            and not game.vehicles[rules.ability_vehicle[a]].commander_killed
        ):
            return a
    return -1


def ability_at(table: Table, a: int, place: int) -> bool:
    """§5.5: marker a's command vehicle stands where its ability needs it."""
    return table.game.vehicles[table.rules.ability_vehicle[a]].position == place


def within_reach(table: Table, a: int, v: Vehicle) -> bool:
    """§5.5 Extra move, Extra fire: v is marker a's vehicle (QL1) or within reach of it."""
    rules = table.rules
    owner = table.game.vehicles[rules.ability_vehicle[a]]
    return rules.distance[owner.position, v.position] <= rules.p("ability_rules", "ql1_range")


def spend_ability(table: Table, a: int) -> None:
    marker = table.game.abilities[a]
    marker.state = codes.SPENT
    table.log(events.ABILITY, a, events.ABILITY_USED, marker.side)


def note_loss(game, v: Vehicle, weapon: int, ends_game: bool) -> None:
    """The loss columns (play.result_row): a loss is heavy damage (§7.1.3, §7.2) or a
    killed commander (§7.1.2) on a UN vehicle. The first one's turn is kept; for the one
    that ends the game (§8: a vehicle destroyed, or VL2's commander killed) the vehicle,
    the weapon (codes.TANK..ART) and the position it stood at."""
    if not game.first_loss_turn:
        game.first_loss_turn = game.turn
    if ends_game:
        game.loss = (v.index, weapon, v.position)


def heavy_damage(
    table: Table, v: Vehicle, location: int, die: int, weapon: int, apc_survives: bool = False
) -> None:
    """§7.1.3 (and §7.2 on a 12): a hit on an APC or a second hit on a location destroys
    the vehicle; otherwise mark it, stun on hull or turret, and move the RoE. With
    `apc_survives` (artillery under I-ART-APC "location") an APC is marked like a tank.
    weapon: the attack's (codes.TANK..ART, §7)."""
    game, rules = table.game, table.rules
    table.log(events.HEAVY_DAMAGE, v.index, location, die)
    game.heavy_hits += 1
    destroyed = (not v.is_tank and not apc_survives) or location in v.heavy
    note_loss(game, v, weapon, destroyed)
    if destroyed:
        table.log(events.DESTROYED, v.index)
        end_game(table, events.END_DESTROYED)
        return
    v.heavy.add(location)
    if location == codes.HULL:
        v.hull_green = True
    if location in (codes.HULL, codes.TURRET):
        v.stunned = True
    if location == codes.TRACKS:  # immobilised: its Move or Tow marker comes back (§5.4.1)
        release_tow(game, v)
        v.order, v.destination, v.tow_target = codes.NO_ORDER, -1, -1
    change_roe(
        table,
        rules.p("roe", "heavy_damage_fire" if game.fired else "heavy_damage_hold"),
        events.ROE_HEAVY,
    )


def release_tow(game, v: Vehicle) -> None:
    """Unhook a tow that v takes part in (it ends at arrival or when the rescuer stops)."""
    if v.towing >= 0:
        game.vehicles[v.towing].towed_by = -1
        v.towing = -1
        v.order, v.destination = codes.NO_ORDER, -1


def kill_commander(table: Table, v: Vehicle) -> None:
    """§7.1.2-7.1.3: VL2's commander killed loses the game; any other gets a TC KIA marker
    (once) and moves the RoE. Only an HMG attack kills a commander (§7.1.2)."""
    game, rules = table.game, table.rules
    if v.index == rules.commander:
        note_loss(game, v, codes.HMG, True)
        end_game(table, events.END_VL2_KILLED)
        return
    if v.commander_killed:
        return
    note_loss(game, v, codes.HMG, False)
    v.commander_killed = True
    key = "commander_killed_fire" if game.fired else "commander_killed_hold"
    change_roe(table, rules.p("roe", key), events.ROE_KIA)
