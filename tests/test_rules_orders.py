"""Setup (§3) and the Orders phase (§5) of the reference engine, rule by rule.

Each test builds a position by hand, scripts the luck and the player's answers, calls
one phase or helper and checks what the rulebook section (§) or docs/readings.md id in
its name says must happen.
"""

from __future__ import annotations

import pytest
from conftest import (
    events,
    everyone_at,
    fresh_game,
    make_table,
    pool_chits,
    ready,
    ruleset,
    take_chit,
)

from bollesim.bollebank import codes, decisions
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
    K3,
    KAL,
    OPN,
    QL1,
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
from bollesim.bollebank.decisions import order_dest, order_kind, order_mask, pack_order
from bollesim.bollebank.reference import effects, end, execution, orders, radio, reaction
from bollesim.bollebank.reference.chance import ScriptedChance
from bollesim.bollebank.reference.state import new_game

# Order Matrix cells used below (R-MATRIX, types are first chit x second chit).
FIRE_SINGLE = (codes.TANK, codes.HMG)  # fire, single (§11)
MOVE_SINGLE = (codes.HMG, codes.TANK)  # move, single
FIRE_MOVE_SINGLE = (codes.TANK, codes.ATGM)  # fire or move, single
FIRE_MOVE_PLATOON = (codes.ATGM, codes.ATGM)  # fire or move, platoon
MOVE_PLATOON = (codes.HMG, codes.HMG)  # move, platoon (§11)

BASE_ANSWERS = {decisions.VL2_DESTINATION: decisions.PASS, decisions.ISSUE_ORDER: decisions.PASS,
                decisions.DRAW_AGAIN: 0}


def bit(*vehicles: int) -> int:
    return sum(1 << v for v in vehicles)


def kinds_of(options: list[int]) -> set[int]:
    return {order_kind(o) for o in options if o != decisions.PASS}


def masks_of(options: list[int], kind: int) -> set[int]:
    return {order_mask(o) for o in options if o != decisions.PASS and order_kind(o) == kind}


# --------------------------------------------------------------------------- §3 setup


def test_setup_3_prepare_for_play():
    """§3 steps 1-9 (and I-ROE0, I-DEADLINE): the position new_game builds."""
    rules = ruleset()
    game = new_game(rules)
    types = [int(rules.chit_type[c]) for c in game.pool]
    assert {k: types.count(k) for k in set(types)} == {
        codes.TANK: 4, codes.ATGM: 14, codes.HMG: 14, codes.ART: 6, codes.CAR: 1}  # step 1
    assert rules.setup_chit not in game.pool
    assert game.tracks == [[], [], [], [rules.setup_chit]]  # step 6: Saraci marker on setup
    assert rules.chit_art_target[rules.setup_chit] == codes.TARGET_S and not game.setup_flipped
    assert sorted(int(rules.chit_vehicle[c]) for c in game.aside) == list(range(9))  # step 4
    assert all(rules.chit_type[c] == codes.RU for c in game.aside)
    fps = {pool: sorted(int(rules.marker_fp[m]) for m in markers)
           for pool, markers in game.marker_pools.items()}
    assert fps == {codes.POOL_123: [1, 2, 3], codes.POOL_789: [7, 8, 9]}  # step 1
    assert game.markers == {}
    assert all(m.state == codes.ON_TRACK for m in game.abilities)  # step 3
    for v in game.vehicles:  # step 5: all nine in Saraci, Hold Fire side up
        assert (v.position, v.fire, v.light, v.heavy) == (SAR, False, set(), set())
        assert (v.order, v.destination, v.stunned) == (codes.NO_ORDER, -1, False)
        assert not v.commander_killed
    assert not game.tank_hot  # step 7: cold
    assert (game.roe, game.fire_roe, game.fired) == (1, 0, False)  # step 8, I-ROE0
    assert (game.turn, game.deadline) == (1, 18)  # step 9, I-DEADLINE
    assert (game.airstrikes_used, game.airstrike_pending) == (0, False)


def test_roe_I_ROE0_clamped_to_the_track():
    """I-ROE0, §2.1.4: the RoE marker stays on the track's 1-24."""
    game = fresh_game()
    for ability in (codes.DRAW_THEIR_FIRE, codes.EXTRA_TURN, codes.EXTRA_FIRE):
        ready(game, ability)
    game.roe = 23
    table = make_table(game)
    effects.change_roe(table, 5, E.ROE_HEAVY)
    assert game.roe == 24
    game.roe = 3
    effects.change_roe(table, -5, E.ROE_KIA)
    assert game.roe == 1


def test_vl2_5_needs_no_order_its_destination_is_the_players_choice():
    """§5, §5.4.1 design note: VL2 is the player; its destination is chosen freely each
    turn (no order, no radio roll), among the §5.4.1 destinations."""
    game = fresh_game()
    game.vehicles[VL2].light.add(codes.RADIO)
    choice = pack_order(codes.MOVE, bit(VL2), OPN)
    table = make_table(game, script={decisions.VL2_DESTINATION: choice})
    orders.choose_vl2_destination(table)
    offered = table.script.offered(decisions.VL2_DESTINATION)[0]
    assert offered[0] == decisions.PASS and {order_dest(o) for o in offered[1:]} == {KAL, OPN, S1, S2, S3}
    assert game.vehicles[VL2].destination == OPN and game.vehicles[VL2].order == codes.NO_ORDER
    assert events(table, E.RADIO) == [] and events(table, E.VL2_DESTINATION) == [(OPN, 0, 0, 0)]


# --------------------------------------------------------------------------- §5.1 radio


def radio_game(**light):
    """VL2 alone at SK1, QL1 and QL3 in Saraci, AQ alone at SK3, the rest in Kalesija."""
    game = fresh_game()
    everyone_at(game, KAL)
    for name, pos in dict(VL2=SK1, QL1=SAR, QL3=SAR, AQ=SK3).items():
        game.vehicles[game.rules.vehicle(name)].position = pos
    for name in light.get("radio", ()):
        game.vehicles[game.rules.vehicle(name)].light.add(codes.RADIO)
    return game


def test_radio_5_1_1_stacked_with_vl2_needs_no_link():
    """§5.1.1: a vehicle stacked with VL2 gets its orders even with radios damaged."""
    game = radio_game(radio=("VL2", "AQ"))
    game.vehicles[AQ].position = SK1
    assert radio.link_quality(make_table(game), AQ) == radio.AUTOMATIC


