"""The Balkan Wars' headroom report (bollesim/balkan/headroom.py) and its beginner, the
random attacker (policies/balkan_wars/random.py, whose choice policies/uniform.py every
game's random policy shares)."""

from dataclasses import replace

import numpy as np
import pytest

from bollesim.balkan.headroom import HEADROOM
from bollesim.game.policy import load_policy
from bollesim.game.registry import load_game

GAME = load_game("balkan-wars")


def test_the_declaration_fits_the_game():
    """Its ladder's players and bounds are the game's; a mistake in it is named."""
    from bollesim.strong import headroom as G

    assert G.declared_headroom(GAME) is HEADROOM  # checked (Headroom.check) on the way
    for name in (HEADROOM.beginner, HEADROOM.strong.policy, HEADROOM.expert, HEADROOM.family):
        load_policy(name, GAME)
    with pytest.raises(ValueError, match="main outcome"):
        replace(HEADROOM, bounds={"lost": "no attack broke"}, inherited={}).check(GAME)
    with pytest.raises(ValueError, match="family_triggers"):
        replace(HEADROOM, family_triggers={"apprentice": "losses"}).check(GAME)
    # The apprentice imposes the close-assault trigger (Trigger.strong): the report names
    # it, and a trigger imposed by a parameter the apprentice lacks is named.
    assert G.imposed(GAME) == {"losses": "imposed_losses"}
    with pytest.raises(ValueError, match="imposed: named"):
        replace(HEADROOM, imposed="").check(GAME)
    trigger = replace(GAME.triggers[0], strong="imposed_loss")
    with pytest.raises(ValueError, match="not a parameter of the strong player"):
        HEADROOM.check(replace(GAME, triggers=(trigger,)))


def test_the_imposed_rows_are_every_setting_but_not_imposed():
    """A restricted sweep's rows that impose the trigger: every setting but the strong
    player's default, the Balkan Wars' -1 (its 0 is a trigger: close assault at the first
    won firefight), Bøllebank's 0."""
    import polars as pl

    from bollesim.strong import headroom as G

    games = pl.DataFrame({"policy": ["apprentice"] * 4, "imposed_losses": [-1, 0, 2, 48]})
    assert G.imposing_rows(GAME, games, "imposed_losses")["imposed_losses"].to_list() == [0, 2, 48]
    games = pl.DataFrame({"policy": ["apprentice"] * 3, "imposed_roe": [0, 8, 25]})
    assert G.imposing_rows(load_game("bollebank"), games,
                           "imposed_roe")["imposed_roe"].to_list() == [8, 25]


def test_the_sweeps_are_the_close_assault_triggers_cells():
    """The question's spec sweeps the stands needed too: the report's trigger sweep is
    the cells of the defender's losses only, each setting once."""
    from bollesim.batch.spec import load_experiment
    from bollesim.cli.headroom_make import trigger_cells

    cells = trigger_cells(GAME, load_experiment(HEADROOM.spec, GAME))
    assert list(cells) == ["assault"]
    assert [c["losses"] for c in cells["assault"]] == [0, 1, 2, 3, 4, 6, 8, 10, 12, 48]
    assert {c["min_stands"] for c in cells["assault"]} == {1}


def draws(n_options: int, n: int, key: int = 7) -> np.ndarray:
    """n choices of the random policy at a decision of n_options options, from one stream."""
    decide = load_policy("random", GAME).decide
    obs, rules = np.zeros(12, dtype=np.int64), np.zeros(1, dtype=np.int64)
    options, params = np.arange(3, dtype=np.int64), np.zeros(0)
    prng = np.array([key, 0], dtype=np.int64)
    return np.array([decide(0, obs, rules, options, n_options, params, prng) for _ in range(n)])


@pytest.mark.parametrize("n_options", [2, 3])
def test_random_takes_each_option_as_often(n_options):
    """Uniform over the options offered (the close assault's two or three, an arm's three),
    from the policy's own stream: each option within 4.5 standard errors of 1/n, and
    another stream draws another sequence."""
    n = 20000
    x = draws(n_options, n)
    share = np.bincount(x, minlength=n_options) / n
    assert len(share) == n_options
    p = 1 / n_options
    assert np.all(np.abs(share - p) < 4.5 * (p * (1 - p) / n) ** 0.5), share
    assert not np.array_equal(x[:50], draws(n_options, 50, key=8))
    assert load_policy("random").decide.py_func is load_policy("random", GAME).decide.py_func


