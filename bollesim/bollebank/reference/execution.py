"""§6 Execution phase: airstrike, moves and tows, fire, then stun markers come off."""

from __future__ import annotations

from bollesim.bollebank import codes, decisions, events, luck
from bollesim.bollebank.reference.effects import (
    ability_at,
    ability_ready,
    release_tow,
    spend_ability,
    within_reach,
)
from bollesim.bollebank.reference.end import note_tango2
from bollesim.bollebank.reference.state import Game, Vehicle
from bollesim.bollebank.reference.table import Table


def execution_phase(table: Table) -> None:
    """§4 step 2: a. airstrike, b. moves, c. fire, d. remove stun markers."""
    commander_checks(table)
    airstrike(table)
    move_step(table)
    fire_step(table)
    for v in table.game.vehicles:
        if v.stunned:
            v.stunned = False
            table.log(events.STUN_CLEARED, v.index)
        v.skip = False


def commander_checks(table: Table) -> None:
    """§7.1.3: a vehicle whose commander was killed acts on 1-4, skips the turn on 5-6."""
    acts_max = table.rules.p("damage", "commander_killed_acts_max")
    for v in table.game.vehicles:
        if v.commander_killed:
            die = table.d6(luck.COMMANDER)
            v.skip = die > acts_max
            table.log(events.COMMANDER_CHECK, v.index, die, not v.skip)


# ------------------------------------------------------------------ §6.1 airstrike


def airstrike(table: Table) -> None:
    """§6.1, I-AIR: every track keeps half its chits, rounded down (or up, under the
    "ceil" reading; the setup artillery marker is not a chit to remove); the rest go back
    to the pool."""
    game = table.game
    if not game.airstrike_pending:
        return
    ceil = table.rules.p("interpretations", "airstrike_leaves") == codes.AIR_CEIL
    removed = []
    for t in range(codes.N_TRACKS):
        n = regular_chits(game, t)
        keep = (n + 1) // 2 if ceil else n // 2
        removed.append(n - keep)
        for _ in range(n - keep):
            remove_last(table, t)
    game.airstrike_pending = False
    game.airstrike_turn = game.turn
    table.log(events.AIRSTRIKE, *removed)


def regular_chits(game: Game, track: int) -> int:
    """Chits on a track, the setup artillery marker not counted."""
    chits = game.tracks[track]
    return len(chits) - (track == codes.ART)


def remove_last(table: Table, track: int) -> None:
    """Return the track's last chit to the pool; the setup marker is flipped instead (§6.3)."""
    game = table.game
    chit = game.tracks[track][-1]
    if chit == table.rules.setup_chit:
        game.setup_flipped = True
        table.log(events.SETUP_FLIPPED)
        return
    game.tracks[track].pop()
    game.pool.append(chit)
    table.log(events.REMOVED, chit, track)


# ------------------------------------------------------------------ §6.2 move and tow


def heading(game: Game, v: Vehicle) -> int:
    """Where v is going this turn, or -1: its Move marker, its Tow target's position, or
    (VL2) the player's destination. A towed tank goes where its rescuer goes."""
    if v.towed_by >= 0:
        return -1
    if v.order == codes.TOW and v.towing < 0:
        return game.vehicles[v.tow_target].position
    return v.destination


def wants_to_move(game: Game, v: Vehicle) -> bool:
    return heading(game, v) not in (-1, v.position)


def may_move(table: Table, v: Vehicle, extra: bool = False) -> bool:
    """§6, §6.2, §7.1.3: stunned, skipping, tracks or (red) hull damage stop a vehicle; a
    night-vision fault needs a roll (4+ modified fails, -1 per adjacent position holding
    an undamaged vehicle). Extra move ignores the hull marker (§5.5)."""
    game, rules = table.game, table.rules
    reason = -1
    if v.stunned:
        reason = events.STUNNED
    elif v.skip:
        reason = events.SKIPPING
    elif codes.TRACKS in v.heavy:
        reason = events.IMMOBILE
    elif codes.HULL in v.heavy and not v.hull_green and not extra:
        reason = events.HULL_RED
    if reason >= 0:
        table.log(events.NOT_MOVED, v.index, reason, -1)
        return False
    if codes.NIGHT_VISION in v.light:
        die = table.d6(luck.NIGHT_VISION)
        helpers = sum(
            1
            for p in range(len(rules.position_ids))
            if rules.adjacent[v.position, p]
            and any(o.position == p and not o.damaged for o in game.vehicles)
        )
        if die + helpers * rules.p("movement", "night_vision_adjacent_drm") >= rules.p(
            "movement", "night_vision_fail_min"
        ):
            table.log(events.NOT_MOVED, v.index, events.NIGHT_VISION_FAILED, die)
            return False
    return True