def test_radio_5_1_3a_undamaged_link_is_automatic():
    """§5.1.3a: no radio damage in the link: received without a roll."""
    table = make_table(radio_game())
    assert radio.RadioCheck(table).received(AQ)
    assert events(table, E.RADIO) == [(AQ, 0, radio.AUTOMATIC, 1)]


def test_radio_5_1_2_link_goes_through_the_healthy_relay():
    """§5.1.2: VL2 -> QL1 or QL3 -> vehicle; a damaged QL1 can be bypassed via QL3."""
    game = radio_game(radio=("QL1",))
    assert radio.link_quality(make_table(game), AQ) == radio.AUTOMATIC
    game.vehicles[QL3].light.add(codes.RADIO)  # both relays damaged: one damaged radio per link
    assert radio.link_quality(make_table(game), AQ) == 3


def test_radio_5_1_3b_one_damaged_radio_received_on_1_to_3():
    """§5.1.3b: one damaged radio in the link: received on 1-3, one roll per order."""
    table = make_table(radio_game(radio=("VL2",)), ScriptedChance(d6=[3, 4]))
    assert radio.link_quality(table, AQ) == 3
    check = radio.RadioCheck(table)
    assert check.received(AQ)
    assert not check.received(AQ)
    assert events(table, E.RADIO) == [(AQ, 3, 3, 1), (AQ, 4, 3, 0)]


def test_radio_5_1_3b_undamaged_vehicle_alongside_the_damaged_one():
    """§5.1.3b: -1 to the roll (so 1-4) if a vehicle without radio damage shares the
    damaged vehicle's position; a companion with a damaged radio does not help."""
    game = radio_game(radio=("VL2",))
    game.vehicles[EA].position = SK1
    assert radio.link_quality(make_table(game), AQ) == 4
    game.vehicles[EA].light.add(codes.RADIO)
    assert radio.link_quality(make_table(game), AQ) == 3
    game = radio_game(radio=("AQ",))  # the damaged radio may be the receiver's
    game.vehicles[FA].position = SK3
    assert radio.link_quality(make_table(game), AQ) == 4


def test_radio_5_1_3b_ql3_at_op_n_and_both_modifiers():
    """§5.1.3b: a further -1 if QL3 is at OP N without radio damage; with both modifiers
    an order gets through on 1-5."""
    game = radio_game(radio=("VL2",))
    game.vehicles[QL3].position = OPN
    assert radio.link_quality(make_table(game), AQ) == 4
    game.vehicles[EA].position = SK1  # undamaged vehicle with VL2 as well
    table = make_table(game, ScriptedChance(d6=[5, 6]))
    assert radio.link_quality(table, AQ) == 5
    check = radio.RadioCheck(table)
    assert check.received(AQ) and not check.received(AQ)
    game.vehicles[QL3].light.add(codes.RADIO)  # QL3 at OP N with its own radio damaged: no -1
    assert radio.link_quality(make_table(game), AQ) == 4


def test_radio_5_1_3c_two_damaged_radios_unmodified_1_to_2():
    """§5.1.3c: two damaged radios in the link: 1-2 on an unmodified roll, even with
    an undamaged vehicle alongside and QL3 at OP N."""
    game = radio_game(radio=("VL2", "AQ"))
    game.vehicles[EA].position = SK1
    game.vehicles[FA].position = SK3
    game.vehicles[QL3].position = OPN
    table = make_table(game, ScriptedChance(d6=[2, 3]))
    assert radio.link_quality(table, AQ) == 2
    check = radio.RadioCheck(table)
    assert check.received(AQ) and not check.received(AQ)


def test_radio_5_1_platoon_order_checked_for_each_vehicle():
    """§5.1 last line, I-RADIO: a platoon order rolls once per receiving vehicle."""
    game = radio_game(radio=("VL2",))
    everyone_at(game, SAR)
    game.vehicles[VL2].position = SK1
    table = make_table(game, ScriptedChance(d6=[2, 5, 1]))
    orders.issue(table, pack_order(codes.MOVE, bit(AQ, EA, FA), KAL))
    assert [game.vehicles[v].destination for v in (AQ, EA, FA)] == [KAL, -1, KAL]
    assert [game.vehicles[v].order for v in (AQ, EA, FA)] == [codes.MOVE, codes.NO_ORDER, codes.MOVE]
    assert [ev[:2] for ev in events(table, E.RADIO)] == [(AQ, 2), (EA, 5), (FA, 1)]


def test_radio_I_RADIO_one_roll_for_the_platoon_when_switched():
    """I-RADIO switch radio_check_per_vehicle = false: one die serves the whole order."""
    game = fresh_game("interpretations.radio_check_per_vehicle=false")
    game.vehicles[VL2].position = SK1
    game.vehicles[VL2].light.add(codes.RADIO)
    table = make_table(game, ScriptedChance(d6=[5]))
    orders.issue(table, pack_order(codes.MOVE, bit(AQ, EA, FA), KAL))
    assert all(game.vehicles[v].destination == -1 for v in (AQ, EA, FA))
    assert [ev[1] for ev in events(table, E.RADIO)] == [5, 5, 5]


# --------------------------------------------------------------------------- §5.3 pairs


def draw_game(roe: int = 1):
    game = fresh_game()
    game.roe = roe
    return game


def test_pair_5_3_first_chit_row_second_chit_column():
    """§5.3, R-MATRIX: the first chit picks the row, the second the column; the two
    chits go to their tracks after the order is offered."""
    game = draw_game(roe=8)
    tank, hmg = pool_chits(game, codes.TANK)[0], pool_chits(game, codes.HMG, double=False)[0]
    table = make_table(game, ScriptedChance(picks={"chit": [tank, hmg]}), dict(BASE_ANSWERS))
    orders.orders_phase(table)
    offered = table.script.offered(decisions.ISSUE_ORDER)[0]
    assert kinds_of(offered) == {codes.FIRE}  # tank then HMG: Fire, single vehicle
    assert all(bin(m).count("1") == 1 for m in masks_of(offered, codes.FIRE))
    assert events(table, E.PAIR) == [(tank, hmg, 1, 0)]
    assert game.tracks[codes.TANK] == [tank] and game.tracks[codes.HMG] == [hmg]

    game = draw_game(roe=8)
    table = make_table(game, ScriptedChance(picks={"chit": [hmg, tank]}), dict(BASE_ANSWERS))
    orders.orders_phase(table)
    offered = table.script.offered(decisions.ISSUE_ORDER)[0]
    assert kinds_of(offered) == {codes.MOVE}  # HMG then tank: Move, single vehicle
    assert events(table, E.PAIR) == [(hmg, tank, 0, 1)]


