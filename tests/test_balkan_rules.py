"""The Balkan Wars rules the first model did not play, each held three ways: the reference
engine's step does what the text (or the reading) says, on a battle set up by hand; both
engines play the same rows on games where the step is met (the reference's events count
it); and where the rule moves a result, it moves it the way it should. The shipped
scenario under I-RETREAT=leaves plays main's rows before these rules."""

from __future__ import annotations

import copy
import hashlib
import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from bollesim.balkan import engine, odds, reference, ruleset, tactics
from bollesim.balkan import reference_fire as fire
from bollesim.balkan import reference_move as moves
from bollesim.balkan.result import RESULT
from bollesim.balkan.ruleset import BOOK, build, load_ruleset
from bollesim.errors import RulesetError

ROOT = Path(__file__).resolve().parents[1]
CROSSING = ROOT / "bollesim" / "balkan" / "scenarios" / "crossing.toml"
DEFAULTS = np.array([2, 8, 0, 1], dtype=np.float64)  # the assault family's defaults


def played(rules, params=DEFAULTS, games=40, seed=1) -> tuple[np.ndarray, Counter]:
    """Both engines' rows of the same games (asserted equal) and the events the
    reference's games met: kinds, "advance:HOW", "retire:SIDE:HOW", "fights:N"."""
    fast = engine.play_rules(rules, np.tile(params, (games, 1)), seed, 0)
    events, slow = Counter(), []
    for g in range(games):
        b = reference.new_battle(rules, seed, g)
        b.log = []
        slow.append(RESULT.ints(reference.play(rules, params, seed, g, b)))
        per_bound = Counter()
        for bound, kind, *facts in b.log:
            events[kind] += 1
            if kind == "advance":
                events[f"advance:{facts[-1]}"] += 1
                events["rally"] += facts[1].side == reference.DEFENDER
            if kind == "retire":
                events.update(f"retire:{facts[0]}:{how}" for _, how, _ in facts[1])
            if kind == "firefight":
                per_bound[bound, facts[0]] += 1
        events.update(f"fights:{n}" for n in per_bound.values())
    assert (fast == np.array(slow)).all()
    return fast, events


def battle(rules, seed=1, game=0) -> reference.Battle:
    b = reference.new_battle(rules, seed, game)
    b.bound = 1
    return b


def crossing(**readings) -> ruleset.Ruleset:
    return load_ruleset(partial=CROSSING, readings={k.replace("_", "-"): v for k, v in readings.items()})


def scenario(overrides=(), readings=None, partial=None) -> ruleset.Ruleset:
    return load_ruleset(overrides=list(overrides), readings=readings, partial=partial)


# ------------------------------------------------------------------ the retreat (I-RETREAT, I-BLOCKED)


def test_a_beaten_defender_retires_a_road_march_and_leaves_only_past_the_table():
    """Close Assault Rules: the loser retires a full road march; off the battlefield it
    may not return. The defender's table edge is table.depth behind its line."""
    b = battle(scenario())
    near, far = b.defender[0], b.defender[1]
    far.dist = 10  # 10 + 16 > 24: past the edge
    fire.retire(b, [near, far], None)
    assert (near.dist, near.on) == (16, True)
    assert far.status == reference.LEFT
    b = battle(scenario(readings={"I-RETREAT": "leaves"}))
    fire.retire(b, [b.defender[0]], None)
    assert b.defender[0].status == reference.LEFT


def test_a_beaten_attacker_retires_from_the_contact():
    b = battle(scenario())
    fire.retire(b, [b.attacker[0]], 1)  # assaulting from the contact at 0.125 km
    assert b.attacker[0].dist == 17
    b = battle(scenario(readings={"I-RETREAT": "leaves"}))
    fire.retire(b, [b.attacker[0]], 1)
    assert b.attacker[0].dist == 16  # the old model: a road march from the line


