"""§7.1 target priority and §8 victory assessment on hand-built positions, in both engines.

Each case is a position built with the reference engine's objects (conftest.py), copied
into a fast-engine state vector (fast_state), and the answer the rulebook gives is
written in the case: the reference engine's function and the fast engine's kernel must
both give it. The engine comparison (test_fast_engine.py) cannot catch a bug planted in
both engines; these cases can, and they name the rule.
"""

from __future__ import annotations

import pytest
from conftest import fresh_game, make_table, place, take_chit

from bollesim.bollebank import codes, observation
from bollesim.bollebank.codes import AQ, EA, GB, K1, K2, K3, KAL, S1, S3, SAR, SK1, T2, T21
from bollesim.bollebank.engine import end as fast_end
from bollesim.bollebank.engine import layout
from bollesim.bollebank.engine import reaction as fast_reaction
from bollesim.bollebank.engine.core import new_game
from bollesim.bollebank.engine.play import new_vector
from bollesim.bollebank.reference import end, reaction
from bollesim.bollebank.reference.state import Game, observe

EXTENDED = "game.extend_to_40=true"
LITERAL = 'interpretations.target_priority="literal"'


def fast_state(game: Game):
    """The fast engine's state vector of a reference position: the observation, the
    tracks' chits and the bookkeeping that targets and victories read."""
    st = new_vector(game.rules.packed, 0, 0)
    new_game(st, 1, 0)
    observe(game, st[: observation.SIZE])
    for t, track in enumerate(game.tracks):
        st[layout.TRACKS + layout.TRACK_CAP * t : layout.TRACKS + layout.TRACK_CAP * t + len(track)] = track
    st[layout.X_SETUP_FLIPPED] = game.setup_flipped
    st[layout.X_TANKS_AT_T2] = game.tanks_at_t2
    return st


def both_assess(game: Game) -> tuple[tuple[bool, bool], tuple[bool, bool]]:
    """(reference, fast) (operational, tactical) of end.assess on the same position."""
    st = fast_state(game)
    fast = fast_end.assess(st)
    return end.assess(game), (bool(fast[0]), bool(fast[1]))


# ------------------------------------------------------------------ §8 victories


def victory_position(*overrides: str, silent=True, direct_chit=False, turn=10, **where):
    """Everyone in Saraci (vehicles named in `where` elsewhere), artillery silent by the
    flipped setup marker, the direct-fire tracks empty unless direct_chit."""
    game = fresh_game(*overrides)
    game.setup_flipped = silent
    if direct_chit:
        game.tracks[codes.HMG] = [take_chit(game, codes.HMG)]
    place(game, **where)
    game.turn = turn
    return game


def heavy(game: Game, *vehicles: int) -> Game:
    for v in vehicles:
        game.vehicles[v].heavy = {codes.TRACKS}
    return game


TACTICAL = {  # §8, I-TACV: direct-fire tracks empty, Vis silent, heavy damage in Saraci
    "met: nobody damaged": (victory_position(), True),
    "met: a damaged tank at a Saraci OW": (heavy(victory_position(AQ=S1), AQ), True),
    "met: a damaged tank at SAR": (heavy(victory_position(), AQ), True),
    "met: turn 20": (heavy(victory_position(turn=20, AQ=S3), AQ), True),
    "met: turn 20 of the extended game": (victory_position(EXTENDED, turn=20), True),
    "a damaged tank outside Saraci": (heavy(victory_position(AQ=SK1), AQ), False),
    "a damaged tank at Kalesija's OW": (heavy(victory_position(AQ=K1), AQ), False),
    "Vis still firing": (victory_position(silent=False), False),
    "an HMG chit on its track": (victory_position(direct_chit=True), False),
    "turn 21 of the extended game": (victory_position(EXTENDED, turn=21), False),
    "turn 40 of the extended game": (victory_position(EXTENDED, turn=40), False),
}


@pytest.mark.parametrize("case", TACTICAL, ids=list(TACTICAL))
def test_tactical_victory_8_I_TACV(case):
    game, won = TACTICAL[case]
    reference, fast = both_assess(game)
    assert reference[1] == won and fast[1] == won


