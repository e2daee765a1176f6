"""`bollesim tune`: the smallest rule change that meets a designer's targets, certified on
held-out games (bollesim/search/tune*.py, certify.py).

The searches play the test game, Pig race (tests/toygame), where a target's rate is
exact: a banker who banks any points at once (hold = 2) busts a turn with probability
1/6, and with a target no game reaches (100) it plays every turn unless it busts out, so
it never busts in `turns` turns with probability (5/6)**turns.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest
import waiting

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

    done = waiting.run([sys.executable, str(TESTS / "tune_probe.py"), str(spec)],
                       env=environment(), capture_output=True, text=True, seconds=600)
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
        done = waiting.run([sys.executable, "-m", "bollesim", "--game", "pig", *args],
                           cwd=tmp_path, env=environment(),
                           capture_output=True, text=True, seconds=600)
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
    # its folder again: refused before the search unless --replace, which leaves no file of
    # the earlier result that the new one does not write (no patch.toml without a solution)
    before = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    said = bollesim("tune", str(pig_spec(tmp_path, 0.40)), "--out", "out", code=2)
    assert said.startswith("error: ") and "--replace" in said and said.count("\n") == 1
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before
    (tmp_path / "out" / "proposal-9.toml").write_text("# an earlier tune's")
    said = bollesim("tune", str(pig_spec(tmp_path, 0.99)), "--out", "out", "--replace")
    assert "patch.toml" not in said and not patch.exists()
    assert not (tmp_path / "out" / "proposal-9.toml").exists()
    # a file, a run's games: refused before the search
    (tmp_path / "file").write_text("x")
    assert "is a file" in bollesim("tune", str(pig_spec(tmp_path, 0.40)), "--out", "file", code=2)
    assert "not UTF-8" in bollesim("tune", str(pig_spec(tmp_path, 0.40)), "--out",
                                   os.fsdecode(b"bad\xffname"), code=2)
    bollesim("run", "-P", "banker", "-n", "10", "--out", "run")
    said = bollesim("tune", str(pig_spec(tmp_path, 0.40)), "--out", "run", code=2)
    assert "holds a run's or sweep's games" in said
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



SMALLEST = """\
name = "smallest"
seed = 3
holdout_seed = 4
budget = 40000
trial_games = 600
holdout_games = 1000

[players.plan]
policy = "historical"

[[targets]]
outcome = "defeat"
player = "plan"
at_most = 0.70

[keys]
"tracks.tank_to_hit" = true
"interpretations.airstrikes_per_game" = true
"""


def planted_defeats(tank: int, airstrikes: int, held_out: bool) -> float:
    """Issue 45's case, planted: the historical plan loses 83% as shipped (tank_to_hit 7,
    one airstrike); tank_to_hit 12 (distance 5/11 = 0.455) gets it under 70% on every
    seed; 4 airstrikes (3/9 = 0.333) on the search seed only; 5 (4/9 = 0.444) on both."""
    if airstrikes != 1:
        return {4: 0.705 if held_out else 0.69, 5: 0.657}.get(airstrikes, 0.62 if airstrikes > 5
                                                              else 0.78)
    return 0.66 if tank == 12 else 0.62 if tank == 13 else 0.75 if tank != 7 else 0.83


@pytest.fixture
def smallest(tmp_path, monkeypatch):
    """The answer to SMALLEST with the games planted (planted_defeats: game i lost
    when its share of the rate tips over, so every run of games holds the rate)."""
    import numpy as np
    import polars as pl

    from bollesim.game.patch import value_at
    from bollesim.game.registry import load_game
    from bollesim.search import certify, tune
    from bollesim.search.tune_answer import answer
    from bollesim.search.tune_spec import load_tune

    def outcomes(job, rules, seed, first, stop, options, progress, seconds=None):
        rate = planted_defeats(value_at(rules.data, "tracks.tank_to_hit"),
                               value_at(rules.data, "interpretations.airstrikes_per_game"),
                               seed == job.holdout_seed)
        i = np.arange(first, stop)
        lost = np.floor((i + 1) * rate) > np.floor(i * rate)
        if seconds is not None:
            seconds.update(dict.fromkeys(job.players, 1.0))
        games = pl.DataFrame({o: lost if o == "defeat" else np.zeros_like(lost)
                              for o in game.result.outcome_names})
        return dict.fromkeys(job.players, games)

    game = load_game("bollebank")
    monkeypatch.setattr(tune, "player_outcomes", outcomes)
    monkeypatch.setattr(certify, "player_outcomes", outcomes)
    (tmp_path / "smallest.toml").write_text(SMALLEST)
    return answer(load_tune(tmp_path / "smallest.toml", game))


def test_after_a_failed_certificate_the_search_goes_on_through_what_is_untried(smallest):
    """4 airstrikes meet the target on the search games and miss on the held-out games.
    tune went on to tank_to_hit 12, which it had played, though 5 airstrikes, smaller,
    were never played: the search goes on, smallest first, and finds them."""
    from bollesim.search.tune_report import report

    a = smallest
    assert [(p.label, p.trial.rejected, p.certificate.solution) for p in a.proposals] == [
        ("interpretations.airstrikes_per_game from 1 to 4", True, False),
        ("interpretations.airstrikes_per_game from 1 to 5", False, True),
        ("tracks.tank_to_hit from 7 to 12", False, True)]
    assert a.sentence().startswith("Change interpretations.airstrikes_per_game from 1 to 5: ")
    assert a.found.untried_below(a.solution.trial) == 0
    text = "\n".join(str(block) for block in report(a).blocks)
    assert "It is the smallest change that meets every target" in text


def test_smallest_is_said_only_of_what_the_search_has_shown(smallest):
    """A smaller change never played (as when the budget runs out) is counted, and the
    answer is then the smallest found, not the smallest."""
    from bollesim.search.tune_report import smallest_text

    a = smallest
    fewer = next(t for t in a.found.trials if t.change == {1: 2})  # 2 airstrikes: 0.111
    del a.found.state.seen[tuple(sorted(fewer.change.items()))]
    untried = a.found.untried_below(a.solution.trial)
    assert untried == 1
    assert smallest_text(untried) == ("It is the smallest change the search found, not shown "
                                      "to be the smallest: 1 smaller change was never played "
                                      "(the budget ran out).")


def test_a_gap_between_a_player_and_itself_is_refused_up_front(tmp_path):
    """One `error:` line, exit 2, before a game is played."""
    spec = pig_spec(tmp_path, 0.40).read_text().replace('player = "quick"',
                                                        'gap = ["quick", "quick"]')
    (tmp_path / "gap.toml").write_text(spec)
    done = waiting.run([sys.executable, "-m", "bollesim", "--game", "pig", "tune", "gap.toml"],
                       cwd=tmp_path, env=environment(), capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
    assert "targets[0].gap: two different players" in done.stderr
    assert not (tmp_path / "results").exists()
