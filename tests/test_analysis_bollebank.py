"""The analysis of luck and errors on Operation Bøllebank (bollesim/strong/analysis.py over
bollebank/positions.py): the stated player plays on from the positions of a game another
player played as from its own, and the chance between two decisions is named."""

import numpy as np
import pytest

from bollesim.bollebank import positions
from bollesim.bollebank.game import GAME
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.game.policy import load_policy
from bollesim.strong.analysis import Analyst
from bollesim.strong.lookahead import Position

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


def test_the_chance_between_two_decisions_is_named(walked):
    analyst, played, points = walked
    words = positions.chance_words(RULES, played, played.param_vector(), SEED, GAME_INDEX,
                                   [taken for _, taken, _ in points])
    assert len(words) == len(points) + 1 and words[0] == ""  # nothing drawn before the first
    assert sum("Draws" in w for w in words) > 10
    assert np.mean([w == "" for w in words]) < 0.6