def test_a_river_behind_bars_the_retreat():
    """I-BLOCKED: an attacker across the river retiring where it may not cross is lost
    (lost) or stops at the bank (stops); at the bridge it crosses back."""
    rules = crossing()
    b = battle(rules)
    s, t = b.attacker[2], b.attacker[3]  # infantry: one in the bridge's lane, one not
    s.lane, t.lane = 6, 8
    fire.retire(b, [s, t], 1)
    assert (s.on, s.dist) == (True, 17) and t.status == reference.LEFT
    b = battle(crossing(I_BLOCKED="stops"))
    b.attacker[3].lane = 8
    fire.retire(b, [b.attacker[3]], 1)
    assert (b.attacker[3].on, b.attacker[3].dist) == (True, rules.p("river") - 1)


@pytest.mark.parametrize("reading", [{}, {"I-RETREAT": "leaves"}, {"I-BLOCKED": "stops"}])
def test_the_retreat_in_both_engines(reading):
    rows, events = played(crossing(**{k.replace("-", "_"): v for k, v in reading.items()}), games=30)
    if not reading:
        assert events["retire:defender:back"] and events["retire:attacker:blocked"]
    elif "I-BLOCKED" in reading:
        assert events["retire:attacker:bank"] and not events["retire:attacker:blocked"]
    else:
        assert events["retire:defender:off"] and not events["retire:defender:back"]


def test_the_retreat_as_written_costs_the_defender_fewer_stands():
    """The shipped scenario: a defender that retires instead of leaving loses fewer stands
    to the close assault, so fewer break in the bound of the first assault."""
    written = engine.play_rules(scenario(), np.tile(DEFAULTS, (4000, 1)), 1, 0)
    leaves = engine.play_rules(scenario(readings={"I-RETREAT": "leaves"}), np.tile(DEFAULTS, (4000, 1)), 1, 0)
    at_first = lambda rows: (rows[:, 0] & (rows[:, 3] == rows[:, 5])).mean()  # noqa: E731
    assert at_first(written) < at_first(leaves) - 0.2


MAIN_ROWS = "a5376aff881c648bb84415369d3689a2ccb9774d854231936f65525bba409877"
"""sha256 of the fast engine's result rows at main 9a1337e (before these rules): the
shipped scenario, seed 3, games 0-3999, for each parameter vector of MAIN_PARAMS."""
MAIN_PARAMS = np.array([[2, 8, 0, 1], [1, 4, 6, 3], [2, 8, 48, 1], [6, 5, 2, 2], [3, 20, 0, 5]], dtype=np.float64)


def test_the_old_model_is_a_reading_of_the_new():
    """Under I-RETREAT=leaves the shipped scenario (no lanes, road, river or
    subordinates; a defender that holds) plays main's rows, byte for byte."""
    rules = scenario(readings={"I-RETREAT": "leaves"})
    digest = hashlib.sha256()
    for p in MAIN_PARAMS:
        digest.update(engine.play_rules(rules, np.tile(p, (4000, 1)), 3, 0).tobytes())
    assert digest.hexdigest() == MAIN_ROWS


# ------------------------------------------------------------------ the machine-gun limit


def test_an_army_has_at_most_one_machine_gun():
    with pytest.raises(RulesetError, match=r"2 machine-gun stands: an army has no more than 1 \(Armies\)"):
        load_ruleset(overrides=["attacker.stands[2].count=2"])
    done = subprocess.run([sys.executable, "-m", "bollesim", "--game", "balkan-wars", "rules", "check",
                           "--set", "attacker.stands[2].count=3"], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "NUMBA_NUM_THREADS": "1"})
    assert done.returncode == 2 and done.stderr.startswith("error: ")
    assert len(done.stderr.strip().splitlines()) == 1 and "(Armies)" in done.stderr


# ------------------------------------------------------------------ generals: dice, command, passing down


def test_each_general_throws_his_own_die_every_bound():
    """Move Sequence 1: one die for each General, the defender's too (luck.MOVE_D, the
    subordinates' SUBORDINATE_A in their order)."""
    from bollesim.balkan import luck
    from bollesim.rng import CHANCE, keyed_d6, new_stream

    rules = crossing()
    b = reference.new_battle(rules, 4, 2)
    b.log = []
    reference.play(rules, DEFAULTS, 4, 2, b)
    stream = new_stream(4, 2, CHANCE, luck.PURPOSES)
    thrown = [(bound, f[0], f[2]) for bound, kind, *f in b.log if kind == "move" and bound == 1]
    assert [side for _, side, _ in thrown] == ["attacker"] * 3 + ["defender"]
    assert thrown[0][2] == keyed_d6(stream, 1, luck.MOVE)
    assert [f for *_, f in thrown[1:3]] == [keyed_d6(stream, 1, luck.SUBORDINATE_A) for _ in range(2)]
    assert thrown[3][2] == keyed_d6(stream, 1, luck.MOVE_D)


