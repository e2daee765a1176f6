"""Games in blocks on several threads: the batch kernels (play.play_games and the test
oracle's play_checked_games, tests/invariants/) play one range of games each call and
release the GIL, and `in_blocks` hands out the ranges.

Threads of Python's own, not a numba parallel loop: a prange kernel is compiled as four
libraries that each optimise the whole engine again (about 9 s of a cold compile), and
threads taking the next block as they finish one keep both cores busy to the end of a
chunk. A game's result depends on (seed, game) only (play.py), never on the thread or
block that plays it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

BLOCKS_PER_THREAD = 8
"""Blocks a chunk is cut into per thread: enough that a thread which finishes early takes
another, few enough that the cost of a kernel call (about 50 µs, most of it handing the
policy's function pointer over) stays out of sight even for a chunk of a few hundred
games."""


def block_size(n: int, threads: int) -> int:
    """Games per block for a chunk of n on `threads` threads: the whole chunk on one."""
    if threads <= 1:
        return max(1, n)
    return max(1, -(-n // (threads * BLOCKS_PER_THREAD)))


def in_blocks(play: Callable[[int, int], None], n: int, threads: int) -> None:
    """play(lo, hi) for consecutive blocks covering games 0 .. n - 1, on `threads` threads,
    each taking the next block as it finishes one (play: a batch kernel with every
    argument but the last two bound, functools.partial). The first error (or Ctrl-C) stops the
    hand-out; blocks under way finish, and it is raised here."""
    block = block_size(n, threads)
    starts = iter(range(0, n, block))
    handing_out = threading.Lock()
    stop = threading.Event()

    def worker() -> None:
        try:
            while not stop.is_set():
                with handing_out:
                    lo = next(starts, None)
                if lo is None:
                    return
                play(lo, min(n, lo + block))
        except BaseException:
            stop.set()  # at once, whichever thread it came in (the caller waits on the first)
            raise

    if threads <= 1 or n <= block:
        worker()
        return
    with ThreadPoolExecutor(threads, thread_name_prefix="bollesim-games") as pool:
        workers = [pool.submit(worker) for _ in range(threads)]
        try:
            for running in workers:
                running.result()
        finally:
            stop.set()
