"""§5 Orders phase: draw pairs of chits, read the Order Matrix, issue orders."""

from __future__ import annotations

from bollesim.bollebank import codes, decisions, events, luck
from bollesim.bollebank.decisions import order_dest, order_kind, order_mask, pack_order
from bollesim.bollebank.reference.effects import (
    ability_at,
    ability_ready,
    release_tow,
    spend_ability,
)
from bollesim.bollebank.reference.radio import RadioCheck
from bollesim.bollebank.reference.state import Game, Vehicle
from bollesim.bollebank.reference.table import Table


def orders_phase(table: Table) -> None:
    """§4 step 1 and §5.3: pairs are drawn until the player stops, a pair of one type
    ends the phase, or the pool runs dry (I-POOL)."""
    game, rules = table.game, table.rules
    game.pairs_this_turn = 0
    choose_vl2_destination(table)
    while not game.over:
        if weapon_chits_in_pool(game) < rules.p("interpretations", "pool_min_chits"):
            table.log(events.POOL_EXHAUSTED, weapon_chits_in_pool(game))
            break
        pair = draw_pair(table)
        if pair is None:  # the civilian car: no order, draw again (§5.3)
            continue
        first, second = pair
        types = (int(rules.chit_type[first]), int(rules.chit_type[second]))
        game.pairs_this_turn += 1
        game.pair = types
        table.log(
            events.PAIR,
            first,
            second,
            rules.matrix_fire[types],
            rules.matrix_move[types] + 2 * rules.matrix_platoon[types],
        )
        offer_order(table, types)
        place_on_track(table, first)
        place_on_track(table, second)
        game.pair = (-1, -1)
        if types[0] == types[1]:  # §5.3 Important: doubles end the phase, may refresh
            refresh_ability(table)
            break
        if not table.ask(decisions.DRAW_AGAIN, [0, 1]):
            break


def weapon_chits_in_pool(game: Game) -> int:
    return sum(1 for c in game.pool if game.rules.chit_type[c] != codes.RU)


def draw_chit(table: Table) -> int:
    """Draw one chit from the enemy weapon pool (the last chit fills the hole)."""
    game = table.game
    i = table.pick(game.pool, luck.CHIT)
    chit = game.pool[i]
    game.pool[i] = game.pool[-1]
    game.pool.pop()
    game.chits_drawn += 1
    table.log(events.DRAW, chit)
    return chit


def draw_pair(table: Table) -> tuple[int, int] | None:
    """Two weapon chits, or None after the civilian car (§5.3). A random-unit chit drawn
    on the way inflicts light damage and is set aside (§7.2.1)."""
    game, rules = table.game, table.rules
    chits: list[int] = []
    while len(chits) < 2:
        chit = draw_chit(table)
        if rules.chit_type[chit] == codes.RU:
            light_damage(table, game.vehicles[rules.chit_vehicle[chit]])
            game.aside.append(chit)
        else:
            chits.append(chit)
    cars = [c for c in chits if rules.chit_type[c] == codes.CAR]
    if not cars:
        return chits[0], chits[1]
    other = chits[1] if chits[0] == cars[0] else chits[0]
    game.retired.append(cars[0])  # §5.3: the civilian car is retired from play
    table.log(events.CIVILIAN_CAR, cars[0], other)
    place_on_track(table, other)
    return None


def light_damage(table: Table, v: Vehicle) -> None:
    """§7.2.1: roll for the light damage, re-rolling damage already sustained."""
    game, rules = table.game, table.rules
    if len(v.light) >= 3:
        table.log(events.LIGHT_DAMAGE, v.index, -1, 0)
        return
    while True:
        die = table.d6(luck.LIGHT_DAMAGE)
        kind = int(rules.light_table[die - 1])
        if kind not in v.light:
            break
    v.light.add(kind)
    game.light_hits += 1
    table.log(events.LIGHT_DAMAGE, v.index, kind, die)


def place_on_track(table: Table, chit: int) -> None:
    """§5.3: a drawn weapon chit goes on its track, after the ones already there."""
    track = table.game.tracks[table.rules.chit_type[chit]]
    track.append(chit)
    table.log(events.PLACE, chit, table.rules.chit_type[chit], len(track))


# ------------------------------------------------------------------ the orders on offer


def choose_vl2_destination(table: Table) -> None:
    """§5: VL2 is the player and needs no order; its destination is a free choice."""
    game = table.game
    vl2 = game.vehicles[table.rules.commander]
    options = [decisions.PASS] + [
        pack_order(codes.MOVE, 1 << vl2.index, d) for d in move_destinations(game, vl2)
    ]
    choice = table.ask(decisions.VL2_DESTINATION, options)
    if choice != decisions.PASS:
        vl2.destination = order_dest(choice)
        table.log(events.VL2_DESTINATION, vl2.destination)


