"""The penalised clairvoyant on this game (bollesim/bollebank/penalised.py): a line's
value is V at the first decision plus the estimated advantages it takes, the base's own
line is worth V there, and its inner samples are on streams of their own."""

import pytest

from bollesim.bollebank.clairvoyant import WIN_BY_NAME
from bollesim.bollebank.engine.rollout import MAX_ROLLOUTS
from bollesim.bollebank.lookahead import SETUP, Position
from bollesim.bollebank.penalised import FRESH, INNER, MOST, Penalised
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.game.policy import load_policy

RULES = load_ruleset()
SEED, GAME = 3, 1
OPERATIONAL = WIN_BY_NAME["operational victory"]


def penalised(offset=0, rollouts=4):
    return Penalised(RULES, OPERATIONAL, load_policy("cautious"), None, rollouts, offset)


@pytest.fixture(scope="module")
def greedy():
    return penalised().greedy(SEED, GAME)


def test_the_base_line_is_worth_v_at_the_first_decision(greedy):
    """No choice changed: no advantage taken, and the game is the base policy's own."""
    own = penalised().replay(SEED, GAME, ())
    assert own.value == own.start == greedy.start and 0 <= own.start <= 1
    row, _ = penalised().player.next_decision(SEED, GAME, Position(SETUP, []))
    assert own.won == OPERATIONAL.won(row) and own.decisions > 10


def test_the_greedy_line_takes_every_positive_advantage(greedy):
    """Its value is V at the first decision plus the advantages it took, none negative;
    the same line on the same samples is worth the same (same seed, same numbers), and on
    fresh samples something else."""
    assert greedy.value > greedy.start
    assert penalised().replay(SEED, GAME, greedy.line) == greedy
    fresh = penalised(FRESH).replay(SEED, GAME, greedy.line)
    assert fresh.line == greedy.line and fresh.value != greedy.value


def test_the_inner_samples_are_not_a_players_rollouts():
    """A lookahead player numbers its rollouts from 0 up to its most (the parameter's
    declared range): the inner samples, fresh ones included, are numbered above them and
    within the rollout numbers that have streams of their own."""
    most = next(p.high for p in load_policy("lookahead").parameters if p.name == "rollouts")
    assert INNER > most
    assert INNER + FRESH + MOST < MAX_ROLLOUTS


@pytest.mark.parametrize("rollouts", [0, MOST + 1])
def test_inner_samples_out_of_range_are_refused(rollouts):
    with pytest.raises(ValueError, match="1 to 65,536 rollouts"):
        penalised(rollouts=rollouts)
