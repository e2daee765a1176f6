"""The analysis of luck and errors on Operation Bøllebank (bollesim/strong/analysis.py over
bollebank/positions.py): the stated player plays on from the positions of a game another
player played as from its own, and the chance between two decisions is named."""

import numpy as np
import pytest

from bollesim.bollebank import positions
from bollesim.bollebank.game import GAME
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.game.policy import load_policy
from bollesim.strong.analysis import Analyst, Lanes
from bollesim.strong.chance import Chance
from bollesim.strong.lookahead import Lookahead, Position

RULES = load_ruleset()
SEED, GAME_INDEX = 1, 0


@pytest.fixture(scope="module")
def walked():
    played, stated = load_policy("historical"), load_policy("apprentice")
    analyst = Analyst(GAME, RULES, stated, stated.param_vector(), rollouts=6)
    return analyst, played, analyst.walk(played, played.param_vector(), SEED, GAME_INDEX)[0]


def test_rollouts_from_another_players_positions_are_the_stated_players_own(walked):
    """Who plays a rollout, and with which parameters, is the stated player's, not the
    snapshot's: its values from the historical plan's positions are those from its own
    replay of the same choices."""
    analyst, _, points = walked
    at = analyst.stated.setup
    for point, taken, stated in points[:12]:
        _, own = analyst.stated.next_decision(SEED, GAME_INDEX, at)
        assert own.base_choice == stated and (own.options == point.options).all()
        assert (analyst.stated.values(SEED, GAME_INDEX, point)
                == analyst.stated.values(SEED, GAME_INDEX, own)).all()
        at = Position(own.at.snapshot, [*own.at.script, taken])


def test_a_game_walked_and_rolled_out_in_few_calls_is_the_same_as_one_by_one(walked):
    """The analysis walks a game in one kernel call and rolls out its decisions' options
    in a few (Replayer.walk, spread_rows): the points and positions of next_decision
    after next_decision, and each decision's own rollouts, however the jobs are dealt
    to threads."""
    analyst, played, points = walked
    replayer = Lookahead(GAME, RULES, 1, played, analyst.objective, played.param_vector())
    at = replayer.setup
    for point, taken, _ in points:
        _, one = replayer.next_decision(SEED, GAME_INDEX, at)
        assert one.kind == point.kind and one.base_choice == taken
        for a, b in ((one.at.snapshot, point.at.snapshot), (one.at.script, point.at.script),
                     (one.obs, point.obs), (one.options, point.options)):
            assert np.array_equal(a, b)
        at = Position(one.at.snapshot, [*one.at.script, taken])
    assert replayer.next_decision(SEED, GAME_INDEX, at)[1] is None
    some = points[:24]
    with Lanes(3) as lanes:
        batched = analyst._all_option_values(SEED, GAME_INDEX, some, lanes)
    for w, (values, fresh) in zip(some, batched, strict=True):
        one_values, one_fresh = analyst._option_values(SEED, GAME_INDEX, w)
        assert np.array_equal(values, one_values)
        assert np.array_equal(fresh, one_fresh, equal_nan=True)


def test_the_chance_between_two_decisions_is_named(walked):
    analyst, played, points = walked
    words = positions.chance_words(RULES, played, played.param_vector(), SEED, GAME_INDEX,
                                   [taken for _, taken, _ in points])
    assert len(words) == len(points) + 1 and words[0] == ""  # nothing drawn before the first
    assert sum("Draws" in w for w in words) > 10
    assert np.mean([w == "" for w in words]) < 0.6


# ------------------------------------------------------------------ its draws, one by one


@pytest.fixture(scope="module")
def segments(walked):
    """Every segment of the game: (snapshot, script, its draws as the played policy's
    replay records them), and the game's own result row."""
    analyst, played, points = walked
    chance = Chance(positions, RULES, played, played.param_vector(), analyst.weights)
    row = analyst.walk(played, played.param_vector(), SEED, GAME_INDEX)[1]
    out = [(positions.SETUP, [])]
    out += [(p.at.snapshot, [*p.at.script, taken]) for p, taken, _ in points]
    return chance, [(s, c, chance.draws(SEED, GAME_INDEX, s, c)) for s, c in out], row