def test_stands_outside_their_generals_command_area_do_not_move():
    """Move Sequence 2: the crossing's flank cavalry outruns its poor brigadier (2 km)."""
    b = battle(crossing())
    cavalry, general = b.attacker[-1], b.generals[0][2]
    general.dist, general.lane = 40, 14
    cavalry.dist = 20  # 20 steps and 8 lanes off: (5*20)**2 + (8*8)**2 > (5*16)**2
    for g in b.generals[0]:
        g.mod = 6  # digits enough for every stand
    family = reference.asker(b, tactics.family_decide, DEFAULTS, np.zeros(2, dtype=np.int64))
    moves.move_phase(b, reference.ATTACKER, DEFAULTS, family)
    assert not cavalry.command and cavalry.dist == 20
    rows, events = played(crossing(), games=30)
    assert events["command"] > 0


def test_the_commander_passes_digits_down_two_for_one():
    """Generals and Orders: to a subordinate in his Command Area, two digits of his for
    each one passed; never to one outside it."""
    b = battle(crossing())
    c, sub1, sub2 = b.generals[0]
    c.digits, sub1.digits, sub2.digits = 7, 0, 0
    moves.pass_down(b, DEFAULTS)
    # his own two guns want 2 digits, so 5 are spare: 2 passed to brigade 1 (which wants 5)
    # at 4 of his; the 1 left is too few for brigade 2
    assert (c.digits, sub1.digits, sub2.digits) == (3, 2, 0)
    b = battle(crossing())
    c, sub1, sub2 = b.generals[0]
    c.digits, sub1.digits, sub2.digits = 7, 0, 0
    sub1.lane = sub2.lane = c.lane + 30  # 6 km across: outside his 4 km
    moves.pass_down(b, DEFAULTS)
    assert (c.digits, sub1.digits, sub2.digits) == (7, 0, 0)
    assert played(crossing(), games=30)[1]["passed"] > 0


# ------------------------------------------------------------------ formations, road, river


def test_a_column_deploys_into_line_for_a_digit():
    """Movement Rules: a digit changes a group's formation (I-FORMATION: the column's
    stands spread to either side of its lane)."""
    b = battle(crossing())
    column = [s for s in b.attacker if s.general == 1]  # 4 infantry and the machine gun
    for s in column:
        s.dist = 10  # across the river, within 2 km of the enemy
    g = b.generals[0][1]
    g.digits, g.dist = 1, 10
    moves.spend(b, reference.ATTACKER, 1, g, DEFAULTS)
    assert [s.lane for s in column] == [4, 5, 6, 7, 8]
    assert all(s.formation == ruleset.LINE for s in column) and g.used == 1
    assert all(s.dist == 10 for s in column)  # the digit went to the formation, not a move


def test_only_a_columns_leading_stand_fires():
    """I-COLUMN=head: a column's stands behind its first are masked; =all: all fire."""
    for reading, fires in (({}, False), ({"I_COLUMN": "all"}, True)):
        b = battle(crossing(**reading))
        for s in b.attacker[2:7]:  # brigade 1's column on the road
            s.dist = 8
        shooters = [s for s, _, _ in fire.fire_of(b, reference.ATTACKER)]
        assert b.attacker[2] in shooters and (b.attacker[3] in shooters) == fires


