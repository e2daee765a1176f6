"""The rulebook's worked example (§11, turns 4 and 5) as a golden playthrough.

From the start-of-turn-4 position the text describes (its picture is not printed: the
position below is read from the text), with the chits drawn, the dice rolled and the
choices made as the text says, the reference engine must reach every position, RoE level,
hit, damage and track content the text reports, phase by phase, through the end of turn 5.

The luck is scripted with ScriptedChance, the player with a scripted policy whose
decide() is plain Python (the reference engine's Table calls it directly, no numba).
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from bollesim.bollebank import codes, decisions
from bollesim.bollebank import events as E
from bollesim.bollebank.decisions import pack_order
from bollesim.bollebank.narrate import Narrator
from bollesim.bollebank.reference import radio
from bollesim.bollebank.reference.chance import ScriptedChance
from bollesim.bollebank.reference.end import end_phase
from bollesim.bollebank.reference.execution import execution_phase
from bollesim.bollebank.reference.orders import orders_phase
from bollesim.bollebank.reference.reaction import reaction_phase
from bollesim.bollebank.reference.state import Game, new_game
from bollesim.bollebank.reference.table import Table
from bollesim.bollebank.rules.loader import Ruleset, load_ruleset
from bollesim.game.policy import DecidePolicy

FP7, FP8, FP9 = 3, 4, 5  # enemy-action marker indices (checked against the ruleset below)
SIDE_A, SIDE_B = 0, 1


# ------------------------------------------------------------------ the chits of §11


class Chits:
    """Chit ids picked from the ruleset's arrays by type and letter, each id used once."""

    def __init__(self, rules: Ruleset):
        self.rules = rules
        self.used: set[int] = set()

    def take(self, kind: int, letter: int = codes.NO_LETTER, target: int | None = None) -> int:
        r = self.rules
        for c in range(r.n_pool_chits):
            if (
                c not in self.used
                and r.chit_type[c] == kind
                and r.chit_letter[c] == letter
                and not r.chit_double[c]  # §11 shows every HMG firing at one target only
                and (target is None or r.chit_art_target[c] == target)
            ):
                self.used.add(c)
                return c
        raise AssertionError(f"the ruleset has no free {codes.WEAPON_NAMES[kind]} chit {letter}")


def ru_chit(rules: Ruleset, vehicle: int) -> int:
    """The random-unit chit of a vehicle (§7.2): they follow the pool chits."""
    return rules.n_pool_chits + vehicle


class Example:
    """The start-of-turn-4 position and the chits §11 draws."""

    def __init__(self, rules: Ruleset):
        chits = Chits(rules)
        L, Cn, R = codes.LETTER_L, codes.LETTER_C, codes.LETTER_R
        # On the tracks at the start of turn 4. One tank chit: §11 turn 4 makes it two,
        # and the two drawn later are the only L and R tanks, so this one is a C.
        self.tank0 = chits.take(codes.TANK, Cn)
        # Three ATGM chits, so that the ATGM (R) of turn 4 makes the to-hit 10 (§11).
        self.atgm0 = [chits.take(codes.ATGM, L), chits.take(codes.ATGM, Cn), chits.take(codes.ATGM, R)]
        # At most one HMG chit: with it, three HMG chits at the turn-5 attack still hit
        # only on 12 (§11).
        self.hmg0 = chits.take(codes.HMG, R)
        self.art_t2 = chits.take(codes.ART, target=codes.TARGET_T2)  # artillery fires at T2 (§11)
        # Turn 4 draws.
        self.atgm_r = chits.take(codes.ATGM, R)
        self.tank_r = chits.take(codes.TANK, R)
        self.hmg_c = chits.take(codes.HMG, Cn)
        self.hmg_l = chits.take(codes.HMG, L)
        self.ru_vl2 = ru_chit(rules, codes.VL2)
        # Turn 5 draws.
        self.car = chits.take(codes.CAR)
        self.atgm_c = chits.take(codes.ATGM, Cn)
        self.atgm_l = chits.take(codes.ATGM, L)
        self.art_s = chits.take(codes.ART, target=codes.TARGET_S)
        self.tank_l = chits.take(codes.TANK, L)
        self.hmg_l2 = chits.take(codes.HMG, L)
        # Turn 5 artillery on Saraci draws one of BQ, FB, GB: the text does not say which.
        self.ru_drawn = ru_chit(rules, codes.FB)


