"""One process, several games: the game is chosen where it is played (simulate's `game`,
declaration.playing), not frozen at import, so Operation Bøllebank, the Balkan Wars and
the toy game (tests/toygame) are played one after another in this process with no
$BOLLESIM_GAME (docs/architecture.md §9)."""

import pytest

import bollesim
from bollesim.errors import UsageError
from bollesim.game.policy import available_policies, load_policy
from bollesim.game.registry import CHOICE, declared, playing

GAMES = [("bollebank", "historical"), ("balkan-wars", "assault"), ("pig", "banker")]


@pytest.fixture(autouse=True)
def no_game_in_the_environment(monkeypatch):
    monkeypatch.delenv(CHOICE, raising=False)


def test_one_process_plays_three_games_one_after_another():
    first = {}
    for game, policy in [*GAMES, GAMES[0]]:  # and Bøllebank again, as it was
        rows = bollesim.simulate(policy, 12, seed=5, engine="reference", game=game)
        result = declared(game).result
        assert rows.columns[-len(result.names):] == list(result.names), game
        assert rows["policy"].unique().to_list() == [policy]
        if game in first:
            assert rows.equals(first[game]), f"{game} played otherwise after the others"
        first[game] = rows
    assert not set(declared("bollebank").result.outcome_names) & set(first["balkan-wars"].columns)
    assert declared().name == declared("bollebank").name  # nothing left behind: the default again


def test_a_policy_keeps_the_game_it_was_loaded_for():
    balkan = load_policy("assault", "balkan-wars")
    rows = bollesim.simulate(balkan, 6, seed=2, engine="reference")  # outside any playing block
    assert rows.columns[-len(declared("balkan-wars").result.names):] == list(declared("balkan-wars").result.names)
    assert available_policies(game="balkan-wars") == ["assault"]
    assert "historical" in available_policies()


def test_playing_chooses_the_game_for_a_block_and_refuses_an_unknown_one():
    with playing("pig") as game:
        assert declared() is game and available_policies() == ["banker"]
    assert declared().name == declared("bollebank").name
    with pytest.raises(UsageError, match="unknown game"), playing("chess"):
        pass


def test_the_statistics_and_reports_read_the_game_being_played():
    """The layers above the engine learn the outcomes when called, not once at import:
    after Bøllebank's are imported and used, a `playing` block analyses another game's
    rows by its own outcomes, and Bøllebank's come back after it."""
    from bollesim.report import answer, balance, chartdata, headroom, plots  # noqa: F401
    from bollesim.stats import analysis, vocabulary

    ours, theirs = declared("bollebank").result, declared("balkan-wars").result

    def outcomes(rows) -> list[str]:
        return analysis.rates(rows, long=True)["outcome"].to_list()

    bollebank = bollesim.simulate("historical", 12, seed=1, engine="reference", game="bollebank")
    balkan = bollesim.simulate("assault", 50, seed=1, engine="reference", game="balkan-wars")
    assert outcomes(bollebank) == list(ours.outcome_names)
    with playing("balkan-wars"):
        assert outcomes(balkan) == list(theirs.outcome_names)
        assert vocabulary.OUTCOMES == theirs.outcome_names and vocabulary.LABELS == theirs.labels
        assert analysis.summary(balkan)["variable"].to_list() == list(theirs.distributions)
        assert chartdata.comparison(balkan).outcomes == theirs.flags
        assert set(analysis.turns_by_outcome(balkan)["outcome"]) <= set(theirs.outcome_names)
    assert outcomes(bollebank) == list(ours.outcome_names)
    assert vocabulary.OUTCOMES == ours.outcome_names