def test_a_road_speeds_a_column_out_of_contact():
    """Terrain: on the road at road speed, unless within 1 km of an enemy (I-CONTACT)."""
    b = battle(crossing())
    guns = b.attacker[:2]
    moves.move_group(b, guns, 40, None)
    assert guns[0].dist == 40 - 16  # the road march, short of the river
    for reading, end in (({}, 3), ({"I_CONTACT": "touching"}, 2)):
        b = battle(crossing(**reading))
        column = b.attacker[2:7]
        for s in column:
            s.dist = 11  # across the river, on the road
        moves.move_group(b, column, 9, None)
        # ending 0.25 km from the line: in contact within 1 km (the ground's 8 steps), not
        # when contact is touching (the road's 16)
        assert column[0].dist == end


def test_a_river_is_crossed_at_a_bridge_or_ford_at_the_difficult_rate():
    """Movement Rules: rivers are crossed at bridges and fords only, field artillery at
    bridges only; bridges and fords are Difficult Terrain (I-CROSSING)."""
    rules = crossing()
    river = rules.p("river")
    b = battle(rules)
    infantry = [b.attacker[2]]
    infantry[0].dist, infantry[0].lane = river + 2, 14  # at the ford
    moves.move_group(b, infantry, 40, None)
    assert infantry[0].dist == river + 2 - 4  # the difficult rate: 0.5 km
    b = battle(rules)
    guns = [b.attacker[0]]
    guns[0].dist, guns[0].lane = river + 2, 14  # field artillery at the ford
    moves.move_group(b, guns, 40, None)
    assert guns[0].dist == river
    b = battle(rules)
    infantry = [b.attacker[2]]
    infantry[0].dist, infantry[0].lane = river + 2, 9  # no crossing in its lane
    moves.move_group(b, infantry, 40, None)
    assert infantry[0].dist == river
    assert not moves.may_move(b, infantry[0])  # stuck at the bank: no digit goes to it
    b = battle(crossing(I_CROSSING="far-bank"))
    infantry = [b.attacker[2]]
    infantry[0].dist, infantry[0].lane = river + 2, 14
    moves.move_group(b, infantry, 40, None)
    assert infantry[0].dist == river - 1


def test_impassable_ground_is_never_entered():
    """Terrain: no troops cross impassable ground: no stand starts there, a column whose
    line would cover it does not deploy, a general goes round it no further."""
    with pytest.raises(RulesetError, match="impassable lane 6"):
        load_ruleset(partial=CROSSING, overrides=["table.impassable=[6]"])
    rules = load_ruleset(partial=CROSSING, overrides=["table.impassable=[4, 10]"])
    b = battle(rules)
    column = b.attacker[2:7]  # brigade 1: its line would be lanes 4 to 8
    for s in column:
        s.dist = 10
    assert not moves.deployable(b, column[0])
    clear = battle(crossing())
    for s in clear.attacker[2:7]:
        s.dist = 10
    assert moves.deployable(clear, clear.attacker[2])
    g = b.generals[0][0]
    g.lane, g.dist = 6, 40
    moves.general_moves(b, reference.ATTACKER, g, (40, 12), 0)
    assert g.lane == 9  # stopped before lane 10
    played(rules, games=20)


def fast_state(b: reference.Battle):
    """The fast engine's arrays of a reference battle (engine_state.py's layout)."""
    from bollesim.balkan import engine_state as es

    tab, gtab, ns = engine.tables(b.rules)
    st = np.zeros((es.N_FIELDS, 2, tab.shape[1]), dtype=np.int64)
    for side, stands in enumerate((b.attacker, b.defender)):
        for i, x in enumerate(stands):
            st[:, side, i] = (x.figures, x.status, x.dist, x.lane, x.formation, x.moved, x.command,
                              x.order)
    gs = np.zeros((4, 2, gtab.shape[1]), dtype=np.int64)
    for side, gens in enumerate(b.generals):
        for k, g in enumerate(gens):
            gs[:, side, k] = (g.dist, g.lane, g.digits, g.used)
    scratch = np.zeros((es.ROWS, 2 * tab.shape[1]), dtype=np.int64)
    scratch[es.ONES] = 1
    return tab, gtab, ns, b.rules.scalars, st, gs, scratch


