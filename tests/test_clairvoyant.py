"""The clairvoyant player (bollesim/strong/clairvoyant.py) on Bøllebank: it sees each game's own future,
so on the same games it wins every game an honest player wins (an upper bound), wins
games the presets lose with lines the reference engine confirms, counts what it cannot
decide as won, and gives the same verdicts whatever the threads."""

from types import SimpleNamespace

import numpy as np
import pytest

from bollesim.batch.runner import simulate
from bollesim.bollebank import observation
from bollesim.bollebank.engine import layout
from bollesim.bollebank.game import GAME
from bollesim.bollebank.headroom import HEADROOM
from bollesim.bollebank.lookahead import SETUP
from bollesim.bollebank.reference.play import play_game
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.bollebank.rules.packed import SLOTS
from bollesim.game.policy import load_policy, replaying
from bollesim.strong import clairvoyant as CV
from bollesim.strong.lookahead import Position

RULES = load_ruleset()
SEED = 11
GAMES = 24
WIN_BY_NAME = CV.win_objectives(RESULT)
OPERATIONAL = WIN_BY_NAME["operational victory"]
HONEST = (  # none of them is the clairvoyant's base: what they win, its search must find
    ("fire_at_roe", {"k": 8, "stop_at_tanks": 0}),
    ("cautious", None),
    ("random", None),
    ("fire_at_turn", {"t": 6, "stop_at_tanks": 0}),
)


def clairvoyant(objective=OPERATIONAL, budget=60):
    return CV.Clairvoyant(GAME, RULES, objective, [(load_policy("historical"), None)], budget,
                          HEADROOM.nearer, HEADROOM.cut)


@pytest.fixture(scope="module")
def verdicts():
    return clairvoyant().solve_games(SEED, 0, GAMES)


@pytest.fixture(scope="module")
def honest_wins():
    """Per honest player, the games it wins (operational victory) of the same seed."""
    return {name: simulate(name, GAMES, seed=SEED, params=params)["operational"].to_numpy()
            for name, params in HONEST}


def test_wins_every_game_an_honest_player_wins(verdicts, honest_wins):
    """An upper bound on the same games: a game some honest player wins is never proven
    lost (won by a line found, or undecided and counted as won), and the search itself
    finds most of them."""
    won_by_some = np.any(np.stack(list(honest_wins.values())), axis=0)
    assert won_by_some.sum() >= 5  # the check checks something
    for name, won in honest_wins.items():
        for g in np.flatnonzero(won):
            assert verdicts[g].counted_won, (name, g, verdicts[g])
    found = sum(verdicts[g].status == CV.WON for g in np.flatnonzero(won_by_some))
    assert found > won_by_some.sum() / 2


def test_wins_games_the_presets_lose_with_lines_the_reference_engine_confirms(verdicts, honest_wins):
    """It sees the future: it wins games every honest player here loses, and each winning
    line, played by the reference engine (the choices, then the base), wins."""
    base_wins = simulate("historical", GAMES, seed=SEED)["operational"].to_numpy()
    lost_by_all = ~np.any(np.stack([*honest_wins.values(), base_wins]), axis=0)
    seen = [g for g in np.flatnonzero(lost_by_all) if verdicts[g].status == CV.WON]
    assert len(seen) >= 3
    base = load_policy("historical")
    for g in seen[:3]:
        v = verdicts[g]
        assert v.line  # found by the search: historical alone loses it
        policy = replaying(base, v.line)
        row = RESULT.ints(play_game(RULES, policy, base.param_vector(), SEED, int(g)))
        assert row[layout.R_OPERATIONAL] == 1
        assert row == list(v.row)


def test_verdicts_are_reproducible_whatever_the_threads(verdicts):
    again = clairvoyant().solve_games(SEED, 0, 8, threads=2)
    for a, b in zip(verdicts[:8], again, strict=True):
        assert (a.status, a.nodes, a.line) == (b.status, b.nodes, b.line)
        assert np.array_equal(a.row, b.row)


def test_an_undecided_game_counts_as_won():
    """With one decision of budget, a game its base loses and one step of search does not
    win is undecided, and the bound counts it among the successes."""
    player = clairvoyant(budget=1)
    verdicts = player.solve_games(SEED, 0, GAMES)
    undecided = [v for v in verdicts if v.status == CV.UNDECIDED]
    assert undecided and all(v.counted_won and v.nodes == 1 for v in undecided)
    counts = CV.bound(verdicts)
    assert counts["counted"] == counts[CV.WON] + len(undecided)
    assert counts["games"] == GAMES
    assert CV.bound(verdicts)[CV.LOST] == sum(not v.counted_won for v in verdicts)


