"""Every command of the `bollesim` CLI, run and its output checked: --help with examples
for all of them, `policies`, `bench` and `play` here (`run`, `sweep`, `report` and
`play --from`: test_sweep.py; `rules check` and `rules show`: test_cli_rules.py)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bollesim.batch import runner
from bollesim.cli.app import app
from bollesim.game.policy import available_policies, load_policy

cli = CliRunner()


def commands() -> list[tuple[str, ...]]:
    """Every command as the words that call it: ("run",), ("rules", "check")..."""
    found = [(c.name or c.callback.__name__,) for c in app.registered_commands]
    for group in app.registered_groups:
        found += [
            (group.name, c.name or c.callback.__name__)
            for c in group.typer_instance.registered_commands
        ]
    return found


def test_the_commands_are_the_documented_ones():
    assert sorted(commands()) == sorted(
        [
            ("policies",),
            ("play",),
            ("run",),
            ("sweep",),
            ("optimise",),
            ("tune",),
            ("report",),
            ("compare",),
            ("cells",),
            ("sensitivity",),
            ("headroom",),
            ("analyse",),
            ("bench",),
            ("serve",),
            ("train",),
            ("rules", "check"),
            ("rules", "show"),
        ]
    )


@pytest.mark.parametrize("words", commands(), ids=" ".join)
def test_every_command_has_help_with_an_example(words):
    result = cli.invoke(app, [*words, "--help"])
    assert result.exit_code == 0, result.output
    assert "Examples" in result.output
    assert f"bollesim {' '.join(words)}" in result.output.split("Examples", 1)[1]


@pytest.mark.parametrize("words", commands(), ids=" ".join)
def test_help_breaks_lines_where_the_terminal_ends(words):
    """A wide terminal shows each paragraph of a command's help on one line: no line
    ends where the docstring's source line did."""
    import inspect

    from bollesim.cli.chosen import fill, help_words
    from bollesim.cli.wiring import reflowed
    from bollesim.game.registry import load_game

    result = CliRunner(env={"COLUMNS": "2000"}).invoke(app, [*words, "--help"])
    assert result.exit_code == 0, result.output
    group = app if len(words) == 1 else next(
        g.typer_instance for g in app.registered_groups if g.name == words[0])
    name = words[-1]
    doc = next(inspect.getdoc(c.callback) for c in group.registered_commands
               if (c.name or c.callback.__name__.replace("_", "-")) in (name, f"rules-{name}")
               or c.callback.__name__ in (name, f"rules_{name}"))
    shown = [" ".join(line.split()) for line in result.output.splitlines()]
    for paragraph in fill(reflowed(doc), help_words(load_game("bollebank"))).split("\n\n"):
        assert paragraph in shown, paragraph


DECISIONS_OF_ONE_GAME = {("headroom",)}
"""The commands only Operation Bøllebank plays yet, whose help names its files: `headroom`
refuses a game that declares no headroom report (Game.headroom), which only Bøllebank
does so far."""


@pytest.mark.parametrize("words", [w for w in commands() if w not in DECISIONS_OF_ONE_GAME],
                         ids=" ".join)
def test_help_speaks_of_the_chosen_game(words):
    """`bollesim --game NAME COMMAND --help`: the help and its examples are the chosen
    game's (its title, its policies, its files), with no word of the other game and no
    template left unfilled; an example chooses the game first."""
    from bollesim.game.registry import load_game

    shown = {}
    for game in ("bollebank", "balkan-wars"):
        result = CliRunner(env={"COLUMNS": "2000"}).invoke(app, ["--game", game, *words, "--help"])
        assert result.exit_code == 0, result.output
        shown[game] = result.output
        assert "$" not in result.output.replace("$ ", ""), result.output
    balkan, bollebank = load_game("balkan-wars"), load_game("bollebank")
    examples = shown["balkan-wars"].split("Examples", 1)[1]
    assert f"bollesim --game balkan-wars {' '.join(words)}" in examples
    for word in (bollebank.title, bollebank.baseline, "first_fire", "bollebank/rules"):
        assert word not in shown["balkan-wars"], word
    for word in (balkan.title, balkan.baseline, "--game balkan-wars"):
        assert word not in shown["bollebank"], word


def test_rules_check_help_shows_the_chosen_games_ruleset():
    result = CliRunner(env={"COLUMNS": "2000"}).invoke(
        app, ["--game", "balkan-wars", "rules", "check", "--help"])
    assert "Ruleset TOML file of The Balkan Wars (default: the shipped " \
        "bollesim/balkan/default.toml)" in " ".join(result.output.split())


