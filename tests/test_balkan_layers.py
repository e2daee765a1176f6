"""The Balkan Wars game through the layers above its engines: the narrated engagement,
bench, optimise and the what-if page's odds (tests/test_balkan.py holds the engines)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import waiting

from bollesim.balkan import luck, narrate
from bollesim.balkan.play import play_chunk
from bollesim.balkan.result import RESULT
from bollesim.balkan.ruleset import load_ruleset
from bollesim.game.policy import from_module
from policies.balkan_wars import assault

ROOT = Path(__file__).resolve().parents[1]


def assault_policy():
    return from_module(assault, game="balkan-wars")


def balkan_cli(*args, cwd=None):
    done = waiting.run([sys.executable, "-m", "bollesim", "--game", "balkan-wars", *args],
                          cwd=cwd, capture_output=True, text=True, seconds=900,
                          env={**os.environ, "NUMBA_NUM_THREADS": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout

# ------------------------------------------------------------------ the narration


@pytest.mark.parametrize("game", range(12))
def test_the_narrations_events_add_up_to_the_row(game):
    """Every casualty the narration tells is in the result row, every die's score is its
    face plus its modifier kept within 1 to 6, each throw's total is its dice's, and the
    narrated game is the fast engine's game."""
    rules, policy = load_ruleset(), assault_policy()
    params = policy.param_vector({"losses": 2})
    log, row = narrate.events(rules, policy.kernel_params(params), 7, game)
    told = {"attacker": 0, "defender": 0}
    for _, kind, *facts in log:
        if kind == "casualties":
            told[facts[0]] += facts[1]
        if kind == "dice":
            _, rolls, total, sixes = facts
            assert all(score == min(6, max(1, face + mod)) for _, face, mod, score in rolls)
            assert total == sum(score for *_, score in rolls)
            assert sixes == sum(score == 6 for *_, score in rolls)
    assert (told["attacker"], told["defender"]) == (row["attacker_casualties"], row["defender_casualties"])
    fast = RESULT.row(play_chunk(rules, policy, params[None, :], 7, game, "fast")[0])
    assert fast == row


def test_the_narration_tells_each_step_in_words():
    rules, policy = load_ruleset(), assault_policy()
    lines, row = narrate.narrated_game(rules, policy, policy.param_vector(), 7, 0)
    text = "\n".join(lines)
    for words in ("Bound 1", "Move: the attacker's good general throws", "advance from",
                  "from out of range to at maximum range", "The attacker's dice:",
                  "-1=", "Close assault:", "retires", "The battle ends: the defender broke",
                  "Modifiers: the defender's cover (field) -1"):
        assert words in text, words
    assert lines[-1] == narrate.outcome(row)
    moves = [line for line in lines if "Move: the attacker's" in line]
    assert len(moves) == row["end_bound"]
    holds = [line for line in lines if "Move: the defender's" in line]
    assert len(holds) in (row["end_bound"], row["end_bound"] - 1)
    assert all("it holds its ground" in line for line in holds)


def test_a_narrated_engagement_is_its_dice():
    """The narration's dice are the stream's: the first move die told is the keyed die."""
    from bollesim.rng import CHANCE, keyed_d6, new_stream

    rules, policy = load_ruleset(), assault_policy()
    log, _ = narrate.events(rules, policy.kernel_params(policy.param_vector()), 7, 3)
    stream = new_stream(7, 3, CHANCE, luck.PURPOSES)
    first_move = next(f for _, kind, *f in log if kind == "move")
    assert first_move[:2] == ["attacker", "good general"]
    assert first_move[2] == int(keyed_d6(stream, 1, luck.MOVE))


def test_the_bands_of_a_rifle_stand():
    stand = narrate.reference.Stand(weapon=0, quality=0, effective=2, maximum=8, dice_near=1,
                                    figures=4, move=8, road=16, dist=20)  # the rest at defaults
    assert [narrate.band(stand, d) for d in (9, 8, 3, 2, 1)] == [
        "out of range", "at maximum range", "at maximum range", "at effective range", "in contact"]


def test_play_narrates_on_the_command_line():
    out = balkan_cli("play", "-P", "assault", "--seed", "7")
    assert "Bound 1" in out and "Outcome: defender broke" in out
    data = json.loads(balkan_cli("play", "-P", "assault", "--seed", "7", "--json"))
    assert data["game"] == "balkan-wars" and data["narration"][-1] == out.splitlines()[-1]
    assert any(e["event"] == "dice" for e in data["events"])

# ------------------------------------------------------------------ optimise


