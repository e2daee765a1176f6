"""Enemy reaction (§7) and victory (§8) in the reference engine, rule by rule.

Each test builds a position by hand, scripts dice and draws, and checks what the
rulebook section (§) or docs/readings.md id in its name says must happen.
"""

from __future__ import annotations

import pytest
from conftest import (
    RecordingChance,
    events,
    everyone_at,
    fresh_game,
    make_table,
    pool_chits,
    ready,
    take_chit,
)

from bollesim.bollebank import codes, decisions
from bollesim.bollebank import events as E
from bollesim.bollebank.codes import (
    AQ,
    EA,
    FA,
    GB,
    K1,
    K2,
    K3,
    KAL,
    OPN,
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
    VL2,
)
from bollesim.bollebank.reference import end, execution, reaction
from bollesim.bollebank.reference.chance import ScriptedChance
from bollesim.bollebank.reference.play import result_row

NO_DRM: set[int] = set()


def marker(game, name: str) -> int:
    return game.rules.marker_ids.index(name)


def quiet_game(*overrides: str):
    """Everyone in Saraci (out of every field of fire), artillery silenced, Hold Fire."""
    game = fresh_game(*overrides)
    game.setup_flipped = True
    return game


def at(game, **where) -> None:
    for name, pos in where.items():
        game.vehicles[game.rules.vehicle(name)].position = pos


def ru_chit(game, v: int) -> int:
    return next(c for c in game.aside if game.rules.chit_vehicle[c] == v)


# --------------------------------------------------------------------------- §7.1 tank status


@pytest.mark.parametrize("n, die, hot", [
    (1, 5, False), (1, 6, True), (2, 4, False), (2, 5, True),
    (3, 3, False), (3, 4, True), (4, 1, False), (4, 2, True),
])
def test_tank_status_7_1_by_chits_on_the_track(n, die, hot):
    """§7.1, §2.1 map caption (6 / 5-6 / 4-6 / 2-6): one d6 against the value beside the
    last tank chit; hot tanks fire, cold ones do not (and a hot marker reverts)."""
    game = quiet_game()
    game.tank_hot = not hot
    game.tracks[codes.TANK] = [take_chit(game, codes.TANK) for _ in range(n)]
    table = make_table(game, ScriptedChance(d6=[die]))
    reaction.reaction_phase(table)
    assert game.tank_hot == hot
    assert events(table, E.TANK_STATUS) == [(die, int(hot), n, 0)]
    assert events(table, E.ATTACK_SKIPPED) == ([(codes.TANK, 0, 0, 0)] if hot else [])


def test_tank_status_7_1_no_roll_with_an_empty_track():
    """§7.1: the status is checked only while there are chits on the tank track."""
    game = quiet_game()
    game.tank_hot = True
    table = make_table(game)  # a die roll would fail the empty script
    reaction.reaction_phase(table)
    assert not game.tank_hot and events(table, E.TANK_STATUS) == []


def test_to_hit_7_1_1_from_the_track_in_phase_order():
    """§4 step 3, §7.1.1, R-TRACK: tanks (hot: 7), then ATGM (5 chits: 10, §2.1 caption),
    then HMG (1 chit: 12); 2d6 against the value of the last chit's space."""
    game = quiet_game()
    at(game, AQ=K3)
    game.tracks[codes.TANK] = [take_chit(game, codes.TANK) for _ in range(2)]
    game.tracks[codes.ATGM] = [take_chit(game, codes.ATGM, codes.LETTER_R) for _ in range(4)]
    game.tracks[codes.ATGM].append(take_chit(game, codes.ATGM, codes.LETTER_C))
    game.tracks[codes.HMG] = [take_chit(game, codes.HMG, double=False)]
    table = make_table(game, ScriptedChance(d6=[6], two_d6=[2, 2, 2]))
    reaction.reaction_phase(table)
    assert events(table, E.ATTACK) == [(codes.TANK, AQ, 2, 7), (codes.ATGM, AQ, 2, 10), (codes.HMG, AQ, 2, 12)]


@pytest.mark.parametrize("weapon", [codes.ATGM, codes.HMG])
def test_to_hit_7_1_1_every_track_space(weapon):
    """R-TRACK, §7.1.1: with n chits the to-hit is the track's n-th space (§7.1.1: the
    6th ATGM space needs 10)."""
    rules = fresh_game().rules
    table_values = rules.atgm_to_hit if weapon == codes.ATGM else rules.hmg_to_hit
    assert weapon != codes.ATGM or (table_values[4], table_values[5]) == (10, 10)
    for n in range(1, len(table_values) + 1):
        game = quiet_game()
        at(game, AQ=K3)  # K-3 is an L overwatch: the last ATGM chit must not be L
        chits = sorted(pool_chits(game, weapon), key=lambda c: (
            not rules.chit_double[c], rules.chit_letter[c] == codes.LETTER_C))
        game.tracks[weapon] = chits[-n:]  # the last one is single-target, letter C
        for c in chits[-n:]:
            game.pool.remove(c)
        table = make_table(game, ScriptedChance(two_d6=[2]))
        reaction.reaction_phase(table)
        assert events(table, E.ATTACK) == [(weapon, AQ, 2, int(table_values[n - 1]))]


