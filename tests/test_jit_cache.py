"""The numba cache is keyed by the sources (bollesim/jit_cache.py): a kernel compiled from
old code is never run after one of the files it is built from changed."""

from __future__ import annotations

import ast
import concurrent.futures
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bollesim import jit_cache

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bollesim", "policies")

DEPENDENCY = "bollesim/_probe_dependency.py"
DEPENDENCY_TEXT = """
from numba import njit


@njit(cache=True)
def value():
    return {value}
"""
# A kernel in a file of its own that calls a kernel of another file: numba checks only
# the probe's own file against its cache.
PROBE = """
import os, sys
from pathlib import Path
if {numba_first}:
    import numba
import bollesim
from numba import njit
from bollesim._probe_dependency import value

if Path.cwd().resolve() not in Path(bollesim.__file__).resolve().parents:
    sys.exit(f"bollesim imported from {{bollesim.__file__}}")


@njit(cache=True)
def probe():
    return value() + 1


print(probe())
"""


def copy_sources(target: Path) -> None:
    """The files of bollesim/ and policies/ (tracked or new, not ignored) into target."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", *PACKAGES],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    for name in filter(None, listing.split("\0")):
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes((ROOT / name).read_bytes())


def run_probe(copy: Path, **env: str) -> int:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("NUMBA_CACHE_DIR", jit_cache.NOT_EXPLICIT)}
    done = subprocess.run(
        [sys.executable, "probe.py"], cwd=copy, capture_output=True, text=True,
        env={**clean, "PYTHONPATH": str(copy), **env},
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


def set_dependency(copy: Path, value: int) -> None:
    (copy / DEPENDENCY).write_text(DEPENDENCY_TEXT.format(value=value))


@pytest.mark.parametrize("numba_first", [False, True], ids=["bollesim-first", "numba-first"])
def test_an_edited_dependency_is_compiled_afresh(tmp_path, numba_first):
    copy_sources(tmp_path)
    (tmp_path / "probe.py").write_text(PROBE.format(numba_first=numba_first))
    set_dependency(tmp_path, 1)
    assert run_probe(tmp_path) == 2
    assert run_probe(tmp_path) == 2  # from the cache
    set_dependency(tmp_path, 41)
    assert run_probe(tmp_path) == 42


def test_a_given_numba_cache_dir_is_used_as_is(tmp_path):
    """NUMBA_CACHE_DIR set by the user wins, with numba's own staleness: this is what the
    keyed folder prevents (and shows that the test above can fail)."""
    copy = tmp_path / "copy"
    copy_sources(copy)
    (copy / "probe.py").write_text(PROBE.format(numba_first=False))
    given = tmp_path / "given"
    set_dependency(copy, 1)
    assert run_probe(copy, NUMBA_CACHE_DIR=str(given)) == 2
    set_dependency(copy, 41)
    assert run_probe(copy, NUMBA_CACHE_DIR=str(given)) == 2  # stale: numba's own check
    assert list(given.rglob("*.nbi"))
    assert not (copy / "bollesim" / "__pycache__" / "numba").exists()


def test_the_key_follows_compiled_sources_only(tmp_path, monkeypatch):
    copy_sources(tmp_path)
    monkeypatch.setattr(jit_cache, "PACKAGE", tmp_path / "bollesim")
    monkeypatch.setattr(jit_cache, "PACKAGES", (tmp_path / "bollesim", tmp_path / "policies"))
    assert jit_cache.source_key() == jit_cache.source_key()  # the same sources, the same key
    key = jit_cache.source_key()
    with open(tmp_path / "bollesim" / "stats" / "analysis.py", "a") as f:
        f.write("\n# an edit no kernel sees\n")
    assert jit_cache.source_key() == key
    with open(tmp_path / "bollesim" / "bollebank" / "engine" / "core.py", "a") as f:
        f.write("\n# an edit of compiled code\n")
    assert jit_cache.source_key() != key
    key = jit_cache.source_key()
    (tmp_path / "policies" / "bollebank" / "presets_only.py").write_text("PARAMETERS = ()\n")
    assert jit_cache.source_key() == key  # a new file no kernel is built from
    (tmp_path / "policies" / "bollebank" / "new_policy.py").write_text(
        "PARAMETERS = ()\n\n\ndef decide(kind, obs, rules, options, n_options, params, prng):\n"
        "    return 0\n")
    assert jit_cache.source_key() != key  # a new policy numba compiles counts
    key = jit_cache.source_key()
    with open(tmp_path / "bollesim" / "game" / "readings.py", "a") as f:
        f.write("\n# an edit of a module a kernel's module imports\n")
    assert jit_cache.source_key() != key


def test_a_tree_cached_apart_has_a_key_of_its_own(tmp_path, monkeypatch):
    """The test oracle (tests/invariants/) is cached apart: an edit of it changes its own
    key only, an edit of the package both."""
    copy_sources(tmp_path)
    monkeypatch.setattr(jit_cache, "PACKAGE", tmp_path / "bollesim")
    monkeypatch.setattr(jit_cache, "PACKAGES", (tmp_path / "bollesim", tmp_path / "policies"))
    oracle = tmp_path / "oracle"
    oracle.mkdir()
    (oracle / "check.py").write_text("LIMIT = 1\n")
    key, apart = jit_cache.source_key(), jit_cache.source_key((oracle,))
    assert apart != key
    (oracle / "check.py").write_text("LIMIT = 2\n")
    assert jit_cache.source_key() == key
    assert jit_cache.source_key((oracle,)) != apart
    apart = jit_cache.source_key((oracle,))
    with open(tmp_path / "bollesim" / "bollebank" / "engine" / "core.py", "a") as f:
        f.write("\n# an edit of compiled code\n")
    assert jit_cache.source_key((oracle,)) != apart


def test_old_folders_are_pruned(tmp_path):
    now = time.time()
    for age in range(7):
        folder = tmp_path / f"key{age}"
        folder.mkdir()
        os.utime(folder, (now - 60 * age, now - 60 * age))
    jit_cache.prune(tmp_path, keep=3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["key0", "key1", "key2"]


def test_this_process_uses_the_folder_of_its_sources():
    import numba

    if os.environ.get("NUMBA_CACHE_DIR") != os.environ.get(jit_cache.NOT_EXPLICIT):
        pytest.skip("NUMBA_CACHE_DIR is set by the user: numba uses it as it is")
    folder = Path(numba.config.CACHE_DIR)
    assert folder.name == jit_cache.source_key()
    assert os.environ["NUMBA_CACHE_DIR"] == os.environ[jit_cache.NOT_EXPLICIT] == str(folder)


def imports(tree: ast.Module) -> set[str]:
    """The bollesim and policies modules a file imports (names, possibly of packages)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in ("bollesim", "policies")}


