"""The penalised clairvoyant (bollesim/strong/penalised.py) on Bøllebank: a line's
value is V at the first decision plus Q - V at each of its decisions, its Q the mean of V
over STEP samples of the chance to the next decision, on streams of their own; V a
fitted value of the decision (bollesim/strong/value.py)."""

import numpy as np
import pytest
import waiting

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
import os
import select
import signal
import sys
import threading
from dataclasses import dataclass
from multiprocessing import context
from pathlib import Path

from bollesim.bollebank.game import GAME
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.game.policy import load_policy
from bollesim.strong import value
from bollesim.strong.clairvoyant import win_objectives
from bollesim.strong.penalised import Measure, lower_estimates


class Endless:
    \"""A player whose game never ends: it marks its worker as at its games, then waits.\"""

    def __init__(self, marks):
        self.marks = marks

    def replay(self, seed, game, line):
        Path(self.marks, str(os.getpid())).touch()
        threading.Event().wait()


@dataclass(frozen=True)
class Endlessly(Measure):
    marks: str = ""

    def build(self):
        return [Endless(self.marks)], [Endless(self.marks)]


WORKERS = []  # the worker processes started, as they start


def watch_the_workers(ctrl_c: bool):
    \"""Keep each worker process as it starts; with `ctrl_c`, Ctrl-C at the terminal (to
    the whole process group) the moment the first exists, the pool still starting, the
    interpreter running on until this process has received it (its signal handler wrote
    to the wakeup pipe): a Ctrl-C not held back comes out here, before the pool has
    counted the worker.\"""
    start = context.SpawnProcess.start
    received, wakeup = os.pipe()
    os.set_blocking(wakeup, False)
    signal.set_wakeup_fd(wakeup)

    def started(process):
        start(process)
        WORKERS.append(process)
        if ctrl_c and len(WORKERS) == 1:
            os.killpg(0, signal.SIGINT)
            while not select.select([received], [], [], 0)[0]:
                pass

    context.SpawnProcess.start = started


if __name__ == "__main__":
    moment, marks = sys.argv[1:]
    # A thread of this process's own, as the engine's and LightGBM's are: a Ctrl-C that
    # the main thread holds back may be delivered to it.
    threading.Thread(target=threading.Event().wait, daemon=True).start()
    if moment == "starting":
        objective = win_objectives(GAME.result)["operational victory"]
        x, y = value.decisions(GAME, load_ruleset(), objective, load_policy("cautious"), None, 11, 20, 1)
        measure = Measure("bollebank", "operational victory", (("cautious", None),),
                          value.fit(x, y, 2, 1).text, 4)
    else:
        measure = Endlessly("bollebank", "operational victory", (), "", 4, marks)
    watch_the_workers(ctrl_c=moment == "starting")
    try:
        lower_estimates(measure, 3, [[(0, ())]] * 100_000, 2)
    except KeyboardInterrupt:  # and how the workers ended
        print("stopped", *sorted({w.exitcode for w in WORKERS}), flush=True)
"""


def session(pid: int) -> list[str]:
    """The processes of the session `pid` leads (pgrep -s)."""
    import subprocess

    return subprocess.run(["pgrep", "-a", "-s", str(pid)], capture_output=True,
                          text=True).stdout.splitlines()


@pytest.mark.parametrize("moment", ["starting", "playing"],
                         ids=["workers starting", "workers at their games"])
def test_ctrl_c_stops_the_workers_at_once_and_quietly(tmp_path, moment):
    """Ctrl-C at a terminal reaches the whole process group: the workers leave it to the
    parent (no traceback of theirs; none dies of the Ctrl-C), which ends them whatever they
    are doing (starting, or at games that never end), and no process of the command
    outlives it. "starting": the
    Ctrl-C comes the moment the first worker exists (the script sends it then); "at their
    games": once every worker has begun a game."""
    import os
    import signal
    import subprocess
    import sys

    script = tmp_path / "ctrl_c.py"
    script.write_text(CTRL_C)
    marks = tmp_path / "marks"
    marks.mkdir()
    out, err = tmp_path / "stdout", tmp_path / "stderr"  # files: a worker left behind
    with out.open("w") as stdout, err.open("w") as stderr:  # would hold pipes open
        run = subprocess.Popen([sys.executable, str(script), moment, str(marks)],
                               stdout=stdout, stderr=stderr, start_new_session=True)
    try:
        if moment == "playing":
            waiting.until(lambda: len(list(marks.iterdir())) == 2, "both workers at a game",
                          alive=[run])
            os.killpg(run.pid, signal.SIGINT)
        waiting.until(lambda: run.poll() is not None, "the command to end after Ctrl-C")
        said, *ended = out.read_text().split()
        assert said == "stopped" and "Traceback" not in err.read_text(), (ended, err.read_text())
        # killed by the parent (or, once it has killed one, by the pool), none by the Ctrl-C
        assert ended and set(map(int, ended)) <= {-signal.SIGKILL, -signal.SIGTERM}, ended
        waiting.until(lambda: not session(run.pid), "the command's processes to end")
    finally:  # a failure leaves no process behind
        try:
            os.killpg(run.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