# --------------------------------------------------------------------------- §7.1 targets


def targets_game(*overrides: str, **where):
    game = quiet_game(*overrides)
    at(game, **where)
    return game


def test_target_7_1_lowest_firing_priority():
    """§7.1 priority 2, R-FOF: K-3 (FP 4) before K-1 (FP 6)."""
    game = targets_game(AQ=K3, EA=K1)
    assert reaction.choose_target(make_table(game), codes.ATGM) == AQ


def test_target_7_1_heavily_damaged_vehicle_first():
    """§7.1 priority 1: a vehicle with heavy damage is fired on first."""
    game = targets_game(AQ=K3, EA=K1)
    game.vehicles[EA].heavy = {codes.HULL}
    assert reaction.choose_target(make_table(game), codes.ATGM) == EA


def test_target_I_TARGET_damaged_vehicle_only_counts_where_the_weapon_reaches():
    """I-TARGET: the damaged candidates are those the weapon can fire at (FP7 side a at
    SK-4 has no BSA tanks)."""
    game = targets_game(AQ=K3, EA=SK4)
    game.markers[SK4] = (marker(game, "FP7"), 0)
    game.vehicles[EA].heavy = {codes.HULL}
    table = make_table(game)
    assert reaction.choose_target(table, codes.TANK) == AQ
    assert reaction.choose_target(table, codes.ATGM) == EA


def test_target_7_1_ties_at_random():
    """§7.1: more than one vehicle with the same priority: the target is random."""
    game = targets_game(AQ=SK2, EA=SK2)
    game.markers[SK2] = (marker(game, "FP8"), 0)
    chance = RecordingChance(picks={"target": [EA]})
    assert reaction.choose_target(make_table(game, chance), codes.HMG) == EA
    assert chance.offered == [("target", [AQ, EA])]


@pytest.mark.parametrize("reading, expected", [("damaged_first", FA), ("literal", AQ)])
def test_target_I_TARGET_two_damaged_vehicles_both_readings(reading, expected):
    """I-TARGET: with two damaged vehicles (K-2 FP 5, K-1 FP 6) and an undamaged one at
    K-3 (FP 4), the default reading fires on the damaged FP 5; the literal reading ("if
    more than one, lowest FP") on the undamaged FP 4."""
    game = targets_game(f'interpretations.target_priority="{reading}"', AQ=K3, FA=K2, EA=K1)
    game.vehicles[FA].heavy = {codes.HULL}
    game.vehicles[EA].heavy = {codes.TRACKS}
    assert reaction.choose_target(make_table(game), codes.ATGM) == expected
    game.vehicles[FA].heavy = set()  # a single damaged vehicle: both readings agree
    assert reaction.choose_target(make_table(game), codes.ATGM) == EA


def test_target_2_1_1_only_exposed_positions():
    """§2.1.1: only exposed positions can be fired on (not contact points, SK-1, the
    Saraci OWs)."""
    game = targets_game(AQ=SAR, EA=SK1, FA=S1, GB=KAL, QL1=OPN, QL3=T2)
    table = make_table(game)
    assert all(reaction.choose_target(table, w) == -1 for w in codes.DIRECT_TRACKS)


def double_hmg(game) -> int:
    chit = take_chit(game, codes.HMG, double=True)
    game.tracks[codes.HMG] = [chit]
    return chit


def test_double_target_7_1_second_attack_on_the_next_target():
    """§7.1: a double-target chit attacks twice, the second time the next priority
    target, a different vehicle; under Hold Fire each attack raises the RoE."""
    game = targets_game(AQ=K3, EA=K1)
    double_hmg(game)
    table = make_table(game, ScriptedChance(two_d6=[2, 2]))
    reaction.direct_fire(table, codes.HMG, 12, NO_DRM)
    assert [ev[:2] for ev in events(table, E.ATTACK)] == [(codes.HMG, AQ), (codes.HMG, EA)]
    assert game.roe == 3


def test_double_target_7_1_ignored_with_a_single_target():
    """§7.1: the second attack is ignored when there is only one target."""
    game = targets_game(AQ=K3)
    double_hmg(game)
    table = make_table(game, ScriptedChance(two_d6=[2]))
    reaction.direct_fire(table, codes.HMG, 12, NO_DRM)
    assert [ev[:2] for ev in events(table, E.ATTACK)] == [(codes.HMG, AQ)]


