"""Pig race's declared decision points and draws (tests/toygame/positions.py): the games
its compiled primitives play are play.py's, a step on the game's own tape is the next
decision, and the draws it records are the dice play.py rolls."""

import numpy as np
import pytest
from toygame.exact import best_player
from toygame.game import GAME
from toygame.play import play_game
from toygame.result import RESULT
from toygame.rules import load_ruleset

from bollesim import rng
from bollesim.game.policy import load_policy
from bollesim.game.result import Objective
from bollesim.strong.chance import Chance
from bollesim.strong.lookahead import Lookahead, Position

RULES = load_ruleset()
SEED = 5
BANKER = load_policy("banker", "pig")
REACHED = Objective("target reached", {"reached": 1})


@pytest.mark.parametrize("hold", [2, 10, 30])
def test_the_positions_play_the_games_play_py_plays(hold):
    vector = BANKER.param_vector({"hold": hold})
    player = Lookahead(GAME, RULES, 1, BANKER, REACHED, vector)
    for g in range(200):
        row, _ = player.next_decision(SEED, g, player.setup)  # paused, then played out
        assert list(row) == RESULT.ints(play_game(RULES, BANKER.decide, vector, SEED, g))


def test_a_step_on_the_games_own_tape_is_the_next_decision_and_the_dice_are_play_pys():
    best, table = best_player(RULES)
    player = Lookahead(GAME, RULES, 1, best, REACHED, table)
    chance = Chance(GAME.positions_module, RULES, best, table, np.ones(1))
    checked = 0
    for g in range(40):
        dice = rng.new_stream(SEED, g, rng.CHANCE, purposes=1)
        at, turn = player.setup, 1
        while True:
            for draw in chance.draws(SEED, g, at.snapshot, at.script):
                turn = int(draw.context[0])
                assert draw.outcome + 1 == rng.keyed_d6(dice, turn, 0) and draw.weights.sum() == 6
            _, point = player.next_decision(SEED, g, at)
            if point is None:
                break
            for option in (0, 1):
                points, _ = player.steps(SEED, g, point, [option], [-1])
                nxt = player.next_decision(SEED, g, Position(point.at.snapshot,
                                                             [*point.at.script, option]))[1]
                assert points[0, 0] == (-1 if nxt is None else nxt.base_choice)
                if nxt is not None:
                    assert (points[0, 3:7] == nxt.obs).all()
                checked += 1
            at = Position(point.at.snapshot, [*point.at.script, point.base_choice])
    assert checked > 200