def in_saraci(game: Game, position: int) -> bool:
    """I-TACV, I-TOW-SARACI: Saraci is its contact point and its overwatches."""
    return game.rules.town_of[position] == codes.TOWN_S


def move_destinations(game: Game, v: Vehicle) -> list[int]:
    """§5.4.1: where v may be sent (rules/board.py: contact points and overwatches, with
    the three restrictions), not where it is already going."""
    allowed = game.rules.dest_allowed[v.position]
    return [d for d in range(len(allowed)) if allowed[d] and d != v.destination]


def can_take_move(game: Game, v: Vehicle) -> bool:
    """A vehicle that may be given a Move order: not the player's own (VL2), not
    immobilised, not in tow. A rescuer towing a tank may: the new order supersedes the
    tow (§5.4 "Any order can be revoked and superseded by a new order")."""
    return v.index != game.rules.commander and codes.TRACKS not in v.heavy and v.towed_by < 0


def recipient_masks(game: Game, eligible, platoon_scope: bool) -> list[int]:
    """Single vehicles, and with platoon scope the groups of two or more of a platoon
    (rules/forces.py) whose vehicles can all take the order (§5.4.1: all or part of the
    platoon; §11: a platoon order may go to one vehicle)."""
    able = [v.index for v in game.vehicles if eligible(v)]
    singles = [1 << v for v in able]
    if not platoon_scope:
        return singles
    able_mask = sum(singles)
    return singles + [int(g) for g in game.rules.platoon_groups if g & ~able_mask == 0]


def order_options(
    table: Table,
    types: tuple[int, int],
    kinds=(codes.MOVE, codes.FIRE, codes.TOW, codes.AIRSTRIKE),
    exclude: int = 0,
) -> list[int]:
    """The orders the pair `types` allows now, packed (decisions.pack_order), PASS first."""
    game, rules = table.game, table.rules
    fire_ok, move_ok = rules.matrix_fire[types], rules.matrix_move[types]
    platoon = bool(rules.matrix_platoon[types])
    out = [decisions.PASS]
    if move_ok and codes.MOVE in kinds:
        for mask in recipient_masks(game, lambda v: can_take_move(game, v), platoon):
            if mask & exclude:
                continue
            members = [v for v in game.vehicles if mask >> v.index & 1]
            if len(members) == 1:
                out += [pack_order(codes.MOVE, mask, d) for d in move_destinations(game, members[0])]
                continue
            common = set(move_destinations(game, members[0]))
            for v in members[1:]:
                common &= set(move_destinations(game, v))
            out += [
                pack_order(codes.MOVE, mask, d) for d in sorted(common) if rules.pos_kind[d] == codes.CP
            ]
            for town in (codes.TOWN_S, codes.TOWN_K):
                if may_spread(rules, members, town):
                    out.append(pack_order(codes.MOVE, mask, decisions.SPREAD + town))
    if fire_ok and fire_allowed(game) and codes.FIRE in kinds:
        for mask in recipient_masks(game, lambda v: v.is_tank and not v.fire, platoon):
            if not mask & exclude:
                out.append(pack_order(codes.FIRE, mask, -1))
    if codes.TOW in kinds:
        out += tow_options(table)
    if fire_ok and codes.AIRSTRIKE in kinds and airstrike_allowed(game):
        out.append(pack_order(codes.AIRSTRIKE, 0, -1))
    return out


def may_spread(rules, members: list[Vehicle], town: int) -> bool:
    """I-OW-SPREAD: the k-th vehicle of a group goes to the town's k-th overwatch; every
    vehicle must be in the town, not on its overwatch yet, and have one to go to."""
    return all(
        rules.spread[town, k] not in (-1, v.position) and rules.town_of[v.position] == town
        for k, v in enumerate(members)
    )


def fire_allowed(game: Game) -> bool:
    """§5.4.2: the RoE allows a Fire order. I-FIRST-FIRE: once fire has started, later
    Fire orders need no RoE (under the "every" reading, each one does)."""
    rules = game.rules
    if game.fired and rules.p("interpretations", "fire_order_roe") == codes.FIRE_ROE_FIRST:
        return True
    return game.roe >= rules.p("roe", "fire_allowed")