def test_pair_5_3_doubles_end_the_phase_in_draw_order():
    """§5.3 Important: two chits of one type end the Orders phase (no choice to draw
    again); the first drawn goes first on the track."""
    game = draw_game()
    first, second = pool_chits(game, codes.ATGM)[5], pool_chits(game, codes.ATGM)[1]
    # DRAW_AGAIN would fail
    answers = {decisions.VL2_DESTINATION: decisions.PASS, decisions.ISSUE_ORDER: decisions.PASS}
    table = make_table(game, ScriptedChance(picks={"chit": [first, second]}), answers)
    orders.orders_phase(table)
    assert game.tracks[codes.ATGM] == [first, second]
    assert game.chits_drawn == 2 and len(events(table, E.PAIR)) == 1
    assert table.script.offered(decisions.DRAW_AGAIN) == []


def test_pair_5_3_player_may_draw_again_after_a_mixed_pair():
    """§5.3: after a pair of two types the player chooses to draw again or stop."""
    game = draw_game()
    tank, hmg = pool_chits(game, codes.TANK)[0], pool_chits(game, codes.HMG)[0]
    a1, a2 = pool_chits(game, codes.ATGM)[:2]
    answers = {**BASE_ANSWERS, decisions.DRAW_AGAIN: [1]}
    table = make_table(game, ScriptedChance(picks={"chit": [tank, hmg, a1, a2]}), answers)
    orders.orders_phase(table)
    assert table.script.offered(decisions.DRAW_AGAIN) == [[0, 1]]
    assert [ev[:2] for ev in events(table, E.PAIR)] == [(tank, hmg), (a1, a2)]
    assert game.chits_drawn == 4


def test_minimum_draws_5_3_two_chits_even_when_no_order_is_wanted():
    """§5.3 Important: at least two chits are drawn each turn."""
    game = draw_game()
    tank, hmg = pool_chits(game, codes.TANK)[0], pool_chits(game, codes.HMG)[0]
    table = make_table(game, ScriptedChance(picks={"chit": [tank, hmg]}), dict(BASE_ANSWERS))
    orders.orders_phase(table)
    assert game.chits_drawn == 2
    assert game.tracks[codes.TANK] == [tank] and game.tracks[codes.HMG] == [hmg]


@pytest.mark.parametrize("car_first", [True, False])
def test_civilian_car_5_3_retired_other_chit_placed_pair_redrawn(car_first):
    """§5.3: with the civilian car in a pair it is retired from play, the other chit goes
    on its track without an order, and two chits are redrawn (four drawn at least)."""
    game = draw_game()
    car = pool_chits(game, codes.CAR)[0]
    atgm, hmg = pool_chits(game, codes.ATGM)[0], pool_chits(game, codes.HMG)[0]
    tank = pool_chits(game, codes.TANK)[0]
    first_two = [car, atgm] if car_first else [atgm, car]
    table = make_table(game, ScriptedChance(picks={"chit": first_two + [hmg, tank]}),
                       dict(BASE_ANSWERS))
    orders.orders_phase(table)
    assert car not in game.pool and all(car not in track for track in game.tracks)
    assert game.tracks[codes.ATGM] == [atgm]
    assert events(table, E.CIVILIAN_CAR) == [(car, atgm, 0, 0)]
    assert [ev[:2] for ev in events(table, E.PAIR)] == [(hmg, tank)]
    assert len(table.script.offered(decisions.ISSUE_ORDER)) == 1  # none for the car's pair
    assert game.chits_drawn == 4
    assert table.script.offered(decisions.DRAW_AGAIN) == [[0, 1]]  # no way to stop before the redraw


def test_random_unit_chit_7_2_1_light_damage_then_set_aside():
    """§5.3, §7.2.1: a random-unit chit drawn for orders inflicts light damage on its
    vehicle (die 5-6: gunner sights), is set aside, and drawing goes on to two weapons."""
    game = draw_game()
    rules = game.rules
    ru = next(c for c in game.aside if rules.chit_vehicle[c] == AQ)
    game.aside.remove(ru)
    game.pool.append(ru)
    atgm, hmg = pool_chits(game, codes.ATGM)[0], pool_chits(game, codes.HMG)[0]
    table = make_table(game, ScriptedChance(picks={"chit": [atgm, ru, hmg]}, d6=[5]),
                       dict(BASE_ANSWERS))
    orders.orders_phase(table)
    assert game.vehicles[AQ].light == {codes.SIGHTS}
    assert ru in game.aside and ru not in game.pool
    assert all(ru not in track for track in game.tracks)
    assert events(table, E.LIGHT_DAMAGE) == [(AQ, codes.SIGHTS, 5, 0)]
    assert [ev[:2] for ev in events(table, E.PAIR)] == [(atgm, hmg)]


@pytest.mark.parametrize("die, kind", [(1, codes.RADIO), (2, codes.RADIO), (3, codes.NIGHT_VISION),
                                       (4, codes.NIGHT_VISION), (5, codes.SIGHTS), (6, codes.SIGHTS)])
def test_light_damage_7_2_1_table(die, kind):
    """§7.2.1: 1-2 radio, 3-4 night-vision periscope, 5-6 gunner sights."""
    game = fresh_game()
    orders.light_damage(make_table(game, ScriptedChance(d6=[die])), game.vehicles[QL3])
    assert game.vehicles[QL3].light == {kind}  # an APC can take sights damage too


def test_light_damage_7_2_1_rerolls_damage_already_sustained():
    """§7.2.1: re-roll a result the vehicle already has."""
    game = fresh_game()
    game.vehicles[AQ].light = {codes.RADIO, codes.NIGHT_VISION}
    chance = ScriptedChance(d6=[1, 4, 2, 6])
    table = make_table(game, chance)
    orders.light_damage(table, game.vehicles[AQ])
    assert game.vehicles[AQ].light == {codes.RADIO, codes.NIGHT_VISION, codes.SIGHTS}
    assert chance.unused() == {}
    assert events(table, E.LIGHT_DAMAGE) == [(AQ, codes.SIGHTS, 6, 0)]


