"""One process serves two games side by side: the what-if app built twice, once for
Operation Bøllebank and once for the Balkan Wars, each answering of its own game while
the other runs (the app's state holds its game: bollesim/serve/state.py)."""

from __future__ import annotations

import json
import time

import pytest
from starlette.testclient import TestClient

from bollesim.game.registry import load_game
from bollesim.serve.app import create_app
from bollesim.serve.state import Settings

# One worker: two engines warm up here, each on a thread of its own.
pytestmark = pytest.mark.xdist_group("serve-two-games")

GAMES = ("bollebank", "balkan-wars")


@pytest.fixture(scope="module")
def clients(tmp_path_factory):
    """{name: (game, client)}: both apps running at once (their engine threads started)."""
    folder = tmp_path_factory.mktemp("two")
    apps = {name: create_app(Settings(load_game(name), max_games=2000, results=folder / name))
            for name in GAMES}
    with TestClient(apps[GAMES[0]], base_url="http://127.0.0.1") as a, \
            TestClient(apps[GAMES[1]], base_url="http://127.0.0.1") as b:
        yield {GAMES[0]: (load_game(GAMES[0]), a), GAMES[1]: (load_game(GAMES[1]), b)}


def test_each_page_offers_its_own_games_form(clients):
    for game, client in clients.values():
        form = client.get("/api/form").json()
        assert form["game"] == game.title
        assert [o["outcome"] for o in form["outcomes"]] == list(game.result.outcome_names)
        assert [f["id"] for f in form["families"]] == [t.id for t in game.triggers]
        assert form["showcase"] == game.opening
        assert {p["name"] for p in form["policies"]} >= {game.baseline}


def test_each_saved_patch_names_its_game_and_how_to_check_it(clients):
    """The page's saved patch tells the commands that check and play it, with the game
    chosen first where it is not the default one."""
    edits = {"bollebank": {"tracks.tank_to_hit": 9}, "balkan-wars": {"battle.counter": True}}
    for name, (game, client) in clients.items():
        answer = client.post("/api/partial", json={"edits": edits[name]})
        assert answer.status_code == 200, answer.text
        chooser = "" if name == "bollebank" else f"--game {name} "
        assert f"# A partial ruleset of {game.title} written by" in answer.text
        assert f"# Check it:  bollesim {chooser}rules check --partial THIS_FILE" in answer.text
        assert f"bollesim {chooser}run -P {game.baseline} " in answer.text
        form = client.get("/api/form").json()
        assert form["check_partial"] == f"bollesim {chooser}rules check --partial whatif.toml"


def test_a_report_without_a_family_sweeps_the_games_own_trigger(clients):
    for game, client in clients.values():
        assert client.app.state.server.family(None) is game.triggers[0]


def test_both_pages_play_their_odds_at_once(clients):
    """A change asked of both pages at once: each engine thread refines its own game's
    odds, and each snapshot is of that game's outcomes."""
    jobs = {}
    for name, (game, client) in clients.items():
        body = {"edits": {}, "policy": game.baseline, "params": {}}
        answer = client.post("/api/odds", json=body)
        assert answer.status_code == 200, answer.text
        jobs[name] = answer.json()["job"]
    deadline, done = time.monotonic() + 300, {}
    while len(done) < len(jobs):
        assert time.monotonic() < deadline, done
        for name, (_, client) in clients.items():
            snapshot = json.loads(client.app.state.server.latest.value or "{}")
            if snapshot.get("job") == jobs[name] and snapshot.get("done"):
                done[name] = snapshot
        time.sleep(0.2)
    for name, (game, _) in clients.items():
        assert done[name]["games"] == 2000 and done[name]["policy"] == game.baseline
        assert [o["outcome"] for o in done[name]["outcomes"]] == list(game.result.outcome_names)
        assert [o["label"] for o in done[name]["outcomes"]] == [game.result.labels[o]
                                                               for o in game.result.outcome_names]