def test_the_random_attacker_plays_every_declared_option_in_both_engines():
    """In played engagements every option offered at every kind of declared decision is
    taken (the reference engine, its decisions counted, until each is: 4 engagements of
    seed 13 today, 43 of seed 5 for the digit's troops' farthest group, at most 60), and
    the fast engine plays the same rows."""
    from bollesim.balkan import reference

    rules, policy = GAME.load_ruleset(), load_policy("random", GAME)
    offered, taken = set(), set()

    def decide(kind, obs, rules_, options, n_options, params, prng):
        choice = policy.decide(kind, obs, rules_, options, n_options, params, prng)
        offered.update((kind, int(options[o])) for o in range(n_options))  # by code
        taken.add((kind, int(options[choice])))
        return choice

    vector = policy.kernel_params(policy.param_vector())
    for g in range(60):
        reference.play(rules, vector, 13, g, decide=decide)
        if taken == offered and len({kind for kind, _ in taken}) == 4:
            break
    assert taken == offered and len({kind for kind, _ in taken}) == 4, (offered - taken)
    params = np.zeros((3, 0))
    assert np.array_equal(GAME.play_chunk(rules, policy, params, 5, 0, "fast"),
                          GAME.play_chunk(rules, policy, params, 5, 0, "reference"))


def refused(*arguments) -> str:
    from typer.testing import CliRunner

    from bollesim.cli.app import app

    result = CliRunner().invoke(app, ["--game", "balkan-wars", "headroom", *map(str, arguments)])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), lines
    return lines[0]


def test_the_command_writes_the_games_report(tmp_path, monkeypatch):
    """`bollesim --game balkan-wars headroom` at tiny counts (the expert at a few
    rollouts): the game's ladder, bounds and close-assault sweeps in its own words, none
    of the other game's, and the question under strong play from --restricted, a small
    sweep of the apprentice with the trigger imposed (0, 48) and not (-1)."""
    from typer.testing import CliRunner

    from bollesim.cli.app import app
    from bollesim.strong import headroom as G

    small = replace(HEADROOM, expert_factors=(0.125, 0.25))
    monkeypatch.setattr(G, "declared_headroom", lambda game: small)
    spec, restricted = tmp_path / "strong.toml", tmp_path / "strong"
    spec.write_text('name = "strong"\ndescription = "a small one"\nseed = 1\ngames = 4\n'
                    '[[grid]]\npolicy = "apprentice"\nparams = { imposed_losses = [-1, 0, 48] }\n')
    result = CliRunner().invoke(app, ["--game", "balkan-wars", "sweep", str(spec),
                                      "--out", str(restricted)])
    assert result.exit_code == 0, result.output

    out = tmp_path / "report"
    result = CliRunner().invoke(app, [
        "--game", "balkan-wars", "headroom", "--games", "30", "--expert-games", "1",
        "--clairvoyant-games", "2", "--budget", "3", "--sweep-games", "10", "--threads", "1",
        "--penalised-games", "0", "--restricted", str(restricted), "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = (out / "headroom.md").read_text()
    for words in ("# Headroom of The Balkan Wars", "| random |", "| apprentice (the strong player) |",
                  "| assault, troops and guns halting at 1 km |", "expert (lookahead), 0.25x",
                  "| attack won | light losses | won with light losses | attack broke |",
                  "against the baseline", "## When to close assault",
                  "defender's losses before the first close assault",
                  "## When to close assault, under strong play",
                  "4 games per setting of the restricted apprentice",
                  "| best `imposed_losses` (restricted apprentice) | advice |",
                  "Under the apprentice with its close-assault trigger imposed",
                  "the move and fire dice",
                  "bollesim --game balkan-wars headroom --games 30"):
        assert words in text, words
    for other in ("Fire order", "operational", "preset", "Tango", "chits"):
        assert other not in text, other
    assert (out / "headroom-trigger-assault.png").stat().st_size > 0
    assert "no such folder" in refused("--restricted", tmp_path / "absent",
                                       "--out", tmp_path / "b")


def test_a_strong_player_that_imposes_no_trigger_has_no_restricted_section(tmp_path, monkeypatch):
    """Were the apprentice's trigger not declared (Trigger.strong empty), the section would
    say no restricted player answers the question, and --restricted is refused in one line."""
    from bollesim.cli import headroom_make
    from bollesim.strong import headroom as G

    game = replace(GAME, triggers=(replace(GAME.triggers[0], strong=""),))
    lines, verdict = headroom_make.restricted_section(
        headroom_make.Plan(game, replace(HEADROOM, imposed=""), {}, [], None, tmp_path), [])
    assert "no parameter that imposes the trigger" in lines[2] and verdict is None
    monkeypatch.setattr(G, "declared_headroom", lambda game: HEADROOM)
    monkeypatch.setattr(G, "imposed", lambda game: {})
    assert "no parameter that imposes a trigger" in refused("--restricted", tmp_path,
                                                           "--out", tmp_path / "b")


def test_the_help_speaks_of_the_game():
    from typer.testing import CliRunner

    from bollesim.cli.app import app

    text = CliRunner().invoke(app, ["--game", "balkan-wars", "headroom", "--help"],
                              env={"COLUMNS": "200"}).output
    assert "how well can The Balkan Wars be played?" in text
    assert "bollesim --game balkan-wars headroom --games 2000" in text
    for other in ("first_fire", "showcase", "Fire order"):
        assert other not in text, other