def test_light_damage_7_2_1_no_effect_with_all_three():
    """§7.2.1: a vehicle with all three light damages suffers nothing more (no roll)."""
    game = fresh_game()
    game.vehicles[AQ].light = {codes.RADIO, codes.NIGHT_VISION, codes.SIGHTS}
    table = make_table(game)  # any die roll would fail the script
    orders.light_damage(table, game.vehicles[AQ])
    assert events(table, E.LIGHT_DAMAGE) == [(AQ, -1, 0, 0)]


def test_pool_I_POOL_phase_ends_when_fewer_than_two_weapon_chits():
    """I-POOL: with fewer than two weapon chits left the Orders phase ends; random-unit
    chits do not count."""
    game = fresh_game()
    rules = game.rules
    last = pool_chits(game, codes.ATGM)[0]
    game.pool = [last] + [c for c in game.aside if rules.chit_vehicle[c] in (AQ, EA)]
    table = make_table(game, ScriptedChance(), {decisions.VL2_DESTINATION: decisions.PASS})
    orders.orders_phase(table)
    assert events(table, E.POOL_EXHAUSTED) == [(1, 0, 0, 0)]
    assert game.chits_drawn == 0 and events(table, E.PAIR) == []

    game = fresh_game()
    tank, hmg, atgm = pool_chits(game, codes.TANK)[0], pool_chits(game, codes.HMG)[0], last
    game.pool = [tank, hmg, atgm]
    answers = {**BASE_ANSWERS, decisions.DRAW_AGAIN: [1]}
    table = make_table(game, ScriptedChance(picks={"chit": [tank, hmg]}), answers)
    orders.orders_phase(table)
    assert len(events(table, E.PAIR)) == 1 and events(table, E.POOL_EXHAUSTED) == [(1, 0, 0, 0)]


# --------------------------------------------------------------------------- §5.4.1 move


@pytest.mark.parametrize("here, expected", [
    (SAR, {KAL, OPN, S1, S2, S3}),
    (S2, {SAR, KAL, OPN, S1, S3}),  # OW to OW of the same town
    (SK2, {SAR, KAL, OPN}),  # not Tango 2 from the Saraci-Kalesija road
    (OPN, {SAR, KAL}),
    (KAL, {SAR, OPN, T2, K1, K2, K3}),
    (K1, {SAR, KAL, OPN, K2, K3}),  # not Tango 2 from an OW
    (T22, {KAL, T2}),  # on the Kalesija-Tango 2 road: only Kalesija or Tango 2
    (T2, {KAL}),
])
def test_move_5_4_1_destination_restrictions(here, expected):
    """§5.4.1: contact points and OWs only, with the three restrictions (Tango 2 from
    Kalesija or its road; only Kalesija/Tango 2 from that road; OWs from their town)."""
    game = fresh_game()
    game.vehicles[AQ].position = here
    assert set(orders.move_destinations(game, game.vehicles[AQ])) == expected
    table = make_table(game)
    options = orders.order_options(table, MOVE_SINGLE)
    assert {order_dest(o) for o in options if o != decisions.PASS and order_mask(o) == bit(AQ)} == expected


def test_platoon_order_5_4_1_may_go_to_part_of_a_platoon():
    """§5.4.1, §11: a platoon order may go to the whole platoon, part of it, or any
    single vehicle (QL3 included, not VL2); a single order to one vehicle only."""
    game = fresh_game()
    table = make_table(game)
    singles = {bit(v) for v in (QL3, QL1, AQ, EA, FA, BQ, FB, GB)}
    groups = {bit(AQ, EA), bit(AQ, FA), bit(EA, FA), bit(AQ, EA, FA),
              bit(BQ, FB), bit(BQ, GB), bit(FB, GB), bit(BQ, FB, GB)}
    assert masks_of(orders.order_options(table, MOVE_PLATOON), codes.MOVE) == singles | groups
    assert masks_of(orders.order_options(table, MOVE_SINGLE), codes.MOVE) == singles


def test_platoon_order_5_4_1_same_destination_town_ows_count_as_one():
    """§5.4.1, I-OW-SPREAD: a platoon gets one destination; the three OWs of a town count
    as the same one and the vehicles spread over them."""
    game = fresh_game()
    table = make_table(game)
    options = orders.order_options(table, MOVE_PLATOON)
    dests = {order_dest(o) for o in options if o and order_mask(o) == bit(AQ, EA, FA)}
    assert dests == {KAL, OPN, decisions.SPREAD + codes.TOWN_S}
    orders.issue(table, pack_order(codes.MOVE, bit(AQ, EA, FA), decisions.SPREAD + codes.TOWN_S))
    assert [game.vehicles[v].destination for v in (AQ, EA, FA)] == [S1, S2, S3]


def test_superseding_orders_5_4_new_order_replaces_the_old():
    """§5.4, §5.4.1: a new order revokes a standing Move or Tow order, if it gets
    through the radio; otherwise the old order stands."""
    game = fresh_game()
    aq = game.vehicles[AQ]
    aq.position, aq.order, aq.destination = SK2, codes.MOVE, KAL
    table = make_table(game)
    orders.issue(table, pack_order(codes.MOVE, bit(AQ), SAR))
    assert (aq.order, aq.destination) == (codes.MOVE, SAR)
    aq.order, aq.tow_target, aq.destination = codes.TOW, EA, SK3
    orders.issue(table, pack_order(codes.MOVE, bit(AQ), KAL))
    assert (aq.order, aq.tow_target, aq.destination) == (codes.MOVE, -1, KAL)
    game.vehicles[VL2].light.add(codes.RADIO)
    orders.issue(make_table(game, ScriptedChance(d6=[6])), pack_order(codes.MOVE, bit(AQ), SAR))
    assert (aq.order, aq.destination) == (codes.MOVE, KAL)


# --------------------------------------------------------------------------- §5.4.2 fire


def test_fire_5_4_2_first_fire_order_needs_roe_8_and_never_goes_to_apcs():
    """§5.4.2, §2.1.4: no Fire order under Hold Fire (RoE 1-7); from 8 Fire orders go to
    tanks only, never to the APCs VL2 and QL3."""
    game = fresh_game()
    game.roe = 7
    assert codes.FIRE not in kinds_of(orders.order_options(make_table(game), FIRE_MOVE_PLATOON))
    game.roe = 8
    fire = masks_of(orders.order_options(make_table(game), FIRE_MOVE_PLATOON), codes.FIRE)
    assert bit(AQ) in fire and bit(BQ, FB, GB) in fire and bit(QL1) in fire
    assert not any(m & bit(VL2, QL3) for m in fire)


