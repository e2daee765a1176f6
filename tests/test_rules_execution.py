"""The Execution phase (§6) of the reference engine, rule by rule, on hand-built positions.

Each test names the rulebook section (§) or docs/readings.md id it checks.
"""

from __future__ import annotations

import pytest
from conftest import events, everyone_at, fresh_game, make_table, take_chit

from bollesim.bollebank import codes as C
from bollesim.bollebank import decisions
from bollesim.bollebank import events as E
from bollesim.bollebank.codes import (
    AQ,
    BQ,
    EA,
    FA,
    FB,
    GB,
    K1,
    K2,
    KAL,
    OPN,
    OPN1,
    QL3,
    S1,
    S2,
    S3,
    SAR,
    SK1,
    SK2,
    SK3,
    SK4,
    T2,
    T21,
    T22,
    VL2,
)
from bollesim.bollebank.reference import execution, reaction
from bollesim.bollebank.reference.chance import ScriptedChance
from bollesim.bollebank.reference.state import artillery_silent


def marker(game, name: str) -> int:
    return game.rules.marker_ids.index(name)


def road_game():
    """Everyone in Kalesija's far corner (T2) and the SK fields of fire already drawn
    (FP8 side a on SK2, FP9 side a on SK3, FP7 side a on SK4), so moves draw nothing."""
    game = fresh_game()
    everyone_at(game, T2)
    game.markers.update({SK2: (marker(game, "FP8"), 0), SK3: (marker(game, "FP9"), 0),
                         SK4: (marker(game, "FP7"), 0)})
    for m in ("FP7", "FP8", "FP9"):
        game.marker_pools[C.POOL_789].remove(marker(game, m))
    return game


def send(game, v: int, position: int, destination: int) -> None:
    vehicle = game.vehicles[v]
    vehicle.position, vehicle.destination = position, destination
    vehicle.order = C.NO_ORDER if v == VL2 else C.MOVE


# --------------------------------------------------------------------------- §6 stun


def test_stun_6_stunned_vehicle_does_nothing_and_the_marker_comes_off():
    """§6, §7.1.3: a stunned vehicle carries out no order this Execution phase; Stun
    markers are removed at its end."""
    game = road_game()
    send(game, AQ, K1, KAL)
    aq = game.vehicles[AQ]
    aq.fire, aq.stunned = True, True
    game.fire_roe = game.roe = 10
    game.tracks[C.ATGM] = [take_chit(game, C.ATGM, C.LETTER_R)]
    table = make_table(game)
    execution.execution_phase(table)
    assert aq.position == K1 and len(game.tracks[C.ATGM]) == 1
    assert events(table, E.NOT_MOVED) == [(AQ, E.STUNNED, -1, 0)]
    assert events(table, E.FIRE) == []
    assert not aq.stunned and events(table, E.STUN_CLEARED) == [(AQ, 0, 0, 0)]


# --------------------------------------------------------------------------- §6.1 airstrike


def test_airstrike_6_1_I_AIR_halves_every_track_rounded_down():
    """§6.1, I-AIR: in the Execution phase of the turn it is called, every track keeps
    half its chits rounded down (the last ones go back to the pool); the setup artillery
    marker is not a chit and stays as it is."""
    game = fresh_game()
    game.turn = 6
    game.tracks[C.TANK] = [take_chit(game, C.TANK) for _ in range(3)]
    game.tracks[C.ATGM] = [take_chit(game, C.ATGM) for _ in range(5)]
    game.tracks[C.HMG] = [take_chit(game, C.HMG)]
    game.tracks[C.ART] += [take_chit(game, C.ART, target=t)
                           for t in (C.TARGET_S, C.TARGET_K, C.TARGET_T2)]
    before = [list(track) for track in game.tracks]
    game.airstrike_pending = True
    table = make_table(game)
    execution.execution_phase(table)
    assert game.tracks == [before[0][:1], before[1][:2], [], before[3][:2]]
    removed = before[0][1:] + before[1][2:] + before[2] + before[3][2:]
    assert all(chit in game.pool for chit in removed)
    assert events(table, E.AIRSTRIKE) == [(2, 3, 1, 2)]
    assert not game.airstrike_pending and game.airstrike_turn == 6
    assert not game.setup_flipped


# --------------------------------------------------------------------------- §6.2 moves