def test_single_target_chit_attacks_once():
    """§7.1: a chit without the two-targets symbol attacks once."""
    game = targets_game(AQ=K3, EA=K1)
    game.tracks[codes.HMG] = [take_chit(game, codes.HMG, double=False)]
    table = make_table(game, ScriptedChance(two_d6=[2]))
    reaction.direct_fire(table, codes.HMG, 12, NO_DRM)
    assert len(events(table, E.ATTACK)) == 1


# --------------------------------------------------------------------------- §7.1.1 modifiers


@pytest.mark.parametrize("watcher_at, killed, weapon, roll", [
    (S1, False, codes.ATGM, 9),  # an R overwatch occupied, last ATGM chit R: -1
    (K1, False, codes.ATGM, 9),
    (S2, False, codes.ATGM, 10),  # a C overwatch: no modifier
    (S1, True, codes.ATGM, 10),  # §7.1.3: a commander killed stops the overwatch bonus
    (S1, False, codes.HMG, 10),  # only ATGM attacks
])
def test_atgm_overwatch_7_1_1_modifier(watcher_at, killed, weapon, roll):
    """§7.1.1: -1 to an ATGM attack if a UN vehicle occupies an OW of the last ATGM
    chit's letter; not from a vehicle whose commander was killed (§7.1.3)."""
    game = targets_game(AQ=K3)
    at(game, GB=watcher_at)
    game.vehicles[GB].commander_killed = killed
    game.tracks[codes.ATGM] = [take_chit(game, codes.ATGM, codes.LETTER_R)]
    game.tracks[codes.HMG] = [take_chit(game, codes.HMG, codes.LETTER_R, double=False)]
    table = make_table(game, ScriptedChance(two_d6=[10]))
    reaction.attack(table, weapon, game.vehicles[AQ], 11, NO_DRM)
    assert events(table, E.ATTACK) == [(weapon, AQ, roll, 11)]


def test_draw_their_fire_5_5_minus_one_at_kalesija_ows_sk4_and_t21():
    """§5.5 Draw their fire: with VL2 at Kalesija, -1 to all direct fire at vehicles in
    the Kalesija OWs, SK-4 and T2-1 this turn; not at SK-3. The marker is spent."""
    game = targets_game(VL2=KAL, AQ=SK4, EA=SK3)
    game.markers[SK4] = (marker(game, "FP7"), 0)  # ATGM, HMG
    game.markers[SK3] = (marker(game, "FP9"), 0)  # tanks, ATGM, HMG
    game.fire_roe, game.roe = 8, 9  # Fire at Will: the RoE stays put during the attacks
    a = ready(game, codes.DRAW_THEIR_FIRE)
    game.tracks[codes.ATGM] = [take_chit(game, codes.ATGM, codes.LETTER_C)]
    double_hmg(game)
    table = make_table(game, ScriptedChance(two_d6=[10, 10, 10]), {decisions.USE_ABILITY: 1})
    reaction.reaction_phase(table)
    assert events(table, E.ATTACK) == [
        (codes.ATGM, AQ, 9, 12), (codes.HMG, AQ, 9, 12), (codes.HMG, EA, 10, 12)]
    assert game.abilities[a].state == codes.SPENT


# --------------------------------------------------------------------------- §7.1.2 RoE


@pytest.mark.parametrize("fired, roe_after", [(False, 6), (True, 5)])
def test_roe_7_1_2_plus_one_per_attack_under_hold_fire(fired, roe_after):
    """§7.1.2: under Hold Fire each attack raises the RoE by 1, hit or miss; under Fire
    at Will it does not (§11 turn 5)."""
    game = targets_game(AQ=K3)
    game.roe = 5
    game.fire_roe = 3 if fired else 0
    game.tracks[codes.ATGM] = [take_chit(game, codes.ATGM, codes.LETTER_C)]
    table = make_table(game, ScriptedChance(two_d6=[2]))
    reaction.attack(table, codes.ATGM, game.vehicles[AQ], 12, NO_DRM)
    assert game.roe == roe_after
    assert events(table, E.ROE) == ([] if fired else [(6, 1, E.ROE_HOLD_ATTACK, 0)])


# --------------------------------------------------------------------------- §7.1.3 damage


R_HIT = {
    codes.TANK: [codes.TRACKS, codes.TRACKS, codes.HULL, codes.HULL, codes.TURRET, codes.TURRET],
    codes.ATGM: [codes.TRACKS, codes.HULL, codes.HULL, codes.HULL, codes.TURRET, codes.TURRET],
    # §11: a 4 hits the hull
    codes.HMG: [codes.TRACKS, codes.TRACKS, codes.TRACKS, codes.HULL, codes.HULL, codes.TURRET],
}


def hit(game, weapon: int, target: int, die: int):
    """One attack that hits (2d6 = 12 against 2); `die` is the hit-location roll."""
    if not game.tracks[weapon]:
        game.tracks[weapon] = [take_chit(game, weapon, double=False if weapon == codes.HMG else None)]
    table = make_table(game, ScriptedChance(two_d6=[12], d6=[die]))
    reaction.attack(table, weapon, game.vehicles[target], 2, NO_DRM)
    return table


