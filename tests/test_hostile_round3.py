"""Hostile input, round three: each case gets one `error:` line on stderr and exit code 2
(or, where the input is fine, works), never a traceback, and loses nothing written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_sweep import assert_one_line_error, invoke

from bollesim import cli as cli_package
from bollesim import jit
from bollesim.errors import UsageError
from bollesim.game.registry import load_game
from bollesim.inputs import InputError, check_path


def cli(*args, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """`python -m bollesim ARGS` in a process of its own (about a second)."""
    return subprocess.run([sys.executable, "-m", "bollesim", *map(str, args)],
                          env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          timeout=300, **kwargs)


def one_line_error(proc: subprocess.CompletedProcess, *words: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


# ---------------------------------------------------------------- 15. a game's name


@pytest.mark.parametrize("name", ["nonsense", "../../etc/passwd", ".x", "os", "a..b"])
def test_bad_game_names_the_known_games(name):
    with pytest.raises(UsageError, match="unknown game .*known: bollebank, balkan-wars"):
        load_game(name)


def test_the_environment_chooses_no_game():
    """The game is chosen by --game only: a variable of the environment named as the old
    one was is not read (issue 45: `BOLLESIM_GAME=this` printed the Zen of Python)."""
    done = cli("--version", env={"BOLLESIM_GAME": "this"})
    assert done.returncode == 0 and done.stdout == "bollesim 0.1.0\n" and not done.stderr


@pytest.mark.parametrize("name", ["this", "../../etc/passwd", "bollesim.bollebank.game"])
def test_a_bad_game_is_one_line_naming_the_known_games(name):
    done = cli("--game", name, "policies")
    one_line_error(done, f"unknown game {name!r}", "(known: bollebank, balkan-wars)")
    assert "Beautiful is better" not in done.stdout


# ---------------------------------------------------------------- 18. the Python API


@pytest.mark.parametrize(("kwargs", "error", "words"), [
    ({"params": np.full((2, 6), np.nan)}, UsageError, "params[0, 0]: fire_at_roe.k = nan is outside"),
    ({"params": np.tile([8, -5, 1, 0, 0, 0], (2, 1))}, UsageError, "stop_at_tanks = -5 is outside its range 0..4"),
    ({"params": {"k": 1000}}, UsageError, "k = 1000 is outside its range 8..25"),
    ({"first_game": -1}, UsageError, "first_game must be a whole number from 0"),
    ({"first_game": 1.5}, UsageError, "first_game must be a whole number"),
    ({"first_game": 10**15}, UsageError, "first_game + n_games must be"),
    ({"chunk_size": 0}, UsageError, "chunk_size (--chunk) must be a whole number from 1"),
    ({"rules": "default"}, TypeError, "rules must be a Ruleset"),
    ({"rules": {}}, TypeError, "rules must be a Ruleset"),
    ({"threads": "2"}, UsageError, "threads (--threads) must be a whole number from 1"),
    ({"threads": 0}, UsageError, "threads (--threads) must be a whole number from 1"),
])
def test_simulate_refuses_bad_arguments(kwargs, error, words):
    import bollesim

    with pytest.raises(error) as caught:
        bollesim.simulate("fire_at_roe", 2, engine="reference", **kwargs)
    assert words in str(caught.value)


# ---------------------------------------------------------------- 17. tracebacks


@pytest.mark.parametrize(("name", "value", "words"), [
    ("NUMBA_NUM_THREADS", "0", "from 1"),
    ("NUMBA_NUM_THREADS", "-1", "from 1"),
    ("NUMBA_NUM_THREADS", "abc", "from 1"),
    ("NUMBA_NUM_THREADS", "", "from 1"),
    ("NUMBA_DISABLE_JIT", "1", "unset it"),
    ("NUMBA_DISABLE_JIT", "", "unset it"),
])
def test_numba_settings_no_command_runs_with(monkeypatch, name, value, words):
    monkeypatch.setenv(name, value)
    problem = cli_package.environment_problem()
    assert problem.startswith(f"{name}={value}:") and words in problem


@pytest.mark.parametrize(("name", "value"), [("NUMBA_NUM_THREADS", "2"), ("NUMBA_DISABLE_JIT", "0")])
def test_good_numba_settings_pass(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    assert cli_package.environment_problem() is None


def test_a_deleted_working_folder_is_named(monkeypatch):
    def gone():
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(os, "getcwd", gone)
    assert "current folder no longer exists" in cli_package.environment_problem()


def test_environment_problems_stop_every_command_in_one_line(tmp_path):
    one_line_error(cli("--version", env={"NUMBA_NUM_THREADS": "0"}), "NUMBA_NUM_THREADS=0")
    gone = tmp_path / "gone"
    gone.mkdir()
    proc = subprocess.run(["sh", "-c", 'cd "$1" && rmdir "$1" && exec "$2" -m bollesim policies',
                           "sh", gone, sys.executable], capture_output=True, text=True, timeout=300)
    one_line_error(proc, "current folder no longer exists")


def test_ctrl_c_while_the_commands_are_imported_is_one_line():
    """SIGINT right after bollesim.cli is imported, while the commands' modules are."""
    code = ("import os, signal, sys; sys.argv[0] = 'bollesim'; import bollesim.cli; "
            "os.kill(os.getpid(), signal.SIGINT); from bollesim.cli.app import main; main()")
    proc = subprocess.run([sys.executable, "-c", code, "--version"], capture_output=True,
                          text=True, timeout=300)
    assert (proc.returncode, proc.stderr) == (128 + signal.SIGINT, "interrupted\n")