def move_step(table: Table) -> None:
    """§6.2: everyone with somewhere to go advances one position; then the optional APC
    rule and tows hook up. QL1's Extra move (§5.5) comes before or after, as the player
    chooses."""
    game, rules = table.game, table.rules
    extra_move(table, decisions.EXTRA_MOVE_BEFORE)
    movers = [
        (v, step(game, v)) for v in game.vehicles if wants_to_move(game, v) and may_move(table, v)
    ]
    moved = perform_moves(table, movers)
    if rules.p("movement", "apc_double_move") and game.tank_reached_kalesija:
        # §6.2 optional rule: after a tank has reached Kalesija, APCs whose first step
        # entered an SK checkpoint go on
        second = [
            (v, step(game, v))
            for v in moved
            if not v.is_tank
            and rules.apc_second_move_from[v.position]
            and wants_to_move(game, v)
            and may_move(table, v)
        ]
        perform_moves(table, second)
    hook_tows(table)
    extra_move(table, decisions.EXTRA_MOVE)


def step(game: Game, v: Vehicle) -> int:
    return int(game.rules.next_step[v.position, heading(game, v)])


def perform_moves(table: Table, movers: list[tuple[Vehicle, int]]) -> list[Vehicle]:
    """Move every (vehicle, next position) at once. Stacking is judged after all moves
    (§6.2, §11 turn 5); where a position would overflow, the player picks who keeps the
    move and the others stay (swaps come out right by themselves)."""
    game, rules = table.game, table.rules
    moving = {v.index: target for v, target in movers}
    while True:
        over = overfull_position(game, moving)
        if over < 0:
            break
        arrivers = [i for i in sorted(moving) if moving[i] == over]
        stayers = sum(
            1
            for v in game.vehicles
            if counts_for_stacking(game, v, moving)
            and final(v, moving) == over
            and v.index not in arrivers
        )
        keep: list[int] = []
        while len(keep) < rules.pos_stack[over] - stayers:
            left = [i for i in arrivers if i not in keep]
            keep.append(table.ask(decisions.STACK_PRIORITY, left, (0, over)))
        for i in arrivers:
            if i not in keep:
                del moving[i]
                table.log(events.NOT_MOVED, i, events.STACKING, -1)
    moved = [game.vehicles[i] for i in sorted(moving)]
    for v in moved:
        table.log(events.MOVE, v.index, v.position, moving[v.index])
        v.position = moving[v.index]
        if v.is_tank and v.position == rules.kalesija:
            game.tank_reached_kalesija = True
        if v.towing >= 0:
            game.vehicles[v.towing].position = v.position
    for p in sorted({v.position for v in moved}):  # §6.2 first entry: enemy-action marker
        if rules.pos_eam_pool[p] and p not in game.markers:
            draw_marker(table, p)
    for v in moved:
        arrive(table, v)
    if rules.p("interpretations", "t2_reached_at") == codes.T2_AT_ANY_MOMENT:
        note_tango2(game)
    return moved



def final(v: Vehicle, moving: dict[int, int]) -> int:
    return moving.get(v.index, v.position)


def counts_for_stacking(game: Game, v: Vehicle, moving: dict[int, int]) -> bool:
    """§5.4.3: a tank in tow, or about to be taken in tow by a rescuer that reaches it,
    is ignored for stacking."""
    if v.towed_by >= 0:
        return False
    return not any(
        r.order == codes.TOW
        and r.towing < 0
        and r.tow_target == v.index
        and final(r, moving) == v.position
        for r in game.vehicles
    )


def overfull_position(game: Game, moving: dict[int, int]) -> int:
    """The first position that a move fills beyond its stacking limit, or -1."""
    counts = [0] * len(game.rules.position_ids)
    for v in game.vehicles:
        if counts_for_stacking(game, v, moving):
            counts[final(v, moving)] += 1
    for p, n in enumerate(counts):
        if n > game.rules.pos_stack[p] and p in moving.values():
            return p
    return -1