def start_of_turn_4(rules: Ruleset, x: Example) -> Game:
    """The position at turn 4's start, as §11's text describes it."""
    game = new_game(rules)
    place = {
        codes.VL2: codes.SK1, codes.QL3: codes.SAR, codes.QL1: codes.SK2, codes.AQ: codes.SK2, codes.EA: codes.SK2,
        codes.FA: codes.SK3,
        codes.BQ: codes.SAR, codes.FB: codes.SAR, codes.GB: codes.S3,
    }
    for v in game.vehicles:
        v.position = place[v.index]
    for v in (codes.QL1, codes.AQ, codes.EA, codes.FA):  # platoon 1 and QL1 under Move orders to Kalesija
        game.vehicles[v].order = codes.MOVE
        game.vehicles[v].destination = codes.KAL
    game.vehicles[codes.VL2].destination = codes.OPN  # VL2, the player, heads for OP N
    game.turn = 4
    game.roe = 6  # fire status Hold (fire_roe 0)
    game.deadline = 17  # I-DEADLINE: the T2 artillery of turn 4 brings it to 16
    game.tracks = [
        [x.tank0],
        list(x.atgm0),
        [x.hmg0],
        [rules.setup_chit, x.art_t2],
    ]
    on_tracks = {c for track in game.tracks for c in track}
    game.pool = [c for c in game.pool if c not in on_tracks]
    # Enemy-action markers already drawn for SK2 and SK3; FP7 is left in its pool.
    game.markers = {codes.SK2: (FP8, SIDE_A), codes.SK3: (FP9, SIDE_B)}
    game.marker_pools[codes.POOL_789] = [FP7]
    # VL2's random-unit chit went into the pool through artillery in an earlier turn.
    game.aside.remove(x.ru_vl2)
    game.pool.append(x.ru_vl2)
    return game


# ------------------------------------------------------------------ the scripted player


class ScriptedPlayer:
    """A policy that makes the choices of §11, one (decision kind, option value) at a time.

    Only decisions with two or more options reach the policy (Table.ask), so the script
    lists exactly those; an unexpected decision or a missing option fails the test.
    """

    def __init__(self, steps):
        self.steps = deque(steps)

    def decide(self, kind, obs, rules, options, n_options, params, prng):
        assert self.steps, f"unscripted decision {decisions.KIND_NAMES[kind]}"
        want_kind, value = self.steps.popleft()
        name = decisions.KIND_NAMES[kind]
        assert kind == want_kind, f"asked {name}, the script has {decisions.KIND_NAMES[want_kind]}"
        offered = [int(o) for o in options[:n_options]]
        assert offered.count(value) == 1, f"{name}: {value} not among {offered}"
        return offered.index(value)


def move(vehicle: int, dest: int) -> int:
    return pack_order(codes.MOVE, 1 << vehicle, dest)


def fire(*vehicles: int) -> int:
    return pack_order(codes.FIRE, sum(1 << v for v in vehicles), -1)


# ------------------------------------------------------------------ reading the trace


class Phases:
    """Runs one phase at a time and hands back the events it logged."""

    def __init__(self, table: Table, trace: list):
        self.table, self.trace = table, trace

    def run(self, phase) -> list[tuple]:
        start = len(self.trace)
        phase(self.table)
        assert not self.table.game.over
        return [ev[1:] for ev in self.trace[start:]]


def of(events: list[tuple], kind: int) -> list[tuple]:
    """The arguments (a, b, c, d) of the events of one kind, in order."""
    return [ev[1:] for ev in events if ev[0] == kind]


def positions(game: Game) -> dict[str, str]:
    return {v.name: game.rules.position_ids[v.position] for v in game.vehicles}


# ------------------------------------------------------------------ the example