def test_text_the_terminal_cannot_encode_is_escaped():
    proc = cli("rules", "show", env={"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""})
    assert proc.returncode == 0, proc.stderr
    assert "\\xa7" in proc.stdout and "Traceback" not in proc.stderr  # §, escaped


def test_a_name_that_is_not_utf8_is_refused(tmp_path):
    with pytest.raises(InputError, match="not UTF-8"):
        check_path(os.fsdecode(b"bad\xffname"))
    out = tmp_path / os.fsdecode(b"bad\xffname")
    assert_one_line_error(invoke("run", "-P", "historical", "-n", "10", "--out", out),
                          "bad\\xffname", "not UTF-8")
    assert list(tmp_path.iterdir()) == []


def test_stdout_on_a_full_device_is_one_line():
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "bollesim", "policies"], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=300)
    one_line_error(proc, "No space left on device")


# ---------------------------------------------------------------- 16. installed read-only

NO_CACHE = "import numba.core.caching as c; c.CacheImpl._locator_classes = []; "
"""numba finding no folder it can write its cache in (as in a read-only install, where
the package's folder and $HOME are read-only)."""


def test_without_a_writable_cache_folder_compiled_code_runs_and_says_so_once(monkeypatch, capsys):
    import numba.core.caching

    monkeypatch.setattr(numba.core.caching.CacheImpl, "_locator_classes", [])
    jit.uncached_note.cache_clear()

    def one(x):
        return x + 1

    def two(x):
        return x + 2

    assert jit.compiled(one)(1) + jit.compiled(two)(1) == 5
    note = capsys.readouterr().err.splitlines()
    assert len(note) == 1 and "no folder to cache the compiled engine in" in note[0]
    jit.uncached_note.cache_clear()


@pytest.mark.slow  # compiles the engine afresh (a minute or two)
def test_a_read_only_install_plays():
    code = (NO_CACHE + "import sys; sys.argv[0] = 'bollesim'; "
            "from bollesim.cli.app import main; main()")
    proc = subprocess.run([sys.executable, "-c", code, "play", "-P", "historical", "--seed", "7"],
                          env={**os.environ, "NUMBA_CACHE_DIR": "/proc/bollesim-no-cache"},
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("no folder to cache") == 1 and "Traceback" not in proc.stderr
    assert "Outcome:" in proc.stdout


# ---------------------------------------------------------------- 22. a search killed midway


def test_a_write_killed_midway_advises_what_works(tmp_path, monkeypatch):
    """`bollesim optimise` writes its held-out games whole (write_games): killed during
    its commit, the work it leaves cannot be resumed, and no message may say --resume."""
    import polars as pl

    from bollesim.batch import runfolder
    from bollesim.batch.workspace import Workspace, write_games

    games = pl.DataFrame({"game": [0, 1], "seed": [1, 1]})

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Workspace, "commit", killed)
    out = tmp_path / "search"
    with pytest.raises(KeyboardInterrupt):
        write_games(out, load_game("bollebank"), games, writer="bollesim optimise")
    with pytest.raises(runfolder.RunFolderError) as caught:
        runfolder.open_run(out)
    assert "run bollesim optimise again" in str(caught.value)
    assert "--resume" not in str(caught.value)


HOOK = """
import importlib.abc, os, signal, sys

class Interrupt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "bollesim.jit_cache":  # the package's first import: numpy, numba follow
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
"""


