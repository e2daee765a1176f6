"""Readings (docs/readings.md): each is declared with its alternatives, switched on by name,
and each alternative the engines implement plays as it says, rule by rule on hand-built
positions of the reference engine (the fast engine is held to it in test_fast_engine.py).
"""

from __future__ import annotations

from functools import cache

import pytest
from conftest import events, everyone_at, make_table, take_chit

from bollesim.bollebank import codes, decisions
from bollesim.bollebank import events as E
from bollesim.bollebank.codes import AQ, EA, FA, KAL, OPN, QL3, SAR, SK1, T2, T23
from bollesim.bollebank.decisions import pack_order
from bollesim.bollebank.reference import end, execution, orders, reaction
from bollesim.bollebank.reference.chance import ScriptedChance
from bollesim.bollebank.reference.state import new_game
from bollesim.bollebank.rules.loader import RulesetError, load_ruleset
from bollesim.bollebank.rules.readings import BY_ID, READINGS

ALTERNATIVES = [(r.id, v.name) for r in READINGS for v in r.alternatives]


@cache
def rules_reading(rid: str = "", variant: str = ""):
    return load_ruleset(readings={rid: variant} if rid else None)


def game_reading(rid: str = "", variant: str = ""):
    return new_game(rules_reading(rid, variant))


# --------------------------------------------------------------------------- declared


def test_the_default_ruleset_plays_every_default():
    rules = load_ruleset()
    assert rules.readings == {r.id: r.default for r in READINGS}


@pytest.mark.parametrize("rid, variant", ALTERNATIVES, ids=[f"{r}={v}" for r, v in ALTERNATIVES])
def test_every_alternative_loads_and_is_recognised(rid, variant):
    """An alternative is a valid ruleset, plays as named, and leaves the other readings."""
    rules = rules_reading(rid, variant)
    default = load_ruleset()
    assert rules.readings[rid] == variant
    assert rules.digest != default.digest
    others = {k: v for k, v in rules.readings.items() if k != rid}
    assert others == {k: v for k, v in default.readings.items() if k != rid}


def test_a_reading_is_the_same_as_its_values():
    """--reading I-AIR=ceil and the key it stands for give the same ruleset."""
    by_name = load_ruleset(readings={"I-AIR": "ceil", "I-RADIO": "per_order"})
    by_keys = load_ruleset(overrides=["interpretations.airstrike_leaves=ceil",
                                      "interpretations.radio_check_per_vehicle=false"])
    assert by_name.digest == by_keys.digest
    assert by_name.readings["I-AIR"] == "ceil" and by_keys.readings["I-RADIO"] == "per_order"


def test_values_matching_no_variant_are_custom():
    rules = load_ruleset(overrides=["tracks.tank_to_hit=9"])
    assert rules.readings["R-TRACK"] == "custom"


@pytest.mark.parametrize("choice, key, words", [
    ({"I-AIRR": "ceil"}, "I-AIRR", "did you mean I-AIR?"),
    ({"I-AIR": "round"}, "I-AIR", "unknown variant 'round' (variants: floor, ceil)"),
])
def test_an_unknown_reading_or_variant_names_what_exists(choice, key, words):
    with pytest.raises(RulesetError) as info:
        load_ruleset(readings=choice)
    assert info.value.key == key and words in info.value.problem


def test_every_alternative_says_what_it_is():
    for reading in READINGS:
        assert reading.meaning and reading.text and (reading.alternatives or reading.fixed)
        names = [v.name for v in reading.variants()]
        assert len(names) == len(set(names)), reading.id
        for v in reading.alternatives:
            assert v.description and v.values is not None, (reading.id, v.name)


# --------------------------------------------------------------------------- I-AIR


@pytest.mark.parametrize("variant, kept", [("floor", (1, 2, 0, 1)), ("ceil", (2, 3, 1, 2))])
def test_airstrike_I_AIR_floor_or_ceil_of_half(variant, kept):
    """I-AIR: 3 tank, 5 ATGM, 1 HMG and 3 regular artillery chits keep floor(n/2) or,
    under "ceil", ceil(n/2); the setup marker stays under either."""
    game = game_reading("I-AIR", variant)
    game.tracks[codes.TANK] = [take_chit(game, codes.TANK) for _ in range(3)]
    game.tracks[codes.ATGM] = [take_chit(game, codes.ATGM) for _ in range(5)]
    game.tracks[codes.HMG] = [take_chit(game, codes.HMG)]
    game.tracks[codes.ART] += [take_chit(game, codes.ART, target=t)
                           for t in (codes.TARGET_S, codes.TARGET_K, codes.TARGET_T2)]
    game.airstrike_pending = True
    table = make_table(game)
    execution.airstrike(table)
    assert tuple(len(game.tracks[t]) - (t == codes.ART) for t in range(4)) == kept
    assert events(table, E.AIRSTRIKE) == [tuple(n - k for n, k in zip((3, 5, 1, 3), kept,
                                                                          strict=True))]


# --------------------------------------------------------------------------- I-ART-APC


