"""§7 Enemy reaction: tank status, tank, ATGM and HMG fire, then artillery."""

from __future__ import annotations

from bollesim.bollebank import codes, decisions, events, luck
from bollesim.bollebank.reference.effects import (
    ability_at,
    ability_ready,
    change_roe,
    heavy_damage,
    kill_commander,
    spend_ability,
)
from bollesim.bollebank.reference.state import Game, Vehicle
from bollesim.bollebank.reference.table import Table


def reaction_phase(table: Table) -> None:
    """§4 step 3: a. tank status, b. tanks, c. ATGM, d. HMG, e. artillery."""
    game, rules = table.game, table.rules
    drm_positions = draw_their_fire(table)
    tanks = game.tracks[codes.TANK]
    if tanks:  # §7.1: the status check is made while the track has chits
        die = table.d6(luck.TANK_STATUS)
        game.tank_hot = die >= rules.tank_hot_min[len(tanks) - 1]
        table.log(events.TANK_STATUS, die, game.tank_hot, len(tanks))
    else:
        game.tank_hot = False
    if game.tank_hot:
        direct_fire(table, codes.TANK, rules.tank_to_hit, drm_positions)
    for weapon, to_hit in ((codes.ATGM, rules.atgm_to_hit), (codes.HMG, rules.hmg_to_hit)):
        if game.tracks[weapon] and not game.over:
            direct_fire(table, weapon, int(to_hit[len(game.tracks[weapon]) - 1]), drm_positions)
    if not game.over:
        artillery(table)


def draw_their_fire(table: Table) -> set[int]:
    """§5.5 Draw their fire: with VL2 at Kalesija, -1 to all direct fire at vehicles in
    the Kalesija OWs, SK-4 and T2-1 this turn. Returns the positions it covers."""
    game, rules = table.game, table.rules
    a = ability_ready(table, codes.DRAW_THEIR_FIRE)
    if a < 0 or not ability_at(table, a, rules.draw_their_fire_at):
        return set()
    covered = {p for p in range(len(rules.position_ids)) if rules.draw_their_fire_positions[p]}
    if not any(v.position in covered for v in game.vehicles):
        return set()
    if not table.ask(decisions.USE_ABILITY, [0, 1], (a, 0)):
        return set()
    spend_ability(table, a)
    return covered


def exposure(game: Game, position: int) -> tuple[list[bool], int]:
    """The BSA weapons that can fire at a position and its firing priority (0: none)."""
    rules = game.rules
    if position in game.markers:
        marker, side = game.markers[position]
        return list(rules.marker_bsa[marker, side]), int(rules.marker_fp[marker])
    return list(rules.pos_bsa[position]), int(rules.pos_fp[position])


def choose_target(table: Table, weapon: int, exclude: int = -1) -> int:
    """§7.1 target priority: a heavily damaged vehicle first, then the lowest firing
    priority, ties at random (I-TARGET; the "literal" reading is a ruleset switch)."""
    game, rules = table.game, table.rules
    exposed = []
    for v in game.vehicles:
        weapons, fp = exposure(game, v.position)
        if v.index != exclude and weapons[weapon]:
            exposed.append((fp, v))
    if not exposed:
        return -1
    damaged = [(fp, v) for fp, v in exposed if v.heavy]
    if rules.p("interpretations", "target_priority") == codes.TARGET_DAMAGED_FIRST:
        candidates = damaged or exposed
    else:  # literal: a single damaged vehicle, otherwise the lowest FP of all
        candidates = damaged if len(damaged) == 1 else exposed
    low = min(fp for fp, _ in candidates)
    tied = [v.index for fp, v in candidates if fp == low]
    return tied[table.pick(tied, luck.TARGET)] if len(tied) > 1 else tied[0]


def direct_fire(table: Table, weapon: int, to_hit: int, drm_positions: set[int]) -> None:
    """§7.1: one attack, two for a double-target chit (against different vehicles)."""
    game, rules = table.game, table.rules
    last = game.tracks[weapon][-1]
    attacks = 2 if rules.chit_double[last] else 1
    first = -1
    for _ in range(attacks):
        target = choose_target(table, weapon, exclude=first)
        if target < 0:
            if first < 0:
                table.log(events.ATTACK_SKIPPED, weapon)
            return
        attack(table, weapon, game.vehicles[target], to_hit, drm_positions)
        if game.over:
            return
        first = target


def atgm_overwatch(game: Game) -> bool:
    """§7.1.1: a UN vehicle in an overwatch of the last ATGM chit's letter (not one whose
    commander was killed, §7.1.3)."""
    rules = game.rules
    letter = rules.chit_letter[game.tracks[codes.ATGM][-1]]
    return any(
        rules.pos_kind[v.position] == codes.OW
        and rules.pos_letter[v.position] == letter
        and not v.commander_killed
        for v in game.vehicles
    )