def test_a_line_is_cut_only_past_the_latest_deadline():
    """I-OPV: with the deadline at most deadline_max (§5.5), a decision after that turn
    without the tanks in Tango 2 cannot lead to an operational victory; before it, or
    with them there, or for another objective, it can."""
    player = clairvoyant()
    _, point = player.players[0].next_decision(SEED, 0, Position(SETUP, []))
    last = int(RULES.packed[SLOTS["S_DEADLINE_MAX"]])

    def at(turn, reached, objective=OPERATIONAL):
        obs = point.obs.copy()
        obs[observation.TURN], obs[observation.T2_REACHED] = turn, reached
        p = CV.Clairvoyant(GAME, RULES, objective, [(load_policy("historical"), None)], 1,
                           cut=HEADROOM.cut)
        return p.hopeless(SimpleNamespace(obs=obs))

    assert at(last + 1, 0)
    assert not at(last, 0)
    assert not at(last + 1, 1)
    assert not at(last + 1, 0, WIN_BY_NAME["no defeat"])
    assert at(last + 1, 0, WIN_BY_NAME["operational victory and no defeat"])


def test_options_are_searched_nearest_to_winning_first():
    """The base policy's choice first, then the playouts that meet more of the objective,
    then by the game's `nearer` columns: for Bøllebank more tanks at Tango 2, a later end,
    fewer heavy hits (a reversed column, or none, orders them otherwise)."""
    player = CV.Clairvoyant(GAME, RULES, WIN_BY_NAME["operational victory and no defeat"],
                            [(load_policy("historical"), None)], 1, HEADROOM.nearer)

    def row(operational=0, defeat=1, tanks=0, end=10, heavy=0):
        r = np.zeros(len(RESULT.columns), dtype=np.int64)
        r[[layout.R_OPERATIONAL, layout.R_DEFEAT, layout.R_TANKS_AT_T2, layout.R_END_TURN,
           layout.R_HEAVY]] = operational, defeat, tanks, end, heavy
        return r

    rows = [row(), row(heavy=1), row(tanks=2), row(end=12), row(defeat=0), row(tanks=1),
            row(end=12, heavy=2)]
    assert player.order(rows, base_choice=1) == [1, 4, 2, 5, 3, 6, 0]
    plain = CV.Clairvoyant(GAME, RULES, OPERATIONAL, [(load_policy("historical"), None)], 1)
    assert plain.order(rows, base_choice=1) == [1, 0, 2, 3, 4, 5, 6]


def test_the_win_objectives_are_made_from_the_results_flags():
    """Each win, no loss, the main win and no loss, every win: a row wins as its flags
    say (Bøllebank's seven, and the test game's, whose flags are in other slots)."""
    from toygame.result import RESULT as PIG

    flags = {name: RESULT.slot(name) for name in RESULT.flags}
    assert {w.name: w.needs for w in WIN_BY_NAME.values()} == {
        "operational victory": ((flags["operational"], 1),),
        "tactical victory": ((flags["tactical"], 1),),
        "strategic victory": ((flags["strategic"], 1),),
        "political victory": ((flags["political"], 1),),
        "no defeat": ((flags["defeat"], 0),),
        "operational victory and no defeat": ((flags["operational"], 1), (flags["defeat"], 0)),
        "perfect (all four victories)": tuple((flags[w], 1) for w in RESULT.wins),
    }
    pig = CV.win_objectives(PIG)
    assert list(pig) == ["target reached", "never busted", "no busted out",
                         "target reached and no busted out", "both"]
    row = np.zeros(len(PIG.columns), dtype=np.int64)
    row[PIG.slot("reached")] = 1
    assert [w.won(row) for w in pig.values()] == [True, False, True, True, False]
    row[PIG.slot("busted_out")] = 1
    assert [w.won(row) for w in pig.values()] == [True, False, False, False, False]


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="base"):
        CV.Clairvoyant(GAME, RULES, OPERATIONAL, [], 10)
    with pytest.raises(ValueError, match="budget"):
        CV.Clairvoyant(GAME, RULES, OPERATIONAL, [(load_policy("historical"), None)], 0)
