"""Resume (runfolder.py, `--resume`): a run or sweep killed at a random point (SIGKILL,
here or on a local Dask cluster), stopped by SIGTERM or SIGHUP, or cut short in a
--precision round, continues from its saved chunks; no game is lost or played twice and
the file is byte for byte an uninterrupted run's. One writer at a time (the lock).

The kills need real processes (`python -m bollesim`); everything else runs in-process."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import waiting
from test_sweep import SMALL, assert_one_line_error, invoke, own_lines, write_spec

from bollesim.batch import runner
from bollesim.batch.partial import interrupted_run
from bollesim.batch.runfolder import open_run
from bollesim.batch.workspace import Workspace

# One worker: the module's fixture plays the whole run and sweep the resumed ones
# must equal.
pytestmark = pytest.mark.xdist_group("resume")

RUN = ("run", "-P", "historical", "-n", "24000", "--seed", "5", "--chunk", "4096")
SWEEP_ARGS = ("-n", "6000", "--chunk", "4096")


def bollesim(*args, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bollesim", *map(str, args)],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group: its Dask workers die with it
    )


def saved_chunks(out: Path) -> int:
    chunks = out.parent / f".{out.name}.partial" / "chunks"
    try:
        return sum(p.name.endswith(".parquet") and not p.name.startswith(".") for p in chunks.iterdir())
    except OSError:
        return 0


def kill_at_random(proc: subprocess.Popen, out: Path, rng: random.Random, least: int) -> str:
    """SIGKILL after a random number of saved chunks (`least` to 3) and a random delay;
    returns where, for the failure message."""
    wanted, delay = rng.randrange(least, 4), rng.uniform(0.0, 0.4)
    waiting.until(lambda: saved_chunks(out) >= wanted or proc.poll() is not None,
                  f"{wanted} saved chunks")
    time.sleep(delay)  # a random moment after them: where the kill lands, not a wait
    where = f"after {saved_chunks(out)} saved chunks (wanted {wanted}) and {delay:.2f} s"
    os.killpg(proc.pid, signal.SIGKILL)
    waiting.until(lambda: proc.poll() is not None, "the killed run to end")
    return where


def digest(out: Path) -> str:
    return json.loads((out / "manifest.json").read_text())["data_sha256"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict[str, str]:
    """The data SHA-256 of the run and of the sweep, played without interruption."""
    folder = tmp_path_factory.mktemp("whole")
    spec = write_spec(folder, SMALL)
    assert invoke(*RUN, "--out", folder / "run").exit_code == 0
    assert invoke("sweep", spec, *SWEEP_ARGS, "--out", folder / "sweep").exit_code == 0
    return {"run": digest(folder / "run"), "sweep": digest(folder / "sweep"), "spec": spec}


@pytest.fixture
def count_played(monkeypatch) -> list[int]:
    """Games handed to the engine (here or to a cluster) from now on, warm-up excluded."""
    played = [0]
    real = runner.play_chunks

    def counting(jobs, engine="fast", cluster=None):
        def counted():
            for job in jobs:
                played[0] += job[1].shape[0]
                yield job

        return real(counted(), engine, cluster)

    monkeypatch.setattr(runner, "play_chunks", counting)
    return played


@pytest.mark.parametrize("kind", ["run", "sweep"])
@pytest.mark.parametrize("where", ["here", "cluster"])
def test_sigkill_at_a_random_point_then_resume(uninterrupted, tmp_path, count_played, kind, where):
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    out = tmp_path / "out"
    args = [*RUN] if kind == "run" else ["sweep", uninterrupted["spec"], *SWEEP_ARGS]
    args += ["--out", out]
    if where == "cluster":
        args += ["--cluster", "local", "--workers", "2"]
    # on a cluster, killed while the cluster plays; here, at any point from the start
    least = 1 if where == "cluster" else 0
    point = kill_at_random(bollesim(*args, "--threads", "1", cwd=tmp_path), out, rng, least)
    context = f"killed {point} (random seed {seed})"
    waiting = interrupted_run(out)
    saved = waiting.saved if waiting else 0
    complete = waiting is None and (out / "manifest.json").exists()
    here = [a for a in args if a not in ("--cluster", "local", "--workers", "2")]
    result = invoke(*here, "--resume")  # a chunk's rows do not depend on where it was played
    assert result.exit_code == 0, (context, result.output)
    total = open_run(out).n_games
    assert digest(out) == uninterrupted[kind], context
    # none lost, none played twice
    assert count_played[0] == (0 if complete else total - saved), context
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.lock", "out"], context


def signal_as_the_third_chunk_starts(monkeypatch, sig) -> list:
    """runner.play_chunk sends `sig` to this process as the run's third chunk starts (after
    the warm-up and two chunks); the calls made."""
    real, calls = runner.play_chunk, []

    def signalled(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:
            os.kill(os.getpid(), sig)
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "play_chunk", signalled)
    return calls


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_saves_and_says_how_to_resume(uninterrupted, tmp_path, monkeypatch, sig):
    out = tmp_path / "out"
    real = runner.play_chunk
    previous = signal.signal(sig, signal.SIG_DFL)  # as a terminal starts it (nohup: ignored)
    try:
        signal_as_the_third_chunk_starts(monkeypatch, sig)
        monkeypatch.setattr(sys, "argv", ["/venv/bin/bollesim", *map(str, RUN), "--out", str(out)])
        result = invoke(*RUN, "--out", out)
        assert result.exit_code == 128 + sig, result.output
        lines = own_lines(result.stderr.strip())
        assert len(lines) == 1 and lines[0].startswith("interrupted: 8,192 of 24,000 games"), lines
        assert lines[0].endswith(f"continue with: bollesim {' '.join(RUN)} --out {out} --resume")
        assert not list(tmp_path.glob(".out.partial/**/*.tmp"))
        monkeypatch.setattr(runner, "play_chunk", real)
        assert invoke(*RUN, "--out", out, "--resume").exit_code == 0
        assert digest(out) == uninterrupted["run"]
        assert signal.getsignal(sig) is signal.SIG_DFL  # the handler is gone after the run
    finally:
        signal.signal(sig, previous)


def test_a_hangup_the_run_was_started_to_ignore_is_ignored(uninterrupted, tmp_path, monkeypatch):
    """Under `nohup` SIGHUP is ignored so that the job outlives its terminal: the run plays
    on through a hangup, and leaves it ignored."""
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        calls = signal_as_the_third_chunk_starts(monkeypatch, signal.SIGHUP)
        result = invoke(*RUN, "--out", tmp_path / "out")
        assert result.exit_code == 0, result.output
        assert len(calls) > 4 and digest(tmp_path / "out") == uninterrupted["run"]
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_precision_rounds_resume_exactly(tmp_path, monkeypatch, count_played):
    args = ("run", "-P", "fire_at_roe", "-n", "300", "--seed", "2", "--chunk", "500",
            "--precision", "0.012")
    result = invoke(*args, "--out", tmp_path / "whole")
    assert result.exit_code == 0 and "precision reached" in result.stdout
    whole = open_run(tmp_path / "whole").manifest
    assert whole["games_per_cell"] > 300 + 2 * 500  # a round that adds several chunks
    calls, real = [], runner.play_chunk

    def stop_in_the_second_round(rules, policy, params, seed, first_game, engine="fast"):
        calls.append(first_game)
        if first_game >= 300 + 500:  # the second chunk of the round that adds games
            raise KeyboardInterrupt
        return real(rules, policy, params, seed, first_game, engine)

    monkeypatch.setattr(runner, "play_chunk", stop_in_the_second_round)
    out = tmp_path / "out"
    result = invoke(*args, "--out", out)
    # Ctrl-C saves the finished chunks (the first round, the first chunk of the second)
    assert result.exit_code == 130 and "interrupted: 800 of" in result.stderr
    monkeypatch.setattr(runner, "play_chunk", real)
    count_played[0] = 0
    result = invoke(*args, "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert digest(out) == whole["data_sha256"]
    assert count_played[0] == whole["n_games"] - 800
    assert open_run(out).manifest["sessions"] == 2


def test_two_runs_started_together(tmp_path):
    out = tmp_path / "out"
    procs = [bollesim(*RUN, "--threads", "1", "--out", out, cwd=tmp_path) for _ in range(2)]
    errors = [waiting.communicate(p, "the run to end")[1] for p in procs]
    assert sorted(p.returncode for p in procs) == [0, 2], errors
    refused = own_lines(errors[[p.returncode for p in procs].index(2)].strip())
    assert len(refused) == 1 and "is in use by another bollesim process" in refused[0]
    assert open_run(out).n_games == 24000


def test_a_folder_in_use_is_refused(tmp_path):
    out = tmp_path / "out"
    assert invoke(*RUN[:3], "-n", "100", "--out", out).exit_code == 0
    before = {p: p.read_bytes() for p in out.iterdir()}
    with Workspace(out):
        assert_one_line_error(invoke(*RUN[:3], "-n", "50", "--out", out), "in use")
        assert_one_line_error(invoke("report", out), "in use")
    assert {p: p.read_bytes() for p in out.iterdir()} == before


def test_what_to_do_with_an_interrupted_run(uninterrupted, tmp_path, monkeypatch):
    out = tmp_path / "out"
    real = runner.play_chunk
    calls = []

    def stop_after_two(*args, **kwargs):
        calls.append(1)
        if len(calls) > 3:  # the warm-up and two chunks
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "play_chunk", stop_after_two)
    assert invoke(*RUN, "--out", out).exit_code == 130
    monkeypatch.setattr(runner, "play_chunk", real)
    saved = interrupted_run(out)
    assert saved.saved == 2 * 4096
    # a plain run, a report or a replay names the interrupted run and both ways on
    assert_one_line_error(invoke(*RUN, "--out", out), "8,192 of 24,000", "--resume", "--restart")
    assert_one_line_error(invoke("report", out), "no such folder yet", "--resume")
    # --resume with other options names the first difference
    assert_one_line_error(invoke(*RUN, "--seed", "6", "--out", out, "--resume"), "seed 5, not 6")
    assert_one_line_error(invoke(*RUN, "--out", out, "--resume", "--restart"), "give one")
    # left-overs of a dead writer are cleaned when the run continues
    partial = tmp_path / ".out.partial"
    (partial / "chunks" / ".0-2-3-4096-0123456789abcdef.parquet.99.tmp").write_bytes(b"half")
    (partial / "chunks" / "0-9-10-4096-0123456789abcdef.parquet").write_bytes(b"forged")
    (tmp_path / ".out.new").mkdir()
    result = invoke(*RUN, "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert digest(out) == uninterrupted["run"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.lock", "out"]
    # resuming a complete run plays nothing, and clears what a writer killed in its
    # clean-up after the commit left: its work area, half deleted
    (tmp_path / ".out.trash" / "chunks").mkdir(parents=True)
    result = invoke(*RUN, "--out", out, "--resume")
    assert result.exit_code == 0 and "nothing to resume" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.lock", "out"]
    assert digest(out) == uninterrupted["run"]
    # a finished run is replaced only when --replace says so
    assert_one_line_error(invoke(*RUN, "--out", out), "holds a finished run", "--replace")
    assert_one_line_error(invoke(*RUN, "--out", out, "--restart"), "holds a finished run", "--replace")
    assert_one_line_error(invoke(*RUN, "--out", out, "--restart", "--replace"), "give one")
    assert digest(out) == uninterrupted["run"]
    # --restart discards an interrupted run (one --replace began over a finished run)
    monkeypatch.setattr(runner, "play_chunk", stop_after_two)
    calls.clear()
    assert invoke(*RUN, "--out", out, "--replace").exit_code == 130
    monkeypatch.setattr(runner, "play_chunk", real)
    assert invoke(*RUN[:3], "-n", "10", "--out", out, "--restart").exit_code == 0
    assert interrupted_run(out) is None and open_run(out).n_games == 10


def test_resume_never_replaces_a_finished_run_of_other_games(tmp_path):
    """--resume of a finished folder: the same run is already complete; any other run, of
    this game or another, is refused naming --replace, and the games stay."""
    out = tmp_path / "out"
    assert invoke("run", "-P", "historical", "-n", "300", "--out", out).exit_code == 0
    before = digest(out)
    for other in (("run", "-P", "historical", "-n", "200"),
                  ("--game", "balkan-wars", "run", "-P", "assault", "-n", "300")):
        result = invoke(*other, "--out", out, "--resume")
        assert_one_line_error(result, "--resume", "finished run of other games",
                              "300 games of Operation Bøllebank", "--replace")
        assert digest(out) == before
    replaced = invoke("--game", "balkan-wars", "run", "-P", "assault", "-n", "300", "--out", out,
                      "--replace")
    assert replaced.exit_code == 0, replaced.output
    assert open_run(out).manifest["game"] == "balkan-wars"