def test_the_fast_engine_takes_the_same_steps():
    """Steps games seldom meet, each played by both engines on the same state: guns at a
    ford stop at the bank, a general goes round impassable ground no further, guns
    retiring across a ford are lost."""
    from bollesim.balkan import engine_fire, engine_move
    from bollesim.balkan import engine_state as es

    rules = load_ruleset(partial=CROSSING, overrides=["table.impassable=[4, 10]"])
    river = rules.p("river")
    for kind, lane in ((0, 14), (2, 14), (2, 9), (0, 6)):  # guns or infantry, at the ford, nowhere, the bridge
        b = battle(rules)
        group = [s for s in b.attacker if s.general == b.attacker[kind].general and s.move == b.attacker[kind].move
                 and s.gun == b.attacker[kind].gun]
        for s in group:
            s.dist, s.lane, s.formation = river + 2, lane, ruleset.COLUMN
        tab, gtab, ns, sc, st, gs, scratch = fast_state(b)
        scratch[es.GROUP, :len(group)] = [b.attacker.index(s) for s in group]
        moves.move_group(b, group, 40, None)
        engine_move.move_group(tab, ns, sc, 0, st, scratch, len(group), 40, -1)
        assert st[es.DIST, 0, b.attacker.index(group[0])] == group[0].dist, (kind, lane)
    b = battle(rules)
    g = b.generals[0][0]
    g.dist, g.lane = 40, 6
    tab, gtab, ns, sc, st, gs, scratch = fast_state(b)
    moves.general_moves(b, reference.ATTACKER, g, (40, 12), 0)
    engine_move.general_moves(ns, sc, 0, 0, 40, 12, 0, st, gs)
    assert (gs[es.GDIST, 0, 0], gs[es.GLANE, 0, 0]) == (g.dist, g.lane) == (40, 9)
    b = battle(rules)
    guns = b.attacker[:2]
    for s in guns:
        s.dist, s.lane = river - 3, 14  # across, at the ford
    tab, gtab, ns, sc, st, gs, scratch = fast_state(b)
    scratch[es.A_MEMBERS, :2] = [0, 1]
    fire.retire(b, guns, None)
    engine_fire.retire(tab, st, sc, 0, scratch, es.A_MEMBERS, 2, -es.FAR)
    assert [s.status for s in guns] == list(st[es.STATUS, 0, :2]) == [reference.LEFT] * 2


@pytest.mark.parametrize("reading", [{}, {"I_CROSSING": "far-bank"}, {"I_CONTACT": "touching"}])
def test_the_table_in_both_engines(reading):
    _, events = played(crossing(**reading), games=30)
    assert events["formation"] and events["advance:road"] and events["advance:crossing"]
    assert events["advance:blocked"] or events["advance:bank"]


# ------------------------------------------------------------------ arcs of fire


def test_a_stand_fires_only_within_its_arc():
    """Firing Rules: 'straight ahead or one stand width sideways and ahead'."""
    from bollesim.balkan.reference_state import FAR, in_arc, nearest

    b = battle(crossing())
    s = b.attacker[2]
    s.dist, s.lane = 4, 10
    assert sorted(e.lane for e in b.defender if in_arc(b, s, e)) == [9]  # the machine gun
    assert nearest(b, s) == (b.defender[3], 4)
    s.lane = 30
    assert nearest(b, s) == (None, FAR)
    assert [t.lane for t, _, _ in [fire.shot(b, b.defender[3], b.attacker[0])]] == [9]


def test_the_opening_odds_follow_the_engines_fire():
    """odds.scenario_sides and scenario_contests give the dice the reference engine
    throws at the start with every attacker at a distance: arcs, masked columns, cover
    only on the line, I-BEYOND, one firefight a bound or one a target; and their odds are
    icepool's count (test_balkan)."""
    from test_balkan import icepool_contest

    behind = ["defender.stands[0].depth=2"]  # the infantry behind the line: no cover
    for readings, overrides in (({}, []), ({}, behind), ({"I-BEYOND": "literal", "I-COLUMN": "all"}, []),
                                ({"I-FIREFIGHT": "per-target"}, []), ({"I-FIREFIGHT": "per-target"}, behind)):
        rules = load_ruleset(partial=CROSSING, readings=readings, overrides=overrides)
        for distance in (1, 2, 5, 8, 16):
            b = battle(rules)
            for s in b.attacker:
                s.dist = distance
            b.log = []
            fire.firefights(b, reference.ATTACKER)
            thrown = [sorted(m for _, _, m, _ in e[3]) for e in b.log if e[1] == "dice"]  # (purpose, rolls, ..)
            contests = list(zip(thrown[::2], thrown[1::2], strict=True))
            if rules.p("per_target"):
                expected = [(sorted(f), sorted(d)) for _, f, d in odds.scenario_contests(rules, distance)]
            else:
                expected = [tuple(sorted(x) for x in odds.scenario_sides(rules, distance))]
                expected = [] if expected == [([], [])] else expected
            assert contests == expected, (readings, distance)
    rules = crossing()
    j, first, second = odds.scenario_contests(rules, 2)[0]
    assert odds.contest_odds(first, second) == icepool_contest(first, second, False, False)