def tow_options(table: Table) -> list[int]:
    """§5.4.3: in place of any order, a tank able to move with an HQ vehicle within three
    positions may be sent to tow a tank with tracks damage that is not in Saraci."""
    game, rules = table.game, table.rules
    hq = [v for v in game.vehicles if rules.is_hq[v.index]]
    reach = rules.p("movement", "tow_range")
    out = []
    for damaged in game.vehicles:
        if (
            not damaged.is_tank
            or codes.TRACKS not in damaged.heavy
            or in_saraci(game, damaged.position)
            or damaged.towed_by >= 0
        ):
            continue
        for rescuer in game.vehicles:
            if (
                rescuer is damaged
                or not rescuer.is_tank
                or not can_take_move(game, rescuer)
                or rescuer.tow_target == damaged.index
            ):
                continue
            if any(rules.distance[h.position, rescuer.position] <= reach for h in hq):
                out.append(pack_order(codes.TOW, 1 << rescuer.index, damaged.index))
    return out


def airstrike_allowed(game: Game) -> bool:
    """§5.4.4, I-AIR: Unrestricted RoE or a tank with heavy damage; one marker."""
    rules = game.rules
    return (
        not game.airstrike_pending
        and game.airstrikes_used < rules.p("interpretations", "airstrikes_per_game")
        and (
            game.roe >= rules.p("roe", "unrestricted")
            or any(v.heavy for v in game.vehicles if v.is_tank)
        )
    )


# ------------------------------------------------------------------ issuing


def offer_order(table: Table, types: tuple[int, int]) -> None:
    """§5.3 step c: the player may issue the available order; with VL2's Extra order
    ability at OP N, the same kind of order again to another recipient (§5.5)."""
    choice = table.ask(decisions.ISSUE_ORDER, order_options(table, types))
    if choice == decisions.PASS:
        return
    issue(table, choice)
    kind = order_kind(choice)
    a = ability_ready(table, codes.EXTRA_ORDER)
    if a < 0 or kind not in (codes.MOVE, codes.FIRE) or not ability_at(table, a, table.rules.extra_order_at):
        return
    options = order_options(table, types, (kind,), order_mask(choice))
    extra = table.ask(decisions.EXTRA_ORDER, options, (a, 0))
    if extra != decisions.PASS:
        spend_ability(table, a)
        issue(table, extra, decisions.EXTRA_ORDER)


def issue(table: Table, code: int, decision: int = decisions.ISSUE_ORDER) -> None:
    """Carry out an issued order: each receiving vehicle checks its radio link (§5.1)."""
    game, rules = table.game, table.rules
    kind, mask, dest = order_kind(code), order_mask(code), order_dest(code)
    table.log(events.ORDER, code, decision)
    if kind == codes.AIRSTRIKE:  # §5.4.4: no unit receives it, no radio
        game.airstrike_pending = True
        game.airstrikes_used += 1
        return
    if kind == codes.FIRE and not game.fired and rules.p("interpretations", "fire_status_on_issue"):
        open_fire(table)
    radio = RadioCheck(table)
    for k, v in enumerate(v for v in game.vehicles if mask >> v.index & 1):
        if not radio.received(v.index):
            continue
        if kind in (codes.MOVE, codes.TOW) and v.towing >= 0:  # §5.4: the new order supersedes it
            table.log(events.TOW_DROPPED, v.index, v.towing)
            release_tow(game, v)
        if kind == codes.MOVE:
            v.order, v.tow_target = codes.MOVE, -1
            v.destination = int(rules.spread[dest - decisions.SPREAD, k]) if dest >= decisions.SPREAD else dest
        elif kind == codes.FIRE:
            if not game.fired:
                open_fire(table)
            v.fire = True
        elif kind == codes.TOW:
            v.order, v.tow_target = codes.TOW, dest
            v.destination = game.vehicles[dest].position


def open_fire(table: Table) -> None:
    """§5.2: the fire status marker goes to the RoE box of the first Fire order."""
    game = table.game
    game.fire_roe, game.fire_turn = game.roe, game.turn
    table.log(events.FIRE_STATUS, game.roe)


def refresh_ability(table: Table) -> None:
    """§5.3/§5.5: after doubles, a spent ability may come back with either side up."""
    game, rules = table.game, table.rules
    options = [decisions.PASS] + [
        1 + 2 * a + side
        for a, m in enumerate(game.abilities)
        if m.state == codes.SPENT
        for side in (0, 1)
    ]
    choice = table.ask(decisions.REFRESH_ABILITY, options)
    if choice == decisions.PASS:
        return
    a, side = divmod(choice - 1, 2)
    marker = game.abilities[a]
    marker.side = side
    marker.state = codes.AVAILABLE if game.roe >= rules.ability_level[a] else codes.ON_TRACK
    table.log(events.ABILITY, a, events.ABILITY_REFRESHED, side)