def test_move_6_2_one_step_toward_the_destination_then_marker_returns():
    """§6.2, R-MAP: one position per turn along the road toward the destination; on
    arrival the Move marker comes back (VL2 follows the player's destination)."""
    game = road_game()
    send(game, AQ, SAR, KAL)
    send(game, VL2, SAR, OPN)
    table = make_table(game)
    execution.move_step(table)
    assert (game.vehicles[AQ].position, game.vehicles[VL2].position) == (SK1, SK1)
    execution.move_step(table)
    assert (game.vehicles[AQ].position, game.vehicles[VL2].position) == (SK2, OPN1)
    execution.move_step(table)
    assert game.vehicles[VL2].position == OPN and game.vehicles[VL2].destination == -1
    assert events(table, E.ARRIVED) == [(VL2, OPN, 0, 0)]
    assert (game.vehicles[AQ].order, game.vehicles[AQ].destination) == (C.MOVE, KAL)
    send(game, AQ, SK4, KAL)
    execution.move_step(table)
    assert (game.vehicles[AQ].position, game.vehicles[AQ].order, game.vehicles[AQ].destination) \
        == (KAL, C.NO_ORDER, -1)


def test_stacking_6_2_judged_after_all_moves():
    """§6.2, §11 turn 5: a vehicle may enter a one-vehicle checkpoint that another one
    leaves in the same step."""
    game = road_game()
    send(game, AQ, SK2, KAL)
    send(game, FA, SK3, KAL)
    table = make_table(game)
    execution.move_step(table)
    assert (game.vehicles[AQ].position, game.vehicles[FA].position) == (SK3, SK4)
    assert events(table, E.NOT_MOVED) == []


def test_stacking_6_2_a_blocked_vehicle_blocks_the_ones_behind():
    """§6.2: a unit will not move if the stacking limit would be exceeded at the end of
    all moves: FA cannot enter SK4 (EA stays there), so AQ cannot enter SK3."""
    game = road_game()
    send(game, AQ, SK2, KAL)
    send(game, FA, SK3, KAL)
    game.vehicles[EA].position = SK4
    table = make_table(game)
    execution.move_step(table)
    assert (game.vehicles[AQ].position, game.vehicles[FA].position) == (SK2, SK3)
    assert sorted(events(table, E.NOT_MOVED)) == [(AQ, E.STACKING, -1, 0), (FA, E.STACKING, -1, 0)]


def test_stacking_6_2_player_picks_who_takes_the_last_place():
    """§6.2, §11 turn 5 ("The player decides to move QL1 to SK-3, leaving EA"): with
    more arrivals than room, the player chooses who moves."""
    game = road_game()
    send(game, AQ, SK2, KAL)
    send(game, EA, SK2, KAL)
    table = make_table(game, script={decisions.STACK_PRIORITY: EA})
    execution.move_step(table)
    assert table.script.offers == [(decisions.STACK_PRIORITY, [AQ, EA], (0, SK3))]
    assert (game.vehicles[AQ].position, game.vehicles[EA].position) == (SK2, SK3)
    assert events(table, E.NOT_MOVED) == [(AQ, E.STACKING, -1, 0)]


def test_swap_6_2_opposite_destinations_swap_places():
    """§6.2: vehicles in two adjacent positions with opposite destinations swap."""
    game = road_game()
    send(game, AQ, SK3, KAL)
    send(game, FA, SK4, SAR)
    execution.move_step(make_table(game))
    assert (game.vehicles[AQ].position, game.vehicles[FA].position) == (SK4, SK3)


def test_enemy_action_marker_6_2_789_on_first_entry_with_random_side():
    """§6.2: the first entry into SK-2/3/4 draws a 7-8-9 marker, placed on the side that
    comes up; later entries draw nothing; the side decides the fields of fire (R-EAM)."""
    game = fresh_game()
    everyone_at(game, T2)
    send(game, AQ, SK3, KAL)
    fp7 = marker(game, "FP7")
    table = make_table(game, ScriptedChance(picks={"marker": [fp7]}, sides=[1]))
    execution.move_step(table)
    assert game.markers == {SK4: (fp7, 1)}
    assert fp7 not in game.marker_pools[C.POOL_789]
    assert events(table, E.MARKER_DRAWN) == [(SK4, fp7, 1, 0)]
    weapons, fp = reaction.exposure(game, SK4)
    assert (weapons, fp) == ([True, True, False], 7)  # FP7 side b: BSA tanks and ATGM
    send(game, EA, SK3, KAL)
    send(game, AQ, SK4, KAL)
    execution.move_step(make_table(game))  # no marker, no side: the script is empty
    assert game.vehicles[EA].position == SK4 and game.markers == {SK4: (fp7, 1)}