# ------------------------------------------------------------------ unused digits, generals' moves


def test_each_unused_digit_lengthens_the_moves_by_a_quarter_kilometre():
    """Movement Rules: 0.25 km for every unused digit (I-SPARE=stands: the groups the
    general moved; =general: his own move). I-MOVES=once lets a group move once."""
    rules = crossing(I_MOVES="once")
    b = battle(rules)
    guns, g = b.attacker[:2], b.generals[0][0]
    g.digits = 4
    moves.spend(b, reference.ATTACKER, 0, g, DEFAULTS)
    assert g.used == 1 and guns[0].dist == 40 - 16  # one move on the road, three digits unused
    moves.finish(b, reference.ATTACKER, 0, g, DEFAULTS)
    assert guns[0].dist == 40 - 16 - 2 * 3
    b = battle(crossing(I_MOVES="once", I_SPARE="general"))
    g = b.generals[0][0]
    g.digits = 4
    moves.spend(b, reference.ATTACKER, 0, g, DEFAULTS)
    g.dist = 80  # far behind his guns, on the road
    moves.finish(b, reference.ATTACKER, 0, g, DEFAULTS)
    assert b.attacker[0].dist == 40 - 16 and g.dist == 80 - 24 - 2 * 3


def test_a_generals_own_move_may_cost_a_digit():
    """I-GENERAL: free, or one of his digits; with none left he stays."""
    b = battle(crossing(I_GENERAL="digit"))
    g = b.generals[0][0]
    g.digits = g.used = 3
    before = (g.dist, g.lane)
    b.attacker[0].dist = b.attacker[1].dist = 14
    moves.finish(b, reference.ATTACKER, 0, g, DEFAULTS)
    assert (g.dist, g.lane) == before
    g.used = 2
    moves.finish(b, reference.ATTACKER, 0, g, DEFAULTS)
    assert g.dist == 40 - 24 and g.used == 3  # 3 km on the road toward his guns, his last digit


@pytest.mark.parametrize("reading", [{"I_MOVES": "once"}, {"I_SPARE": "general"}, {"I_GENERAL": "digit"},
                                     {"I_MOVES": "once", "I_SPARE": "general"}])
def test_the_digits_in_both_engines(reading):
    _, events = played(crossing(**reading), games=30)
    assert events["general"]
    if reading.get("I_MOVES") == "once" and "I_SPARE" not in reading:
        assert events["advance:further"]


# ------------------------------------------------------------------ the defender's move die


def test_a_rallying_defender_moves_back_to_its_line():
    """I-DEFENDER with battle.rally: the defender's digits bring stands behind the line
    back, the farthest first; without it every stand holds."""
    b = battle(crossing())
    far, near = b.defender[0], b.defender[1]
    far.dist, near.dist = 16, 4
    g = b.generals[1][0]
    g.digits = 1
    moves.spend(b, reference.DEFENDER, 0, g, DEFAULTS)
    assert (far.dist, near.dist) == (8, 4)
    b = battle(scenario())
    b.defender[0].dist = 16
    g = b.generals[1][0]
    g.digits = 6
    moves.spend(b, reference.DEFENDER, 0, g, DEFAULTS)
    assert b.defender[0].dist == 16 and g.used == 0
    _, events = played(crossing(), games=30)
    assert events["rally"]


