"""Luck and errors (bollesim/strong/analysis.py) proven on Pig race, whose exact values
dynamic programming gives (tests/toygame/optimum.py): with the exact values, every
decision's error and every roll's luck are the programme's and every game telescopes to
a residual of 0; with rollouts, the estimates lie within their intervals at the stated
rate, and the outcomes of a draw share their rollouts' streams."""

import numpy as np
import pytest
from toygame import optimum
from toygame.exact import PigExact, best_player
from toygame.game import GAME
from toygame.rules import load_ruleset

from bollesim import rng
from bollesim.game.policy import load_policy
from bollesim.strong import estimates as E
from bollesim.strong.analysis import Analyst
from bollesim.strong.estimates import z_of
from bollesim.strong.split import totals, variance_split

RULES = load_ruleset()
SEED = 5
V = optimum.optimal_value(RULES)
BEST, TABLE = best_player(RULES)
BANKER = load_policy("banker", "pig")
HOLD = 10


def exact_analyst(**kw) -> Analyst:
    return Analyst(GAME, RULES, BEST, TABLE, exact=PigExact(RULES, V), threads=1, **kw)


def programme(game: int) -> tuple[list[float], list[float]]:
    """(each roll's luck, each decision's error) of the banker's game on its keyed dice,
    from the programme's values alone: a roll's luck is the value after it minus the
    value of rolling (roll_value), a decision's error the better choice's value minus
    the banker's."""
    r, dice = RULES, rng.new_stream(SEED, game, rng.CHANCE, purposes=1)
    total = busts = 0
    lucks, errors = [], []
    for turn in range(1, r.turns + 1):
        points = 0
        while True:
            before = optimum.roll_value(r, V, turn, total, busts, points)
            face = int(rng.keyed_d6(dice, turn, 0))
            if face <= r.bust_faces:
                busts += 1
                lost = busts >= r.busts_to_lose
                after = 0.0 if lost else optimum.roll_value(r, V, turn + 1, total, busts, 0)
                lucks.append(after - before)
                break
            points += face
            if total + points >= r.target:
                lucks.append(1.0 - before)
                return lucks, errors
            lucks.append(V(turn, total, busts, points) - before)
            roll = optimum.roll_value(r, V, turn, total, busts, points)
            bank = optimum.bank_value(r, V, turn, total, busts, points)
            errors.append(max(roll, bank) - (bank if points >= HOLD else roll))
            if points >= HOLD:
                total += points
                break
        if busts >= r.busts_to_lose:
            break
    return lucks, errors


@pytest.fixture(scope="module")
def exact_games():
    analyst = exact_analyst()
    return [analyst.analyse(BANKER, BANKER.param_vector(), SEED, g) for g in range(1000)]


def test_exact_luck_and_errors_are_the_programmes_on_every_roll_and_decision(exact_games):
    rolls = decisions = 0
    for a in exact_games:
        lucks, errors = programme(a.game)
        assert [c.luck.value for c in a.chances] == pytest.approx(lucks, abs=1e-12)
        assert [d.error.value for d in a.decisions] == pytest.approx(errors, abs=1e-12)
        rolls, decisions = rolls + len(lucks), decisions + len(errors)
    assert rolls > 5000 and decisions > 3000
    assert sum(d.error.called for a in exact_games for d in a.decisions) > 300


def test_every_game_telescopes_to_a_residual_of_zero_with_the_exact_values(exact_games):
    optimum_ = optimum.optimum(RULES)
    for a in exact_games:
        assert a.start.value == pytest.approx(optimum_, abs=1e-12)
        assert a.outcome - a.start.value == pytest.approx(a.luck.value - a.errors, abs=1e-12)
        assert a.residual == pytest.approx(0, abs=1e-12) and a.shortfall == 0
    assert len({a.outcome for a in exact_games}) == 2  # games won and lost


def test_the_chance_between_two_decisions_as_one_event_adds_up_its_draws(exact_games):
    """Without the draws, each segment's luck is the sum of its rolls' luck, and the game
    still telescopes."""
    analyst = exact_analyst(draws=False)
    for a in exact_games[:200]:
        b = analyst.analyse(BANKER, BANKER.param_vector(), SEED, a.game)
        by_segment = {}
        for c in a.chances:
            by_segment[c.segment] = by_segment.get(c.segment, 0.0) + c.luck.value
        assert [c.draw for c in b.chances] == [None] * len(b.chances)
        assert [c.luck.value for c in b.chances] == pytest.approx(
            [by_segment.get(c.segment, 0.0) for c in b.chances], abs=1e-12)
        assert b.residual == pytest.approx(0, abs=1e-12)