def test_forcing_each_draw_to_its_own_outcome_replays_the_game(segments):
    """The draws recorded after a decision are the game's own: forced one by one to the
    outcome recorded, on the game's own streams after it (r = -1), each replays the
    game's result row; forced to another outcome, some do not."""
    chance, segs, row = segments
    n = len(row)
    own, other = 0, 0
    none = np.zeros(0, dtype=np.int64)
    for snapshot, script, draws in segs:
        for d in draws:
            out = chance._run(SEED, GAME_INDEX, snapshot, script, d.number, [d.outcome], [-1], n,
                              none)
            assert (out[0] == row).all(), (len(script), d)
            live = np.flatnonzero(d.weights)
            if len(live) > 1:
                o = int(live[live != d.outcome][0])
                out = chance._run(SEED, GAME_INDEX, snapshot, script, d.number, [o], [-1], n, none)
                other += not (out[0] == row).all()
            own += 1
    assert own > 100 and other > 10


def test_the_weights_are_the_outcomes_the_rules_allow(segments):
    """A die's faces sum to 6 and 2d6's throws to 36 (1, 2, .., 6, .., 1 where every sum
    is an outcome of its own); a cup's chits to the chits in it (the whole pool at the
    first draw, one fewer at each draw of a turn's pairs)."""
    chance, segs, _ = segments
    kinds = {name: k for k, name in enumerate(positions.DRAWS)}
    chits = [d for _, _, ds in segs for d in ds if d.kind == kinds["chit"]]
    assert chits[0].weights.sum() == RULES.n_pool_chits
    assert [int(d.weights.sum()) for d in chits[:4]] == [RULES.n_pool_chits - i for i in range(4)]
    dice = {kinds[k] for k in ("tank attack", "atgm attack", "hmg attack", "artillery")}
    seen = set()
    for _, _, ds in segs:
        for d in ds:
            assert d.weights[d.outcome] > 0 and (d.weights >= 0).all()
            if d.kind in dice:
                assert d.weights.sum() == 36 and len(d.weights) == 11
            elif d.kind not in (kinds["chit"], kinds["ru"], kinds["marker"], kinds["target"],
                                kinds["marker side"]):
                assert d.weights.sum() == 6 and len(d.weights) == 6
            seen.add(positions.DRAWS[d.kind])
    assert {"chit", "hmg attack", "tank status", "un fire"} <= seen
    # every 2d6 sum its own outcome: the weights are the throws of each sum
    every = chance_twin_weights()
    assert list(every) == [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]


def chance_twin_weights():
    """The weights the engine records for a 2d6 whose every sum is read (no cuts)."""
    from bollesim.bollebank.engine import draws, layout

    st = np.zeros(layout.TRACE, dtype=np.int64)
    st[layout.DRAW_MODE] = draws.DRAWS
    draws.declared(st, 0, draws.DICE, 5, draws.DICE_SUMS, 0, 0, 0)
    at = layout.DRAW_RECORD + 3
    return st[at : at + draws.DICE_SUMS]


def test_a_segments_draws_chain_up_to_rollout_noise(walked, segments):
    """Within a segment, the value after a draw's outcome and the expectation before the
    next draw value the same position: the chance between two decisions is the sum of
    its draws' luck, up to the rollouts' noise."""
    analyst, _, points = walked
    _, segs, _ = segments
    gaps, ses = [], []
    for k, (_, _, draws) in enumerate(segs[:40]):
        if len(draws) < 2:
            continue
        steps = analyst._draws(SEED, GAME_INDEX, points, k)
        for a, b in zip(steps, steps[1:], strict=False):
            gaps.append(a.after.value - b.before.value)
            ses.append(np.hypot(a.after.se, b.before.se))
    assert len(gaps) > 10
    z = np.sum(gaps) / np.sqrt(np.sum(np.square(ses)))
    assert abs(z) < 4, (z, gaps)
