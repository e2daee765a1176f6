"""bollesim/jit.py: a compiled function is compiled once per signature of plain types,
whatever constants its callers pass."""

import pytest
from numba import types
from numba.core import errors

from bollesim.jit import compiled, unlikely


@compiled
def _add(a, b):
    return a + b


@compiled
def _caller(x):
    return _add(x, 1) + _add(x, 2) + _add(1, x) + _add(x, x)


def test_literal_arguments_share_one_compile():
    assert _caller(3) == 4 + 5 + 4 + 6
    # as a caller's typing asks for it (the call above may have come from the cache)
    for args in [(types.literal(1), types.int64), (types.int64, types.literal(2))]:
        _add.get_call_template(args, {})
    assert [tuple(map(str, sig)) for sig in _add.signatures] == [("int64", "int64")]


@compiled
def _rare(x):
    return 1 if unlikely(x) else 0


def test_unlikely_is_the_test_it_hints():
    assert [_rare(x) for x in (0, 1, -5, 2**62, False, True)] == [0, 1, 1, 1, 0, 1]
    with pytest.raises(errors.TypingError, match="unlikely"):
        _rare(0.5)  # a float is refused, not compared bit by bit


def test_one_compile_of_a_kernel_serves_every_policy():
    from bollesim.bollebank.engine.play import BATCH_ARGS, for_policy, play_games
    from bollesim.game.policy import load_policy

    chosen = [for_policy(play_games, BATCH_ARGS, load_policy(n)) for n in ("historical", "random")]
    (kernel,) = {kernel for kernel, _, _ in chosen}
    assert len(kernel.signatures) == 1
    assert [scripted for _, _, scripted in chosen] == [1, 0]


def test_the_collector_runs_less_often_only_while_compiling():
    import gc

    from bollesim.jit import COMPILE_GC_THRESHOLD, fewer_collections

    before = gc.get_threshold()
    with pytest.raises(KeyboardInterrupt), fewer_collections():  # Ctrl-C while compiling
        assert gc.get_threshold() == (COMPILE_GC_THRESHOLD, *before[1:])
        raise KeyboardInterrupt
    assert gc.get_threshold() == before


def test_numba_objects_are_frozen_before_the_last_collection():
    """At exit (jit._frozen_at_exit): a handler registered before bollesim.jit runs
    after its handlers and sees the objects frozen."""
    import subprocess
    import sys

    code = (
        "import atexit, gc\n"
        "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 0))\n"
        "import bollesim.jit\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "frozen True"


def test_a_process_waits_on_another_compiling_the_same_function_then_loads_it(tmp_path, monkeypatch):
    """A function's first compile holds its lock (jit.compile_lock): while another process
    holds it (having compiled the function into the cache), this one waits on it and then
    loads the function instead of compiling it again."""
    import os
    import subprocess
    import sys
    import threading

    import waiting
    from numba.core import config

    from bollesim import jit

    (tmp_path / "lockedmod.py").write_text(
        "from bollesim.jit import compiled\n\n@compiled\ndef f(x):\n    return x + 1\n")
    cache = tmp_path / "cache"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, lockedmod\nfrom bollesim.jit import compile_lock\n"
         "with compile_lock(lockedmod.f):\n    lockedmod.f(1)\n    print('held', flush=True)\n"
         "    sys.stdin.readline()\n"],
        cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "NUMBA_CACHE_DIR": str(cache),
             "PYTHONPATH": str(tmp_path)})
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(config, "CACHE_DIR", str(cache))
        monkeypatch.syspath_prepend(str(tmp_path))
        import lockedmod

        asked = threading.Event()
        real = jit._file_lock

        def watched(path):
            lock = real(path)
            asked.set()
            return lock

        monkeypatch.setattr(jit, "_file_lock", watched)
        compiling = threading.Thread(target=lockedmod.f, args=(1,))
        compiling.start()
        waiting.until(lambda: asked.is_set() or not compiling.is_alive(),
                      "the compile to ask for the lock", alive=[holder])
        assert asked.is_set() and compiling.is_alive()  # waiting for the holder
        assert not lockedmod.f.overloads
        holder.stdin.write("\n")
        holder.stdin.flush()
        waiting.communicate(holder, "the holder to let go")
        waiting.until(lambda: not compiling.is_alive(), "the compile after the wait")
        assert sum(lockedmod.f.stats.cache_hits.values()) == 1
        assert not sum(lockedmod.f.stats.cache_misses.values())
    finally:
        if holder.poll() is None:
            holder.kill()
        sys.modules.pop("lockedmod", None)