def test_the_variance_split_of_exact_games_closes_and_a_best_player_has_no_share():
    """The banker's errors are small and come in games that go well (long turns): its
    share is slightly negative; the best player's is nil."""
    analyst = exact_analyst()
    banker = totals([analyst.analyse(BANKER, BANKER.param_vector(), SEED, g) for g in range(300)])
    split = variance_split(banker, resamples=200)
    assert split.rest.value == pytest.approx(0, abs=1e-9)  # start constant, residual 0
    assert split.luck.value + split.player.value == pytest.approx(1)
    assert -0.1 < split.player.value < 0 < split.player.high - split.player.low
    assert split.player.low <= split.player.value <= split.player.high
    best = totals([analyst.analyse(BEST, TABLE, SEED, g) for g in range(300)])
    assert best["errors"].abs().max() < 1e-12
    assert variance_split(best, resamples=200).luck.value == pytest.approx(1)


@pytest.fixture(scope="module")
def estimated(exact_games):
    """150 games analysed by rollouts, beside their exact analyses."""
    analyst = Analyst(GAME, RULES, BEST, TABLE, rollouts=100)
    return [(analyst.analyse(BANKER, BANKER.param_vector(), SEED, a.game), a)
            for a in exact_games[:150]]


def numbers(a) -> list:
    """Every number of a game's analysis."""
    return [a.start, a.outcome, *((s.values, s.error, s.gap, s.shortfall) for s in a.decisions),
            *((c.before, c.after, c.luck) for c in a.chances)]


def test_games_analysed_side_by_side_are_those_analysed_one_by_one(estimated):
    """analyse_all: games side by side, one thread each, in their order, the same
    numbers as one by one with the rollouts dealt to the default threads."""
    analyst = Analyst(GAME, RULES, BEST, TABLE, rollouts=100, threads=3)
    alone = [r_a for r_a, _ in estimated[:7]]
    together = analyst.analyse_all([(BANKER, BANKER.param_vector(), SEED, a.game) for a in alone])
    assert [numbers(a) for a in together] == [numbers(a) for a in alone]


def covered(pairs) -> float:
    inside = [lo - 1e-12 <= x <= hi + 1e-12 for x, (lo, hi) in pairs]
    assert len(inside) > 400
    return float(np.mean(inside))


def test_rollout_estimates_lie_within_their_intervals_at_the_stated_rate(estimated):
    z = z_of(0.95)
    luck = covered((e.luck.value, r.luck.interval(z))
                   for r_a, e_a in estimated for r, e in zip(r_a.chances, e_a.chances, strict=True))
    values = covered((e.values[i].value, r.values[i].interval(z))
                     for r_a, e_a in estimated
                     for r, e in zip(r_a.decisions, e_a.decisions, strict=True) for i in range(2))
    errors = covered((e.error.value, (r.error.low, r.error.high))
                     for r_a, e_a in estimated
                     for r, e in zip(r_a.decisions, e_a.decisions, strict=True))
    assert 0.93 <= luck <= 0.99, luck
    assert 0.93 <= values <= 0.99, values
    assert errors >= 0.93, errors


def test_the_outcomes_of_a_draw_share_their_rollouts_streams(estimated):
    """Common random numbers: a draw's luck, paired rollout by rollout across its
    outcomes, has a far smaller standard error than the same rollouts unpaired."""
    ratios = []
    for r_a, _ in estimated:
        for c in r_a.chances:
            unpaired = np.hypot(c.after.se, c.before.se)
            ratios.append(c.luck.se / unpaired)
    assert np.median(ratios) < 0.55, np.median(ratios)  # 0.39; 0.78 on streams of their own


def test_the_options_of_a_decision_share_their_rollouts_streams():
    """Common random numbers: the difference of a decision's two options, paired rollout
    by rollout, has a smaller standard error than the same rollouts unpaired."""
    analyst = Analyst(GAME, RULES, BEST, TABLE, rollouts=100)
    ratios = []
    for g in range(60):
        for point, _, _ in analyst.walk(BANKER, BANKER.param_vector(), SEED, g)[0]:
            v = analyst.stated.values(SEED, g, point)
            unpaired = np.hypot(E.value(v[0]).se, E.value(v[1]).se)
            ratios.append(E.difference(v[1] - v[0]).se / unpaired)
    assert np.median(ratios) < 0.85, np.median(ratios)  # 0.74; 0.96 on streams of their own