@pytest.mark.parametrize("weapon", [codes.TANK, codes.ATGM, codes.HMG])
@pytest.mark.parametrize("die", range(1, 7))
def test_hit_location_7_1_3_tables(weapon, die):
    """§7.1.3, R-HIT: the hit location by weapon and d6."""
    game = targets_game(AQ=K3)
    table = hit(game, weapon, AQ, die)
    location = R_HIT[weapon][die - 1]
    assert game.vehicles[AQ].heavy == {location}
    assert events(table, E.HEAVY_DAMAGE) == [(AQ, location, die, 0)]
    assert not game.over


@pytest.mark.parametrize("die", [1, 6])
def test_apc_hit_7_1_3_destroys_it(die):
    """§7.1.3: any location hit on a PBV 302 destroys it: game over, a defeat (§8)."""
    game = targets_game(QL3=K3)
    table = hit(game, codes.ATGM, QL3, die)
    assert game.over and game.end_reason == E.END_DESTROYED
    assert events(table, E.DESTROYED) == [(QL3, 0, 0, 0)]
    assert result_row(game, 0)["defeat"]


def test_second_hit_7_1_3_same_location_destroys_the_tank():
    """§7.1.3: a second hit at the same location destroys the tank; another location
    does not."""
    game = targets_game(AQ=K3)
    game.fire_roe = game.roe = 5  # Fire at Will: RoE goes down, no ability comes up
    game.vehicles[AQ].heavy = {codes.HULL}
    hit(game, codes.ATGM, AQ, 5)  # turret
    assert game.vehicles[AQ].heavy == {codes.HULL, codes.TURRET} and not game.over
    table = hit(game, codes.ATGM, AQ, 2)  # hull again
    assert game.over and game.end_reason == E.END_DESTROYED
    assert events(table, E.DESTROYED) == [(AQ, 0, 0, 0)]


def test_destroyed_4_game_ends_before_the_next_weapon_fires():
    """§4, §8: the game ends at once when a vehicle is destroyed (no HMG fire after)."""
    game = targets_game(QL3=K3)
    game.tracks[codes.ATGM] = [take_chit(game, codes.ATGM, codes.LETTER_C)]
    game.tracks[codes.HMG] = [take_chit(game, codes.HMG, double=False)]
    table = make_table(game, ScriptedChance(two_d6=[12], d6=[3]))
    reaction.reaction_phase(table)
    assert game.over and [ev[0] for ev in events(table, E.ATTACK)] == [codes.ATGM]


def test_destroyed_4_no_second_attack_after_the_first_destroyed_a_vehicle():
    """§4, §7.1: a double-target chit's second attack is not made once the first one
    destroyed a vehicle (the game is over)."""
    game = targets_game(QL3=K3, EA=K1)
    double_hmg(game)
    table = make_table(game, ScriptedChance(two_d6=[12], d6=[2]))
    reaction.direct_fire(table, codes.HMG, 12, NO_DRM)
    assert game.over and [ev[1] for ev in events(table, E.ATTACK)] == [QL3]


@pytest.mark.parametrize("die, location, stunned", [
    (1, codes.TRACKS, False), (2, codes.HULL, True), (5, codes.TURRET, True)])
def test_stun_7_1_3_on_hull_or_turret(die, location, stunned):
    """§7.1.3: Hull and Turret hits also stun; Hull goes green side up; a Tracks hit
    immobilises and the Move marker comes back (§5.4.1)."""
    game = targets_game(AQ=K3)
    aq = game.vehicles[AQ]
    aq.order, aq.destination = codes.MOVE, KAL
    hit(game, codes.ATGM, AQ, die)
    assert aq.stunned == stunned
    if location == codes.HULL:
        assert aq.hull_green
    if location == codes.TRACKS:
        assert (aq.order, aq.destination) == (codes.NO_ORDER, -1)
    else:
        assert (aq.order, aq.destination) == (codes.MOVE, KAL)


@pytest.mark.parametrize("fired, roe, roe_after", [(False, 1, 7), (True, 10, 8)])
def test_roe_7_1_3_heavy_damage_plus_5_hold_minus_2_fire(fired, roe, roe_after):
    """§7.1.3: heavy damage moves the RoE +5 under Hold Fire (after the attack's +1),
    -2 under Fire at Will."""
    game = targets_game(AQ=K3)
    game.roe, game.fire_roe = roe, (8 if fired else 0)
    if fired:
        ready(game, codes.DRAW_THEIR_FIRE)
    table = hit(game, codes.ATGM, AQ, 2)
    assert game.roe == roe_after
    assert [ev[1:3] for ev in events(table, E.ROE)][-1] == ((-2 if fired else 5), E.ROE_HEAVY)