def test_fire_5_2_fire_status_marker_stays_at_the_first_fire_order():
    """§5.2, §5.4.2: the first Fire order puts the fire-status marker at the RoE of that
    moment; later Fire orders are allowed at any RoE and do not move it."""
    game = fresh_game()
    game.roe, game.turn = 9, 3
    table = make_table(game)
    orders.issue(table, pack_order(codes.FIRE, bit(AQ), -1))
    assert (game.fire_roe, game.fire_turn, game.vehicles[AQ].fire) == (9, 3, True)
    game.roe = 12
    orders.issue(table, pack_order(codes.FIRE, bit(EA), -1))
    assert game.fire_roe == 9 and events(table, E.FIRE_STATUS) == [(9, 0, 0, 0)]
    game.roe = 3  # back in the Hold Fire band: Fire orders still allowed
    fire = masks_of(orders.order_options(table, FIRE_MOVE_SINGLE), codes.FIRE)
    assert bit(FA) in fire and bit(AQ) not in fire and bit(EA) not in fire  # flipped already


@pytest.mark.parametrize("on_issue", [True, False])
def test_fire_I_FIRE_ISSUED_status_when_the_order_is_lost(on_issue):
    """I-FIRE-ISSUED: the first Fire order sets the fire status even when the radio loses
    it (switch fire_status_on_issue = false: only when a tank receives it)."""
    game = fresh_game(f"interpretations.fire_status_on_issue={str(on_issue).lower()}")
    game.roe = 10
    game.vehicles[VL2].light.add(codes.RADIO)
    game.vehicles[AQ].position = SK1
    orders.issue(make_table(game, ScriptedChance(d6=[6])), pack_order(codes.FIRE, bit(AQ), -1))
    assert not game.vehicles[AQ].fire
    assert game.fire_roe == (10 if on_issue else 0)


# --------------------------------------------------------------------------- §5.4.3 tow


def tow_game():
    """HQ vehicles in Saraci, AQ immobilised at SK-4, tanks at various road distances from
    Saraci: FA 3 (SK-3), FB 1, GB 1 (S-1), EA 5 (Kalesija), BQ 6 (T2-1)."""
    game = fresh_game()
    where = dict(VL2=SAR, QL3=SAR, QL1=SAR, AQ=SK4, FA=SK3, FB=SK1, GB=S1, EA=KAL, BQ=T21)
    for name, pos in where.items():
        game.vehicles[game.rules.vehicle(name)].position = pos
    game.vehicles[AQ].heavy.add(codes.TRACKS)
    return game


def tows(table, cell=FIRE_SINGLE):
    return {o for o in orders.order_options(table, cell) if order_kind(o) == codes.TOW}


def test_tow_5_4_3_rescuer_must_be_a_mobile_tank_within_three_of_an_hq_vehicle():
    """§5.4.3: any tank able to move with QL1, QL3 or VL2 within three positions may be
    sent to tow a tank with tracks damage; never an APC; in place of any order, even in a
    Fire-only cell under Hold Fire."""
    game = tow_game()
    table = make_table(game)
    assert tows(table) == {pack_order(codes.TOW, bit(v), AQ) for v in (QL1, FA, FB, GB)}
    options = orders.order_options(table, FIRE_SINGLE)  # RoE 1: no Fire order possible
    airstrike = pack_order(codes.AIRSTRIKE, 0, -1)  # (AQ's heavy damage allows it, §5.4.4)
    assert options[0] == decisions.PASS and set(options[1:]) == tows(table) | {airstrike}
    game.vehicles[FA].heavy.add(codes.TRACKS)  # an immobilised tank tows nobody
    assert pack_order(codes.TOW, bit(FA), AQ) not in tows(table)
    assert pack_order(codes.TOW, bit(AQ), FA) not in tows(table)
    assert pack_order(codes.TOW, bit(GB), FA) in tows(table)


def test_tow_5_4_3_no_tow_in_saraci_nor_without_tracks_damage():
    """§5.4.3, I-TOW-SARACI: no tow for a tank already in Saraci (CP or OW), and only a
    tank with tracks heavy damage can be towed."""
    for pos in (SAR, S2):
        game = tow_game()
        game.vehicles[AQ].position = pos
        assert tows(make_table(game)) == set()
    game = tow_game()
    game.vehicles[AQ].heavy = {codes.HULL, codes.TURRET}
    assert tows(make_table(game)) == set()
    game = tow_game()
    game.vehicles[AQ].position = KAL  # a contact point other than Saraci is fine
    assert pack_order(codes.TOW, bit(QL1), AQ) in tows(make_table(game))


def test_tow_5_4_3_order_puts_the_tow_marker_on_the_damaged_tank():
    """§5.4.3: the Tow marker goes on the damaged tank; the rescuer heads there."""
    game = tow_game()
    orders.issue(make_table(game), pack_order(codes.TOW, bit(FA), AQ))
    fa = game.vehicles[FA]
    assert (fa.order, fa.tow_target, fa.destination) == (codes.TOW, AQ, SK4)


@pytest.mark.parametrize("kind", [codes.MOVE, codes.TOW])
def test_tow_5_4_a_new_order_supersedes_a_tow_in_progress(kind):
    """§5.4: "Any order can be revoked and superseded by a new order": FA, towing AQ, is
    offered Move and Tow orders like any tank; when the new order reaches it the tow is
    dropped and AQ stays where it is. A lost order leaves the tow as it was."""
    game = tow_game()
    fa, aq, ea = game.vehicles[FA], game.vehicles[AQ], game.vehicles[EA]
    fa.position = aq.position = SK3  # within three positions of the HQ in Saraci
    fa.towing, fa.destination, aq.towed_by = AQ, KAL, FA
    ea.heavy.add(codes.TRACKS)  # a second tank to tow, at Kalesija
    new = pack_order(codes.MOVE, bit(FA), SAR) if kind == codes.MOVE else pack_order(codes.TOW, bit(FA), EA)
    assert new in orders.order_options(make_table(game), FIRE_MOVE_SINGLE)
    game.vehicles[VL2].light.add(codes.RADIO)
    orders.issue(make_table(game, ScriptedChance(d6=[6])), new)  # lost over the radio
    assert (fa.towing, aq.towed_by, fa.destination) == (AQ, FA, KAL)
    table = make_table(game, ScriptedChance(d6=[1]))
    orders.issue(table, new)
    assert events(table, E.TOW_DROPPED) == [(FA, AQ, 0, 0)]
    assert (fa.towing, aq.towed_by, aq.position) == (-1, -1, SK3)
    assert (fa.order, fa.destination) == ((codes.MOVE, SAR) if kind == codes.MOVE else (codes.TOW, KAL))


