"""How every compiled function of bollesim and the scripted policies is compiled: the
decorator `compiled`, and `unlikely`, a hint to the compiler inside compiled code.

    @compiled                       # cached on disk (jit_cache.py says where)
    @compiled(inline=True)          # numba inlines its code at every call site
    @compiled(nogil=True)           # callable from several threads at once
    if unlikely(st[MODE]): ...      # a test that is rarely true, kept off the hot path

A function made with it is compiled once per signature of plain types. numba's own
dispatcher types a call from compiled code by its arguments' literal types, so
`ask(st, decide, kind, 2, 0, 0)` and `ask(st, decide, kind, n, a, 0)` would be two
compiles, and each of their callees again for every literal that reaches it; in this
engine such copies are a third of a cold compile. Inlined functions are typed at each
call site (literals included), so a constant argument still folds where inlining was
chosen.

Inline only what is a line or two (a state accessor, a table lookup, a die): numba
types and lowers an inlined body again at every call site, while a plain compiled
function is compiled once and LLVM still inlines it where that pays. The event log (49
callers) and the scripted family's comparison of two orders (8 callers) were inlined
once: compiling the four phases of a turn took 72 s instead of 56 s, and the games
played no faster. Two other reasons to inline: the draws (engine/core.py), whose hook
for declared draws kept LLVM from inlining them, which cost the games some 2% (the hook
is tested with `unlikely`: about one point more on one thread, too little for the bench
to tell; docs/speed.md); and a function with one caller whose callees are the whole
engine (engine/rollout.py's replays), which numba would otherwise optimise once for it
and once more for its caller.

Processes started together on a fresh install (two runs, test workers, a server beside
its command) would each compile the same function; a function's first compile in a
process therefore holds a lock of its own in numba's cache folder, so one process
compiles it and the others wait, then load it from the cache (Dispatcher.compile).

Also here: fewer garbage collections while a kernel compiles, and none of numba's objects
walked by the interpreter's last collection at exit.
"""

from __future__ import annotations

import atexit
import functools
import gc
import hashlib
import sys
from contextlib import contextmanager, nullcontext
from pathlib import Path

from llvmlite import ir
from numba.core import config, sigutils, types
from numba.core.caching import NullCache
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic

LOCKS = "locks"
"""The folder of the compile locks, in numba's cache folder."""


class Dispatcher(CPUDispatcher):
    """numba's CPU dispatcher, typing calls from compiled code with the plain types of
    their arguments (Literal[int](2) as int64), and compiling a function once for the
    processes that need it at the same time (compile_lock)."""

    def get_call_template(self, args, kws):
        args = tuple(types.unliteral(a) for a in args)
        kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)

    def compile(self, sig):
        # Inside numba's own (reentrant) compiler lock, so that threads of one process
        # never wait on each other's file locks; callers lock before their callees, an
        # acyclic order, so processes cannot deadlock.
        with global_compiler_lock:
            args, _ = sigutils.normalize_signature(sig)
            compiling = self.overloads.get(tuple(args)) is None and self._can_compile
            with compile_lock(self) if compiling else nullcontext():
                return super().compile(sig)


@contextmanager
def compile_lock(dispatcher):
    """Held over a function's first compile in a process: a file lock of its own in
    numba's cache folder, so that a process that waited on it finds the function in the
    cache. Nothing is held where nothing is cached or the folder cannot be written (each
    process compiles for itself)."""
    lock = None
    if not isinstance(dispatcher._cache, NullCache) and config.CACHE_DIR:
        fn = dispatcher.py_func
        name = f"{fn.__module__}.{fn.__qualname__}"
        digest = hashlib.sha1(f"{name}:{fn.__code__.co_filename}".encode()).hexdigest()[:12]
        try:
            lock = _file_lock(str(Path(config.CACHE_DIR) / LOCKS / f"{name[-80:]}-{digest}.lock"))
            lock.acquire()
        except OSError:
            lock = None
    try:
        yield
    finally:
        if lock is not None:
            lock.release()


@functools.cache
def _file_lock(path: str):
    """One FileLock a path, so that a recursive compile re-enters the lock it holds."""
    from filelock import FileLock

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return FileLock(path)


def compiled(fn=None, *, inline: bool = False, signature=None, **options):
    """fn compiled by numba in nopython mode and cached; options: numba's, such as `nogil`
    (the engine plays games on threads of Python's own, bollesim/blocks.py). With a
    signature, fn is compiled (or loaded from the cache) for it at once and for no other:
    an argument typed as a first-class function (a policy's decide) then takes any
    compiled function of its signature, with one compile for all."""

    def wrap(fn):
        if config.DISABLE_JIT:
            return fn
        targetoptions = {"nopython": True, "inline": "always" if inline else "never", **options}
        dispatcher = Dispatcher(py_func=fn, locals={}, targetoptions=targetoptions)
        cache_on_disk(dispatcher)
        if signature is not None:
            with fewer_collections():
                dispatcher.compile(signature)
            dispatcher.disable_compile()
        return dispatcher

    return wrap if fn is None else wrap(fn)


def cache_on_disk(dispatcher) -> None:
    """Cache the dispatcher's compiles in numba's cache folder (jit_cache.py) where there
    is one it can write; where there is none (a read-only install, a read-only $HOME),
    compile in every process instead, and say so once (uncached_note)."""
    try:
        dispatcher.enable_caching()
    except RuntimeError as exc:  # numba's "cannot cache function ...: no locator available"
        if "no locator available" not in str(exc):
            raise
        uncached_note()


@functools.cache
def uncached_note() -> None:
    where = config.CACHE_DIR or "the package's folder and the user's cache folder"
    print(f"bollesim: note: no folder to cache the compiled engine in ({where}: read-only); "
          "it is compiled in every process, a slower start", file=sys.stderr, flush=True)


COMPILE_GC_THRESHOLD = 100_000
"""Allocations between young-generation collections while a kernel compiles (Python's
default: 700)."""


@contextmanager
def fewer_collections():
    """numba makes millions of short-lived objects while it compiles, and Python's cyclic
    garbage collector, run every 700 allocations by default, took about 8% of a cold
    compile's samples. Run less often meanwhile, it saves about 4 s of 66 (25 MB more at
    the peak)."""
    before = gc.get_threshold()
    gc.set_threshold(COMPILE_GC_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


@atexit.register
def _frozen_at_exit() -> None:
    """The interpreter's last garbage collection walks every object numba made (its
    typing tables, the compiled libraries): 0.15 to 0.35 s of a short run's exit. They
    are frozen first, so it skips them; the process is ending, so nothing lives longer."""
    gc.freeze()


@intrinsic
def unlikely(typingctx, flag):
    """flag != 0 (an integer or a boolean), a test the compiler is told is rarely true
    (LLVM's llvm.expect): the code under it is laid out of the hot path and its calls
    are treated as cold."""
    if not isinstance(flag, (types.Integer, types.Boolean)):
        return None  # numba's typing error names the argument's type

    def codegen(context, builder, signature, args):
        truth = builder.icmp_signed("!=", args[0], ir.Constant(args[0].type, 0))
        kind = ir.FunctionType(truth.type, [truth.type, truth.type])
        expect = builder.module.declare_intrinsic("llvm.expect", [truth.type], kind)
        return builder.call(expect, [truth, ir.Constant(truth.type, 0)])

    return types.boolean(flag), codegen
