"""The Balkan Wars' printed rules the first model already played, each checked on the
reference engine at the step that plays it (docs/balkan-wars.md's table of every rule
names these tests; the fast engine plays the same games: tests/test_balkan.py)."""

from __future__ import annotations

import numpy as np

from bollesim.balkan import narrate, reference, ruleset, schema
from bollesim.balkan import reference_fire as fire
from bollesim.balkan import reference_move as moves
from bollesim.balkan.reference_state import broken, contest, nearest, take
from bollesim.balkan.ruleset import BOOK, load_ruleset

DEFAULTS = np.array([2, 8, 0, 1], dtype=np.float64)


def battle(**readings):
    b = reference.new_battle(load_ruleset(readings=readings or None), 1, 0)
    b.bound = 1
    return b


def test_the_texts_numbers_are_the_scenarios():
    """Movement Rates, Weapon Ranges, Generalship Qualities, Stands and Stand Sizes and the
    river crossings of Movement Rules, at 20 cm a km (8 steps): the shipped tables."""
    data = BOOK.default_data
    types = {t["id"]: t for t in data["types"]}
    expect = {  # road, normal, difficult; effective, maximum; figures; ford
        "infantry": (16, 8, 4, 2, 8, 4, True), "machine_gun": (16, 8, 4, 4, 16, 3, True),
        "cavalry": (24, 16, 8, 2, 8, 4, True), "mountain_artillery": (16, 8, 4, 8, 40, 4, True),
        "field_artillery": (16, 8, 2, 8, 60, 4, False), "medium_artillery": (8, 4, 1, 16, 80, 4, False),
        "heavy_artillery": (8, 4, 1, 20, 100, 4, False)}
    for kind, numbers in expect.items():
        t = types[kind]
        assert (t["road"], t["normal"], t["difficult"], t["effective"], t["maximum"], t["figures"],
                t["ford"]) == numbers, kind
    g = data["generals"]
    assert [g[q] for q in schema.GENERALS] == [2, 1, 0, -1]
    assert [g[f"{q}_area"] for q in schema.GENERALS] == [40, 32, 24, 16]
    assert (g["road"], g["normal"], g["difficult"]) == (24, 16, 16)
    m = data["modifiers"]
    assert (m["field"], m["hardened"], m["veteran"], m["green"], m["beyond_effective"], m["unseen"]) == (
        -1, -2, 1, -1, -1, -2)


def test_the_sides_take_alternate_bounds():
    """Moves, Move Sequence: each bound the attacker moves and both fire, then the
    defender's generals throw and both fire again, the defender the moving side."""
    rules = load_ruleset()
    b = reference.new_battle(rules, 3, 1)
    b.log = []
    reference.play(rules, DEFAULTS, 3, 1, b)
    order = [(e[0], e[1], e[2]) for e in b.log if e[1] in ("move", "firefight")]
    first = [kind_side for bound, *kind_side in order if bound == 1]
    assert first == [["move", "attacker"], ["firefight", "attacker"], ["move", "defender"],
                     ["firefight", "defender"]]


def test_no_fire_under_an_eighth_of_a_kilometre_and_once_a_stand():
    """Firing Rules: no target at less than 0.125 km; no stand fires more than once."""
    b = battle()
    s = b.attacker[0]
    s.dist = 0  # beside the line: range 0
    assert nearest(b, s) == (None, 1 << 20)
    for t in b.attacker[1:]:
        t.dist = 1
    fired = [stand for stand, _, _ in fire.fire_of(b, reference.ATTACKER)]
    assert s not in fired and len(fired) == len({id(x) for x in fired}) == len(b.attacker) - 1


def test_artillery_throws_two_dice_at_short_range():
    """Firing Rules, Firing Modifiers: artillery two dice at short range or less; rifles one."""
    b = battle()
    guns, rifles, target = b.attacker[-1], b.attacker[0], b.defender[0]
    for dist, dice in ((8, 2), (9, 1)):
        guns.dist = dist
        assert fire.shot(b, guns, target)[1] == dice
    rifles.dist = 2
    assert fire.shot(b, rifles, target)[1] == 1