# --------------------------------------------------------------------------- §5.4.4 airstrike


def test_airstrike_5_4_4_unrestricted_roe_or_a_heavily_damaged_tank():
    """§5.4.4, I-AIR: an airstrike may be called from a Fire cell with RoE >= 18 or a
    tank with heavy damage (even under Hold Fire); not from a Move-only cell; once."""
    airstrike = pack_order(codes.AIRSTRIKE, 0, -1)
    game = fresh_game()
    game.roe = 17
    assert airstrike not in orders.order_options(make_table(game), FIRE_MOVE_PLATOON)
    game.roe = 18
    assert airstrike in orders.order_options(make_table(game), FIRE_MOVE_PLATOON)
    assert airstrike not in orders.order_options(make_table(game), MOVE_PLATOON)
    game.airstrikes_used = 1
    assert airstrike not in orders.order_options(make_table(game), FIRE_MOVE_PLATOON)
    game = fresh_game()
    game.roe = 5
    game.vehicles[EA].heavy.add(codes.HULL)
    options = orders.order_options(make_table(game), FIRE_MOVE_PLATOON)
    assert airstrike in options and codes.FIRE not in kinds_of(options)


def test_airstrike_5_4_4_does_not_start_fire_at_will():
    """§5.4.4: calling the airstrike moves the Airstrike marker (strike pending) but does
    not set the fire status; no unit receives it, so no radio roll."""
    game = fresh_game()
    game.roe = 20
    game.vehicles[VL2].light.add(codes.RADIO)
    table = make_table(game)
    orders.issue(table, pack_order(codes.AIRSTRIKE, 0, -1))
    assert game.airstrike_pending and game.airstrikes_used == 1
    assert game.fire_roe == 0 and not game.fired
    assert events(table, E.FIRE_STATUS) == [] and events(table, E.RADIO) == []


# --------------------------------------------------------------------------- §5.5 abilities


@pytest.mark.parametrize("marker, level", [(0, 8), (1, 11), (2, 14)])
def test_abilities_5_5_available_at_8_11_14_with_chosen_side(marker, level):
    """§5.5: VL2's marker comes at RoE 8, QL3's at 11, QL1's at 14; the player puts it in
    its box with the side of their choice."""
    game = fresh_game()
    for lower in range(marker):
        game.abilities[lower].state = codes.AVAILABLE
    game.roe = level - 2
    table = make_table(game, script={decisions.ABILITY_SIDE: 1})
    effects.change_roe(table, 1, E.ROE_ART)
    assert game.abilities[marker].state == codes.ON_TRACK
    effects.change_roe(table, 1, E.ROE_ART)
    assert (game.abilities[marker].state, game.abilities[marker].side) == (codes.AVAILABLE, 1)
    assert table.script.offers == [(decisions.ABILITY_SIDE, [0, 1], (marker, 0))]
    assert events(table, E.ABILITY) == [(marker, E.ABILITY_AVAILABLE, 1, 0)]
    assert all(m.state == codes.ON_TRACK for m in game.abilities[marker + 1:])


def test_abilities_5_5_a_jump_in_roe_brings_every_level_passed():
    """§5.5: RoE 7 to 12 (heavy damage under Hold Fire) reaches levels 8 and 11 at once."""
    game = fresh_game()
    game.roe = 7
    table = make_table(game, script={decisions.ABILITY_SIDE: [0, 1]})
    effects.change_roe(table, 5, E.ROE_HEAVY)
    assert [(m.state, m.side) for m in game.abilities] == [
        (codes.AVAILABLE, 0), (codes.AVAILABLE, 1), (codes.ON_TRACK, 0)]
    assert effects.ability_ready(table, codes.DRAW_THEIR_FIRE) == 0
    assert effects.ability_ready(table, codes.EXTRA_ORDER) == -1  # the other side is down
    assert effects.ability_ready(table, codes.EXTRA_TURN) == 1


def test_abilities_5_5_back_to_the_track_when_roe_drops():
    """§5.5: an available marker goes back to the RoE track when the RoE drops below
    its level; reaching the level again the side is chosen anew (§11 turn 5)."""
    game = fresh_game()
    game.roe = 8
    ready(game, codes.EXTRA_ORDER)
    table = make_table(game, script={decisions.ABILITY_SIDE: 0})
    effects.change_roe(table, -2, E.ROE_HEAVY)
    assert game.abilities[0].state == codes.ON_TRACK
    assert events(table, E.ABILITY) == [(0, E.ABILITY_RETURNED, 1, 0)]
    effects.change_roe(table, 2, E.ROE_ART)
    assert (game.abilities[0].state, game.abilities[0].side) == (codes.AVAILABLE, 0)


@pytest.mark.parametrize("returns", [False, True])
def test_abilities_I_SPENT_spent_marker_when_roe_drops(returns):
    """§5.5, I-SPENT: a used marker is spent; by default it stays spent when the RoE
    drops below its level (switch spent_returns_to_track: back on the track)."""
    game = fresh_game(f"interpretations.spent_returns_to_track={str(returns).lower()}")
    game.roe = 9
    a = ready(game, codes.EXTRA_ORDER)
    table = make_table(game)
    effects.spend_ability(table, a)
    assert game.abilities[a].state == codes.SPENT
    effects.change_roe(table, -3, E.ROE_HEAVY)
    assert game.abilities[a].state == (codes.ON_TRACK if returns else codes.SPENT)


