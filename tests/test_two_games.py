"""One process, several games: the game is a value passed to what plays and analyses it
(docs/architecture.md §9), never read from the process around it, so Operation
Bøllebank, the Balkan Wars and the toy game (tests/toygame) are played one after another
and side by side, on two threads at once, with the rows each plays alone."""

import hashlib
import subprocess
import sys
import threading
from pathlib import Path

import polars as pl

import bollesim
from bollesim.game.policy import available_policies, load_policy
from bollesim.game.registry import load_game

GAMES = [("bollebank", "historical"), ("balkan-wars", "assault"), ("pig", "banker")]
TESTS = Path(__file__).parent


def digest(rows: pl.DataFrame) -> str:
    return hashlib.sha256(rows.write_csv().encode()).hexdigest()


ALONE = """
import hashlib, sys
import bollesim
rows = bollesim.simulate(sys.argv[1], int(sys.argv[3]), seed=11, game=sys.argv[2], threads=1)
print(hashlib.sha256(rows.write_csv().encode()).hexdigest())
"""


def played_alone(policy: str, game: str, n: int) -> str:
    """The digest of the rows a process of its own plays (nothing else played in it)."""
    done = subprocess.run([sys.executable, "-c", ALONE, policy, game, str(n)], check=True,
                          capture_output=True, text=True, timeout=600)
    return done.stdout.strip()


def test_two_threads_play_two_games_at_once_with_the_rows_each_plays_alone():
    """Bøllebank on one thread and the Balkan Wars on another, started together and each
    playing several chunks while the other plays: each thread's rows are byte for byte
    those of a process that plays its game alone."""
    n = {"bollebank": 3000, "balkan-wars": 600}
    rows, start = {}, threading.Barrier(2)

    def play(game: str, policy: str) -> None:
        start.wait()
        rows[game] = bollesim.simulate(policy, n[game], seed=11, game=game, threads=1,
                                       chunk_size=100)

    threads = [threading.Thread(target=play, args=pair) for pair in GAMES[:2]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for game, policy in GAMES[:2]:
        assert rows[game].columns[-len(load_game(game).result.names):] == list(
            load_game(game).result.names)
        assert digest(rows[game]) == played_alone(policy, game, n[game]), game


def test_one_process_plays_three_games_one_after_another():
    first = {}
    for game, policy in [*GAMES, GAMES[0]]:  # and Bøllebank again, as it was
        rows = bollesim.simulate(policy, 12, seed=5, engine="reference", game=game)
        result = load_game(game).result
        assert rows.columns[-len(result.names):] == list(result.names), game
        assert rows["policy"].unique().to_list() == [policy]
        if game in first:
            assert rows.equals(first[game]), f"{game} played otherwise after the others"
        first[game] = rows
    assert not set(load_game("bollebank").result.outcome_names) & set(first["balkan-wars"].columns)


def test_a_policy_keeps_the_game_it_was_loaded_for():
    balkan = load_policy("assault", "balkan-wars")
    assert balkan.game == "balkan-wars"
    rows = bollesim.simulate(balkan, 6, seed=2, engine="reference")  # simulate's game: default
    result = load_game("balkan-wars").result
    assert rows.columns[-len(result.names):] == list(result.names)
    assert available_policies("balkan-wars") == ["apprentice", "assault", "lookahead", "random"]
    assert available_policies("pig") == ["banker"]
    assert "historical" in available_policies()


def test_the_statistics_and_reports_analyse_the_game_they_are_given():
    """The layers above the engine name a game's outcomes only through the game they are
    handed: Bøllebank's rows and the Balkan Wars' analysed in turn, each by its own."""
    from bollesim.report import chartdata
    from bollesim.stats import analysis

    ours, theirs = load_game("bollebank"), load_game("balkan-wars")
    bollebank = bollesim.simulate("historical", 12, seed=1, engine="reference", game=ours)
    balkan = bollesim.simulate("assault", 50, seed=1, engine="reference", game=theirs)
    for game, rows in ((ours, bollebank), (theirs, balkan), (ours, bollebank)):
        outcomes = analysis.rates(game, rows, long=True)["outcome"].to_list()
        assert outcomes == list(game.result.outcome_names)
    assert analysis.summary(theirs, balkan)["variable"].to_list() == list(theirs.result.distributions)
    assert chartdata.comparison(theirs, balkan).outcomes == theirs.result.flags
    assert set(analysis.turns_by_outcome(theirs, balkan)["outcome"]) <= set(theirs.result.outcome_names)
