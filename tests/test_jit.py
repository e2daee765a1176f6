"""bollesim/jit.py: a compiled function is compiled once per signature of plain types,
whatever constants its callers pass."""

import pytest
from numba import types

from bollesim.jit import compiled


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