def test_abilities_5_5_refresh_a_spent_marker_after_doubles():
    """§5.3, §5.5: after doubles the player may bring one spent marker back with either
    side up; available markers are not offered; below its level it waits on the track."""
    for roe, state in ((15, codes.AVAILABLE), (10, codes.ON_TRACK)):
        game = fresh_game()
        game.roe = roe
        ready(game, codes.DRAW_THEIR_FIRE)
        game.abilities[2].state = codes.SPENT
        a1, a2 = pool_chits(game, codes.ATGM)[:2]
        answers = {**BASE_ANSWERS, decisions.REFRESH_ABILITY: 1 + 2 * 2 + 1}  # QL1's marker, side 1
        table = make_table(game, ScriptedChance(picks={"chit": [a1, a2]}), answers)
        orders.orders_phase(table)
        assert table.script.offered(decisions.REFRESH_ABILITY) == [[0, 5, 6]]
        assert (game.abilities[2].state, game.abilities[2].side) == (state, 1)
        assert events(table, E.ABILITY) == [(2, E.ABILITY_REFRESHED, 1, 0)]


def test_abilities_5_5_no_refresh_after_a_mixed_pair():
    """§5.3: only doubles allow a refresh."""
    game = fresh_game()
    game.abilities[2].state = codes.SPENT
    tank, hmg = pool_chits(game, codes.TANK)[0], pool_chits(game, codes.HMG)[0]
    table = make_table(game, ScriptedChance(picks={"chit": [tank, hmg]}), dict(BASE_ANSWERS))
    orders.orders_phase(table)
    assert table.script.offered(decisions.REFRESH_ABILITY) == []
    assert game.abilities[2].state == codes.SPENT


def test_abilities_5_5_usable_when_damaged_not_when_commander_killed():
    """§5.5: an ability may be used if the command vehicle is damaged, not if its
    commander is killed."""
    game = fresh_game()
    a = ready(game, codes.EXTRA_MOVE)
    table = make_table(game)
    game.vehicles[QL1].heavy.add(codes.HULL)
    game.vehicles[QL1].light.add(codes.RADIO)
    assert effects.ability_ready(table, codes.EXTRA_MOVE) == a
    game.vehicles[QL1].commander_killed = True
    assert effects.ability_ready(table, codes.EXTRA_MOVE) == -1


# The six effects (Draw their fire's -1 is in test_rules_reaction.py).


def test_ability_5_5_extra_order_at_op_n():
    """§5.5 Extra order: with VL2 at OP N, the same kind of order just issued may go to
    another vehicle or platoon (same cell, not the same vehicles); the marker is spent."""
    game = fresh_game()
    game.roe = 8
    game.vehicles[VL2].position = OPN
    a = ready(game, codes.EXTRA_ORDER)
    first, extra = pack_order(codes.MOVE, bit(AQ), KAL), pack_order(codes.MOVE, bit(EA), KAL)
    table = make_table(game, script={decisions.ISSUE_ORDER: first, decisions.EXTRA_ORDER: extra})
    orders.offer_order(table, FIRE_MOVE_SINGLE)
    offered = table.script.offered(decisions.EXTRA_ORDER)[0]
    assert kinds_of(offered) == {codes.MOVE}  # the first options had Fire orders as well
    assert codes.FIRE in kinds_of(table.script.offered(decisions.ISSUE_ORDER)[0])
    assert not any(order_mask(o) & bit(AQ) for o in offered[1:])
    assert all(bin(order_mask(o)).count("1") == 1 for o in offered[1:])  # single cell
    assert game.vehicles[AQ].destination == KAL and game.vehicles[EA].destination == KAL
    assert game.abilities[a].state == codes.SPENT
    assert [ev[:2] for ev in events(table, E.ORDER)] == [
        (first, decisions.ISSUE_ORDER), (extra, decisions.EXTRA_ORDER)]


def test_ability_5_5_extra_order_needs_vl2_at_op_n():
    """§5.5 Extra order: VL2 must be at OP N."""
    game = fresh_game()
    game.vehicles[VL2].position = SK1
    a = ready(game, codes.EXTRA_ORDER)
    table = make_table(game, script={decisions.ISSUE_ORDER: pack_order(codes.MOVE, bit(AQ), KAL)})
    orders.offer_order(table, FIRE_MOVE_SINGLE)
    assert table.script.offered(decisions.EXTRA_ORDER) == []
    assert game.abilities[a].state == codes.AVAILABLE


def direct_fire_game(ql3_at):
    game = fresh_game()
    game.fire_roe = game.roe = 12
    game.vehicles[QL3].position = ql3_at
    gb = game.vehicles[GB]
    gb.position, gb.fire = S3, True
    game.tracks[codes.ATGM] = [take_chit(game, codes.ATGM, codes.LETTER_C), take_chit(game, codes.ATGM, codes.LETTER_L)]
    return game


def test_ability_5_5_direct_their_fire_from_op_n():
    """§5.5 Direct their fire: QL3 at OP N makes indirect fire from Saraci OWs succeed
    this turn (a 6 still hits; the die is still rolled); the marker is spent."""
    game = direct_fire_game(OPN)
    a = ready(game, codes.DIRECT_THEIR_FIRE)
    last = game.tracks[codes.ATGM][-1]
    table = make_table(game, ScriptedChance(d6=[6]), {decisions.USE_ABILITY: 1})
    execution.fire_step(table)
    assert events(table, E.FIRE) == [(GB, codes.ATGM, 6, 1)]
    assert last in game.pool and len(game.tracks[codes.ATGM]) == 1
    assert game.abilities[a].state == codes.SPENT


def test_ability_5_5_direct_their_fire_needs_ql3_at_op_n():
    """§5.5 Direct their fire: not usable with QL3 elsewhere; the 6 misses (§6.3)."""
    game = direct_fire_game(SAR)
    a = ready(game, codes.DIRECT_THEIR_FIRE)
    table = make_table(game, ScriptedChance(d6=[6]))
    execution.fire_step(table)
    assert events(table, E.FIRE) == [(GB, codes.ATGM, 6, 0)]
    assert len(game.tracks[codes.ATGM]) == 2 and game.abilities[a].state == codes.AVAILABLE


def test_ability_5_5_extra_turn_at_kalesija():
    """§5.5 Extra turn: QL3 at Kalesija moves the T2 deadline one box toward turn 20."""
    game = fresh_game()
    game.vehicles[QL3].position = KAL
    a = ready(game, codes.EXTRA_TURN)
    table = make_table(game, script={decisions.USE_ABILITY: 1})
    end.extra_turn(table)
    assert game.deadline == 19 and game.abilities[a].state == codes.SPENT
    assert events(table, E.DEADLINE) == [(19, 1, 0, 0)]