MAKERS = {"compiled", "njit", "intrinsic"}
"""What makes compiled code: bollesim.jit's decorator, numba's njit and intrinsic."""


def maker(node: ast.expr) -> str | None:
    """The name a decorator or a call is made by (`compiled` of `@compiled(inline=True)`)."""
    node = node.func if isinstance(node, ast.Call) else node
    return node.id if isinstance(node, ast.Name) else None


def defines_compiled_code(tree: ast.Module) -> bool:
    """A decorator or a call of MAKERS anywhere, or a policy's top-level decide."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and maker(node) in MAKERS:
            return True
        if isinstance(node, ast.FunctionDef) and any(maker(d) in MAKERS for d in node.decorator_list):
            return True
    return any(isinstance(n, ast.FunctionDef) and n.name == "decide" for n in tree.body)


def test_pure_python_modules_are_not_compiled_code():
    """No module that defines compiled code imports a module the cache's key leaves out
    (jit_cache.sources), directly or through other modules: an edit of a pure module
    cannot change a kernel. Found here from the syntax trees, apart from jit_cache's own
    reading of the files."""
    modules = {}
    for tree in jit_cache.PACKAGES:
        for path in tree.rglob("*.py"):
            name = path.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
            modules[name.removesuffix(".__init__")] = ast.parse(path.read_text(encoding="utf-8"))
    compiled = [m for m, tree in modules.items() if defines_compiled_code(tree)]
    reached, todo = set(), compiled
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo += [i for i in imports(modules[module]) if i in modules]
    counted = {p.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".").removesuffix(".__init__")
               for p in jit_cache.sources()}
    assert not reached - counted, sorted(reached - counted)
    assert {"bollesim.bollebank.engine.core", "bollesim.balkan.engine", "bollesim.rng",
            "policies.bollebank.plan", "policies.balkan_wars.assault"} <= counted
    assert not {"bollesim.stats.analysis", "bollesim.cli.wiring", "bollesim.serve.app",
                "policies.bollebank.lookahead", "bollesim.bollebank.reference.orders"} & counted


def test_a_folder_set_by_a_parent_process_is_worked_out_again(tmp_path):
    """A child process inherits the NUMBA_CACHE_DIR its parent's `configure` set; the
    child's own sources decide its folder."""
    copy = tmp_path / "copy"
    copy_sources(copy)
    (copy / "probe.py").write_text(PROBE.format(numba_first=False))
    inherited = str(tmp_path / "parent")
    env = {"NUMBA_CACHE_DIR": inherited, jit_cache.NOT_EXPLICIT: inherited}
    set_dependency(copy, 1)
    assert run_probe(copy, **env) == 2
    set_dependency(copy, 41)
    assert run_probe(copy, **env) == 42
    assert not Path(inherited).exists()