def apc_under_fire(variant: str):
    """QL3 alone in Saraci under artillery; a 12 draws its random-unit chit."""
    game = game_reading("I-ART-APC", variant)
    everyone_at(game, T2)
    game.vehicles[QL3].position = SAR
    game.tracks[codes.ART].append(take_chit(game, codes.ART, target=codes.TARGET_S))
    chit = next(c for c in game.aside if game.rules.chit_vehicle[c] == QL3)
    return game, chit


def test_artillery_I_ART_APC_a_12_destroys_an_apc_by_default():
    game, chit = apc_under_fire("destroys")
    reaction.artillery(make_table(game, ScriptedChance(picks={"ru": [chit]}, two_d6=[12],
                                                       d6=[4])))
    assert game.over and game.end_reason == E.END_DESTROYED


def test_artillery_I_ART_APC_location_an_apc_survives_one_hit():
    """Under "location" the APC takes the hit like a tank (hull: stunned, RoE +5 under
    Hold Fire after the +1 of fire on Saraci); a second hull hit destroys it."""
    game, chit = apc_under_fire("location")
    game.roe = 1
    reaction.artillery(make_table(game, ScriptedChance(picks={"ru": [chit]}, two_d6=[12],
                                                       d6=[4])))
    ql3 = game.vehicles[QL3]
    assert not game.over and ql3.heavy == {codes.HULL} and ql3.stunned and game.roe == 7
    second = ScriptedChance(picks={"ru": [chit]}, two_d6=[12], d6=[3])
    reaction.artillery(make_table(game, second, {decisions.ABILITY_SIDE: 0}))  # RoE 8: VL2's marker
    assert game.over and game.end_reason == E.END_DESTROYED


def test_I_ART_APC_a_damaged_apc_is_no_tow_and_no_airstrike_reason():
    """§5.4.3 tows tanks only; §5.4.4 needs a tank with heavy damage."""
    game = game_reading("I-ART-APC", "location")
    game.vehicles[QL3].heavy = {codes.TRACKS}
    game.vehicles[QL3].position = SK1
    table = make_table(game)
    assert orders.tow_options(table) == []
    assert not orders.airstrike_allowed(game)


# --------------------------------------------------------------------------- I-FIRST-FIRE


@pytest.mark.parametrize("variant, offered", [("first", True), ("every", False)])
def test_fire_I_FIRST_FIRE_later_orders_and_the_roe(variant, offered):
    """§5.4.2: once fire has started, a later Fire order needs no RoE; under "every" it
    needs fire_allowed (8) again."""
    game = game_reading("I-FIRST-FIRE", variant)
    game.roe = 9
    table = make_table(game)
    orders.issue(table, pack_order(codes.FIRE, 1 << AQ, -1))
    game.roe = 5
    options = orders.order_options(table, (codes.TANK, codes.HMG))  # fire, single vehicle
    assert any(decisions.order_kind(o) == codes.FIRE for o in options[1:]) == offered


# --------------------------------------------------------------------------- I-OPV


@pytest.mark.parametrize("variant, reached", [("turn_end", False), ("any_moment", True)])
def test_operational_I_OPV_tanks_at_tango2_before_the_deadline_moves(variant, reached):
    """Turn 17, deadline 17: AQ and EA enter Tango 2 in the Move step; artillery on T2
    then brings the deadline to 16. At the turn's end it is too late; read "any moment",
    the tanks were there in time."""
    game = game_reading("I-OPV", variant)
    everyone_at(game, OPN)
    for v in (AQ, EA):
        vehicle = game.vehicles[v]
        vehicle.position, vehicle.order, vehicle.destination = T23, codes.MOVE, T2
    game.turn, game.deadline = 17, 17
    execution.move_step(make_table(game))
    game.deadline = 16
    end.assess(game)
    assert game.t2_reached == reached


# --------------------------------------------------------------------------- I-TOW-CP


@pytest.mark.parametrize("variant, offered", [("any_cp", [SAR, OPN, T2]), ("nearest", [T2])])
def test_tow_I_TOW_CP_from_a_contact_point(variant, offered):
    """§5.4.3: a tow hooked up in Kalesija may go to any other contact point (its example:
    towed to Saraci); read "nearest", only to the nearest one, Tango 2."""
    game = game_reading("I-TOW-CP", variant)
    everyone_at(game, OPN)
    aq, fa = game.vehicles[AQ], game.vehicles[FA]
    aq.position, aq.heavy = KAL, {codes.TRACKS}
    fa.position, fa.order, fa.tow_target, fa.destination = KAL, codes.TOW, AQ, KAL
    table = make_table(game, script={decisions.TOW_DESTINATION: offered[-1]})
    execution.hook_tows(table)
    assert (table.script.offered(decisions.TOW_DESTINATION) or [[fa.destination]]) == [offered]
    assert fa.towing == AQ and fa.destination == offered[-1]


def test_readings_cover_the_interpretation_switches():
    """Every interpretation key is the value of some reading."""
    from bollesim.bollebank.rules.loader import BOOK

    keys = {k for r in READINGS for k in BOOK.reading_keys(r)}
    switches = {f"interpretations.{k}" for k in load_ruleset().data["interpretations"]
                if k != "source"}
    assert switches <= keys
    assert "I-ART-APC" in BY_ID and "I-FIRST-FIRE" in BY_ID