def test_enemy_action_marker_6_2_123_after_kalesija_without_a_side_roll():
    """§6.2: T2-1/2/3 draw from the 1-2-3 pool; both sides are equal, no side is drawn."""
    game = fresh_game()
    everyone_at(game, SAR)
    send(game, AQ, KAL, T2)
    fp2 = marker(game, "FP2")
    table = make_table(game, ScriptedChance(picks={"marker": [fp2]}))  # no coin scripted
    execution.move_step(table)
    assert game.markers == {T21: (fp2, 0)}
    assert reaction.exposure(game, T21)[1] == 2


@pytest.mark.parametrize("green", [True, False])
def test_hull_6_2_moves_only_on_the_green_side(green):
    """§6.2, §7.1.3: a tank with Hull heavy damage moves only when the marker is green."""
    game = road_game()
    send(game, AQ, SAR, KAL)
    game.vehicles[AQ].heavy, game.vehicles[AQ].hull_green = {C.HULL}, green
    table = make_table(game)
    execution.move_step(table)
    assert game.vehicles[AQ].position == (SK1 if green else SAR)
    assert events(table, E.NOT_MOVED) == ([] if green else [(AQ, E.HULL_RED, -1, 0)])


def test_tracks_7_1_3_immobilised_tank_does_not_move():
    """§7.1.3 Tracks: the vehicle is immobilised."""
    game = road_game()
    send(game, AQ, SAR, KAL)
    game.vehicles[AQ].heavy = {C.TRACKS}
    table = make_table(game)
    execution.move_step(table)
    assert game.vehicles[AQ].position == SAR
    assert events(table, E.NOT_MOVED) == [(AQ, E.IMMOBILE, -1, 0)]


def night_vision_game(**helpers):
    """AQ at SK1 with a night-vision fault, heading for Kalesija; the rest at T2."""
    game = road_game()
    send(game, AQ, SK1, KAL)
    game.vehicles[AQ].light = {C.NIGHT_VISION}
    for name, pos in helpers.items():
        game.vehicles[game.rules.vehicle(name)].position = pos
    return game


@pytest.mark.parametrize("helpers, damaged, die, moves", [
    ({}, (), 3, True),
    ({}, (), 4, False),  # modified 4 or more: no move
    ({"EA": SAR, "FA": OPN1}, (), 5, True),  # two adjacent positions with undamaged vehicles
    ({"EA": SAR, "FA": SAR}, (), 5, False),  # one position, however many vehicles
    ({"EA": SAR}, ("EA",), 4, False),  # a damaged vehicle does not help
    ({"EA": SK1}, (), 4, False),  # the same position is not adjacent
])
def test_night_vision_6_2_roll_with_adjacency_modifier(helpers, damaged, die, moves):
    """§6.2, §7.2.1: a tank with a night-vision fault rolls to move and stays on a
    modified 4+; -1 per adjacent position holding an undamaged vehicle."""
    game = night_vision_game(**helpers)
    for name in damaged:
        game.vehicles[game.rules.vehicle(name)].light.add(C.RADIO)
    table = make_table(game, ScriptedChance(d6=[die]))
    execution.move_step(table)
    assert game.vehicles[AQ].position == (SK2 if moves else SK1)
    failed = [ev for ev in events(table, E.NOT_MOVED) if ev[1] == E.NIGHT_VISION_FAILED]
    assert failed == ([] if moves else [(AQ, E.NIGHT_VISION_FAILED, die, 0)])


# --------------------------------------------------------------------------- §5.4.3/§6.2 tow


def tow_game(damaged_at: int, rescuer_at: int):
    game = road_game()
    game.markers.update({T21: (marker(game, "FP1"), 0), T22: (marker(game, "FP2"), 0)})
    aq, fa = game.vehicles[AQ], game.vehicles[FA]
    aq.position, aq.heavy = damaged_at, {C.TRACKS}
    fa.position, fa.order, fa.tow_target, fa.destination = rescuer_at, C.TOW, AQ, damaged_at
    return game, aq, fa