@pytest.mark.parametrize("ql3_at, deadline", [(SAR, 18), (KAL, 20)])
def test_ability_5_5_extra_turn_needs_kalesija_and_stops_at_20(ql3_at, deadline):
    """§5.5 Extra turn: QL3 must be in Kalesija, and the marker moves toward turn 20 only."""
    game = fresh_game()
    game.vehicles[QL3].position = ql3_at
    game.deadline = deadline
    a = ready(game, codes.EXTRA_TURN)
    table = make_table(game)  # a USE_ABILITY question would fail the script
    end.extra_turn(table)
    assert game.deadline == deadline and game.abilities[a].state == codes.AVAILABLE


def extra_move_game():
    """QL1 at SK1; AQ next to it at SK2 heading for Kalesija with a red hull marker."""
    game = fresh_game()
    game.vehicles[QL1].position = SK1
    aq = game.vehicles[AQ]
    aq.position, aq.order, aq.destination = SK2, codes.MOVE, KAL
    aq.heavy, aq.hull_green = {codes.HULL}, False
    game.markers[SK2] = game.markers[SK3] = (game.rules.marker_ids.index("FP8"), 1)
    return game


def test_ability_5_5_extra_move_near_ql1_ignores_the_hull_marker():
    """§5.5 Extra move: a vehicle within one position of QL1 moves one more step; a hull-
    damaged tank may use it whichever side its marker shows; the marker is spent."""
    game = extra_move_game()
    a = ready(game, codes.EXTRA_MOVE)
    table = make_table(game, script={decisions.EXTRA_MOVE_BEFORE: -1, decisions.EXTRA_MOVE: AQ})
    execution.move_step(table)
    assert table.script.offered(decisions.EXTRA_MOVE_BEFORE) == [[-1, AQ]]
    assert table.script.offered(decisions.EXTRA_MOVE) == [[-1, AQ]]
    assert (AQ, E.HULL_RED, -1, 0) in events(table, E.NOT_MOVED)
    assert game.vehicles[AQ].position == SK3 and game.abilities[a].state == codes.SPENT


def test_ability_5_5_extra_move_before_the_move_step():
    """§5.5: "This ability can be used after or before any Move order": used before, the
    Extra move is made first and the regular move follows (AQ, hull green: two steps);
    the marker is spent, so it is not offered again after the moves."""
    game = extra_move_game()
    game.vehicles[AQ].hull_green = True
    game.markers[SK4] = game.markers[SK3]
    a = ready(game, codes.EXTRA_MOVE)
    table = make_table(game, script={decisions.EXTRA_MOVE_BEFORE: AQ})
    execution.move_step(table)
    assert events(table, E.MOVE) == [(AQ, SK2, SK3, 0), (AQ, SK3, SK4, 0)]
    assert table.script.offered(decisions.EXTRA_MOVE) == [] and game.abilities[a].state == codes.SPENT


@pytest.mark.parametrize("change", ["stunned", "tracks", "towing", "too_far", "ql1_killed"])
def test_ability_5_5_extra_move_exclusions(change):
    """§5.5 Extra move: not for stunned tanks, tanks with tracks damage, tanks towing
    another, vehicles two positions from QL1, nor once QL1's commander is killed."""
    game = extra_move_game()
    a = ready(game, codes.EXTRA_MOVE)
    aq = game.vehicles[AQ]
    if change == "stunned":
        aq.stunned = True
    elif change == "tracks":
        aq.heavy.add(codes.TRACKS)
    elif change == "towing":
        aq.towing, game.vehicles[EA].towed_by = EA, AQ
        game.vehicles[EA].position = SK2
    elif change == "too_far":
        game.vehicles[QL1].position = SAR
    else:
        game.vehicles[QL1].commander_killed = True
    table = make_table(game)  # an EXTRA_MOVE question would fail the script
    execution.move_step(table)
    assert aq.position == SK2 and game.abilities[a].state == codes.AVAILABLE


def test_ability_5_5_extra_fire_near_ql1():
    """§5.5 Extra fire: QL1 or a tank within one position of it attacks once more."""
    game = fresh_game()
    game.fire_roe = game.roe = 15
    game.vehicles[QL1].position = KAL
    aq = game.vehicles[AQ]
    aq.position, aq.fire = K1, True
    game.tracks[codes.ATGM] = [take_chit(game, codes.ATGM, codes.LETTER_R) for _ in range(2)]
    a = ready(game, codes.EXTRA_FIRE)
    answers = {decisions.FIRE_TARGET: codes.ATGM, decisions.EXTRA_FIRE: AQ}
    table = make_table(game, script=answers)
    execution.fire_step(table)
    assert table.script.offered(decisions.EXTRA_FIRE) == [[-1, AQ]]
    assert [ev[:2] for ev in events(table, E.FIRE)] == [(AQ, codes.ATGM), (AQ, codes.ATGM)]
    assert game.tracks[codes.ATGM] == [] and game.abilities[a].state == codes.SPENT


def test_ability_5_5_extra_fire_needs_ql1_within_one_position():
    """§5.5 Extra fire: a tank two positions from QL1 gets no extra attack."""
    game = fresh_game()
    game.fire_roe = game.roe = 15
    game.vehicles[QL1].position = SK4
    aq = game.vehicles[AQ]
    aq.position, aq.fire = K1, True
    game.tracks[codes.ATGM] = [take_chit(game, codes.ATGM, codes.LETTER_R) for _ in range(2)]
    a = ready(game, codes.EXTRA_FIRE)
    table = make_table(game, script={decisions.FIRE_TARGET: codes.ATGM})
    execution.fire_step(table)
    assert len(events(table, E.FIRE)) == 1 and game.abilities[a].state == codes.AVAILABLE


def test_ability_5_5_draw_their_fire_needs_vl2_at_kalesija():
    """§5.5 Draw their fire: VL2 must be at Kalesija (elsewhere: no question, no -1)."""
    game = fresh_game()
    game.vehicles[VL2].position = OPN
    game.vehicles[AQ].position = K2
    a = ready(game, codes.DRAW_THEIR_FIRE)
    assert reaction.draw_their_fire(make_table(game)) == set()
    assert game.abilities[a].state == codes.AVAILABLE
    game.vehicles[VL2].position = KAL
    table = make_table(game, script={decisions.USE_ABILITY: 1})
    assert reaction.draw_their_fire(table) == {K1, K2, K3, SK4, T21}
    assert game.abilities[a].state == codes.SPENT
