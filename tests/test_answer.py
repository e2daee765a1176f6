"""The answer of a sweep in words (bollesim/report/answer.py): every sentence checked
against rates counted in the test from games built with known outcomes."""

from __future__ import annotations

import polars as pl

from bollesim.game.registry import load_game
from bollesim.report import answer

GAME = load_game("bollebank")

N = 400  # games per setting, the same game indices under every setting


def settings(outcomes_by_k: dict[int, dict[str, range]]) -> pl.DataFrame:
    """fire_at_roe games: under each k, the games of each outcome's range have it."""
    rows = []
    for k, outcomes in outcomes_by_k.items():
        for g in range(N):
            row = {"game": g, "seed": 1, "policy": "fire_at_roe", "cell": k, "k": float(k),
                   "end_turn": 10, "end_reason": "", "first_fire_turn": 3}
            for o in ("operational", "tactical", "strategic", "political", "defeat"):
                row[o] = g in outcomes.get(o, range(0))
            rows.append(row)
    return pl.DataFrame(rows)


GAMES = settings({
    8: {"defeat": range(0, 100), "operational": range(100, 220)},
    9: {"defeat": range(0, 100), "operational": range(100, 220)},  # the same games as 8
    12: {"defeat": range(0, 200), "operational": range(200, 260), "strategic": range(260, 360)},
    25: {"defeat": range(0, 300)},  # 25: never
})
OUTCOMES = ("operational", "strategic", "defeat")


def rate(games: range) -> str:
    return f"{100 * len(games) / N:.1f}%"


def test_the_answer_names_the_best_setting_its_trade_off_and_the_same_games():
    said = answer.sentences(GAME, GAMES, "k", policy="fire_at_roe", outcomes=OUTCOMES)
    assert said == [
        "Give the first Fire order once the RoE is 8 or more, as soon as the rules allow "
        "(RoE 8, §2.1.4) (k = 8 and 9: the same games): "
        f"the best for avoiding defeat (defeat in {rate(range(0, 100))}) and operational "
        f"victory ({rate(range(100, 220))}).",
        "Unless you play for strategic victory: then give the first Fire order once the RoE "
        f"is 12 or more ({rate(range(260, 360))} against {rate(range(0))} at 8; defeat there "
        f"{rate(range(0, 200))} against {rate(range(0, 100))}).",
        "k = 8 and 9 play the same games: no game ends otherwise under any of them.",
    ]


def test_a_setting_no_better_on_the_same_games_is_named_a_tie():
    """k=10 differs from 8 in two games only (exact McNemar p = 0.5) and loses the same games:
    a tie for both outcomes, said once."""
    games = settings({
        8: {"defeat": range(0, 100), "operational": range(100, 220)},
        10: {"defeat": range(0, 100), "operational": range(102, 220)},
        12: {"defeat": range(0, 200), "operational": range(200, 260)},
    })
    said = answer.sentences(GAME, games, "k", policy="fire_at_roe", outcomes=("operational", "defeat"))
    assert ("For operational victory and avoiding defeat, k = 10 ties with the best, 8 (no "
            "significant difference on the same games).") in said
    assert not any("play the same games" in s for s in said)


def test_runs_of_settings_are_given_by_their_ends():
    order = ["1", "2", "3", "4", "6", "7", "8", "never"]
    assert answer._span(["1", "2", "3", "6", "7"], "t", order) == "t = 1 to 3, 6 and 7"
    assert answer._span(["4", "7", "8", "never"], "t", order) == "t = 4, 7, 8 and never"
    assert answer._span(["6", "7", "8", "never"], "t", order) == "t = 6 to 8 and never"
    assert answer._span(["2"], "t", order) == "t = 2"


def test_a_policy_that_sweeps_two_parameters_compares_each_on_its_own_cells():
    """One policy, two grids: k swept at stop_at_tanks 0, stop_at_tanks swept at k 8 (as
    the restricted expert sweeps its two imposed triggers). Each parameter's settings are
    compared on its own grid's games, pair by pair: k = 10 differs from 8 in two games and
    ties with it; mixing in the other grid's cells would leave nothing paired."""
    one = settings({
        8: {"defeat": range(0, 100), "operational": range(100, 220)},
        10: {"defeat": range(0, 100), "operational": range(102, 220)},
    }).with_columns(pl.lit(0.0).alias("stop_at_tanks"))
    other = settings({8: {"defeat": range(0, 300)}}).with_columns(pl.lit(3.0).alias("stop_at_tanks"))
    games = pl.concat([one, other.with_columns(pl.col("cell") + 100)])
    (ruleset, rows, policy, param), = [s for s in answer.swept(GAME, games) if s[3] == "k"]
    assert rows.height == 2 * N and set(rows["stop_at_tanks"]) == {0.0}
    said = answer.sentences(GAME, rows, "k", policy=policy, outcomes=("operational", "defeat"))
    assert not any(s.startswith("Unless") for s in said), said
    assert any("k = 10 ties with the best, 8" in s for s in said), said


def test_the_answer_says_its_conditions():
    """A trade-off setting under which few games act says so (none: the same as never),
    and a parameter held away from its default for every game is named with its meaning."""
    games = settings({
        1: {"defeat": range(0, 100), "operational": range(100, 220)},
        20: {"defeat": range(0, 310), "strategic": range(310, 370)},
    }).with_columns(pl.lit("fire_at_turn").alias("policy"), pl.col("k").alias("t"),
                    pl.when((pl.col("k") == 20) & (pl.col("game") >= 20)).then(None)
                    .otherwise(3).alias("first_fire_turn"),
                    pl.lit(0.0).alias("stop_at_tanks")).drop("k")
    said = answer.sentences(GAME, games, "t", policy="fire_at_turn", outcomes=OUTCOMES)
    assert said[0].startswith("Give the first Fire order from turn 1 on, as soon as the rules allow:")
    assert said[1] == (
        "Unless you play for strategic victory: then give the first Fire order from turn 20 on "
        f"({rate(range(310, 370))} against 0.0% at 1; defeat there {rate(range(0, 310))} against "
        f"{rate(range(0, 100))}), though the player gave a Fire order in only {rate(range(20))} of "
        "its games: nearly the same as never.")
    assert said[-1].startswith("All of this for a player with stop_at_tanks = 0 (stop drawing "
                               "pairs once this many tank chits are on their track; 0: only the "
                               "one pair a turn that §5.3 requires; the default is 3), "
                               "fire_at_turn's other parameters at their defaults.")