def test_tow_5_4_3_rescuer_approaches_then_hooks_up_toward_the_nearest_cp():
    """§5.4.3, §6.2: the rescuer moves toward the damaged tank; when stacked with it (the
    towed tank does not count for stacking) the Tow marker goes to the nearest contact
    point: from SK-3 that is Kalesija."""
    game, aq, fa = tow_game(SK3, SK1)
    table = make_table(game)
    execution.move_step(table)
    assert fa.position == SK2 and fa.towing == -1
    execution.move_step(table)
    assert fa.position == SK3 and events(table, E.NOT_MOVED) == []
    assert (fa.towing, aq.towed_by, fa.destination, fa.tow_target) == (AQ, FA, KAL, -1)
    assert events(table, E.TOW_HOOKED) == [(FA, AQ, KAL, 0)]


def test_tow_5_4_3_player_chooses_among_equally_near_cps():
    """§5.4.3: the player chooses when two contact points are equally near (T2-2 is two
    steps from both Kalesija and Tango 2)."""
    game, aq, fa = tow_game(T22, T21)
    table = make_table(game, script={decisions.TOW_DESTINATION: T2})
    execution.move_step(table)
    assert table.script.offered(decisions.TOW_DESTINATION) == [[KAL, T2]]
    assert fa.destination == T2


def test_tow_5_4_3_tanks_move_together_and_the_tow_ends_at_the_cp():
    """§5.4.3: from the next turn the two move together one position per turn; at the
    contact point the tow ends and the Tow marker comes back."""
    game, aq, fa = tow_game(SK3, SK3)
    fa.towing, aq.towed_by, fa.destination, fa.tow_target = AQ, FA, KAL, -1
    send(game, EA, SK2, KAL)  # follows into SK-3 as the pair leaves it
    table = make_table(game)
    execution.move_step(table)
    assert (fa.position, aq.position) == (SK4, SK4)  # SK-4 holds one: the towed tank is ignored
    assert game.vehicles[EA].position == SK3 and events(table, E.NOT_MOVED) == []
    game.vehicles[EA].order, game.vehicles[EA].destination = C.NO_ORDER, -1
    execution.move_step(table)
    assert (fa.position, aq.position) == (KAL, KAL)
    assert events(table, E.TOW_DONE) == [(FA, AQ, KAL, 0)]
    assert (fa.towing, aq.towed_by, fa.order, fa.destination) == (-1, -1, C.NO_ORDER, -1)
    assert aq.heavy == {C.TRACKS}


def test_tow_5_4_3_who_may_fire():
    """§5.4.3: an immobilised tank and a rescuer still on its way may fire; a tank towing
    another (stacked with it) and the towed tank may not."""
    game, aq, fa = tow_game(K1, K2)
    aq.fire = fa.fire = True
    assert execution.able_to_fire(game, aq) and execution.able_to_fire(game, fa)
    fa.position, fa.towing, aq.towed_by = K1, AQ, FA
    assert not execution.able_to_fire(game, aq) and not execution.able_to_fire(game, fa)


def test_tow_5_4_3_tank_in_kalesija_can_be_towed_to_saraci():
    """§5.4.3: "Ignore actual contact point in assigning destination (i.e. a tank in
    Kalesija can be towed to Saraci)"."""
    game, aq, fa = tow_game(KAL, KAL)
    table = make_table(game, script={decisions.TOW_DESTINATION: SAR})
    execution.move_step(table)
    assert fa.towing == AQ and fa.destination == SAR


# --------------------------------------------------------------------------- §6.2 optional


def apc_game(*overrides: str, tank_at: int = KAL):
    game = road_game() if not overrides else fresh_game(*overrides)
    if overrides:
        everyone_at(game, T2)
        game.markers.update({SK2: (marker(game, "FP8"), 0), T21: (marker(game, "FP1"), 0)})
    game.vehicles[AQ].position = tank_at
    game.tank_reached_kalesija = tank_at == KAL  # as if AQ had driven in
    return game


def test_apc_double_move_6_2_optional_after_a_tank_reached_kalesija():
    """§6.2 optional rule: once a tank is in Kalesija, an APC whose first step entered an
    SK checkpoint moves a second position."""
    game = apc_game("movement.apc_double_move=true")
    send(game, QL3, SAR, KAL)
    send(game, VL2, SAR, OPN)
    table = make_table(game)
    execution.move_step(table)
    assert (game.vehicles[QL3].position, game.vehicles[VL2].position) == (SK2, OPN1)
    moves = [ev[:3] for ev in events(table, E.MOVE) if ev[0] == QL3]
    assert moves == [(QL3, SAR, SK1), (QL3, SK1, SK2)]


