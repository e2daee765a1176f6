"""`bollesim analyse` (bollesim/cli/analyse.py): one game in words and as JSON, many
games with their variance split, and bad input refused in one line; on the test game
(a process of its own that plays Pig race) and on one Bøllebank game (this process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bollesim.bollebank import gameschema
from bollesim.cli.app import app
from bollesim.strong.split import BETWEEN

TESTS = Path(__file__).parent
ENV = {**os.environ,
       "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
PIG = ("-P", "banker", "--seed", "5", "--player", "banker", "--rollouts", "32")


def pig(*args: str, code: int = 0) -> str:
    done = subprocess.run([sys.executable, "-m", "bollesim", "--game", "pig", "analyse", *args], env=ENV,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == code, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout + done.stderr


def test_one_game_in_words_gives_each_roll_and_decision_and_the_turning_points():
    out = pig(*PIG, "--index", "3")
    assert "32 rollouts per option and per outcome" in out and "no learned value" in out
    assert out.count(": die: a ") >= 5 and out.count("roll or bank (2 options)") >= 3
    assert "Turning points: 1) " in out and "residual" in out


def test_one_game_as_json_adds_up():
    doc = json.loads(pig(*PIG, "--index", "3", "--json"))
    a = doc["analysis"]
    t = a["totals"]
    assert doc["result"]["reached"] in (True, False) and a["stated_player"] == "banker"
    assert t["outcome"] == pytest.approx(
        a["start"]["value"] + t["luck"]["value"] - t["errors"] + t["residual"], abs=1e-5)
    assert {s["step"] for s in a["steps"]} == {"chance", "decision"}
    assert len(a["turning_points"]) == 3


def test_many_games_give_their_totals_and_the_variance_split():
    out = json.loads(pig(*PIG, "-n", "30", "--json"))
    assert len(out["games"]) == 30 and set(out["split"]) == {"luck", "player", "rest"}
    split = out["split"]
    assert sum(split[k]["value"] for k in split) == pytest.approx(1)
    assert "between two decisions as one event, not draw by draw (--per-draw)" in out["values_words"]
    assert {s["kind"] for s in out["swings"] if s["event"] == "draw"} == {BETWEEN}


@pytest.mark.parametrize(("args", "said"), [
    (("--index", "3", "-n", "5"), "--index analyses one game and -n many"),
    (("--objective", "nothing"), "--objective must be one of reached, steady, busted_out"),
    (("-P", "banker", "--from", "x"), "name the games"),
])
def test_bad_input_is_one_error_line(args, said):
    base = PIG if args[0] != "-P" else ("--player", "banker")
    out = pig(*base, *args, code=2)
    assert said in out and out.count("\n") == 1 and out.startswith("error: ")


def test_a_game_without_a_strong_player_needs_one_named():
    out = pig("-P", "banker", code=2)
    assert out.startswith("error: Pig race declares no strong player: name")


def test_a_bollebank_game_as_json_follows_the_game_schema(jsonschema):
    result = CliRunner().invoke(app, ["analyse", "-P", "historical", "--seed", "1", "--index",
                                      "2", "--rollouts", "4", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, json.loads(gameschema.PATH.read_text(encoding="utf-8")))
    decisions = [s for s in doc["steps"] if "decision" in s]
    steps = doc["analysis"]["steps"]
    assert len([s for s in steps if s["step"] == "decision"]) == len(decisions)
    chances = [s for s in steps if s["step"] == "chance"]
    assert {s["draw"] for s in chances} >= {"chit", "tank status"}  # its draws one by one
    assert any(s["words"].startswith("chit: ") for s in chances)


def test_a_decision_the_stated_player_would_not_be_asked_is_analysed_as_played():
    """The Balkan Wars asks an arm's order only while the nearer of the player's own halt
    and the weapon's effective range is ahead: the family at its defaults (halting at 0.25
    km) may be asked orders for its machine guns its strong player (halting at 1 km) is
    not. Each such decision is analysed with the played choice as the stated one's, and
    the many games' split is given."""
    result = CliRunner().invoke(app, ["--game", "balkan-wars", "analyse", "-P", "assault",
                                      "--seed", "1", "-n", "12", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["stated_player"] == "apprentice" and doc["n_games"] == 12
    assert sum(g["decisions"] for g in doc["games"]) > 12