def test_ctrl_c_in_the_first_moment_of_the_program_is_one_line(tmp_path):
    """SIGINT while `python -m bollesim` imports its package, before bollesim.cli: the
    handler is there from the package's first line and ends the process at once (an
    exception raised inside an import can come out as numpy's ImportError)."""
    (tmp_path / "sitecustomize.py").write_text(HOOK)
    root = Path(__file__).resolve().parents[1]
    proc = cli("run", "-P", "historical", "-n", "100", "--out", tmp_path / "o",
               env={"PYTHONPATH": os.pathsep.join([str(tmp_path), str(root)])})
    assert (proc.returncode, proc.stderr) == (128 + signal.SIGINT, "interrupted\n")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("args", "where"), [
    (("run", "-P", "historical", "-n", "10"), "bollesim.batch.source.RulesetSource.from_options"),
    (("sweep", "experiments/first_fire.toml", "-n", "10"), "bollesim.batch.spec.load_experiment"),
    (("report", "results/showcase"), "bollesim.batch.runfolder.open_run"),
])
def test_ctrl_c_before_a_command_handles_it_is_one_line(tmp_path, monkeypatch, args, where):
    """Ctrl-C after the command starts and before its own handling (typer would end it
    silently with 130): one line, exit 130, nothing written."""
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(where, interrupted)
    out = [] if args[0] == "report" else ["--out", tmp_path / "o"]
    result = invoke(*args, *out)
    assert (result.exit_code, result.stderr) == (128 + signal.SIGINT, "interrupted\n")
    assert not (tmp_path / "o").exists()


# ---------------------------------------------------------------- 20. one writer per folder

RUN = ("run", "-P", "historical", "-n", "100", "--seed")


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("runs")
    for seed, name in ((1, "a"), (2, "b")):
        assert invoke(*RUN, seed, "--out", folder / name).exit_code == 0
    return folder / "a", folder / "b"


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_a_report_into_another_runs_folder_is_refused(two_runs):
    a, b = two_runs
    before = files(b)
    assert_one_line_error(invoke("report", a, "--out", b), "holds a run's or sweep's games")
    assert files(b) == before


def test_a_report_folder_takes_the_reports_of_one_run(two_runs, tmp_path):
    a, b = two_runs
    out = tmp_path / "reports"
    assert invoke("report", a, "--out", out).exit_code == 0
    assert invoke("report", a, "--out", out).exit_code == 0  # the same run's again
    before = files(out)
    assert_one_line_error(invoke("report", b, "--out", out), "holds the report of another run")
    assert files(out) == before


def test_a_report_onto_a_file_is_refused(two_runs, tmp_path):
    a, _ = two_runs
    (tmp_path / "notes").write_text("mine")
    assert_one_line_error(invoke("report", a, "--out", tmp_path / "notes"), "is a file")
    assert (tmp_path / "notes").read_text() == "mine"


def test_a_report_folder_in_use_is_refused(two_runs, tmp_path):
    from bollesim.batch.workspace import Workspace

    a, _ = two_runs
    with Workspace(tmp_path / "reports"):
        assert_one_line_error(invoke("report", a, "--out", tmp_path / "reports"), "in use")
    assert not (tmp_path / "reports").exists()


def test_runs_and_searches_do_not_replace_each_others_folders(two_runs, tmp_path, monkeypatch):
    import shutil

    from test_optimise import K_SEARCH

    from bollesim.search import optimise

    a, _ = two_runs
    search = tmp_path / "search"
    shutil.copytree(a, search)
    (search / "best.json").write_text("{}")
    assert_one_line_error(invoke(*RUN, 3, "--out", search), "holds a policy search's result")
    assert (search / "best.json").read_text() == "{}"
    (spec := tmp_path / "spec.toml").write_text(K_SEARCH)
    monkeypatch.setattr(optimise, "optimise", lambda *a, **k: pytest.fail("the search ran"))
    assert_one_line_error(invoke("optimise", spec, "--out", a), "holds a run's or sweep's games")


def test_a_search_holds_its_folder_while_it_searches(tmp_path, monkeypatch):
    from test_optimise import K_SEARCH

    from bollesim.batch.runfolder import RunFolderBusy
    from bollesim.batch.workspace import Workspace
    from bollesim.search import optimise

    out = tmp_path / "out"

    def searching(*args, **kwargs):
        with pytest.raises(RunFolderBusy), Workspace(out):  # what a run, a report would meet
            pass
        raise KeyboardInterrupt  # Ctrl-C: nothing is written

    (spec := tmp_path / "spec.toml").write_text(K_SEARCH)
    monkeypatch.setattr(optimise, "optimise", searching)
    result = invoke("optimise", spec, "--out", out)
    assert result.exit_code == 130, result.output
    assert not out.exists()


def test_a_report_folder_holds_one_runs_report_and_one_runs_sensitivity(two_runs, tmp_path):
    """The showcase holds a sweep's balance report and a sensitivity run's report (their
    files differ): each kind is claimed by one run."""
    from bollesim.batch.runfolder import RunFolderError, open_run
    from bollesim.batch.workspace import claim_report_folder

    a, b = (open_run(f) for f in two_runs)
    out = tmp_path / "showcase"
    claim_report_folder(out, a, "report")
    claim_report_folder(out, b, "sensitivity")
    claim_report_folder(out, a, "report")
    with pytest.raises(RunFolderError, match="holds the report of another run"):
        claim_report_folder(out, b, "report")
    with pytest.raises(RunFolderError, match="holds the sensitivity of another run"):
        claim_report_folder(out, a, "sensitivity")