@pytest.mark.parametrize("case", ["rule_off", "no_tank_yet", "first_step_not_sk", "tank_is_apc"])
def test_apc_double_move_6_2_conditions(case):
    """§6.2 optional rule: not when the rule is off, not before a tank reached Kalesija,
    not when the first step entered no SK checkpoint (T2-1), and only for APCs."""
    overrides = () if case == "rule_off" else ("movement.apc_double_move=true",)
    game = apc_game(*overrides, tank_at=SAR if case == "no_tank_yet" else KAL)
    mover, start, dest, first = QL3, SAR, KAL, SK1
    if case == "first_step_not_sk":
        start, dest, first = KAL, T2, T21
    if case == "tank_is_apc":
        mover = EA
    send(game, mover, start, dest)
    execution.move_step(make_table(game))
    assert game.vehicles[mover].position == first


def test_apc_double_move_6_2_stays_on_after_the_tank_moved_on():
    """§6.2 optional rule: "After a tank has reached Kalesija CP" holds for the rest of
    the game, also once that tank has moved on toward Tango 2."""
    game = apc_game("movement.apc_double_move=true", tank_at=SK4)
    send(game, AQ, SK4, T2)
    table = make_table(game)
    execution.move_step(table)  # AQ reaches Kalesija
    execution.move_step(table)  # and moves on to T2-1
    assert game.vehicles[AQ].position == T21
    game.vehicles[AQ].order, game.vehicles[AQ].destination = C.NO_ORDER, -1  # halts there
    send(game, QL3, SAR, KAL)
    execution.move_step(table)
    assert game.vehicles[QL3].position == SK2


# --------------------------------------------------------------------------- §6.3 fire


def fire_game(**tanks):
    """Fire at Will; the named tanks at their positions with their Fire side up."""
    game = fresh_game()
    game.fire_roe = game.roe = 12
    for name, pos in tanks.items():
        v = game.vehicles[game.rules.vehicle(name)]
        v.position, v.fire = pos, True
    return game


def test_fire_6_3_targets_are_the_position_icons():
    """§6.3, R-FOF: a tank fires only at tracks whose icon its position shows (K-2: ATGM,
    HMG and artillery, no tanks)."""
    game = fire_game(AQ=K2)
    for kind in (C.TANK, C.ATGM, C.HMG):
        game.tracks[kind] = [take_chit(game, kind, C.LETTER_C)]
    assert execution.fire_targets(game, game.vehicles[AQ]) == [C.ATGM, C.HMG, C.ART]


def test_fire_6_3_overwatch_letter_restriction_not_for_artillery():
    """§6.3: from an OW only a chit of the OW's letter may be removed (K-2 is C); the
    restriction does not apply to artillery chits."""
    game = fire_game(AQ=K2)
    game.tracks[C.ATGM] = [take_chit(game, C.ATGM, C.LETTER_L)]
    game.tracks[C.HMG] = [take_chit(game, C.HMG, C.LETTER_C)]
    game.tracks[C.ART].append(take_chit(game, C.ART, target=C.TARGET_K))
    assert execution.fire_targets(game, game.vehicles[AQ]) == [C.HMG, C.ART]


def test_fire_6_3_no_letter_restriction_off_an_overwatch():
    """§6.3, §11 turn 5 ("Line of sight restriction does not apply from this position"):
    from SK-4 (FP7 side a: HMG) any HMG chit may be removed."""
    game = fire_game(AQ=SK4)
    game.markers[SK4] = (marker(game, "FP7"), 0)
    game.tracks[C.HMG] = [take_chit(game, C.HMG, C.LETTER_L)]
    assert execution.fire_targets(game, game.vehicles[AQ]) == [C.HMG]


