"""The fast engine's game loop and batch kernel (games on several threads: blocks.py).

Each game g of a batch is seeded from (seed, first_game + g), so a game's result does
not depend on the batch, the block or the thread that plays it (docs/architecture.md §3).
The entry kernels (play_games, play_traced) take `decide` and `scripted` (player.py);
`for_policy` gives a kernel compiled for them once, for every policy, and cached.
"""

import os
import subprocess
import sys
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import numba
import numpy as np
from filelock import FileLock, Timeout
from numba import carray, types

from bollesim.bollebank import events, observation
from bollesim.bollebank.engine import layout as L
from bollesim.bollebank.engine import tables
from bollesim.bollebank.engine.core import log, new_game
from bollesim.bollebank.engine.end import end_phase
from bollesim.bollebank.engine.execution import execution_phase
from bollesim.bollebank.engine.orders import orders_phase
from bollesim.bollebank.engine.reaction import reaction_phase
from bollesim.game.policy import DECIDE_SIGNATURE, DecidePolicy
from bollesim.jit import compiled, fewer_collections
from bollesim.pointer import as_pointer

DECIDE_TYPE = types.FunctionType(DECIDE_SIGNATURE)  # a policy's decide as a function pointer
I64, U64, F64 = types.int64, types.uint64, types.float64


ORDERS, EXECUTION, REACTION, END = range(4)  # §4: the phases of a turn, in order


@compiled(inline=True)
def play_phase(st, decide, phase):
    """§4: one phase of the turn; returns the phase that comes next."""
    if phase == ORDERS:
        log(st, events.TURN_START, st[observation.TURN], st[observation.DEADLINE], st[observation.ROE],
            st[observation.FIRE_ROE])
        orders_phase(st, decide)
    elif phase == EXECUTION:
        execution_phase(st, decide)
    elif phase == REACTION:
        reaction_phase(st, decide)
    else:
        end_phase(st, decide)
    return (phase + 1) % 4


@compiled(inline=True)
def play_out(st, decide, phase):
    """§4: play from the start of `phase` of the current turn until the game is over."""
    while not st[L.X_OVER]:
        phase = play_phase(st, decide, phase)


@compiled
def write_result(st, draws, out):
    """One result row (layout.R_*), as reference/play.py's result_row."""
    reason = st[L.X_END_REASON]
    defeat = reason == events.END_DESTROYED or reason == events.END_VL2_KILLED or reason == events.END_TURN_40
    operational = st[observation.OPERATIONAL] == 1 and not defeat
    tactical = st[observation.TACTICAL] == 1 and not defeat
    military = operational or tactical
    fired = st[observation.FIRE_ROE] > 0
    strategic = not fired or st[observation.FIRE_ROE] >= st[tables.S_UNRESTRICTED]
    political = not fired or st[observation.FIRE_ROE] <= st[observation.ROE]
    if st[tables.S_DIPLO_MILITARY] or defeat:
        strategic = strategic and military
        political = political and military
    out[L.R_OPERATIONAL] = operational
    out[L.R_TACTICAL] = tactical
    out[L.R_STRATEGIC] = strategic
    out[L.R_POLITICAL] = political
    out[L.R_DEFEAT] = defeat
    out[L.R_END_TURN] = st[observation.TURN]
    out[L.R_END_REASON] = reason
    out[L.R_FIRST_FIRE_TURN] = st[L.X_FIRE_TURN]
    out[L.R_FIRST_FIRE_ROE] = st[observation.FIRE_ROE]
    out[L.R_FINAL_ROE] = st[observation.ROE]
    out[L.R_DEADLINE] = st[observation.DEADLINE]
    out[L.R_TANKS_AT_T2] = st[L.X_TANKS_AT_T2]
    out[L.R_AIRSTRIKE_TURN] = st[L.X_AIRSTRIKE_TURN]
    out[L.R_HEAVY] = st[L.X_HEAVY_HITS]
    out[L.R_LIGHT] = st[L.X_LIGHT_HITS]
    out[L.R_CHITS_DRAWN] = st[L.X_CHITS_DRAWN]
    out[L.R_RANDOM_DRAWS] = draws
    out[L.R_FIRST_LOSS_TURN] = st[L.X_FIRST_LOSS_TURN]
    out[L.R_LOSS_VEHICLE] = st[L.X_LOSS_VEHICLE]
    out[L.R_LOSS_CAUSE] = st[L.X_LOSS_CAUSE]
    out[L.R_LOSS_PLACE] = st[L.X_LOSS_PLACE]


