"""The loss columns (the result declaration's note): how a game was lost, read back from the
reference engine's event trace game by game, and one game checked by hand. That the fast
engine writes the same columns is test_fast_engine's comparison (RESULT.ints covers every
result column)."""

from __future__ import annotations

import pytest

from bollesim.batch.runner import result_columns
from bollesim.bollebank import codes, events
from bollesim.bollebank.engine import layout
from bollesim.bollebank.narrate import WEAPON_WORDS
from bollesim.bollebank.reference.play import play_game
from bollesim.bollebank.reference.state import new_game
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.game.policy import load_policy

RULES = load_ruleset()
LOSS_COLUMNS = ("first_loss_turn", "loss_vehicle", "loss_cause", "loss_place")
GAMES = 60
"""Reference games per policy read back from their traces."""


def from_trace(trace: list, positions: list[int]) -> dict:
    """The loss columns as the trace tells them: a loss is a HEAVY_DAMAGE event or a
    COMMANDER_ROLL that killed (§7.1.2-7.1.3); the weapon is that of the ATTACK (or the
    ARTILLERY_DRAW, §7.2) before it; the game-ending loss is the DESTROYED vehicle, or VL2
    when the game ends with its commander killed; its place is where the vehicle stands
    at the end (`positions`, nothing moves after the game ends)."""
    first, weapon, hit, lost = None, None, None, None
    for turn, kind, a, _b, c, _d in trace:
        if kind == events.ATTACK:
            weapon = a
        elif kind == events.ARTILLERY_DRAW:
            weapon = codes.ART
        elif kind == events.HEAVY_DAMAGE or (kind == events.COMMANDER_ROLL and c):
            first = first or turn
            hit = a
        elif kind == events.DESTROYED or (kind == events.GAME_END and a == events.END_VL2_KILLED):
            lost = (a if kind == events.DESTROYED else hit, weapon)
    return {
        "first_loss_turn": first,
        "loss_vehicle": None if lost is None else codes.VEHICLES[lost[0]],
        "loss_cause": None if lost is None else WEAPON_WORDS[lost[1]],
        "loss_place": None if lost is None else RULES.position_names[positions[lost[0]]],
    }


def played(policy: str, seed: int, game_index: int) -> tuple[dict, dict]:
    """(result row, the loss columns read from its trace) of one reference game."""
    pol = load_policy(policy)
    trace: list = []
    game = new_game(RULES)
    row = play_game(RULES, pol, pol.param_vector(), seed, game_index, trace, game=game)
    return row, from_trace(trace, [v.position for v in game.vehicles])


@pytest.mark.parametrize("policy", ["historical", "rush", "random"])
def test_loss_columns_match_the_trace(policy):
    seen = {"reasons": set(), "causes": set()}
    for g in range(GAMES):
        row, expected = played(policy, 7, g)
        assert {c: row[c] for c in LOSS_COLUMNS} == expected, (policy, g)
        lost = row["end_reason"] in ("vehicle destroyed", "VL2 commander killed")
        assert (row["loss_vehicle"] is not None) == lost, (policy, g)
        if lost:
            assert row["first_loss_turn"] <= row["end_turn"], (policy, g)
        seen["reasons"].add(row["end_reason"])
        seen["causes"].add(row["loss_cause"])
    assert "vehicle destroyed" in seen["reasons"] and len(seen["causes"] - {None}) >= 2, seen


def test_a_game_checked_by_hand():
    """`bollesim play -P historical --seed 1 --index 18` narrates: turn 2, EA moves to SK-2
    CKP, "HMG fires at EA ... the die roll is 12: HIT. EA hit in the tracks" (the first
    loss); turn 3, immobile at SK-2 CKP, "Tank fires at EA ... HIT. EA hit in the tracks
    (d6 2). EA is DESTROYED." (§7.1.3: a second hit in the same place destroys a tank)."""
    row, _ = played("historical", 1, 18)
    assert (row["end_reason"], row["end_turn"]) == ("vehicle destroyed", 3)
    assert {c: row[c] for c in LOSS_COLUMNS} == {
        "first_loss_turn": 2, "loss_vehicle": "EA", "loss_cause": "Tank",
        "loss_place": "SK-2 CKP"}


def test_the_engine_comparison_covers_the_loss_columns():
    """RESULT.ints (what test_fast_engine compares with the fast engine's row) turns every
    result column, the loss columns too, into the fast engine's slots (layout.R_*)."""
    names = [n for n, _ in result_columns("bollebank")]
    assert len(names) == layout.N_RESULTS
    slots = (layout.R_FIRST_LOSS_TURN, layout.R_LOSS_VEHICLE, layout.R_LOSS_CAUSE, layout.R_LOSS_PLACE)
    assert [names.index(c) for c in LOSS_COLUMNS] == list(slots)
    row, _ = played("historical", 1, 18)
    ints = RESULT.ints(row)
    assert [ints[s] for s in slots] == [2, codes.EA + 1, codes.TANK + 1, codes.SK2 + 1]