def test_fire_6_3_direct_fire_hits_without_a_roll_chosen_target():
    """§6.3: solid icon: direct fire removes the chosen track's last chit automatically,
    back to the pool."""
    game = fire_game(AQ=K1)
    game.tracks[C.ATGM] = [take_chit(game, C.ATGM, C.LETTER_R)]
    hmgs = [take_chit(game, C.HMG, C.LETTER_R, double=False) for _ in range(2)]
    game.tracks[C.HMG] = list(hmgs)
    game.setup_flipped = True  # no artillery target
    table = make_table(game, script={decisions.FIRE_TARGET: C.HMG})
    execution.fire_step(table)
    assert table.script.offers == [(decisions.FIRE_TARGET, [C.ATGM, C.HMG], (AQ, 0))]
    assert game.tracks[C.HMG] == hmgs[:1] and hmgs[1] in game.pool
    assert events(table, E.FIRE) == [(AQ, C.HMG, 0, 1)]
    assert events(table, E.REMOVED) == [(hmgs[1], C.HMG, 0, 0)]


@pytest.mark.parametrize("die, hit", [(1, True), (5, True), (6, False)])
def test_fire_6_3_indirect_fire_from_saraci_misses_on_a_6(die, hit):
    """§6.3: hollow icon (Saraci OWs): indirect fire hits on 1-5 (§11: GB rolls a 6)."""
    game = fire_game(GB=S3)
    game.tracks[C.ATGM] = [take_chit(game, C.ATGM, C.LETTER_L)]
    table = make_table(game, ScriptedChance(d6=[die]))
    execution.fire_step(table)
    assert events(table, E.FIRE) == [(GB, C.ATGM, die, int(hit))]
    assert len(game.tracks[C.ATGM]) == (0 if hit else 1)


def test_fire_7_2_1_gunner_sights_no_saraci_ow_fire():
    """§6.3, §7.2.1: with gunner sights misaligned a tank cannot fire from a Saraci OW."""
    game = fire_game(GB=S3)
    game.vehicles[GB].light = {C.SIGHTS}
    game.tracks[C.ATGM] = [take_chit(game, C.ATGM, C.LETTER_L)]
    table = make_table(game)
    execution.fire_step(table)
    assert events(table, E.FIRE) == [] and len(game.tracks[C.ATGM]) == 1


@pytest.mark.parametrize("die, hit", [(2, True), (3, False)])
def test_fire_7_2_1_gunner_sights_elsewhere_hit_on_1_2(die, hit):
    """§7.2.1: elsewhere a tank with misaligned sights removes a chit on 1-2 only."""
    game = fire_game(AQ=K1)
    game.vehicles[AQ].light = {C.SIGHTS}
    game.setup_flipped = True
    game.tracks[C.ATGM] = [take_chit(game, C.ATGM, C.LETTER_R)]
    table = make_table(game, ScriptedChance(d6=[die]))
    execution.fire_step(table)
    assert events(table, E.FIRE) == [(AQ, C.ATGM, die, int(hit))]


@pytest.mark.parametrize("change", ["no_fire_order", "turret", "at_a_cp"])
def test_fire_6_3_who_cannot_fire(change):
    """§5.4.2, §6.3, §7.1.3: no Fire side up, Turret damage, or a position without
    icons (a contact point): no fire."""
    game = fire_game(AQ=K1)
    game.tracks[C.ATGM] = [take_chit(game, C.ATGM, C.LETTER_R)]
    aq = game.vehicles[AQ]
    if change == "no_fire_order":
        aq.fire = False
    elif change == "turret":
        aq.heavy = {C.TURRET}
    else:
        aq.position = KAL
    table = make_table(game)
    execution.fire_step(table)
    assert events(table, E.FIRE) == [] and len(game.tracks[C.ATGM]) == 1


def test_fire_6_3_setup_artillery_marker_is_flipped_not_removed():
    """§6.3: fire at the setup artillery marker flips it to No Artillery; it stays on the
    track, artillery is silent, and further fire at it has no effect."""
    game = fire_game(AQ=K1)
    setup = game.rules.setup_chit
    table = make_table(game)
    execution.fire_step(table)
    assert game.tracks[C.ART] == [setup] and game.setup_flipped
    assert events(table, E.SETUP_FLIPPED) == [(0, 0, 0, 0)]
    assert artillery_silent(game)
    assert execution.fire_targets(game, game.vehicles[AQ]) == []


def test_fire_6_3_regular_artillery_chit_is_removed_above_the_setup_marker():
    """§6.3: with regular artillery chits on the track the last one is removed."""
    game = fire_game(AQ=K1)
    chit = take_chit(game, C.ART, target=C.TARGET_K)
    game.tracks[C.ART].append(chit)
    execution.fire_step(make_table(game))
    assert game.tracks[C.ART] == [game.rules.setup_chit] and not game.setup_flipped
    assert chit in game.pool


