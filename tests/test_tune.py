"""`bollesim tune`: the smallest rule change that meets a designer's targets, certified on
held-out games (bollesim/search/tune*.py, certify.py).

The searches play the test game, Pig race (tests/toygame), where a target's rate is
exact: a banker who banks any points at once (hold = 2) busts a turn with probability
1/6, and with a target no game reaches (100) it plays every turn unless it busts out, so
it never busts in `turns` turns with probability (5/6)**turns.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bollesim.batch.spec import Spec
from bollesim.errors import UsageError

TESTS = Path(__file__).parent
SEARCH_SEED, HOLDOUT_SEED, HOLDOUT_GAMES = 3, 4, 4000


def pig_spec(folder: Path, equals: float, extra: str = "") -> Path:
    """A tune spec of Pig race: the never-busted rate of the quick banker = `equals` +- 3
    points, the keys game.turns and game.busts_to_lose."""
    path = folder / "pig_tune.toml"
    path.write_text(textwrap.dedent(f"""\
        name = "pig_tune"
        seed = {SEARCH_SEED}
        holdout_seed = {HOLDOUT_SEED}
        budget = 80000
        trial_games = 2000
        holdout_games = {HOLDOUT_GAMES}
        overrides = ["game.target=100"]
        {extra}
        [players.quick]
        policy = "banker"
        params = {{ hold = 2, start = 1 }}
        label = "quick banker"

        [[targets]]
        outcome = "steady"
        player = "quick"
        equals = {equals}
        tolerance = 0.03

        [keys]
        "game.turns" = true
        "game.busts_to_lose" = true
        """))
    return path


def environment() -> dict:
    """This process's environment with tests/ on the path (Pig race is registered there)."""
    import os

    return {**os.environ,
            "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}


def probed(spec: Path) -> dict:
    """What tests/tune_probe.py reports of the tune of `spec`, searched and certified in
    a process that plays Pig race."""
    import json

    done = subprocess.run([sys.executable, str(TESTS / "tune_probe.py"), str(spec)],
                          env=environment(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def exact_steady(turns: int) -> float:
    return (5 / 6) ** turns


@pytest.fixture(scope="module")
def forty(tmp_path_factory) -> dict:
    """The tune of never busted = 40% +- 3, probed once for the module's tests."""
    return probed(pig_spec(tmp_path_factory.mktemp("forty"), 0.40))


def test_one_key_with_an_exact_rate_is_found_and_certified(forty):
    # (5/6)**5 = 40.2% is the only number of turns within 40% +- 3 (6 turns: 33.5%, 4: 48.2%)
    assert forty["label"] == "game.turns from 6 to 5" and forty["keys"] == 1
    value, low, high = forty["estimate"]
    assert low <= exact_steady(5) <= high
    assert forty["sentence"].startswith("Change game.turns from 6 to 5: the quick banker's "
                                        "never busted becomes")
    assert not forty["start_solution"]  # the shipped 6 turns miss: (5/6)**6 = 33.5%


def test_a_target_the_rules_already_meet_needs_no_change(tmp_path):
    found = probed(pig_spec(tmp_path, round(exact_steady(6), 3)))
    assert found["no_change_needed"]
    assert found["stage"] == 0 and found["trials"] == 1  # nothing else played
    assert found["sentence"].startswith("No change needed: the quick banker's never busted is ")


def test_certification_plays_only_held_out_games(forty):
    """Estimating a proposal on the search's own games would flatter it (it was chosen on
    them): every certified estimate comes from the held-out seed, all of its games."""
    for certificate in forty["held_out"]:
        for games in certificate.values():
            assert games["seeds"] == [HOLDOUT_SEED]
            assert games["games"] == list(range(HOLDOUT_GAMES))
    assert forty["estimate"][0] == pytest.approx(forty["replayed"])


def test_the_page_address_opens_the_change_the_patch_holds(forty):
    """The report's what-if page address and the patch both give the certified ruleset."""
    state = forty["page_state"]
    assert state["policy"] == "banker" and state["edits"] == {"game.target": 100, "game.turns": 5}
    assert forty["page_digest_matches"] and forty["patch_digest_matches"]


def test_the_command_prints_the_sentence_and_writes_a_patch_rules_check_opens(tmp_path):
    def bollesim(*args, code=0):
        done = subprocess.run([sys.executable, "-m", "bollesim", "--game", "pig", *args], cwd=tmp_path,
                              env=environment(),
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == code, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        return done.stdout + done.stderr

    said = bollesim("tune", str(pig_spec(tmp_path, 0.40)), "--out", "out")
    assert said.startswith("Change game.turns from 6 to 5: the quick banker's never busted")
    patch = tmp_path / "out" / "patch.toml"
    assert "turns = 5" in patch.read_text()
    assert "# Check it:  bollesim --game pig rules check --partial THIS_FILE" in patch.read_text()
    assert bollesim("rules", "check", "--partial", str(patch)).startswith("ok:")
    for page in ("tune.md", "tune.html", "tune-pareto.png", "trials.csv", "tune.json"):
        assert (tmp_path / "out" / page).stat().st_size > 0
    bad = pig_spec(tmp_path, 0.40).read_text().replace('outcome = "steady"', 'outcome = "stedy"')
    (tmp_path / "bad.toml").write_text(bad)
    said = bollesim("tune", "bad.toml", code=2)
    assert said.startswith("error: ") and said.count("\n") == 1 and "targets[0].outcome" in said


def knobs(keys: dict, groups: dict | None = None):
    from bollesim.game.registry import load_game
    from bollesim.search.tune_space import knobs_of

    game = load_game("bollebank")
    return knobs_of(Spec(Path("spec.toml"), game), game.load_ruleset(), keys, groups or {})


def test_a_falling_track_stays_falling_and_in_its_declared_range():
    # tracks.atgm_to_hit = [12, 11, 11, 10, ...6], each 2..13, declared never rising (R-TRACK)
    (whole,) = knobs({"tracks.atgm_to_hit": True})
    assert (whole.mode, min(whole.values), max(whole.values)) == ("shift", -4, 1)
    (entry,) = knobs({"tracks.atgm_to_hit[3]": True})
    assert entry.values == (10, 11)  # between its neighbours 11 and 10
    (last,) = knobs({"tracks.atgm_to_hit[13]": True})
    assert last.values == tuple(range(2, 8))  # below its neighbour 7, down to the range's 2
    (group,) = knobs({}, {"hits": ["tracks.tank_to_hit", "tracks.hmg_to_hit"]})
    assert (min(group.values), max(group.values)) == (-5, 1)  # hmg 7..12 and tank 7 in 2..13


@pytest.mark.parametrize(("keys", "problem"), [
    ({"tracks.tank_to_hitt": True}, "did you mean 'tracks.tank_to_hit'"),
    ({"tracks.tank_to_hit": [1, 8]}, "expected 2 <= low <= high <= 13"),
    ({"map.roads": True}, "cannot be tuned"),
])
def test_a_key_the_search_cannot_change_is_one_line(keys, problem):
    with pytest.raises(UsageError, match=problem):
        knobs(keys)