# --------------------------------------------------------------------------- commanders


@pytest.mark.parametrize("unbuttoned, die, killed", [
    ("night_vision", 6, True), ("night_vision", 5, False), ("turret", 6, True)])
def test_hmg_7_1_2_unbuttoned_commander_killed_on_a_6(unbuttoned, die, killed):
    """§7.1.2: an HMG attack, hit or not, on a vehicle whose commander is unbuttoned
    (Night vision or Turret damage) rolls a d6: on a 6 the commander is killed (TC KIA,
    §7.1.3: RoE +5 under Hold Fire, after the attack's +1)."""
    game = targets_game(AQ=K3)
    aq = game.vehicles[AQ]
    if unbuttoned == "night_vision":
        aq.light = {codes.NIGHT_VISION}
    else:
        aq.heavy = {codes.TURRET}
    game.tracks[codes.HMG] = [take_chit(game, codes.HMG, double=False)]
    table = make_table(game, ScriptedChance(two_d6=[2], d6=[die]))
    reaction.attack(table, codes.HMG, aq, 12, NO_DRM)
    assert aq.commander_killed == killed
    assert events(table, E.COMMANDER_ROLL) == [(AQ, die, int(killed), 0)]
    assert game.roe == (7 if killed else 2)


@pytest.mark.parametrize("case, die", [("buttoned", 1), ("atgm", 6), ("turret_hit_now", 6)])
def test_hmg_7_1_2_no_commander_roll(case, die):
    """§7.1.2: no roll if the commander is buttoned up, for other weapons, or when the
    Turret damage comes with this very attack ("already assigned")."""
    game = targets_game(AQ=K3)
    aq = game.vehicles[AQ]
    weapon = codes.ATGM if case == "atgm" else codes.HMG
    if case == "atgm":
        aq.light = {codes.NIGHT_VISION}
    table = hit(game, weapon, AQ, die)  # the d6 script holds the hit location only
    assert events(table, E.COMMANDER_ROLL) == [] and not aq.commander_killed


def test_commander_killed_7_1_3_fire_at_will_minus_5_and_only_once():
    """§7.1.3: a TC KIA moves the RoE -5 under Fire at Will; a further TC KIA on the
    same vehicle is ignored."""
    game = targets_game(AQ=K3)
    game.roe, game.fire_roe = 15, 9
    for ability in (codes.DRAW_THEIR_FIRE, codes.EXTRA_TURN, codes.EXTRA_FIRE):
        ready(game, ability)
    game.vehicles[AQ].light = {codes.NIGHT_VISION}
    game.tracks[codes.HMG] = [take_chit(game, codes.HMG, double=False)]
    reaction.attack(make_table(game, ScriptedChance(two_d6=[2], d6=[6])), codes.HMG,
                    game.vehicles[AQ], 12, NO_DRM)
    assert game.vehicles[AQ].commander_killed and game.roe == 10
    table = make_table(game, ScriptedChance(two_d6=[2], d6=[6]))
    reaction.attack(table, codes.HMG, game.vehicles[AQ], 12, NO_DRM)
    assert game.roe == 10 and events(table, E.ROE) == []


def test_commander_killed_7_1_2_vl2_is_game_over():
    """§7.1.2: if VL2's commander is killed, game over (a defeat, §8)."""
    game = targets_game(VL2=K2)
    game.vehicles[VL2].light = {codes.NIGHT_VISION}
    game.tracks[codes.HMG] = [take_chit(game, codes.HMG, double=False)]
    reaction.attack(make_table(game, ScriptedChance(two_d6=[2], d6=[6])), codes.HMG,
                    game.vehicles[VL2], 12, NO_DRM)
    assert game.over and game.end_reason == E.END_VL2_KILLED
    assert result_row(game, 0)["defeat"]


@pytest.mark.parametrize("die, acts", [(1, True), (4, True), (5, False), (6, False)])
def test_commander_killed_7_1_3_acts_on_1_to_4_before_each_execution(die, acts):
    """§7.1.3: before each Execution phase a vehicle with its commander killed rolls:
    1-4 it carries out its orders, 5-6 it skips the turn (no move, no fire)."""
    game = quiet_game()
    game.fire_roe = game.roe = 10
    mover, gunner = game.vehicles[AQ], game.vehicles[EA]
    mover.position, mover.order, mover.destination = SAR, codes.MOVE, KAL
    gunner.position, gunner.fire = K1, True
    mover.commander_killed = gunner.commander_killed = True
    game.tracks[codes.ATGM] = [take_chit(game, codes.ATGM, codes.LETTER_R) for _ in range(2)]
    table = make_table(game, ScriptedChance(d6=[die, die]))
    execution.execution_phase(table)
    assert events(table, E.COMMANDER_CHECK) == [(AQ, die, int(acts), 0), (EA, die, int(acts), 0)]
    assert mover.position == (SK1 if acts else SAR)
    assert len(game.tracks[codes.ATGM]) == (1 if acts else 2)
    assert not mover.skip and not gunner.skip  # the roll is made again next turn


