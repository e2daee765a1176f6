"""Waiting on a state, not on the clock: the helper every test that waits uses.

A test waits until what it needs is so (a server ready, a page drawn, a process gone, a
file written), never for a fixed number of seconds: on a busy machine everything takes
longer, and a test that fails there teaches people to rerun until green. A wait still
ends, for a state that never comes is a bug to report, not to hang on:

- at once when a process that would bring the state has ended (`alive`): it can no
  longer come;
- else when its budget is spent: seconds as on an idle machine (PATIENCE unless told),
  each second of the clock counted as 1 / slowdown(), the machine's runnable tasks per
  core. Beside eight busy processes on two cores a budget lasts about five times as long.

The budgets are far above what an idle machine needs: they say when to stop waiting for
a bug, and no test claims how long anything took (timings belong to the benchmarks).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterable

CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
PATIENCE = 120.0
"""The budget of a wait that names none: seconds on an idle machine."""
SLICE_S = 1.0
"""Clock seconds a library's own wait (communicate, Playwright's) is given at a time,
between two looks at the budget and the processes."""


def slowdown() -> float:
    """How many times slower than an idle machine this one runs now: the runnable tasks
    per core (the 1-minute load average), at least 1."""
    try:
        return max(1.0, os.getloadavg()[0] / CORES)
    except OSError:  # no load average here: as if idle
        return 1.0


def scaled(seconds: float) -> float:
    """A timeout for one call of a library that takes one (httpx, a socket): `seconds`
    on an idle machine, times slowdown() now."""
    return seconds * slowdown()


class Budget:
    """Seconds as on an idle machine, spent at 1 / slowdown() per second of the clock."""

    def __init__(self, seconds: float = PATIENCE):
        self.seconds = seconds
        self.left = seconds
        self.start = self._last = time.monotonic()

    def spent(self) -> bool:
        now = time.monotonic()
        self.left -= (now - self._last) / slowdown()
        self._last = now
        return self.left <= 0

    def gave_up(self, what: str) -> AssertionError:
        return AssertionError(
            f"waited for {what}: not so after {self.seconds:.0f} s of an idle machine's time "
            f"({time.monotonic() - self.start:.0f} s of the clock, load {os.getloadavg()[0]:.1f} "
            f"on {CORES} cores)")


def _ended(alive: Iterable[subprocess.Popen]) -> subprocess.Popen | None:
    return next((p for p in alive if p.poll() is not None), None)


def _gone(what: str, proc: subprocess.Popen) -> AssertionError:
    return AssertionError(f"waited for {what}: it can no longer come, the process "
                          f"{proc.args!r} ended (exit code {proc.returncode})")


def until(ready: Callable[[], object], what: str, *, seconds: float = PATIENCE,
          alive: Iterable[subprocess.Popen] = ()) -> object:
    """ready()'s first true value, asked again and again (with a pause between, growing
    to half a second); AssertionError naming `what` when a process of `alive` has ended
    without it, or when the budget is spent."""
    alive = tuple(alive)
    budget, pause = Budget(seconds), 0.005
    while True:
        ended = _ended(alive)
        value = ready()
        if value:
            return value
        if ended is not None:
            raise _gone(what, ended)
        if budget.spent():
            raise budget.gave_up(what)
        time.sleep(pause)
        pause = min(2 * pause, 0.5)


def communicate(proc: subprocess.Popen, what: str = "the process to end", *,
                seconds: float = PATIENCE, input=None) -> tuple:
    """proc.communicate(input) once the process has ended; when the budget is spent first,
    the process is killed and AssertionError says `what` and the end of its stderr."""
    budget = Budget(seconds)
    while True:
        try:
            return proc.communicate(input, timeout=SLICE_S)
        except subprocess.TimeoutExpired:
            input = None  # sent already: communicate goes on where it stopped
            if budget.spent():
                proc.kill()
                try:
                    _, err = proc.communicate(timeout=SLICE_S)
                except subprocess.TimeoutExpired:  # a process it started holds its pipes
                    err = "(unread: its pipes are held open by a process it left)"
                raise AssertionError(f"{budget.gave_up(what)}; its stderr ends: "
                                     f"{(err or '')[-2000:]!r}") from None


def run(args, *, seconds: float = PATIENCE, input=None, capture_output: bool = False,
        **popen) -> subprocess.CompletedProcess:
    """subprocess.run without its clock: the command runs until it ends, or until the
    budget is spent (then AssertionError, see communicate)."""
    if capture_output:
        popen |= {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    if input is not None:
        popen["stdin"] = subprocess.PIPE
    with subprocess.Popen(args, **popen) as proc:
        try:
            out, err = communicate(proc, f"{args!r} to end", seconds=seconds, input=input)
        except BaseException:
            proc.kill()
            raise
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def in_page(wait: Callable[[float], object], what: str, *, seconds: float = PATIENCE,
            alive: Iterable[subprocess.Popen] = ()) -> object:
    """A Playwright wait, given its timeout in milliseconds (`lambda ms:
    page.wait_for_function(..., timeout=ms)`), tried a slice of the clock at a time until
    it succeeds; AssertionError as `until` says."""
    from playwright.sync_api import TimeoutError as PageTimeout

    alive = tuple(alive)
    budget = Budget(seconds)
    while True:
        ended = _ended(alive)
        try:
            return wait(SLICE_S * 1000)
        except PageTimeout:
            if ended is not None:
                raise _gone(what, ended) from None
            if budget.spent():
                raise budget.gave_up(what) from None
