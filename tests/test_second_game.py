"""A second game, Pig race (tests/toygame: a few rules, one policy, one reading), through
`run`, `sweep`, `report`, `compare` and the what-if page's API: the layers above the
engine take whatever game is declared (docs/architecture.md §9), and name none of
Operation Bøllebank's columns, policies or places in doing so.

Each command runs in a process of its own (`bollesim --game pig`, the game registered by
tests/bollesim_pig-0.dist-info with tests/ on the path); a command on a run folder plays
the folder's game, and refuses a --game that names another.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from toygame.play import play_game
from toygame.result import RESULT
from toygame.rules import load_ruleset

from bollesim.batch.runfolder import RunFolderError, open_run
from bollesim.bollebank.result import RESULT as BOLLEBANK
from bollesim.game.registry import load_game

# One worker: the module's fixture plays two runs and a sweep, each in a process
# of its own.
pytestmark = pytest.mark.xdist_group("second-game")

TESTS = Path(__file__).parent
ENV = {**os.environ,
       "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
GAMES, SEED = 400, 7
BOLLEBANK_WORDS = ("Bøllebank", "Fire order", *BOLLEBANK.outcome_names, "historical", "Tango")


def pig(*args: str, cwd: Path, code: int = 0, game: tuple[str, ...] = ("--game", "pig")) -> str:
    """Run `bollesim --game pig ARGS` (or another `game` choice); its stdout and stderr
    (stderr is checked to be calm)."""
    done = subprocess.run([sys.executable, "-m", "bollesim", *game, *args], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == code, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout + done.stderr


def rows(folder: Path) -> pl.DataFrame:
    return pl.read_parquet(folder / "games.parquet")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """Two runs and a sweep of Pig race, made once for the module's tests."""
    work = tmp_path_factory.mktemp("pig")
    pig("run", "-P", "banker", "-n", str(GAMES), "--seed", str(SEED), "--out", "a", cwd=work)
    pig("run", "-P", "banker", "-p", "hold=20", "-n", str(GAMES), "--seed", str(SEED),
        "--out", "b", cwd=work)
    (work / "sweep.toml").write_text(textwrap.dedent(f"""\
        name = "pig-start"
        description = "when to bank first, under both readings of the bust face"
        games = {GAMES}
        seed = {SEED}
        [[grid]]
        policy = "banker"
        params = {{ start = [1, 4] }}
        readings = {{ "I-BUST" = ["one", "one-or-two"] }}
        """))
    pig("sweep", "sweep.toml", "--out", "s", cwd=work)
    return work


def test_a_run_holds_the_games_of_the_second_game_as_its_engine_plays_them(runs):
    games = rows(runs / "a")
    assert games.height == GAMES
    assert [c for c in games.columns if c in RESULT.names] == list(RESULT.names)
    rules = load_ruleset()
    params = np.array([10.0, 1.0])  # banker's defaults
    def banker(kind, obs, packed, options, n_options, p, prng):  # turn, banked, busts, points
        return int(obs[0] >= p[1] and obs[3] >= p[0])

    for row in games.sort("game").iter_rows(named=True):
        expected = play_game(rules, banker, params, SEED, row["game"])
        assert {k: row[k] for k in expected} == expected
    assert games["first_bank_turn"].null_count() > 0  # some game never banked: a null
    manifest = json.loads((runs / "a" / "manifest.json").read_text())
    assert manifest["game"] == "pig" and manifest["policy"] == "banker"