@compiled(inline=True)
def unmanaged(st):
    """A view of st that numba does not reference-count: kernels pass the game vector
    through thousands of calls per game, and the atomic reference counting of a managed
    array cost about half the run time. The caller keeps st itself alive."""
    return carray(as_pointer(st.ctypes.data), st.shape[0], np.int64)


@compiled
def new_vector(rules, trace_events, scripted):
    """A game vector with the flattened rules in place, room for trace_events, and who
    plays (L.SCRIPTED)."""
    st = np.zeros(L.TRACE + L.TRACE_WIDTH * trace_events, dtype=np.int64)
    st[L.RULES : L.RULES + L.RULES_SIZE] = rules
    st[L.SCRIPTED] = scripted
    return st


@compiled(inline=True)
def play_game(st, decide, seed, game, out):
    """Play game `game` of run `seed` in st (rules and parameters already set) into out."""
    new_game(st, seed, game)
    play_out(st, decide, ORDERS)
    write_result(st, st[L.CHANCE + 1], out)


TRACED_ARGS = (I64[::1], DECIDE_TYPE, I64, F64[::1], I64, I64, I64[::1], I64[::1], I64[::1])


@compiled
def play_traced(rules, decide, scripted, params, seed, game, trace, out, final):
    """One game with its event trace: trace gets (events, 6) rows flattened, trace[0] is
    the number of events (more than fit means the buffer was too small); final gets the
    final state region (layout.STATE_SIZE)."""
    capacity = (trace.shape[0] - 1) // L.TRACE_WIDTH
    owner = new_vector(rules, capacity, scripted)
    st = unmanaged(owner)
    st[L.PARAMS : L.PARAMS + params.shape[0]] = params.view(np.int64)
    play_game(st, decide, seed, game, out)
    trace[0] = st[L.X_N_EVENTS]
    n = min(st[L.X_N_EVENTS], capacity) * L.TRACE_WIDTH
    trace[1 : 1 + n] = owner[L.TRACE : L.TRACE + n]  # owner is used last: it outlives st
    final[:] = owner[: L.STATE_SIZE]


BATCH_ARGS = (I64[::1], DECIDE_TYPE, I64, F64[:, ::1], I64, I64, I64[:, ::1], I64, I64)


@compiled(nogil=True)  # threads play blocks at once (blocks.py); a run writes meanwhile
def play_games(rules, decide, scripted, params, seed, first_game, out, lo, hi):
    """Games first_game + lo .. first_game + hi - 1 into out[lo:hi], in one game vector;
    params[g] are game first_game + g's policy parameters."""
    owner = new_vector(rules, 0, scripted)
    st = unmanaged(owner)
    for g in range(lo, hi):
        st[L.PARAMS : L.PARAMS + params.shape[1]] = params[g].view(np.int64)
        play_game(st, decide, seed, first_game + g, out[g])
    owner[0] = 0  # a last use of owner, so it outlives its unmanaged view st


def for_policy(kernel, arg_types: tuple, policy: DecidePolicy):
    """(the kernel to call, its decide and scripted arguments) for a policy. The kernel
    is compiled once for every policy (arg_types: the types of its arguments, BATCH_ARGS...)
    and cached: decide is a function pointer (DECIDE_TYPE), called unless `scripted`
    (player.py)."""
    return compiled_for(kernel, types.void(*arg_types)), policy.decide, policy.compiled_in


