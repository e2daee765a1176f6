"""The penalised clairvoyant (bollesim/game/relaxation.py) proven on Pig race with keyed
luck, whose optimum dynamic programming gives exactly (tests/toygame/optimum.py): with
V = 0 it is the plain clairvoyant, with the exact V it is the optimum on every game, with
a rough V it lies between; a planted biased penalty is caught."""

import numpy as np
import pytest
from toygame import optimum
from toygame.rules import load_ruleset

from bollesim.game import relaxation

RULES = load_ruleset()
SEED = 5
OPTIMUM = optimum.optimum(RULES)


def bounds(baseline, games: int, rules=RULES) -> np.ndarray:
    return np.array([relaxation.bound(optimum.PigTape(rules, SEED, g), baseline).value for g in range(games)])


def exact_on_every_game(baseline, games: int) -> None:
    """The check the exact V must pass: every game's bound is the optimum, to rounding,
    and so is their mean (within 0.1 points)."""
    found = bounds(baseline, games)
    assert np.abs(found - OPTIMUM).max() < 1e-9
    assert abs(found.mean() - OPTIMUM) < 0.001


def test_the_optimum_is_a_probability_the_strong_banker_does_not_reach():
    banker = optimum.roll_value(RULES, optimum.banker_value(RULES, 10), 1, 0, 0, 0)
    assert 0.5 < banker < OPTIMUM < 1


def test_with_no_penalty_it_is_the_plain_clairvoyant():
    """V = 0: the bound of each game is 1 where some banking schedule wins on its dice
    (found by a search of its own), else 0."""
    found = bounds(relaxation.Zero(), 2000)
    plain = [optimum.plain_clairvoyant(RULES, optimum.tape_of(RULES, SEED, g)) for g in range(2000)]
    assert np.array_equal(found, np.array(plain, dtype=float))
    assert found.mean() > OPTIMUM + 0.05  # foresight is worth something here


def test_with_the_exact_value_it_is_the_optimum_on_every_game():
    exact_on_every_game(optimum.Enumerated(RULES, optimum.optimal_value(RULES)), 10_000)


@pytest.mark.parametrize("planted", ["bust faces", "one point"])
def test_a_biased_penalty_is_caught(planted):
    """The check above fails when the penalty's expectation is biased: enumerated as if
    two faces bust, or one point too low at every decision."""
    exact = optimum.optimal_value(RULES)
    if planted == "bust faces":
        biased = optimum.Enumerated(RULES, exact, load_ruleset(overrides=["game.bust_faces=2"]))
    else:
        biased = optimum.Enumerated(RULES, exact)
        right = biased.expected
        biased.expected = lambda state, bank: right(state, bank) - 0.01
    with pytest.raises(AssertionError):
        exact_on_every_game(biased, 500)


def test_with_a_rough_value_it_lies_between():
    """V: the value of banking at 10 points. Its bound is an upper bound (above the
    optimum beyond three standard errors) and tighter than the plain clairvoyant's."""
    games = 2000
    rough = bounds(optimum.Enumerated(RULES, optimum.banker_value(RULES, 10)), games)
    plain = bounds(relaxation.Zero(), games)
    error = rough.std() / games ** 0.5
    assert rough.mean() - 3 * error > OPTIMUM
    assert rough.mean() < plain.mean() - 0.03


def test_inner_samples_keep_a_bound_biased_upward_by_their_noise():
    """The expectation by m dice drawn off the tape, the exact V otherwise: the bound stays
    above the optimum (the penalty keeps mean zero), by a bias that the search's max over
    lines picks up from the samples' noise and that shrinks with m (about as 1/sqrt(m):
    some 29 points at m = 4, 6.5 at m = 64 on 200 games)."""
    games, exact = 60, optimum.optimal_value(RULES)
    bias = {}
    for m in (4, 64):
        found = np.array([relaxation.bound(optimum.PigTape(RULES, SEED, g),
                                           optimum.Sampled(RULES, exact, m, SEED, g)).value
                          for g in range(games)])
        bias[m] = found.mean() - OPTIMUM
        assert bias[m] - 3 * found.std() / games ** 0.5 > 0
    assert bias[64] < bias[4] / 2.5
