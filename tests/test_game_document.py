"""A game as data: bollesim.narrate and `bollesim play --json` give one JSON document of a
game (every decision with its options, every event, the narration, the result) that
docs/game.schema.json describes; the schema is current with the declarations."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import bollesim
from bollesim.bollebank import events as E
from bollesim.bollebank import gameschema
from bollesim.bollebank.narrated import narrated_game
from bollesim.bollebank.reference.play import play_game
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.cli.app import app
from bollesim.errors import UsageError
from bollesim.game.policy import load_policy


def test_the_schema_is_current(jsonschema):
    written = gameschema.PATH.read_text(encoding="utf-8")
    assert written == gameschema.text(), "docs/game.schema.json is stale: run `python -m bollesim.bollebank.gameschema`"
    jsonschema.Draft202012Validator.check_schema(json.loads(written))


@pytest.mark.parametrize(("policy", "seed", "game"), [("historical", 7, 0), ("random", 3, 5)])
def test_a_played_game_round_trips_through_the_schema(policy, seed, game, jsonschema):
    """The document validates before and after JSON, and says what the engine did: its
    events are the trace, its decisions chose among their options, its narration and
    result are those of the narrated game."""
    schema = json.loads(gameschema.PATH.read_text(encoding="utf-8"))
    document = bollesim.narrate(policy, seed=seed, index=game)
    jsonschema.validate(document, schema)
    again = json.loads(json.dumps(document))
    assert again == document
    jsonschema.validate(again, schema)

    rules, chosen = load_ruleset(), load_policy(policy)
    trace: list = []
    row = play_game(rules, chosen, chosen.param_vector(), seed, game, trace)
    events = [s for s in document["steps"] if "event" in s]
    assert [(s["turn"], E.EVENT_NAMES.index(s["event"]), *s["args"]) for s in events] == trace
    decisions = [s for s in document["steps"] if "decision" in s]
    assert decisions and all(0 <= d["chosen"] < len(d["options"]) for d in decisions)
    assert document["result"] == row
    lines, _ = narrated_game(rules, chosen, chosen.param_vector(), seed, game)
    assert document["narration"] == lines
    assert (document["policy"], document["seed"], document["game"]) == (policy, seed, game)


def test_play_json_prints_the_document():
    result = CliRunner().invoke(app, ["play", "-P", "historical", "--seed", "7", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == bollesim.narrate("historical", seed=7)
    assert json.loads(result.stdout)["params"]["target"] == "ATGM"  # a choice by its name


def test_what_has_no_document_is_refused():
    result = CliRunner().invoke(app, ["play", "-P", "historical", "--engine", "fast", "--json"])
    assert result.exit_code != 0 and "--json" in result.output
    with pytest.raises(UsageError, match="plays whole games itself"):
        bollesim.narrate("lookahead")


def test_event_names_are_the_constants():
    assert [getattr(E, name.upper()) for name in E.EVENT_NAMES] == list(range(len(E.EVENT_NAMES)))