def test_optimise_searches_the_assault_family(tmp_path):
    """`optimise` plays the game's family end to end: the shipped spec's keys, a small
    budget; the held-out winner is a point of the family and is never worse than the
    defaults on the held-out games by more than their noise."""
    shipped = (ROOT / "experiments" / "balkan_optimise_assault.toml").read_text(encoding="utf-8")
    small = {"budget": 12000, "candidates": 3, "trial_games": 600, "holdout_games": 1500}
    lines = [f"{k} = {small[k.strip()]}" if k.strip() in small else line
             for line in shipped.splitlines() for k in [line.split("=")[0]]]
    spec = tmp_path / "spec.toml"
    spec.write_text("\n".join(lines), encoding="utf-8")
    out = balkan_cli("optimise", str(spec), "--out", "o", cwd=tmp_path)
    assert "best: assault advance_to=" in out
    best = json.loads((tmp_path / "o" / "best.json").read_text(encoding="utf-8"))
    assert best["policy"] == "assault"
    assert set(best["params"]) == {p.name for p in assault.PARAMETERS}
    report = (tmp_path / "o" / "optimise.md").read_text(encoding="utf-8")
    assert "won with light losses rate" in report

# ------------------------------------------------------------------ the what-if page


def test_the_pages_odds_sit_under_a_table_of_its_form():
    """The page draws each odds table under the form's table its key names (page.js
    drawExact): a key that names none is never shown."""
    from bollesim.balkan import form, odds

    tables = {e["name"] for e in form.form_model()["entries"] if e["type"] == "table"}
    assert all(t["key"] in tables for t in odds.exact_odds(load_ruleset()))


def test_the_page_can_replay_an_example_engagement():
    """The page's example game (serve/app.py replay) asks the game's narration."""
    from bollesim.game.registry import load_game

    policy = assault_policy()
    lines, row = load_game("balkan-wars").narrated_game(load_ruleset(), policy,
                                                       policy.param_vector(), 1, 0, "reference")
    assert lines[0].startswith("The Balkan Wars") and row["end_bound"] >= 1


def test_the_pages_replay_command_chooses_the_game():
    """The command the page prints under an example plays it again: for Balkan Wars it
    chooses the game first, for the default game it needs no choice."""
    from bollesim.game.policy import load_policy
    from bollesim.game.registry import load_game
    from bollesim.serve.app import replay_command

    policy = assault_policy()
    command = replay_command(load_game("balkan-wars"), policy, policy.param_vector(), 1, 4,
                             edited=True)
    assert command.startswith("bollesim --game balkan-wars play -P assault -p ")
    assert command.endswith("--seed 1 --index 4 --partial whatif.toml")
    plain = load_policy("historical")
    assert replay_command(load_game("bollebank"), plain, plain.param_vector(), 1, 4,
                          edited=False).startswith("bollesim play -P historical ")

# ------------------------------------------------------------------ the shared words


BOLLEBANK_WORDS = ("victory type", "docs/readings.md", "turn by turn", "Fire order")


@pytest.mark.parametrize("module", ["report/sensitivity.py", "report/balance.py",
                                    "report/chartdata.py", "cli/output.py"])
def test_the_shared_reports_take_their_words_from_the_declaration(module):
    """What a report prints for every game names no Bøllebank word (its docstrings and
    comments may): its outcomes, its clock and its readings' page are the game's
    declaration's (Result.turn, Game.readings_page)."""
    import ast

    tree = ast.parse((ROOT / "bollesim" / module).read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
                  and node.body and isinstance(node.body[0], ast.Expr)}
    printed = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
               and isinstance(n.value, str) and id(n) not in docstrings]
    assert not [(w, t) for t in printed for w in BOLLEBANK_WORDS if w in t]


def test_the_games_words():
    from bollesim.game.registry import load_game

    assert load_game("balkan-wars").result.turn == "bound"
    assert "balkan-wars.md" in load_game("balkan-wars").readings_page
    assert load_game("bollebank").readings_page == "docs/readings.md"

# ------------------------------------------------------------------ bench


def test_bench_measures_the_declared_game(tmp_path):
    """`bench` plays the declared game's ruleset and policies (it used to load
    Bøllebank's ruleset, whatever the game); no RNG floor for a game whose rows do not
    count their draws."""
    out = balkan_cli("bench", "--json", "--games", "2000", "--reference-games", "10", "--no-cold",
                     cwd=tmp_path)
    figures = json.loads(out.splitlines()[-1])
    assert figures["policy"] == "assault"
    assert set(figures["policies"]) == {"apprentice", "assault", "lookahead", "random"}
    assert figures["fast_games_per_s"] > 0 and figures["reference_games_per_s"] > 0
    assert "rng_floor_games_per_s" not in figures