def attack(
    table: Table, weapon: int, target: Vehicle, to_hit: int, drm_positions: set[int]
) -> None:
    """§7.1.2-7.1.3: roll 2d6 + modifiers against the to-hit number; under Hold Fire each
    attack raises the RoE; a hit rolls its location; HMG may kill an unbuttoned commander."""
    game, rules = table.game, table.rules
    unbuttoned = codes.NIGHT_VISION in target.light or codes.TURRET in target.heavy
    roll = table.two_d6(luck.ATTACK + weapon)
    if weapon == codes.ATGM and atgm_overwatch(game):
        roll += rules.atgm_overwatch_drm
        letter = int(rules.chit_letter[game.tracks[codes.ATGM][-1]])
        table.log(events.MODIFIER, events.MOD_OVERWATCH, rules.atgm_overwatch_drm, letter)
    if target.position in drm_positions:
        drm = rules.p("ability_rules", "draw_their_fire_drm")
        roll += drm
        table.log(events.MODIFIER, events.MOD_DRAW_THEIR_FIRE, drm)
    hit = roll >= to_hit
    table.log(events.ATTACK, weapon, target.index, roll, to_hit)
    if not game.fired:
        change_roe(table, rules.p("roe", "hold_fire_attack"), events.ROE_HOLD_ATTACK)
    if hit:
        die = table.d6(luck.LOCATION + weapon)
        heavy_damage(table, target, int(rules.hit_table[weapon, die - 1]), die, weapon)
    if weapon == codes.HMG and unbuttoned and not game.over:
        die = table.d6(luck.HMG_COMMANDER)
        killed = die >= rules.p("damage", "hmg_kills_commander_on")
        table.log(events.COMMANDER_ROLL, target.index, die, killed)
        if killed:
            kill_commander(table, target)


def artillery(table: Table) -> None:
    """§7.2: the last artillery chit fires. With vehicles at the target, 2d6: on 2 only
    the further effects; otherwise the further effects, then a random-unit chit of a
    vehicle there is drawn: on 12 heavy damage (I-ART-APC: an APC is destroyed, or takes
    it like a tank), on 3-11 the chit joins the weapon pool. The further effects apply
    even at an empty target (I-ROE-ART)."""
    game, rules = table.game, table.rules
    last = game.tracks[codes.ART][-1]
    if last == rules.setup_chit and game.setup_flipped:
        table.log(events.ARTILLERY, codes.NO_ART, 0, 0)  # the special marker: no effect (§7.2)
        return
    target = int(rules.chit_art_target[last])
    present = [
        v for v in game.vehicles if target != codes.NO_ART and rules.pos_art[v.position] == target
    ]
    roll = table.two_d6(luck.ARTILLERY) if present else 0
    table.log(events.ARTILLERY, target, roll, len(present))
    if present or target == codes.NO_ART or rules.p("interpretations", "artillery_effects_always"):
        further_effects(table, target)
    if not present or roll <= rules.p("artillery", "only_effects_roll"):
        return
    chits = [c for c in game.aside if rules.chit_vehicle[c] in {v.index for v in present}]
    chits.sort()
    if not chits:
        return
    chit = chits[table.pick(chits, luck.RU)]
    victim = game.vehicles[rules.chit_vehicle[chit]]
    to_pool = roll < rules.p("artillery", "heavy_damage_roll")
    table.log(events.ARTILLERY_DRAW, victim.index, to_pool)
    if to_pool:
        game.aside.remove(chit)
        game.pool.append(chit)
    else:
        die = table.d6(luck.LOCATION + codes.ART)
        apc_survives = rules.p("interpretations", "artillery_on_apc") == codes.ART_APC_LOCATION
        heavy_damage(
            table, victim, int(rules.hit_table[codes.ART, die - 1]), die, codes.ART, apc_survives
        )


def further_effects(table: Table, target: int) -> None:
    """§7.2: S or K raises the RoE, T2 brings the deadline a turn closer, a regular
    No art. marker lowers the RoE."""
    game, rules = table.game, table.rules
    if target in (codes.TARGET_S, codes.TARGET_K):
        change_roe(table, rules.p("artillery", "roe_on_s_or_k"), events.ROE_ART)
    elif target == codes.TARGET_T2:
        change = rules.p("artillery", "deadline_on_t2")
        game.deadline = max(game.deadline + change, 0)
        table.log(events.DEADLINE, game.deadline, change)
    else:
        change_roe(table, rules.p("artillery", "roe_on_no_art"), events.ROE_NO_ART)