# --------------------------------------------------------------------------- §7.2 artillery


def artillery_game(target: int, *overrides: str, **where):
    """The last artillery chit aims at `target`; vehicles where given, the rest at T2
    (or at OP N when T2 is the target)."""
    game = fresh_game(*overrides)
    everyone_at(game, OPN if target == codes.TARGET_T2 else T2)
    at(game, **where)
    game.tracks[codes.ART].append(take_chit(game, codes.ART, target=target))
    return game


@pytest.mark.parametrize("always, roe_after", [(True, 6), (False, 5)])
def test_artillery_I_ROE_ART_effects_even_without_vehicles(always, roe_after):
    """I-ROE-ART: the RoE +1 of fire on Saraci applies even with nobody there (switch
    artillery_effects_always = false: only with vehicles at the target); no 2d6."""
    switch = f"interpretations.artillery_effects_always={str(always).lower()}"
    game = artillery_game(codes.TARGET_S, switch)
    game.roe = 5
    table = make_table(game)
    reaction.artillery(table)
    assert game.roe == roe_after and events(table, E.ARTILLERY) == [(codes.TARGET_S, 0, 0, 0)]


def test_artillery_7_2_tango_2_brings_the_deadline_closer():
    """§7.2 further effects, §2.1 caption ("drop 1 box to 16"): fire on T2 moves the
    deadline one turn earlier."""
    game = artillery_game(codes.TARGET_T2)
    table = make_table(game)
    reaction.artillery(table)
    assert game.deadline == 17 and events(table, E.DEADLINE) == [(17, -1, 0, 0)]


def test_artillery_7_2_regular_no_art_lowers_the_roe():
    """§7.2: a regular No art. marker: nothing is hit and the RoE drops one level."""
    game = artillery_game(codes.NO_ART)
    game.roe = 5
    reaction.artillery(make_table(game))
    assert game.roe == 4


def test_artillery_I_ROE_ART_no_art_effect_does_not_depend_on_vehicles():
    """§7.2: "No art.: No location is affected ... RoE marker decreases by one level":
    the -1 has no target location, so it applies under either I-ROE-ART reading."""
    game = artillery_game(codes.NO_ART, "interpretations.artillery_effects_always=false")
    game.roe = 5
    reaction.artillery(make_table(game))
    assert game.roe == 4


@pytest.mark.parametrize("flipped, roe_after", [(False, 6), (True, 5)])
def test_artillery_7_2_setup_marker(flipped, roe_after):
    """§3 step 6, §7.2: the setup marker fires on Saraci (+1 RoE, random unit) until it
    is flipped to No Artillery, which has no effect at all."""
    game = fresh_game()
    everyone_at(game, T2)
    game.roe, game.setup_flipped = 5, flipped
    table = make_table(game)
    reaction.artillery(table)
    assert game.roe == roe_after


def test_artillery_7_2_a_2_gives_only_the_further_effects():
    """§7.2: vehicles at the target: 2d6; on a 2 only the further effects apply."""
    game = artillery_game(codes.TARGET_S, AQ=SAR)
    game.roe = 5
    aside = list(game.aside)
    table = make_table(game, ScriptedChance(two_d6=[2]))
    reaction.artillery(table)
    assert game.roe == 6 and game.aside == aside
    assert events(table, E.ARTILLERY) == [(codes.TARGET_S, 2, 1, 0)]


def test_artillery_7_2_3_to_11_random_unit_chit_joins_the_weapon_pool():
    """§7.2: on 3-11 one random-unit chit of the vehicles at the target (Kalesija with
    its OWs) and still available is drawn and put in the enemy weapon pool."""
    game = artillery_game(codes.TARGET_K, AQ=KAL, EA=K2, FA=K3)
    fa_chit = ru_chit(game, FA)
    game.aside.remove(fa_chit)
    game.pool.append(fa_chit)  # FA's chit is already in the pool: not available
    aq_chit, ea_chit = ru_chit(game, AQ), ru_chit(game, EA)
    chance = RecordingChance(picks={"ru": [ea_chit]}, two_d6=[11])
    table = make_table(game, chance)
    roe = game.roe
    reaction.artillery(table)
    assert chance.offered == [("ru", sorted([aq_chit, ea_chit]))]
    assert ea_chit in game.pool and ea_chit not in game.aside and aq_chit in game.aside
    assert not game.vehicles[EA].heavy and game.roe == roe + 1
    assert events(table, E.ARTILLERY_DRAW) == [(EA, 1, 0, 0)]


@pytest.mark.parametrize("die, location", [(1, codes.TRACKS), (2, codes.TRACKS), (3, codes.HULL),
                                           (4, codes.HULL), (5, codes.TURRET), (6, codes.TURRET)])