# ------------------------------------------------------------------ firefights (I-FIREFIGHT, I-BEYOND, I-UNANSWERED)


def test_one_firefight_per_target():
    """Firing Rules as written: each target its own firefight, each stand firing once,
    the target replying at the nearest of its firers, the other side's other stands firing
    in the firefight of the stand they fire at."""
    rules = crossing(I_FIREFIGHT="per-target")
    b = battle(rules)
    for i, s in enumerate(b.attacker[2:12]):  # both brigades in line, lanes 4 to 13
        s.dist, s.lane, s.formation = 2, 4 + i, ruleset.LINE
    fights = fire.firefights(b, reference.ATTACKER)
    assert len(fights) > 1 and len({id(f.target) for f in fights}) == len(fights)
    firers = [s for f in fights for s in f.firers]
    assert len(firers) == len({id(s) for s in firers})
    joined = [d for f in fights for d in f.others]
    assert len(joined) == len({id(d) for d in joined}) > len(fights)  # the untargeted fire too
    for f in fights:
        assert all(abs(s.lane - f.target.lane) <= 1 for s in f.firers) and f.target in f.others
    _, events = played(rules, games=30)
    assert events["fights:2"] or events["fights:3"]


def test_exactly_maximum_range_and_the_beyond_effective_modifier():
    """I-BEYOND: -1 up to maximum range (to-maximum), or only short of it (literal)."""
    for reading, expected in (({}, -1), ({"I-BEYOND": "literal"}, 0)):
        b = battle(scenario(readings=reading))
        s, t = b.attacker[0], b.defender[0]
        s.dist = s.maximum
        _, _, modifier = fire.shot(b, s, t)
        assert modifier - s.quality - b.p("defender_cover") == expected


def test_a_firefight_nobody_can_answer():
    """I-UNANSWERED: a veteran machine gun at 1.5 km against rifles that cannot reply:
    zero (wins), none (no firefight), sixes (only its sixes)."""
    base = {"attacker": {"stands": [{"type": "machine_gun", "quality": "veteran", "count": 1}]},
            "defender": {"stands": [{"type": "infantry", "quality": "trained", "count": 2}],
                         "cover": "none"}}
    rows = {}
    for variant in ("zero", "none", "sixes"):
        data = BOOK.apply_readings(copy.deepcopy(BOOK.default_data), {"I-UNANSWERED": variant})
        for side, value in base.items():
            data[side].update(value)
        data["battle"].update(start_distance=12, bounds=1)
        rules = build(data)
        params = np.array([12, 8, 48, 1], dtype=np.float64)  # hold at 1.5 km, fire
        rows[variant], _ = played(rules, params, games=200)
        b = battle(rules)
        fights = fire.firefights(b, reference.ATTACKER)
        assert (fights == []) == (variant == "none")
        assert all(f.winner == (1 if variant == "zero" else 0) for f in fights)
    cas = {v: r[:, 10].mean() for v, r in rows.items()}
    assert cas["none"] == 0 < cas["sixes"] < cas["zero"]
    assert odds.contest_odds([1], [], unanswered=1) == {(0, 0, 0): 1}


def icepool_sixes(mods):
    """The sixes of a side's dice, counted by icepool (I-SIX=modified, I-CLAMP=die)."""
    import icepool

    total = icepool.Die([0])
    for mod in mods:
        total = total + icepool.d6.map(lambda face, mod=mod: int(min(6, max(1, face + mod)) >= 6))
    return {(0, 0, k): Fraction(q, total.denominator()) for k, q in total.items()}


@pytest.mark.parametrize("first, second", [([1, 0], []), ([], [2, -1, 0])])
def test_unanswered_odds_equal_icepool(first, second):
    """I-UNANSWERED's two alternatives counted: no firefight; only the sixes wound."""
    assert odds.contest_odds(first, second, unanswered=1) == {(0, 0, 0): 1}
    sixes = odds.contest_odds(first, second, unanswered=2)
    counted = icepool_sixes(first or second)
    assert sixes == (counted if first else {(0, k, 0): p for (_, _, k), p in counted.items()})


# ------------------------------------------------------------------ every reading, both engines


