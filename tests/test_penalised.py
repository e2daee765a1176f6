"""The penalised clairvoyant (bollesim/strong/penalised.py) on Bøllebank: a line's
value is V at the first decision plus Q - V at each of its decisions, its Q the mean of V
over STEP samples of the chance to the next decision, on streams of their own; V a
fitted value of the decision (bollesim/strong/value.py)."""

import numpy as np
import pytest

from bollesim.bollebank.game import GAME as BOLLEBANK
from bollesim.bollebank.lookahead import SETUP
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.game.policy import load_policy
from bollesim.rng import MAX_ROLLOUTS
from bollesim.strong import value as valued
from bollesim.strong.clairvoyant import win_objectives
from bollesim.strong.lookahead import Position
from bollesim.strong.penalised import (
    FRESH,
    INNER,
    MOST,
    Measure,
    Penalised,
    best_of,
    lower_estimates,
)

RULES = load_ruleset()
SEED, GAME = 3, 1
OPERATIONAL = win_objectives(BOLLEBANK.result)["operational victory"]
CAUTIOUS = load_policy("cautious")


@pytest.fixture(scope="module")
def data():
    return valued.decisions(BOLLEBANK, RULES, OPERATIONAL, CAUTIOUS, None, 11, 60)


@pytest.fixture(scope="module")
def value(data):
    return valued.fit(*data, trees=5, threads=1)


def penalised(value, offset=0, samples=4):
    return Penalised(BOLLEBANK, RULES, OPERATIONAL, CAUTIOUS, None, value, samples, offset)


def test_v_is_fitted_on_every_decision_and_reads_as_a_probability(data, value):
    """A row per decision of the policy's games (kind, observation), labelled by its game's
    end; refitting the same data gives the same V."""
    x, y = data
    assert x.shape[1] == valued.n_features(BOLLEBANK) and len(x) > 60 * 10 and set(np.unique(y)) <= {0.0, 1.0}
    v = value(x)
    assert ((0 <= v) & (v <= 1)).all()
    assert np.array_equal(valued.fit(x, y, trees=5, threads=1)(x), v)


def test_a_line_is_v_at_its_first_decision_plus_q_minus_v_at_each(value):
    """Recomputed by hand on the policy's own line: V at each decision, Q of the option
    the policy took from the STEP samples."""
    p = penalised(value)
    own = p.replay(SEED, GAME, ())
    row, point = p.player.next_decision(SEED, GAME, Position(SETUP, []))
    total, first = 0.0, p.v(point)
    while point is not None:
        n = p.samples
        points, rows = p.player.steps(SEED, GAME, point, np.full(n, point.base_choice),
                             np.arange(INNER, INNER + n))
        values = [float(OPERATIONAL.won(r)) if q[0] < 0 else
                  float(value(valued.features([q[1]], [q[3:3 + len(point.obs)]]))[0])
                  for q, r in zip(points, rows, strict=True)]
        total += np.mean(values) - p.v(point)
        row, point = p.player.next_decision(
            SEED, GAME, Position(point.at.snapshot, [*point.at.script, point.base_choice]))
    assert own.start == first and own.value == pytest.approx(first + total, abs=1e-12)
    assert own.won == OPERATIONAL.won(row) and own.decisions > 10


def test_the_same_line_on_the_same_samples_is_worth_the_same(value):
    line = (1, 0, 1, 1)
    once = penalised(value).replay(SEED, GAME, line)
    assert penalised(value).replay(SEED, GAME, line) == once
    fresh = penalised(value, FRESH).replay(SEED, GAME, line)
    assert fresh.line == once.line and fresh.value != once.value


def test_the_inner_samples_are_not_a_players_rollouts():
    """A lookahead player numbers its rollouts from 0 up to its most (the parameter's
    declared range): the inner samples, fresh ones included, are numbered above them and
    within the rollout numbers that have streams of their own."""
    most = next(p.high for p in load_policy("lookahead").parameters if p.name == "rollouts")
    assert INNER > most
    assert INNER + FRESH + MOST < MAX_ROLLOUTS


@pytest.mark.parametrize("samples", [0, MOST + 1])
def test_inner_samples_out_of_range_are_refused(value, samples):
    with pytest.raises(ValueError, match="1 to 65,536 samples"):
        penalised(value, samples=samples)



def test_the_lower_estimates_are_the_same_in_one_process_or_two(value):
    """The measure rebuilt from its plain data in worker processes (V read back from its
    text) values each game's lines as players built here do, from any first game."""
    historical = load_policy("historical")
    inner, fresh = ([Penalised(BOLLEBANK, RULES, OPERATIONAL, policy, None, value, 2, offset)
                     for policy in (CAUTIOUS, historical)] for offset in (0, FRESH))
    lines = [[(0, ()), (1, ())], [(1, ())], [(0, ())]]
    here = np.array([best_of(inner, fresh, SEED, g, c) for g, c in enumerate(lines, 5)])
    measure = Measure("bollebank", "operational victory", (("cautious", None), ("historical", None)),
                      value.text, 2)
    assert np.array_equal(lower_estimates(measure, SEED, lines, 1, first_game=5), here)
    assert np.array_equal(lower_estimates(measure, SEED, lines, 2, first_game=5), here)


CTRL_C = """
from bollesim.bollebank.game import GAME
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.game.policy import load_policy
from bollesim.strong import value
from bollesim.strong.clairvoyant import win_objectives
from bollesim.strong.penalised import Measure, lower_estimates

if __name__ == "__main__":
    objective = win_objectives(GAME.result)["operational victory"]
    x, y = value.decisions(GAME, load_ruleset(), objective, load_policy("cautious"), None, 11, 20, 1)
    measure = Measure("bollebank", "operational victory", (("cautious", None),),
                      value.fit(x, y, 2, 1).text, 4)
    try:
        lower_estimates(measure, 3, [[(0, ())]] * 100_000, 2)
    except KeyboardInterrupt:
        print("stopped", flush=True)
"""


@pytest.mark.parametrize("after", [0, 3], ids=["workers starting", "workers at their games"])
def test_ctrl_c_stops_the_workers_at_once_and_quietly(tmp_path, after):
    """Ctrl-C at a terminal reaches the whole process group: the workers leave it to the
    parent (no traceback of theirs), which drops the games not begun and stops within
    seconds, with no worker left behind, whether the workers are still starting or at
    their games."""
    import os
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "ctrl_c.py"
    script.write_text(CTRL_C)
    run = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while len(subprocess.run(["pgrep", "-s", str(run.pid)], capture_output=True,
                                 text=True).stdout.split()) < 4:  # parent, tracker, 2 workers
            assert run.poll() is None and time.monotonic() < deadline, run.communicate()
            time.sleep(0.2)
        time.sleep(after)
        os.killpg(run.pid, signal.SIGINT)
        start = time.monotonic()
        out, err = run.communicate(timeout=60)
        assert out == "stopped\n" and "Traceback" not in err, err
        while (left := subprocess.run(["pgrep", "-s", str(run.pid)], capture_output=True,
                                      text=True).stdout) and time.monotonic() - start < 20:
            time.sleep(0.2)
        assert left == "" and time.monotonic() - start < 20, left
    finally:  # a failure leaves no process behind
        try:
            os.killpg(run.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