def draw_marker(table: Table, position: int) -> None:
    """§6.2: draw an enemy-action marker for a position's field of fire; a 7-8-9 marker
    lands on whichever side comes up, the 1-2-3 markers are the same on both sides."""
    game, rules = table.game, table.rules
    pool = game.marker_pools[int(rules.pos_eam_pool[position])]
    i = table.pick(pool, luck.MARKER)
    marker = pool[i]
    pool[i] = pool[-1]
    pool.pop()
    side = table.coin(luck.MARKER_SIDE) if rules.pos_eam_pool[position] == codes.POOL_789 else 0
    game.markers[position] = (marker, side)
    table.log(events.MARKER_DRAWN, position, marker, side)


def arrive(table: Table, v: Vehicle) -> None:
    """§6.2: at its destination a vehicle's Move marker goes back to the roster; a tow
    that reaches its contact point ends."""
    if v.position != v.destination:
        return
    game = table.game
    if v.towing >= 0:
        table.log(events.TOW_DONE, v.index, v.towing, v.position)
        release_tow(game, v)
        return
    if v.order == codes.TOW:
        return
    v.order, v.destination = codes.NO_ORDER, -1
    table.log(events.ARRIVED, v.index, v.position)


def hook_tows(table: Table) -> None:
    """§5.4.3: a rescuer stacked with its damaged tank takes it in tow; the Tow marker
    goes to the nearest other contact point (the player's choice among the nearest)."""
    game, rules = table.game, table.rules
    for r in game.vehicles:
        if r.order != codes.TOW or r.towing >= 0:
            continue
        damaged = game.vehicles[r.tow_target]
        if damaged.towed_by >= 0:  # someone else got there first
            r.order, r.destination, r.tow_target = codes.NO_ORDER, -1, -1
            continue
        if damaged.position != r.position:
            r.destination = damaged.position
            continue
        cps = [
            p
            for p in range(len(rules.position_ids))
            if rules.pos_kind[p] == codes.CP and p != r.position
        ]
        anywhere = rules.pos_kind[r.position] == codes.CP and (
            rules.p("interpretations", "tow_from_cp") == codes.TOW_ANY_CP
        )
        if not anywhere:  # I-TOW-CP: from a contact point, any other
            nearest = min(rules.distance[r.position, p] for p in cps)
            cps = [p for p in cps if rules.distance[r.position, p] == nearest]
        dest = table.ask(decisions.TOW_DESTINATION, cps)
        r.towing, r.destination, r.tow_target = damaged.index, dest, -1
        damaged.towed_by = r.index
        table.log(events.TOW_HOOKED, r.index, damaged.index, dest)


def extra_move(table: Table, kind: int) -> None:
    """§5.5 Extra move: one vehicle near QL1 moves once more (not towing, stunned or with
    tracks damage; night vision still rolls; the hull marker does not matter), before
    the Move step (decision EXTRA_MOVE_BEFORE) or after it (EXTRA_MOVE)."""
    game = table.game
    a = ability_ready(table, codes.EXTRA_MOVE)
    if a < 0:
        return
    candidates = [
        v.index
        for v in game.vehicles
        if within_reach(table, a, v)
        and wants_to_move(game, v)
        and v.towing < 0
        and not v.stunned
        and not v.skip
        and codes.TRACKS not in v.heavy
    ]
    if not candidates:
        return
    choice = table.ask(kind, [-1] + candidates, (a, 0))
    if choice < 0:
        return
    spend_ability(table, a)
    v = game.vehicles[choice]
    if may_move(table, v, extra=True):
        perform_moves(table, [(v, step(game, v))])


# ------------------------------------------------------------------ §6.3 fire


def fire_icons(game: Game, position: int) -> list[int]:
    """The UN fire icons of a position: printed, or on its enemy-action marker (R-FOF)."""
    rules = game.rules
    if position in game.markers:
        marker, side = game.markers[position]
        icons = rules.marker_un[marker, side]
    else:
        icons = rules.pos_un[position]
    return [t for t in range(codes.N_TRACKS) if icons[t]]