def test_play_game_n_is_play_index_n_with_a_note():
    """`play --game N` (the game's number) is the old spelling of `play --index N`: it
    still plays game N, with a note on stderr; a name there is refused in one line that
    says where a game is chosen."""
    new = cli.invoke(app, ["play", "-P", "historical", "--seed", "7", "--index", "2"])
    old = cli.invoke(app, ["play", "-P", "historical", "--seed", "7", "--game", "2"])
    assert old.exit_code == 0 and old.stdout == new.stdout
    assert old.stderr == "note: play --game 2 is now play --index 2 (--game before the command " \
        "chooses the game)\n"
    named = cli.invoke(app, ["play", "-P", "historical", "--game", "balkan-wars"])
    assert named.exit_code == 2 and named.stderr.count("\n") == 1
    assert "now spelled --index N" in named.stderr and "bollesim --game balkan-wars play" in named.stderr


def test_policies_lists_every_policy_and_its_parameters():
    result = cli.invoke(app, ["policies"])
    assert result.exit_code == 0, result.output
    listed: dict[str, list[str]] = {}  # policy line -> its parameter lines
    head = ""
    for line in result.output.splitlines():
        if line.startswith(" "):
            listed[head].append(line.strip())
        else:
            head = line
            listed[head] = []
    want = {}
    for name in available_policies():
        policy = load_policy(name)
        want[f"{name}: {policy.doc}"] = [
            f"{p.name} = {p.text(p.default)}  "
            f"({' | '.join(p.choices) if p.choices else f'{p.low:g}..{p.high:g}'})  {p.doc}"
            + (f" ({p.never:g}: never)" if p.never is not None and ": never)" not in p.doc
               else "")
            for p in policy.parameters
        ]
    assert listed == want
    assert any(line.startswith("target = ATGM  (ATGM | tank | HMG | artillery)")
               for lines in listed.values() for line in lines), "a choice by its names"
    # the value meaning "never" is said once, whether the meaning already says it or not
    nevers = [(p, line) for name in available_policies()
              for p, line in zip(load_policy(name).parameters,
                                 listed[f"{name}: {load_policy(name).doc}"], strict=True)
              if p.never is not None]
    assert nevers and all(line.count(f"({p.never:g}: never)") == 1 for p, line in nevers)


def test_bench_measures_with_small_counts():
    """`bench --json --no-cold`: one JSON line last, its figures consistent with each
    other and with the games it played (seed 1, the policy's defaults)."""
    result = cli.invoke(
        app,
        [
            "bench",
            "--json",
            "--games",
            "1000",
            "--reference-games",
            "10",
            "--no-cold",
            "-P",
            "rush",
        ],
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout.splitlines()[-1])
    assert figures["policy"] == "rush" and figures["games"] == 1000
    for key in (
        "fast_games_per_s",
        "fast_games_per_s_1thread",
        "reference_games_per_s",
        "rng_floor_games_per_s",
    ):
        assert figures[key] > 0, key
    ratio = figures["fast_games_per_s_1thread"] / figures["reference_games_per_s"]
    assert figures["ratio_per_core"] == pytest.approx(ratio, rel=0.01)
    draws = runner.simulate("rush", 1000, seed=1)["random_draws"].mean()
    assert figures["draws_per_game"] == pytest.approx(draws, abs=0.005)
    assert set(figures["policies"]) == set(available_policies())  # every shipped policy
    for rates in figures["policies"].values():
        assert rates["games_per_s"] > 0 and rates["games_per_s_1thread"] > 0
    assert "compile_cold_s" not in figures  # --no-cold
    assert "games/s" in result.stderr  # the progress lines go to stderr with --json


@pytest.mark.parametrize("game", range(4))
def test_play_tells_the_outcome_of_the_game(game):
    """The narration ends with the outcome of the same game as a batch plays it."""
    result = cli.invoke(app, ["play", "-P", "historical", "--seed", "7", "--index", str(game)])
    assert result.exit_code == 0, result.output
    outcome = result.output.strip().splitlines()[-1]
    row = runner.simulate("historical", game + 1, seed=7).row(game, named=True)
    won = [v for v in ("operational", "tactical", "strategic", "political") if row[v]]
    if row["defeat"]:
        assert outcome == f"Outcome: DEFEAT on turn {row['end_turn']} ({row['end_reason']})."
    elif won:
        assert outcome.startswith("Outcome: ") and f"turn {row['end_turn']}." in outcome
        assert all(v in outcome for v in won), outcome
    else:
        assert outcome.startswith(f"Outcome: no result by turn {row['end_turn']}")