def test_the_difference_over_six_and_every_six():
    """Firing Rules: the loser takes the difference over six, rounded down; every six one
    more on the other side, winner or not."""
    assert contest((20, 1), (7, 2)) == (1, 2 + 0, 1 + 2)
    assert contest((10, 0), (10, 3)) == (0, 3, 0)


def test_a_stand_is_destroyed_when_all_its_figures_are_casualties():
    b = battle()
    s = b.defender[0]
    s.figures = 1
    take(b, [s], 1)
    assert s.status == reference.DESTROYED


def test_an_army_breaks_past_a_quarter_of_its_strength():
    """Winning a Battle: more than 25% of the pre-battle strength (8 stands and 2 others:
    3 lost breaks, 2 does not)."""
    b = battle()
    for s in b.defender[:2]:
        s.status = reference.LEFT
    assert not broken(b, "defender")
    b.defender[2].status = reference.DESTROYED
    assert broken(b, "defender")


def test_no_stand_comes_within_an_eighth_of_a_kilometre():
    """Movement Rules: no closer than 0.125 km to an enemy, but after a won firefight."""
    b = battle()
    group = [s for s in b.attacker if not s.gun]
    moves.move_group(b, group, 40, None)
    moves.move_group(b, group, 40, None)
    moves.move_group(b, group, 40, None)
    assert all(s.dist == 1 for s in group)


def test_the_close_assault_modifiers_and_the_winners_contact():
    """Close Assault Modifiers: the defender's cover counts against the assaulting dice
    while it stands on its line, veterans +1, green -1; the winners stand in contact."""
    b = battle()
    b.log = []
    attackers = [b.attacker[6], b.attacker[7]]  # the veterans
    for s in attackers:
        s.dist = 2
    fire.assault(b, attackers, [b.defender[4]])  # a green stand
    dice = [e for e in b.log if e[1] == "dice"]
    assert {m for _, _, m, _ in dice[0][3]} == {1 - 1} and {m for _, _, m, _ in dice[1][3]} == {-1}
    winner = [e for e in b.log if e[1] == "winner"][0][3]
    if winner >= 0 and not b.p("tie_defender"):
        assert all(s.dist == 1 for s in attackers if s.on)


def test_no_stand_takes_part_in_two_close_assaults_a_bound():
    """Close Assault Rules: one close assault a stand (one a target: each firefight's)."""
    rules = load_ruleset(partial=ruleset.schema.DEFAULT_PATH.parent / "scenarios" / "crossing.toml",
                         readings={"I-FIREFIGHT": "per-target"})
    seen = 0
    for g in range(20):
        b = narrate.new_narrated_battle(rules, 2, g)  # the stands named
        reference.play(rules, DEFAULTS, 2, g, b)
        for bound in {e[0] for e in b.log}:
            for side in ("attacker", "defender"):
                names = [n for e in b.log if e[0] == bound and e[1] == "assault" and e[2] == side for n in e[3]]
                assert len(names) == len(set(names))
                seen += len(names)
    assert seen


def test_difficult_ground_slows_every_move():
    """Terrain, Movement Rates: over difficult ground each stand moves its difficult rate."""
    normal, difficult = load_ruleset(), load_ruleset(overrides=['battle.approach="difficult"'])
    assert [row[ruleset.MOVE] for row in normal.attacker] == [8] * 9 + [8, 8]
    assert [row[ruleset.MOVE] for row in difficult.attacker] == [4] * 9 + [2, 2]


def test_the_targets_cover_and_the_guns_sight():
    """Firing Modifiers: field fortifications -1 and hardened -2 on the dice at a target in
    them (the defender's only on its line); artillery out of sight -2."""
    for cover, expected in (("field", -1), ("hardened", -2)):
        b = reference.new_battle(load_ruleset(overrides=[f'defender.cover="{cover}"']), 1, 0)
        s, t = b.attacker[0], b.defender[0]
        s.dist = 2
        assert fire.shot(b, s, t)[2] == expected
        s.dist, t.dist = 1, 1  # behind its line, the range still 0.25 km
        assert fire.shot(b, s, t)[2] == 0
    b = reference.new_battle(load_ruleset(overrides=["attacker.artillery_sees=false"]), 1, 0)
    guns, t = b.attacker[-1], b.defender[0]
    guns.dist = 20
    assert fire.shot(b, guns, t)[2] == -1 - 2
