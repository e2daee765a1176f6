"""The game's luck is keyed (rng.py, bollebank/luck.py): the n-th draw of one purpose in
one turn does not depend on the draws made before it for other purposes or in earlier
turns, so a game has one future however it is played."""

from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from bollesim import rng
from bollesim.bollebank import events, luck
from bollesim.bollebank.reference.play import play_game
from bollesim.game.policy import load_policy
from tests.conftest import ruleset

requests = st.lists(  # (turn, purpose) requests in game order: turns never go back
    st.tuples(st.integers(1, 40), st.integers(0, luck.N_PURPOSES - 1)), max_size=60,
).map(sorted)


def draws_by_purpose(order: list[tuple[int, int]]) -> dict:
    """The values each (turn, purpose) gets, in its order, when drawn in `order`."""
    stream = rng.new_stream(7, 3, rng.CHANCE, luck.N_PURPOSES)
    got = defaultdict(list)
    for turn, purpose in order:
        got[turn, purpose].append(int(rng.keyed_below(stream, 1 << 30, turn, purpose)))
    assert stream[1] == len(order)  # every draw is counted
    return got


@settings(max_examples=200, deadline=None)
@given(requests, st.randoms(use_true_random=False))
def test_a_purpose_draws_the_same_whatever_else_is_drawn(order, random):
    """Shuffle the draws within each turn, and drop some: each purpose's own draws in a
    turn come out the same, in their order."""
    other = []
    for turn in sorted({t for t, _ in order}):
        mine = [r for r in order if r[0] == turn]
        random.shuffle(mine)
        other += [r for r in mine if random.random() < 0.7]
    full, part = draws_by_purpose(order), draws_by_purpose(other)
    for key, values in part.items():
        assert values == full[key][: len(values)], key


def test_two_players_roll_the_same_tank_status_die_each_turn():
    """§7.1: the tank-status die of a turn is the first draw of its purpose, so two
    policies that play a game differently roll the same one in every turn both reach
    with tanks on the track (with draws counted over the game, they would not)."""
    rules = ruleset()
    compared = differing = 0
    for g in range(20):
        dice, traces = [], []
        for name in ("historical", "rush"):
            policy = load_policy(name)
            trace: list = []
            play_game(rules, policy, policy.param_vector(), 5, g, trace)
            dice.append({turn: a for turn, kind, a, *_ in trace if kind == events.TANK_STATUS})
            traces.append(trace)
        common = dice[0].keys() & dice[1].keys()
        assert all(dice[0][t] == dice[1][t] for t in common), g
        compared += len(common)
        differing += traces[0] != traces[1]
    assert compared >= 40 and differing >= 15  # many turns compared, on games played apart