def test_artillery_7_2_a_12_is_heavy_damage(die, location):
    """§7.2: on a 12 the drawn vehicle takes heavy damage (1-2 Tracks, 3-4 Hull, 5-6
    Turret); its chit stays aside; RoE +1 (Saraci) then +5 (heavy, Hold Fire)."""
    game = artillery_game(codes.TARGET_S, AQ=S2)
    game.roe = 1
    chit = ru_chit(game, AQ)
    table = make_table(game, ScriptedChance(picks={"ru": [chit]}, two_d6=[12], d6=[die]))
    reaction.artillery(table)
    assert game.vehicles[AQ].heavy == {location}
    assert chit in game.aside and chit not in game.pool
    assert game.roe == 7


def test_artillery_7_2_a_12_on_an_apc_destroys_it():
    """§7.2, §7.1.3: heavy damage on an APC destroys it."""
    game = artillery_game(codes.TARGET_S, QL3=SAR)
    chance = ScriptedChance(picks={"ru": [ru_chit(game, QL3)]}, two_d6=[12], d6=[4])
    table = make_table(game, chance)
    reaction.artillery(table)
    assert game.over and game.end_reason == E.END_DESTROYED


def test_artillery_7_2_no_available_chit_no_draw():
    """§7.2: only available random-unit chits go in the artillery pool; none, no draw."""
    game = artillery_game(codes.TARGET_S, AQ=SAR)
    chit = ru_chit(game, AQ)
    game.aside.remove(chit)
    game.pool.append(chit)
    table = make_table(game, ScriptedChance(two_d6=[7]))  # no "ru" pick scripted
    reaction.artillery(table)
    assert events(table, E.ARTILLERY_DRAW) == []


# --------------------------------------------------------------------------- §8 victory


def victory_game(*overrides: str, silent: bool = True, direct_chit: bool = False):
    game = fresh_game(*overrides)
    game.setup_flipped = silent
    if direct_chit:
        game.tracks[codes.HMG] = [take_chit(game, codes.HMG)]
    return game


def test_operational_victory_8_I_OPV_two_tanks_at_t2_and_silent_artillery():
    """§8, I-OPV: two tanks at Tango 2 at a turn's end within the deadline, and artillery
    on Vis silent."""
    game = victory_game(direct_chit=True)
    at(game, AQ=T2, EA=T2)
    game.turn = 18
    assert end.assess(game) == (True, False)


@pytest.mark.parametrize("change", ["apcs", "one_tank", "late"])
def test_operational_victory_8_needs_two_tanks_in_time(change):
    """§8: tanks only (APCs do not count), two of them, no later than the T2 deadline."""
    game = victory_game(direct_chit=True)
    at(game, AQ=T2, EA=T2)
    game.turn = 10
    if change == "apcs":
        at(game, EA=SAR, VL2=T2, QL3=T2)
    elif change == "one_tank":
        at(game, EA=KAL)
    else:
        game.turn, game.deadline = 17, 16
    assert end.assess(game) == (False, False) and not game.t2_reached


def test_operational_victory_I_OPV_silence_may_come_later():
    """I-OPV: T2 reached in time counts even if artillery falls silent only later (and
    the tanks left T2); silence is judged when victory is declared."""
    game = victory_game(silent=False, direct_chit=True)
    at(game, AQ=T2, EA=T2)
    game.turn = 12
    assert end.assess(game) == (False, False) and game.t2_reached
    at(game, AQ=KAL, EA=KAL)
    game.turn, game.deadline = 19, 15
    game.tracks[codes.ART].append(take_chit(game, codes.ART, target=codes.NO_ART))  # regular No art.
    assert end.assess(game) == (True, False)


EXTENDED = "game.extend_to_40=true"


@pytest.mark.parametrize("where, silent, chit, turn, overrides, won", [
    (S3, True, False, 20, (), True),  # the damaged tank is at a Saraci OW (I-TACV)
    (SAR, True, False, 12, (), True),
    (SK1, True, False, 12, (), False),  # a damaged tank outside Saraci
    (S3, False, False, 12, (), False),  # artillery still firing
    (S3, True, True, 12, (), False),  # a direct-fire track not empty
    (S3, True, False, 20, (EXTENDED,), True),
    (S3, True, False, 21, (EXTENDED,), False),  # turn 21 comes only with the extension
])
def test_tactical_victory_8_I_TACV(where, silent, chit, turn, overrides, won):
    """§8, I-TACV: tanks, ATGM and HMG tracks empty, artillery silent, every heavily
    damaged unit in Saraci (CP or OW), by the end of turn 20, even when §8's optional
    rule plays on to turn 40."""
    game = victory_game(*overrides, silent=silent, direct_chit=chit)
    at(game, AQ=where)
    game.vehicles[AQ].heavy = {codes.TRACKS}
    game.turn = turn
    assert end.assess(game) == (False, won)


