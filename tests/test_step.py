"""The STEP samples of the penalised clairvoyant (engine/rollout.py, Bøllebank's step): a step on the game's
own streams is the next decision the plain engine reaches (PAUSE), and a step on a
rollout's streams is a sample of the chance to that decision drawn off the tape."""

import numpy as np
import pytest

from bollesim.bollebank import observation
from bollesim.bollebank.lookahead import OBJECTIVES, SETUP, new_lookahead
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.game.policy import load_policy
from bollesim.strong.lookahead import Position
from bollesim.strong.penalised import INNER

RULES = load_ruleset()
SEED = 3


@pytest.fixture(scope="module")
def player():
    return new_lookahead(RULES, 1, load_policy("cautious"), OBJECTIVES[0])


def decisions(player, game, most=40):
    """The first `most` decisions of a game whose line takes the last option each time."""
    row, point = player.next_decision(SEED, game, Position(SETUP, []))
    while point is not None and most:
        yield point
        most -= 1
        at = Position(point.at.snapshot, [*point.at.script, len(point.options) - 1])
        row, point = player.next_decision(SEED, game, at)


@pytest.mark.parametrize("game", [0, 1])
def test_a_step_on_the_games_own_tape_is_the_next_decision(player, game):
    """Every option of every decision on a line: the step's point (choice, kind, options,
    observation), or where the game ends its result row, is the plain engine's."""
    checked = ended = 0
    for point in decisions(player, game):
        n = len(point.options)
        points, rows = player.steps(SEED, game, point, np.arange(n), np.full(n, -1))
        for i in range(n):
            row, nxt = player.next_decision(
                SEED, game, Position(point.at.snapshot, [*point.at.script, i]))
            if nxt is None:
                assert points[i, 0] == -1 and (rows[i] == row).all()
                ended += 1
                continue
            k = len(nxt.options)
            assert points[i, 0] == nxt.base_choice and points[i, 1] == nxt.kind
            assert (points[i, 3 : 3 + observation.SIZE] == nxt.obs).all()
            assert (points[i, 3 + observation.SIZE : 3 + observation.SIZE + k] == nxt.options).all()
            checked += 1
    assert checked > 50


def test_steps_off_the_tape_are_other_chance_the_same_for_every_option(player):
    """A rollout number's step differs from the tape's somewhere, is the same when asked
    again, and its options share their stream (common random numbers: the same option
    twice under one number gives the same point)."""
    moved = 0
    for point in decisions(player, 1, most=20):
        n = len(point.options)
        own, _ = player.steps(SEED, 1, point, np.arange(n), np.full(n, -1))
        numbers = np.full(n, INNER)
        drawn, _ = player.steps(SEED, 1, point, np.arange(n), numbers)
        again, _ = player.steps(SEED, 1, point, np.arange(n)[::-1], numbers)
        assert (drawn == again[::-1]).all()
        moved += int((drawn != own).any())
    assert moved > 0