OPERATIONAL = {  # §8, I-OPV: two tanks at T2 by the deadline; Vis silent
    "met: two tanks at T2": (victory_position(direct_chit=True, AQ=T2, EA=T2), True),
    "met: at the deadline": (victory_position(turn=18, AQ=T2, GB=T2), True),
    "one tank": (victory_position(AQ=T2, EA=KAL), False),
    "APCs do not count": (victory_position(AQ=T2, VL2=T2, QL3=T2), False),
    "after the deadline": (victory_position(turn=19, AQ=T2, EA=T2), False),
    "Vis still firing": (victory_position(silent=False, AQ=T2, EA=T2), False),
}


@pytest.mark.parametrize("case", OPERATIONAL, ids=list(OPERATIONAL))
def test_operational_victory_8_I_OPV(case):
    game, won = OPERATIONAL[case]
    reference, fast = both_assess(game)
    assert reference[0] == won and fast[0] == won


# ------------------------------------------------------------------ §7.1 targets


def target_position(*overrides: str, marker=None, **where):
    """Everyone in Saraci (out of every field of fire), the named vehicles elsewhere;
    marker=(position, marker id, side) puts an enemy-action marker on a position."""
    game = fresh_game(*overrides)
    place(game, **where)
    if marker is not None:
        p, name, side = marker
        game.markers[p] = (game.rules.marker_ids.index(name), side)
    return game


# K3, K2, K1 show firing priorities 4, 5, 6 to all three BSA weapons (R-FOF); the FP2
# marker on T21 shows FP 2 to ATGM and HMG, not to tanks (R-EAM).
TARGETS = {  # name: (position, heavily damaged vehicles, weapon, exclude, target)
    "lowest FP": (target_position(AQ=K3, EA=K1), (), codes.HMG, -1, AQ),
    "damaged first": (target_position(AQ=K3, EA=K1), (EA,), codes.HMG, -1, EA),
    "lowest FP among the damaged": (
        target_position(AQ=K3, EA=K1, GB=K2), (EA, GB), codes.ATGM, -1, GB),
    "a damaged vehicle out of the field of fire": (
        target_position(AQ=K3, EA=SAR), (EA,), codes.TANK, -1, AQ),
    "literal reading: one damaged vehicle first": (
        target_position(LITERAL, AQ=K3, EA=K1), (EA,), codes.HMG, -1, EA),
    "literal reading: two damaged, lowest FP of all": (
        target_position(LITERAL, AQ=K3, EA=K1, GB=K2), (EA, GB), codes.HMG, -1, AQ),
    "second attack of a double chit at another vehicle": (
        target_position(AQ=K3, EA=K1), (EA,), codes.HMG, EA, AQ),
    "second attack with no other target": (target_position(EA=K1), (EA,), codes.HMG, EA, -1),
    "an enemy-action marker's FP": (
        target_position(AQ=K3, marker=(T21, "FP2", 0), GB=T21), (), codes.HMG, -1, GB),
    "a marker side the weapon cannot fire at": (
        target_position(AQ=K3, marker=(T21, "FP2", 0), GB=T21), (), codes.TANK, -1, AQ),
}


@pytest.mark.parametrize("case", TARGETS, ids=list(TARGETS))
def test_target_priority_7_1_I_TARGET(case):
    game, damaged, weapon, exclude, want = TARGETS[case]
    heavy(game, *damaged)
    table = make_table(game)  # no luck scripted: a tie would fail the test
    assert reaction.choose_target(table, weapon, exclude) == want
    assert fast_reaction.choose_target(fast_state(game), weapon, exclude) == want


def test_a_victory_met_stays_won_in_both_engines_8_I_STICKY():
    """I-STICKY: an operational victory met at an earlier End phase stays won at one where
    its conditions lapse (here Vis fires again and the deadline has passed)."""
    from bollesim.game.policy import load_policy

    game = victory_position(silent=False, turn=19, AQ=T2, EA=T2)
    assert both_assess(game) == ((False, False), (False, False))
    game.operational = True
    st = fast_state(game)
    st[layout.SCRIPTED] = 0
    fast_end.end_phase(st, load_policy("random").decide)
    end.end_phase(make_table(game))
    assert game.operational and st[observation.OPERATIONAL] == 1