@pytest.mark.parametrize("fire_roe, roe, strategic, political", [
    (0, 3, True, True),  # never fired: Hold Fire side up
    (18, 18, True, True),  # first fire in the Unrestricted range
    (17, 20, False, True),
    (19, 18, True, False),  # fire status above the RoE at the end
])
def test_diplomatic_victories_8_strategic_and_political(fire_roe, roe, strategic, political):
    """§8: strategic if fire never started or started at RoE >= 18; political if the
    fire-status marker is at or below the RoE marker at the end."""
    game = victory_game()
    game.fire_roe, game.roe = fire_roe, roe
    game.operational, game.over, game.end_reason = True, True, E.END_VICTORY
    row = result_row(game, 0)
    assert (row["operational"], row["strategic"], row["political"]) == (True, strategic, political)


@pytest.mark.parametrize("needs_military", [True, False])
def test_diplomatic_victories_I_DIPLO_alongside_a_military_one(needs_military):
    """§8 "in addition to", I-DIPLO: by default no strategic or political victory without
    an operational or tactical one (switch diplomatic_needs_military)."""
    game = victory_game(f"interpretations.diplomatic_needs_military={str(needs_military).lower()}")
    game.over, game.end_reason = True, E.END_TURN_LIMIT
    row = result_row(game, 0)
    assert (row["strategic"], row["political"]) == (not needs_military, not needs_military)
    assert not row["defeat"] and row["end_reason"] == "turn limit"


def test_defeat_8_cancels_every_victory():
    """§8: a destroyed unit ends the game in defeat, whatever was won before."""
    game = victory_game()
    game.operational = game.tactical = True
    game.over, game.end_reason = True, E.END_DESTROYED
    row = result_row(game, 0)
    assert row["defeat"]
    assert not any(row[k] for k in ("operational", "tactical", "strategic", "political"))


def test_hull_flip_4_end_phase_turns_the_hull_marker():
    """§4 step 4b, §7.1.3, §11 end of turn 5: Hull markers flip at the end of each turn
    (green, then red, then green)."""
    game = victory_game(silent=False)
    aq = game.vehicles[AQ]
    aq.heavy, aq.hull_green = {codes.HULL}, True
    table = make_table(game)
    end.end_phase(table)
    assert not aq.hull_green and game.turn == 2
    end.end_phase(table)
    assert aq.hull_green and game.turn == 3
    assert events(table, E.HULL_FLIP) == [(AQ, 0, 0, 0), (AQ, 1, 0, 0)]


def test_turn_limit_4_8_game_ends_after_turn_20():
    """§4, §8: without victory the game ends after turn 20, neither won nor lost."""
    game = victory_game(silent=False)
    game.turn = 19
    table = make_table(game)
    end.end_phase(table)
    assert not game.over and game.turn == 20
    end.end_phase(table)
    assert game.over and game.end_reason == E.END_TURN_LIMIT
    assert not result_row(game, 0)["defeat"]


def test_turn_limit_8_optional_extension_to_40_then_defeat():
    """§8 optional rule: play on past turn 20; no win by turn 40 is a defeat."""
    game = victory_game("game.extend_to_40=true", silent=False)
    game.turn = 20
    table = make_table(game)
    end.end_phase(table)
    assert not game.over and game.turn == 21
    game.turn = 40
    end.end_phase(table)
    assert game.over and game.end_reason == E.END_TURN_40 and result_row(game, 0)["defeat"]


def test_turn_limit_8_extension_with_a_victory_won_earlier():
    """§8 optional rule, I-STICKY: a victory met earlier is no defeat at turn 40."""
    game = victory_game("game.extend_to_40=true", silent=False)
    game.turn, game.operational = 40, True
    end.end_phase(make_table(game))
    assert game.end_reason == E.END_TURN_LIMIT and not result_row(game, 0)["defeat"]


@pytest.mark.parametrize("stop", [1, 0])
def test_stop_on_victory_8_I_END_player_chooses(stop):
    """§4, §8, I-END: when a victory can be declared the player stops (game over,
    victory) or plays on; I-STICKY: a victory met stays won while playing on."""
    game = victory_game(direct_chit=True)
    at(game, AQ=T2, EA=T2)
    game.turn = 8
    table = make_table(game, script={decisions.STOP_ON_VICTORY: stop})
    end.end_phase(table)
    assert table.script.offered(decisions.STOP_ON_VICTORY) == [[0, 1]]
    assert events(table, E.VICTORY) == [(1, 0, stop, 0)]
    assert game.over == bool(stop) and game.operational
    if stop:
        assert game.end_reason == E.END_VICTORY and game.turn == 8
    else:
        at(game, AQ=KAL, EA=KAL)
        game.setup_flipped = False  # artillery fires again: no victory this turn
        end.end_phase(table)
        assert game.operational and not game.over and game.turn == 10