class _Stream:
    def __init__(self, tty: bool):
        self.tty, self.text = tty, ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


def test_a_compile_is_announced_in_one_line_on_a_terminal_only():
    from bollesim.bollebank.engine.play import compile_notice

    terminal, pipe = _Stream(True), _Stream(False)
    compile_notice(terminal)
    compile_notice(pipe)
    assert terminal.text.count("\n") == 1 and "once for this machine" in terminal.text
    assert pipe.text == ""


def test_a_kernel_is_announced_once_and_marked_compiled(tmp_path, monkeypatch):
    from bollesim.bollebank.engine import play

    notices = []
    monkeypatch.setattr(play.numba.config, "CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(play, "compile_notice", notices.append)
    monkeypatch.setattr(play, "_compiled_for", lambda kernel, signature: (kernel, signature))
    kernel = type("Kernel", (), {"__name__": "k"})()
    assert not play.compiled_marker("k").exists()
    assert play.compiled_for(kernel, "sig") == (kernel, "sig")
    assert play.compiled_marker("k").exists() and len(notices) == 1
    assert play.compiled_for(kernel, "sig") == (kernel, "sig")
    assert len(notices) == 1  # compiled on this machine: no notice


def test_a_process_that_finds_a_first_compile_under_way_waits_and_compiles_nothing(
    tmp_path, monkeypatch
):
    """Two processes starting together on a fresh install: the second waits for the
    first's compile (its lock held), then loads the kernel without compiling the phases
    again or announcing a compile."""
    from filelock import FileLock

    from bollesim.bollebank.engine import play

    notices, phases = [], []
    waiting = threading.Event()

    def notice(stream, text=play.COMPILING):
        notices.append(text)
        waiting.set()

    monkeypatch.setattr(play.numba.config, "CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(play, "compile_notice", notice)
    monkeypatch.setattr(play, "compile_phases_on_two_cores", lambda: phases.append("compiled"))
    monkeypatch.setattr(play, "_compiled_for", lambda kernel, signature: (kernel, signature))
    kernel = type("Kernel", (), {"__name__": "k"})()
    marker = play.compiled_marker("k")
    first = FileLock(marker.with_name(marker.name + play.LOCK_SUFFIX))
    first.acquire()  # the first process, compiling
    second = concurrent.futures.ThreadPoolExecutor(1).submit(play.compiled_for, kernel, "sig")
    assert waiting.wait(10) and notices == [play.WAITING]
    assert not second.done()
    marker.touch()  # the first process is done
    first.release()
    assert second.result(10) == (kernel, "sig")
    assert notices == [play.WAITING] and phases == []


def test_two_kernels_compile_side_by_side_after_the_phases_they_share(tmp_path, monkeypatch):
    """While kernel c's first compile is under way (its lock held, from another thread as
    from another process), kernel b's compiles; the phases of a turn are compiled once,
    by the first kernel's compile."""
    from bollesim.bollebank.engine import play

    phases, started, release = [], threading.Event(), threading.Event()
    a, b, c = (type("Kernel", (), {"__name__": name})() for name in "abc")

    def compiling(kernel, signature):
        if kernel is c:
            started.set()
            assert release.wait(30)
        return kernel, signature

    monkeypatch.setattr(play.numba.config, "CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(play, "compile_notice", lambda stream, text=play.COMPILING: None)
    monkeypatch.setattr(play, "compile_phases_on_two_cores", lambda: phases.append("compiled"))
    monkeypatch.setattr(play, "_compiled_for", compiling)
    assert play.compiled_for(a, "sig") == (a, "sig") and phases == ["compiled"]
    pool = concurrent.futures.ThreadPoolExecutor(2)
    other = pool.submit(play.compiled_for, c, "sig")
    assert started.wait(10)
    try:
        assert pool.submit(play.compiled_for, b, "sig").result(10) == (b, "sig")
    finally:
        release.set()
    assert other.result(10) == (c, "sig")
    assert phases == ["compiled"] and all(play.compiled_marker(k).exists() for k in "abc")


def test_the_second_compiling_process_goes_when_this_one_is_interrupted(monkeypatch):
    """Ctrl-C during a first compile on two cores leaves no helper process behind."""
    from bollesim.bollebank.engine import play

    helpers = []
    real_popen = play.subprocess.Popen

    def popen(*args, **kwargs):
        helpers.append(real_popen(*args, **kwargs))
        return helpers[-1]

    def interrupted(names):
        assert set(names) | set(play.ALONGSIDE) == set(play.PHASES)  # the rest, here
        raise KeyboardInterrupt

    not_compiled = type("Phase", (), {"signatures": []})()
    monkeypatch.setattr(play, "PHASES", dict.fromkeys(play.PHASES, not_compiled))
    monkeypatch.setattr(play.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(play, "_helper_command", lambda: [sys.executable, "-c", "import time; time.sleep(60)"])
    monkeypatch.setattr(play.subprocess, "Popen", popen)
    monkeypatch.setattr(play, "compile_phases", interrupted)
    with pytest.raises(KeyboardInterrupt):
        play.compile_phases_on_two_cores()
    assert len(helpers) == 1 and helpers[0].returncode is not None


def test_the_first_play_of_a_policy_is_announced_once(tmp_path, monkeypatch):
    """`bollesim play` on the reference engine compiles the policy's decide on its first
    game on this machine: that game is announced, the next is not."""
    import sys

    from bollesim.bollebank import narrated
    from bollesim.game.policy import load_policy

    terminal = _Stream(True)
    monkeypatch.setattr(narrated.numba.config, "CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(sys, "stderr", terminal)
    policy = load_policy("historical")
    with narrated.policy_compile_notice(policy):
        pass
    assert terminal.text.count("\n") == 1 and "compiling the policy historical" in terminal.text
    with narrated.policy_compile_notice(policy):
        pass
    with narrated.policy_compile_notice(load_policy("fire_at_roe")):  # the same family's decide
        pass
    assert terminal.text.count("\n") == 1