@pytest.mark.parametrize("per_vehicle_radio", [True, False], ids=["I-RADIO", "one-roll"])
def test_worked_example_turns_4_and_5(per_vehicle_radio: bool):
    overrides = [] if per_vehicle_radio else ["interpretations.radio_check_per_vehicle=false"]
    rules = load_ruleset(overrides=overrides)
    assert [rules.marker_ids[m] for m in (FP7, FP8, FP9)] == ["FP7", "FP8", "FP9"]
    x = Example(rules)
    game = start_of_turn_4(rules, x)

    # §11 turn 5 gives one radio roll (3) for the platoon Fire order. Under I-RADIO (the
    # default ruleset) each of AQ, EA and FA rolls: the text's 3 is AQ's, and EA and FA
    # are scripted to succeed too, as the text says the order reached the platoon. With
    # radio_check_per_vehicle = false the text's single roll serves all three.
    platoon_radio = [3, 3, 2] if per_vehicle_radio else [3]
    chance = ScriptedChance(
        picks={
            "chit": [
                x.atgm_r, x.tank_r,  # T4 first pair
                x.hmg_c, x.ru_vl2, x.hmg_l,  # T4 second pair, VL2's random unit between
                x.car, x.atgm_c,  # T5: the civilian car, no order
                x.atgm_l, x.art_s,  # T5 first pair: platoon fire
                x.tank_l, x.hmg_l2,  # T5 second pair: single fire
            ],
            "marker": [FP7],  # T4: FA enters SK4, the last 7-8-9 marker
            "ru": [x.ru_drawn],  # T5: artillery on Saraci
        },
        d6=[
            2,  # T4: VL2's light damage: radio
            2,  # T4: radio check of QL3's Move order
            3,  # T4: tank status, cold
            *platoon_radio,  # T5: radio check of platoon 1's Fire order
            1,  # T5: radio check of GB's Fire order ("checks the radio link successfully")
            6,  # T5: GB's indirect fire at the ATGM track misses on a 6
            5,  # T5: tank status, hot
            4,  # T5: HMG hit location on AQ: hull
        ],
        two_d6=[
            10, 6,  # T4: ATGM and HMG at FA
            6, 8, 12,  # T5: tank at EA, ATGM and HMG at AQ
            11,  # T5: artillery on Saraci
        ],
        sides=[SIDE_A],  # T4: FP7 comes up on side a (BSA ATGM+HMG, UN HMG)
    )
    player = ScriptedPlayer([
        # turn 4
        (decisions.VL2_DESTINATION, decisions.PASS),  # VL2 keeps heading for OP N
        (decisions.ISSUE_ORDER, move(codes.BQ, codes.S1)),  # ATGM (R) + Tank (R): Move for one vehicle
        (decisions.DRAW_AGAIN, 1),
        (decisions.ISSUE_ORDER, move(codes.QL3, codes.OPN)),  # HMG (C) + HMG (L): a platoon Move, to QL3
        (decisions.STACK_PRIORITY, codes.AQ),  # AQ enters SK3; QL1 and EA stay in SK2
        (decisions.ABILITY_SIDE, 1),  # RoE 8: VL2's marker on its Extra order side
        # turn 5
        (decisions.VL2_DESTINATION, decisions.PASS),
        (decisions.ISSUE_ORDER, fire(codes.AQ, codes.EA, codes.FA)),  # ATGM (L) + Art (S): platoon Fire
        (decisions.DRAW_AGAIN, 1),
        (decisions.ISSUE_ORDER, fire(codes.GB)),  # Tank (L) + HMG (L): Fire for one vehicle
        (decisions.DRAW_AGAIN, 0),  # three tank chits on the track: stop
        (decisions.STACK_PRIORITY, codes.QL1),  # QL1 enters SK3 (AQ leaves it); EA stays in SK2
        (decisions.FIRE_ORDER, codes.EA),  # "He decides to start with EA firing from SK-2"
        (decisions.FIRE_TARGET, codes.TANK),  # EA at SK2: tank or ATGM, it fires at the tank
        (decisions.FIRE_ORDER, codes.AQ),  # then AQ at SK4 (one target: the HMG); GB is left last
        (decisions.FIRE_TARGET, codes.ATGM),  # GB at S3: the last ATGM is an L
    ])
    policy = DecidePolicy(name="script", doc="", parameters=(), decide=player.decide, game="bollebank")
    trace: list = []
    table = Table(game, chance, policy, np.zeros(0), seed=0, game_index=0, trace=trace)
    run = Phases(table, trace).run
    V = game.vehicles
    pool0 = list(game.pool)

    # ---------------------------------------------------------------- turn 4, orders
    table.log(E.TURN_START, game.turn, game.deadline, game.roe, game.fire_roe)  # as play_turns does
    ev = run(orders_phase)
    drawn4 = [x.atgm_r, x.tank_r, x.hmg_c, x.ru_vl2, x.hmg_l]
    assert of(ev, E.DRAW) == [(c, 0, 0, 0) for c in drawn4]
    # ATGM (R) + Tank (R): Fire or Move for a single vehicle; RoE 6 allows only Move.
    pairs = of(ev, E.PAIR)
    assert pairs[0] == (x.atgm_r, x.tank_r, 1, 1)  # fire allowed by the matrix, move, single
    assert pairs[1] == (x.hmg_c, x.hmg_l, 0, 1 + 2)  # move, platoon scope
    assert of(ev, E.LIGHT_DAMAGE) == [(codes.VL2, codes.RADIO, 2, 0)]
    assert V[codes.VL2].light == {codes.RADIO}
    assert x.ru_vl2 in game.aside and x.ru_vl2 not in game.pool  # set aside (§5.3)
    assert V[codes.BQ].order == codes.MOVE and V[codes.BQ].destination == codes.S1
    assert V[codes.QL3].order == codes.MOVE and V[codes.QL3].destination == codes.OPN
    # BQ's order needs no roll; QL3's crosses VL2's damaged radio: a 2 of 1-3, no drm.
    assert of(ev, E.RADIO) == [(codes.BQ, 0, radio.AUTOMATIC, 1), (codes.QL3, 2, 3, 1)]
    assert not game.fired and game.roe == 6
    assert game.tracks == [
        [x.tank0, x.tank_r],
        [*x.atgm0, x.atgm_r],
        [x.hmg0, x.hmg_c, x.hmg_l],
        [rules.setup_chit, x.art_t2],
    ]
    assert rules.atgm_to_hit[len(game.tracks[codes.ATGM]) - 1] == 10  # §11: "to-hit value is 10"
    assert game.pairs_this_turn == 2  # the doubles ended the phase
    assert sorted(game.pool) == sorted(c for c in pool0 if c not in drawn4)

    # ---------------------------------------------------------------- turn 4, execution
    ev = run(execution_phase)
    assert positions(game) == {
        "VL2": "OPN1", "QL3": "SK1", "QL1": "SK2", "AQ": "SK3", "EA": "SK2", "FA": "SK4",
        "BQ": "S1", "FB": "SAR", "GB": "S3",
    }
    # QL1 and EA cannot enter SK3: stacking limit 1 (§2.1.1), AQ took the place.
    assert of(ev, E.NOT_MOVED) == [(codes.QL1, E.STACKING, -1, 0), (codes.EA, E.STACKING, -1, 0)]
    assert of(ev, E.MARKER_DRAWN) == [(codes.SK4, FP7, SIDE_A, 0)]
    assert game.markers[codes.SK4] == (FP7, SIDE_A) and game.marker_pools[codes.POOL_789] == []
    # BQ reaches S1 and its Move marker returns to the Order Matrix.
    assert of(ev, E.ARRIVED) == [(codes.BQ, codes.S1, 0, 0)]
    assert V[codes.BQ].order == codes.NO_ORDER and V[codes.BQ].destination == -1
    assert all(v.destination == codes.KAL for v in V if v.index in (codes.QL1, codes.AQ, codes.EA, codes.FA))
    assert of(ev, E.FIRE) == []  # no Fire orders: the fire segment is skipped

    # ---------------------------------------------------------------- turn 4, reaction
    ev = run(reaction_phase)
    assert of(ev, E.TANK_STATUS) == [(3, 0, 2, 0)]  # two tank chits: hot on 5-6; a 3
    assert not game.tank_hot
    # ATGM at FA (SK4, FP 7): 10, -1 for BQ in the R overwatch S1 = 9 against 10, miss.
    # HMG at FA: 6 against 12, miss. Each attack under Hold Fire: RoE +1.
    assert of(ev, E.ATTACK) == [(codes.ATGM, codes.FA, 9, 10), (codes.HMG, codes.FA, 6, 12)]
    assert of(ev, E.ROE) == [(7, 1, E.ROE_HOLD_ATTACK, 0), (8, 1, E.ROE_HOLD_ATTACK, 0)]
    assert game.roe == 8
    # RoE 8: VL2's ability becomes available, Extra order side up (§5.5).
    assert of(ev, E.ABILITY) == [(0, E.ABILITY_AVAILABLE, 1, 0)]
    assert game.abilities[0].state == codes.AVAILABLE
    assert rules.ability_sides[0, game.abilities[0].side] == codes.EXTRA_ORDER
    # Artillery at T2 (no vehicles there): the T2 deadline drops to 16 (I-DEADLINE).
    assert of(ev, E.ARTILLERY) == [(codes.TARGET_T2, 0, 0, 0)]
    assert of(ev, E.DEADLINE) == [(16, -1, 0, 0)]
    assert game.deadline == 16
    assert of(ev, E.HEAVY_DAMAGE) == [] and not any(v.heavy for v in V)

    # ---------------------------------------------------------------- turn 4, end
    ev = run(end_phase)
    assert of(ev, E.VICTORY) == [] and of(ev, E.HULL_FLIP) == []
    assert game.turn == 5

    # ---------------------------------------------------------------- turn 5, orders
    table.log(E.TURN_START, game.turn, game.deadline, game.roe, game.fire_roe)
    ev = run(orders_phase)
    # The civilian car is retired and the ATGM (C) goes on its track, no order (§5.3).
    assert of(ev, E.CIVILIAN_CAR) == [(x.car, x.atgm_c, 0, 0)]
    assert x.car in game.retired and x.car not in game.pool
    assert of(ev, E.PAIR) == [(x.atgm_l, x.art_s, 1, 0 + 2), (x.tank_l, x.hmg_l2, 1, 0)]
    # The first Fire order: the fire status marker goes to box 8 (§5.2).
    assert of(ev, E.FIRE_STATUS) == [(8, 0, 0, 0)]
    assert game.fire_roe == 8 and game.fire_turn == 5
    assert of(ev, E.ORDER) == [
        (fire(codes.AQ, codes.EA, codes.FA), decisions.ISSUE_ORDER, 0, 0),
        (fire(codes.GB), decisions.ISSUE_ORDER, 0, 0),
    ]
    if per_vehicle_radio:
        platoon_checks = [(codes.AQ, 3, 3, 1), (codes.EA, 3, 3, 1), (codes.FA, 2, 3, 1)]
    else:
        platoon_checks = [(codes.AQ, 3, 3, 1), (codes.EA, 3, 3, 1), (codes.FA, 3, 3, 1)]
    assert of(ev, E.RADIO) == [*platoon_checks, (codes.GB, 1, 3, 1)]
    assert {v.name for v in V if v.fire} == {"AQ", "EA", "FA", "GB"}
    # VL2 is not yet at OP N: no Extra order (§11 note), the marker stays available.
    assert game.abilities[0].state == codes.AVAILABLE
    assert game.tracks == [
        [x.tank0, x.tank_r, x.tank_l],  # "already three enemy tank counters"
        [*x.atgm0, x.atgm_r, x.atgm_c, x.atgm_l],
        [x.hmg0, x.hmg_c, x.hmg_l, x.hmg_l2],
        [rules.setup_chit, x.art_t2, x.art_s],
    ]
    assert game.roe == 8

    # ---------------------------------------------------------------- turn 5, execution
    ev = run(execution_phase)
    # FA reaches Kalesija, QL1 enters SK3 as AQ leaves it for SK4 (stacking is judged at
    # the end of all moves), EA stays in SK2, VL2 reaches OP N, QL3 moves to OPN1.
    assert positions(game) == {
        "VL2": "OPN", "QL3": "OPN1", "QL1": "SK3", "AQ": "SK4", "EA": "SK2", "FA": "KAL",
        "BQ": "S1", "FB": "SAR", "GB": "S3",
    }
    assert of(ev, E.NOT_MOVED) == [(codes.EA, E.STACKING, -1, 0)]
    assert sorted(of(ev, E.ARRIVED)) == sorted([(codes.FA, codes.KAL, 0, 0), (codes.VL2, codes.OPN, 0, 0)])
    assert V[codes.FA].order == codes.NO_ORDER and V[codes.VL2].destination == -1
    assert of(ev, E.MARKER_DRAWN) == []
    # Fire "in any order desired": EA at SK2 removes the last tank, AQ at SK4 the last
    # HMG, GB at S3 fires indirectly at the ATGM (L) and misses on a 6. FA at Kalesija has
    # no icons to fire from.
    assert of(ev, E.FIRE) == [(codes.EA, codes.TANK, 0, 1), (codes.AQ, codes.HMG, 0, 1), (codes.GB, codes.ATGM, 6, 0)]
    assert of(ev, E.REMOVED) == [(x.tank_l, codes.TANK, 0, 0), (x.hmg_l2, codes.HMG, 0, 0)]
    assert x.hmg_l2 in game.pool and x.tank_l in game.pool
    assert game.tracks[codes.TANK] == [x.tank0, x.tank_r]
    assert game.tracks[codes.HMG] == [x.hmg0, x.hmg_c, x.hmg_l]
    assert len(game.tracks[codes.ATGM]) == 6 and game.tracks[codes.ATGM][-1] == x.atgm_l

    # ---------------------------------------------------------------- turn 5, reaction
    ev = run(reaction_phase)
    assert of(ev, E.TANK_STATUS) == [(5, 1, 2, 0)]  # hot on 5-6: a 5, hot barrel
    assert game.tank_hot
    # Tank at EA (SK2 is the only position its fields of fire reach): 6 against 7.
    # ATGM at AQ (SK4, FP 7): §11 says "the last counter on the ATGM track fires from C
    # area, no die-roll modifier". By the text's own draws the last ATGM chit is the
    # ATGM (L) of this turn's first pair, and GB stands in S3, the L overwatch, so the
    # engine applies the -1 (§7.1.1): 8 - 1 = 7 against 10. A miss either way.
    # HMG at AQ: 12 against 12, a hit; location 4: hull (R-HIT, §11).
    assert of(ev, E.ATTACK) == [(codes.TANK, codes.EA, 6, 7), (codes.ATGM, codes.AQ, 7, 10),
                                (codes.HMG, codes.AQ, 12, 12)]
    assert rules.atgm_to_hit[len(game.tracks[codes.ATGM]) - 1] == 10
    assert rules.hmg_to_hit[len(game.tracks[codes.HMG]) - 1] == 12
    assert of(ev, E.HEAVY_DAMAGE) == [(codes.AQ, codes.HULL, 4, 0)]
    aq = V[codes.AQ]
    assert aq.heavy == {codes.HULL} and aq.hull_green and aq.stunned
    assert of(ev, E.COMMANDER_ROLL) == []  # AQ was not unbuttoned
    # RoE: heavy damage under Fire at Will -2 to 6, and VL2's ability goes back to the
    # track; then the artillery on Saraci +1 to 7, not enough to bring it back.
    assert of(ev, E.ROE) == [(6, -2, E.ROE_HEAVY, 0), (7, 1, E.ROE_ART, 0)]
    assert of(ev, E.ABILITY) == [(0, E.ABILITY_RETURNED, 1, 0)]
    assert game.abilities[0].state == codes.ON_TRACK
    # Artillery on Saraci: BQ (S1), FB (SAR) and GB (S3) are there; 2d6 = 11: one of
    # their random-unit chits goes into the enemy weapon pool, the others stay aside.
    assert of(ev, E.ARTILLERY) == [(codes.TARGET_S, 11, 3, 0)]
    assert of(ev, E.ARTILLERY_DRAW) == [(codes.FB, 1, 0, 0)]
    assert x.ru_drawn in game.pool and x.ru_drawn not in game.aside
    assert {ru_chit(rules, v) for v in (codes.BQ, codes.GB)} <= set(game.aside)
    assert game.roe == 7 and game.fire_roe == 8
    assert game.deadline == 16

    # ---------------------------------------------------------------- turn 5, end
    ev = run(end_phase)
    assert of(ev, E.VICTORY) == []
    assert of(ev, E.HULL_FLIP) == [(codes.AQ, 0, 0, 0)]  # the hull marker flips to red
    assert not aq.hull_green
    assert game.turn == 6 and not game.over

    # Every scripted chit, die, side and choice was used, and nothing more.
    assert chance.unused() == {}
    assert not player.steps
    # The trace narrates without gaps (every event has a line of its own).
    lines = Narrator(rules).narrate(trace)
    assert not any(line.startswith("event ") for line in lines)
    assert "=== Turn 5 (T2 deadline 16, RoE 8) ===" in lines
    # §11 in its own words: places by name, the refusal and its reason, the ATGM roll
    # with its modifier and target number, why the draw ends, the HMG hit on a 12.
    assert ("Pair ATGM (R) + Tank (R): the Order Matrix gives Fire or Move for one vehicle; "
            "cannot fire: RoE 6 < 8.") in lines
    assert "Issues Move to OP N CP for QL3." in lines
    assert "Two HMG chits: the Orders phase ends (§5.3)." in lines
    assert "FA moves from SK-3 CKP to SK-4 CKP." in lines
    assert ("ATGM fires at FA: to hit 10 on 2d6, -1 for a UN vehicle in an R overwatch (8.3%); "
            "the die roll is 10, modified by -1 = 9: miss.") in lines
    assert "The player stops drawing, with 3 tank chits on the track." in lines
    assert "HMG fires at AQ: to hit 12 on 2d6 (2.8%); the die roll is 12: HIT." in lines