IN_TURN = {decisions.FIRE_ORDER: lambda tanks: tanks[0]}  # the tanks fire in vehicle order


@pytest.mark.parametrize("first, removed", [(GB, 1), (EA, 2)])
def test_fire_order_11_in_any_order_the_letter_of_the_last_chit(first, removed):
    """§11: the Fire orders are executed "in any order desired", and the order matters:
    the ATGM track ends L, C. GB at S3 (an L overwatch) can fire only once EA at SK2 has
    removed the C; fired first it has no target."""
    game = fire_game(EA=SK2, GB=S3)
    game.markers[SK2] = (marker(game, "FP8"), 0)  # UN targets tank, ATGM
    game.tracks[C.ATGM] = [take_chit(game, C.ATGM, C.LETTER_L), take_chit(game, C.ATGM, C.LETTER_C)]
    script = {decisions.FIRE_ORDER: first, decisions.FIRE_TARGET: C.ATGM}
    table = make_table(game, ScriptedChance(d6=[1] if first == EA else []), script)
    execution.fire_step(table)
    assert table.script.offered(decisions.FIRE_ORDER)[0] == [EA, GB]
    assert 2 - len(game.tracks[C.ATGM]) == removed


def depot_game():
    """2nd platoon on the three Saraci OWs, each with one chit of its letter to shoot."""
    game = fire_game(BQ=S1, FB=S2, GB=S3)
    game.tracks[C.TANK] = [take_chit(game, C.TANK, C.LETTER_R)]
    game.tracks[C.HMG] = [take_chit(game, C.HMG, C.LETTER_C)]
    game.tracks[C.ATGM] = [take_chit(game, C.ATGM, C.LETTER_C), take_chit(game, C.ATGM, C.LETTER_C),
                           take_chit(game, C.ATGM, C.LETTER_L)]
    game.tracks[C.ART].append(take_chit(game, C.ART, target=C.TARGET_K))
    return game


def test_ammunition_depot_6_3_three_ones_empty_a_track_of_choice():
    """§6.3: three fires from the Saraci OWs all rolling 1 hit the depot: one track of the
    player's choice is emptied, its chits back to the pool."""
    game = depot_game()
    atgm = list(game.tracks[C.ATGM])
    table = make_table(game, ScriptedChance(d6=[1, 1, 1]), {decisions.DEPOT_TRACK: C.ATGM, **IN_TURN})
    execution.fire_step(table)
    assert [ev[:2] for ev in events(table, E.FIRE)] == [(BQ, C.TANK), (FB, C.HMG), (GB, C.ATGM)]
    assert table.script.offered(decisions.DEPOT_TRACK) == [[C.ATGM, C.ART]]
    assert game.tracks[C.ATGM] == [] and all(c in game.pool for c in atgm)
    assert events(table, E.DEPOT) == [(C.ATGM, 0, 0, 0)]


def test_ammunition_depot_6_3_artillery_choice_flips_the_setup_marker():
    """§6.3: choosing artillery returns its chits and flips the setup marker."""
    game = depot_game()
    table = make_table(game, ScriptedChance(d6=[1, 1, 1]), {decisions.DEPOT_TRACK: C.ART, **IN_TURN})
    execution.fire_step(table)
    assert game.tracks[C.ART] == [game.rules.setup_chit] and game.setup_flipped


def test_ammunition_depot_6_3_needs_all_three_ones():
    """§6.3: any roll other than 1 among the three: no explosion."""
    game = depot_game()
    table = make_table(game, ScriptedChance(d6=[1, 1, 2]), IN_TURN)  # no DEPOT_TRACK question
    execution.fire_step(table)
    assert events(table, E.DEPOT) == [] and len(game.tracks[C.ATGM]) == 2


def test_overwatch_letters_R_MAP_used_by_these_tests():
    """R-MAP, §2.1.1, §11: the OW letters the fire tests rely on (S1=R, S2=C, S3=L, K1=R)."""
    rules = fresh_game().rules
    letters = {p: C.LETTER_NAMES[rules.pos_letter[p]] for p in (S1, S2, S3, K1, K2)}
    assert letters == {S1: "R", S2: "C", S3: "L", K1: "R", K2: "C"}