def test_a_command_on_a_run_folder_plays_the_folders_game(runs):
    """Without --game a report, cells and a replay of a Pig race folder are Pig race's; an
    explicit --game that names another game is refused in one line naming both; asked for
    Bøllebank's games, the reader refuses the folder."""
    pig("report", "a", "--out", "a-report", cwd=runs, game=())
    assert "Pig race" in (runs / "a-report" / "report.md").read_text()
    assert "banker" in pig("cells", "a", cwd=runs, game=())
    assert "Pig race has no narration" in pig("play", "--from", "a", "--index", "3", cwd=runs,
                                              code=2, game=())
    refused = pig("report", "a", cwd=runs, code=2, game=("--game", "bollebank")).strip()
    assert refused == ("error: a holds games of 'pig', not of 'bollebank' (--game bollebank): "
                       "drop --game, a command on a run folder plays the folder's game")
    with pytest.raises(RunFolderError, match="holds games of 'pig', not of 'bollebank'"):
        open_run(runs / "a", load_game("bollebank"))
    assert open_run(runs / "a").game is load_game("pig")


def test_a_sweep_plays_its_grid_of_parameters_and_readings(runs):
    games = rows(runs / "s")
    assert games.height == 4 * GAMES
    cells = json.loads((runs / "s" / "manifest.json").read_text())["cells"]
    assert [c["params"]["start"] for c in cells] == [1, 1, 4, 4]
    assert [c.get("readings") for c in cells] == [{"I-BUST": v} for v in ("one", "one-or-two")] * 2
    busts = games.group_by("cell").agg(pl.col("busts").mean()).sort("cell")["busts"].to_list()
    assert busts[1] > busts[0] and busts[3] > busts[2]  # two bust faces bust more turns


def test_the_report_speaks_of_the_second_game_only(runs):
    pig("report", "s", cwd=runs)
    text = (runs / "s" / "report.md").read_text()
    assert "Pig race" in text and RESULT.outcome("reached").label in text
    for word in BOLLEBANK_WORDS:
        assert word not in text, word


def test_compare_names_what_differs_and_the_outcomes_of_the_second_game(runs):
    out = pig("compare", "a", "b", cwd=runs)
    assert "hold: 10 -> 20" in out and RESULT.outcome("reached").label in out
    for word in BOLLEBANK_WORDS:
        assert word not in out, word


def test_the_what_if_api_plays_an_edited_ruleset_of_the_second_game(tmp_path):
    """The page's API of Pig race: its form is the game's, an edit is checked by the
    game's rules, and the odds of the edited ruleset are refined."""
    script = textwrap.dedent("""\
        import json, time
        from starlette.testclient import TestClient
        from bollesim import load_game
        from bollesim.serve.app import create_app
        from bollesim.serve.state import Settings

        app = create_app(Settings(load_game("pig"), max_games=600, seed=3))
        server = app.state.server
        with TestClient(app, base_url="http://127.0.0.1") as client:
            form = client.get("/api/form").json()
            bad = client.post("/api/odds", json={"edits": {"game.target": 500}, "policy": "banker"})
            body = {"edits": {"game.target": 30}, "policy": "banker", "params": {"hold": 12}}
            answer = client.post("/api/odds", json=body).json()
            deadline = time.monotonic() + 120
            while True:
                snapshot = json.loads(server.latest.value or "{}")
                if snapshot.get("job") == answer["job"] and snapshot.get("done"):
                    break
                assert time.monotonic() < deadline, snapshot
                time.sleep(0.2)
        print(json.dumps({"form": form, "bad": [bad.status_code, bad.json()],
                          "answer": answer, "snapshot": snapshot}))
        """)
    out = json.loads(pig_python(script, tmp_path))
    form = out["form"]
    assert form["game"] == "Pig race" and form["units"] == [
        "game.target", "game.turns", "game.busts_to_lose", "game.bust_faces"]
    assert [p["name"] for p in form["policies"]] == ["banker"]
    assert [f["id"] for f in form["families"]] == ["banker.start"]
    status, bad = out["bad"]
    assert status == 422 and bad["errors"][0]["key"] == "game.target", bad
    assert out["answer"]["exact"] is None and out["answer"]["readings"] == {"I-BUST": "one"}
    snapshot = out["snapshot"]
    assert snapshot["games"] == 600
    rates = {o["outcome"]: o for o in snapshot["outcomes"]}
    assert set(rates) >= set(RESULT.headline)


def pig_python(script: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-c", script], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip().splitlines()[-1]