@pytest.mark.parametrize("reading, variant", [(r.id, v.name) for r in BOOK.readings for v in r.alternatives])
def test_every_alternative_in_both_engines_on_the_crossing(reading, variant):
    played(load_ruleset(partial=CROSSING, readings={reading: variant}), games=12, seed=5)


def test_the_attackers_choices_are_the_tactics_functions():
    """Every choice of the attacker is a named function of tactics.py that both engines
    call (the names the lead's decisions will take)."""
    text = {m: (ROOT / "bollesim" / "balkan" / f"{m}.py").read_text(encoding="utf-8")
            for m in ("reference_state", "reference_move", "reference_fire", "engine_move", "engine_fire")}
    for name in ("leaders", "wanting", "reform", "pass_down", "general_to", "target"):
        assert callable(getattr(tactics, name))
        for engine_modules in (("reference_state", "reference_move", "reference_fire"),
                               ("engine_move", "engine_fire")):
            assert any(f"tactics.{name}" in text[m] for m in engine_modules), (name, engine_modules)
    # the close assault and each arm's order are declared decisions (positions.py): both
    # engines ask a decide, by default the family's own, which answers as tactics.assault
    # and advances every arm the full move
    assert "ask_assault(" in text["engine_fire"] and "ask(tactics.CLOSE_ASSAULT" in text["reference_fire"]
    assert "ask(ctl, decide" in text["engine_move"] and "ask(kind" in text["reference_move"]
    assert "ask_digit(" in text["engine_move"] and "ask(tactics.DIGIT" in text["reference_move"]
    obs = np.zeros(tactics.OBSERVATION_SIZE, dtype=np.int64)
    obs[tactics.O_CANDIDATES], obs[tactics.O_CAS_D] = 2, 3
    for losses, want in ((0, tactics.ASSAULT_NOW), (3, tactics.ASSAULT_NOW), (4, tactics.HOLD)):
        params = np.array([2, 8, losses, 1], dtype=np.float64)
        options = np.arange(2, dtype=np.int64)
        assert tactics.family_decide(tactics.CLOSE_ASSAULT, obs, obs, options, 2, params,
                                     np.zeros(2, dtype=np.int64)) == want
    for kind in (tactics.TROOPS_ADVANCE, tactics.GUNS_ADVANCE):
        assert tactics.family_decide(kind, obs, obs, np.arange(3), 3, params,
                                     np.zeros(2, dtype=np.int64)) == tactics.FULL
    assert tactics.family_decide(tactics.DIGIT, obs, obs, np.arange(3), 3, params,
                                 np.zeros(2, dtype=np.int64)) == 0  # the farthest group first


def test_the_tactics_choose_as_they_say():
    """The attacker's named choices on small arrays: a general goes to the lower median
    of his stands; a stand fires at the nearest in reach, then the most damaged, then the
    first; a column deploys once across; digits pass two for one."""
    a = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
    assert tactics.general_to(a(9, 1, 5, 5, 2)) == 5 and tactics.general_to(a(4, 4, 1, 1)) == 1
    assert tactics.target(a(0, 3, 2, 2), a(4, 4, 4, 3)) == 3
    assert tactics.target(a(0, -1, 0), a(1, 1, 1)) == -1
    assert tactics.reform(a(20, 10, 10), a(1, 1, 1), a(1, 1, 1), a(1, 0, 1)) == 2
    assert tactics.pass_down(5, 9) == 2 and tactics.pass_down(9, 1) == 1 and tactics.pass_down(1, 3) == 0
    halts = a(*(tactics.stop(w, tactics.FULL, 2, 8, DEFAULTS) for w in (0, 0, 2, 0)))
    assert tactics.advance(a(10, 12, 12, 3), halts, a(1, 1, 1, 1)) == (1, 10)
    assert [tactics.stop(0, order, 2, 8, DEFAULTS) for order in range(tactics.N_ORDERS)] == [2, 2, 2, 8, 2]
    assert tactics.stop(2, tactics.TO_MAXIMUM, 8, 60, DEFAULTS) == 60 and tactics.closest_stop(0, 4, DEFAULTS) == 2