def able_to_fire(game: Game, v: Vehicle) -> bool:
    """§5.4.2-§5.4.3, §6, §7.1.3, §7.2.1: a tank on its Fire side, not stunned, skipping,
    turret-damaged or in a tow, with icons here (no Saraci OW fire with bad sights)."""
    rules = game.rules
    return (
        v.is_tank
        and v.fire
        and not v.stunned
        and not v.skip
        and codes.TURRET not in v.heavy
        and v.towing < 0
        and v.towed_by < 0
        and bool(fire_icons(game, v.position))
        and not (rules.pos_indirect[v.position] and codes.SIGHTS in v.light)
    )


def fire_targets(game: Game, v: Vehicle) -> list[int]:
    """§6.3: tracks whose last chit v may remove; from an overwatch the chit's letter must
    match (not for artillery); the flipped setup marker is no target."""
    rules = game.rules
    out = []
    for t in fire_icons(game, v.position):
        track = game.tracks[t]
        if not track or (track[-1] == rules.setup_chit and game.setup_flipped):
            continue
        if (
            t != codes.ART
            and rules.pos_kind[v.position] == codes.OW
            and rules.chit_letter[track[-1]] != rules.pos_letter[v.position]
        ):
            continue
        out.append(t)
    return out


def fire_step(table: Table) -> None:
    """§6.3: QL3's Direct their fire first, then every tank able to fire, in the order
    the player chooses, QL1's Extra fire last, then the ammunition depot if three Saraci
    overwatch shots all rolled 1."""
    game, rules = table.game, table.rules
    direct = False
    a = ability_ready(table, codes.DIRECT_THEIR_FIRE)
    if (
        a >= 0
        and ability_at(table, a, rules.direct_their_fire_at)
        and any(
            able_to_fire(game, v) and rules.pos_indirect[v.position] and fire_targets(game, v)
            for v in game.vehicles
        )
        and table.ask(decisions.USE_ABILITY, [0, 1], (a, 0))
    ):
        spend_ability(table, a)
        direct = True
    saraci_rolls: list[int] = []
    ready = [v.index for v in game.vehicles if able_to_fire(game, v)]  # firing changes no tank
    while ready:  # §11: "execute the Fire orders in any order desired"
        choice = table.ask(decisions.FIRE_ORDER, ready)
        ready.remove(choice)
        fire_once(table, game.vehicles[choice], direct, saraci_rolls)
    a = ability_ready(table, codes.EXTRA_FIRE)
    if a >= 0:
        candidates = [
            v.index
            for v in game.vehicles
            if within_reach(table, a, v) and able_to_fire(game, v) and fire_targets(game, v)
        ]
        if candidates:
            choice = table.ask(decisions.EXTRA_FIRE, [-1] + candidates, (a, 0))
            if choice >= 0:
                spend_ability(table, a)
                fire_once(table, game.vehicles[choice], direct, saraci_rolls)
    depot = rules.p("fire", "depot_rolls")
    if len(saraci_rolls) >= depot and all(d == 1 for d in saraci_rolls):
        ammunition_depot(table)


def fire_once(table: Table, v: Vehicle, direct: bool, saraci_rolls: list[int]) -> None:
    """One attack (§6.3): direct fire hits; indirect fire hits on 1-5 (always with Direct
    their fire, still rolled for the depot); misaligned sights hit on 1-2 (§7.2.1)."""
    game, rules = table.game, table.rules
    targets = fire_targets(game, v)
    if not targets:
        return
    track = table.ask(decisions.FIRE_TARGET, targets, (v.index, 0))
    die = 0
    hit = True
    if rules.pos_indirect[v.position]:
        die = table.d6(luck.UN_FIRE)
        saraci_rolls.append(die)
        hit = direct or die <= rules.p("fire", "indirect_hit_max")
    elif codes.SIGHTS in v.light:
        die = table.d6(luck.UN_FIRE)
        hit = die <= rules.p("fire", "sights_hit_max")
    table.log(events.FIRE, v.index, track, die, hit)
    if hit:
        remove_last(table, track)


def ammunition_depot(table: Table) -> None:
    """§6.3: the depot on Vis explodes: one track of the player's choice is emptied (for
    artillery, the setup marker flips to No Artillery)."""
    game = table.game
    options = [
        t
        for t in range(codes.N_TRACKS)
        if regular_chits(game, t) or (t == codes.ART and not game.setup_flipped)
    ]
    if not options:
        return
    track = table.ask(decisions.DEPOT_TRACK, options)
    table.log(events.DEPOT, track)
    while regular_chits(game, track) or (track == codes.ART and not game.setup_flipped):
        remove_last(table, track)
