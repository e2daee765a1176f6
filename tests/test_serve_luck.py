"""The what-if page's "luck and the player" (bollesim/serve/luck.py), asked through its API.

The page plays the test game, Pig race (tests/toygame), in a process of its own, with the
banker as its strong player: the panel's answer must be `bollesim analyse -n`'s for the
same games, the same rules and the same stated player, word for word. The page's own test
(tests/test_serve.py) clicks the panel in Chromium on Operation Bøllebank.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
import waiting

TESTS = Path(__file__).parent
SEED = 3
ASKED = {"policy": "banker", "params": {"hold": 8, "start": 1}, "games": 50}
HOSTILE = [
    ({"games": 7}, "games: expected one of 20, 50, 100, 200, 400, got 7"),
    ({"games": True}, "games: expected one of 20, 50, 100, 200, 400, got True"),
    ({"games": "50"}, "games: expected one of 20, 50, 100, 200, 400, got 50"),
    ({"policy": "lookahead"}, "unknown policy 'lookahead'"),
    ({"params": {"hold": 99}}, "params: banker.hold = 99 is outside its range"),
    ({"edits": {"no.such": 1}}, "edits: 'no.such' is not a key of the ruleset"),
    ({"rules": "../../etc/passwd"}, "unknown field 'rules'"),
]

SCRIPT = textwrap.dedent("""\
    import dataclasses, json, sys
    from starlette.testclient import TestClient
    from bollesim import load_game
    from bollesim.serve.app import create_app
    from bollesim.serve.state import Settings

    asked, hostile = json.loads(sys.argv[1]), json.loads(sys.argv[2])
    pig = load_game("pig")
    out = {}
    with TestClient(create_app(Settings(pig, max_games=600, seed=%d)),
                    base_url="http://127.0.0.1") as client:
        out["plain"] = {"form": client.get("/api/form").json()["luck"],
                        "asked": client.post("/api/luck", json=asked).json()}
    strong = dataclasses.replace(pig, strong="banker")  # Pig race declares no strong player
    app = create_app(Settings(strong, max_games=600, seed=%d))
    server = app.state.server
    with TestClient(app, base_url="http://127.0.0.1") as client:
        out["form"] = client.get("/api/form").json()["luck"]
        messages, publish = [], server.latest.publish
        server.latest.publish = lambda s: (messages.append(s), publish(s))
        out["answer"] = client.post("/api/luck", json=asked).json()
        out["progress"] = [m["luck"] for m in messages if "luck" in m]
        out["edited"] = client.post("/api/luck", json={**asked, "edits": {"game.turns": 3}}).json()
        out["invalid"] = client.post("/api/luck", json={**asked, "edits": {"game.turns": -1}}).status_code
        out["hostile"] = [[r.status_code, r.json()] for r in
                          (client.post("/api/luck", json={**asked, **h}) for h in hostile)]
    print(json.dumps(out))
    """) % (SEED, SEED)


def environment() -> dict:
    return {**os.environ,
            "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}


@pytest.fixture(scope="module")
def asked(tmp_path_factory) -> dict:
    """The page's answers to the module's requests, asked once in a process playing Pig race."""
    done = waiting.run(
        [sys.executable, "-c", SCRIPT, json.dumps(ASKED), json.dumps([h for h, _ in HOSTILE])],
        env=environment(), cwd=tmp_path_factory.mktemp("luck"), capture_output=True, text=True,
        seconds=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def analysed(tmp_path_factory) -> dict:
    """`bollesim analyse -n` of the same games, with the banker as the stated player."""
    hold, start = ASKED["params"]["hold"], ASKED["params"]["start"]
    done = waiting.run(
        [sys.executable, "-m", "bollesim", "--game", "pig", "analyse", "-P", "banker",
         "-p", f"hold={hold}", "-p", f"start={start}", "--seed", str(SEED),
         "-n", str(ASKED["games"]), "--player", "banker", "--json"],
        env=environment(), cwd=tmp_path_factory.mktemp("analyse"), capture_output=True,
        text=True, seconds=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_the_panel_says_what_analyse_says_of_the_same_games(asked, analysed):
    from bollesim.report.luck import sentence

    answer = asked["answer"]
    assert answer["split"] == analysed["split"] and answer["split"] is not None
    assert answer["sentence"] == sentence(analysed)
    assert answer["costliest"] == analysed["costliest"][:len(answer["costliest"])]
    assert answer["decisions"] == sum(g["decisions"] for g in analysed["games"])
    assert answer["games"] == ASKED["games"] and answer["seed"] == SEED
    assert answer["values_words"] == analysed["values_words"]


def test_the_panel_analyses_the_rules_on_the_page(asked):
    assert asked["edited"]["split"] != asked["answer"]["split"]  # three turns, other games
    assert asked["invalid"] == 422


def test_the_panel_offers_its_numbers_of_games_and_none_without_a_strong_player(asked):
    assert asked["form"] == {"games": [20, 50, 100, 200, 400], "default": 100,
                             "stated_player": "banker", "objective": "target reached"}
    assert asked["plain"]["form"] is None
    assert "declares no decisions with a strong player" in asked["plain"]["asked"]["error"]


def test_the_analysis_shows_its_progress_game_by_game(asked):
    progress = asked["progress"]
    assert progress[0] == {"games": 0, "budget": ASKED["games"]}
    assert progress[-1] == {"done": True, "games": ASKED["games"], "budget": ASKED["games"]}
    games = [p["games"] for p in progress]
    assert games == sorted(games)


@pytest.mark.parametrize("number", range(len(HOSTILE)), ids=[m.split(":")[0] for _, m in HOSTILE])
def test_a_crafted_request_is_a_400_naming_the_problem(asked, number):
    status, answer = asked["hostile"][number]
    assert status == 400, answer
    assert answer["error"].startswith(HOSTILE[number][1]), answer