def compiled_for(kernel, signature):
    """kernel compiled for signature on first use. Its first compile on this machine is
    announced (compile_notice) and made holding its own lock, so that processes started
    together on a fresh install (two runs, test workers) compile it once: the others wait,
    then load it from the cache. Different kernels compile side by side, after the phases
    of a turn they share (first_compile)."""
    marker = compiled_marker(kernel.__name__)
    if marker is None or marker.exists():
        return _compiled_for(kernel, signature)
    with first_compile(marker) as first:
        if first:
            compile_notice(sys.stderr)
            with first_compile(compiled_marker(PHASES_MARKER)) as phases_first:
                if phases_first:
                    compile_phases_on_two_cores()
        return _compiled_for(kernel, signature)


@contextmanager
def first_compile(marker: Path):
    """Yields whether what `marker` stands for is still to compile here, holding its lock
    (filelock, beside it) meanwhile; a process that finds the lock held says so
    (compile_notice) and waits. The marker is made on a clean exit. Where the folder
    cannot be written, no lock: each process compiles for itself."""
    lock = FileLock(marker.with_name(marker.name + LOCK_SUFFIX))
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        try:
            lock.acquire(timeout=0)
        except Timeout:
            compile_notice(sys.stderr, WAITING)
            lock.acquire()
    except OSError:
        yield not marker.exists()
        return
    try:
        yield not marker.exists()  # else another process compiled it while this one waited
        try:
            marker.touch()
        except OSError:
            pass
    finally:
        lock.release()


@cache
def _compiled_for(kernel, signature):
    options = {k: kernel.targetoptions[k] for k in ("nogil",) if k in kernel.targetoptions}
    return compiled(kernel.py_func, signature=signature, **options)


PHASES = {
    "orders": orders_phase,
    "execution": execution_phase,
    "reaction": reaction_phase,
    "end": end_phase,
}
PHASE_ARGS = (I64[::1], DECIDE_TYPE)  # (st, decide)
ALONGSIDE = ("orders", "end")
"""The phases a second process compiles: about half of the work."""


def compile_phases(names) -> None:
    """The phases `names` compiled for PHASE_ARGS (or loaded from the cache)."""
    with fewer_collections():
        for name in names:
            PHASES[name].compile(PHASE_ARGS)


def compile_phases_on_two_cores() -> None:
    """Before a kernel's first compile on this machine: the phases of a turn, ALONGSIDE
    in a second process at the same time, into the cache, where the kernel's compile
    then finds them (a cold compile of 66 s took 40 s on 2 cores). On one core the
    kernel's compile does it all."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if (cores or 1) < 2 or all(phase.signatures for phase in PHASES.values()):
        return  # one core, or the phases are compiled in this process already
    helper = subprocess.Popen(
        _helper_command(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        compile_phases([name for name in PHASES if name not in ALONGSIDE])
        helper.wait()  # if it failed, the kernel's compile does its part
    finally:
        if helper.poll() is None:
            helper.kill()
            helper.wait()


def _helper_command() -> list[str]:
    code = f"from bollesim.bollebank.engine.play import compile_phases; compile_phases({list(ALONGSIDE)!r})"
    return [sys.executable, "-c", code]


COMPILE_SECONDS = "a minute"
"""What a cold compile of one kernel takes (bollesim bench: compile_cold_s), as told."""

COMPILING = (
    "bollesim: compiling the fast engine once for this machine "
    f"(about {COMPILE_SECONDS}; later starts take under a second)..."
)
WAITING = (
    "bollesim: another bollesim process is compiling the fast engine for this machine; "
    f"waiting for it (about {COMPILE_SECONDS} at most)..."
)
LOCK_SUFFIX = ".lock"
"""A marker's lock file is its name and this (first_compile)."""
PHASES_MARKER = "phases"
"""The marker of the phases of a turn (compiled_marker)."""


def compile_notice(stream, text: str = COMPILING) -> None:
    """One line, on a terminal only (it would spoil output read by programs)."""
    if stream.isatty():
        print(text, file=stream, flush=True)


def compiled_marker(name: str) -> Path | None:
    """A file in numba's cache folder (jit_cache.py) that exists once the kernel `name`
    (or PHASES_MARKER) was compiled there; None without a cache folder."""
    folder = numba.config.CACHE_DIR
    return Path(folder) / f"compiled-{name}" if folder else None
