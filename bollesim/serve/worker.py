"""The engine thread: every game the page asks for is played here, one piece at a time.

One thread, so the fast engine's parallel kernels are never entered from two threads at
once, and the web server's event loop never waits on a game (the engine releases the GIL
while it plays). It holds at most one evaluation (a generator of pieces, odds.py): a new
one replaces the old, which is dropped before its next piece. One-off tasks (a report, an
example game) run between two pieces, ahead of the evaluation.
"""

from __future__ import annotations

import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future

MAX_TASKS = 4
"""One-off tasks waiting at once; more are refused (the page sends one at a time)."""


class Busy(RuntimeError):
    """Too many tasks are waiting."""


class EngineWorker:
    def __init__(self, publish: Callable[[dict], None]):
        self._publish = publish
        self._cond = threading.Condition()
        self._job: Iterator | None = None
        self._tasks: deque[tuple[Callable, Future]] = deque()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="bollesim-engine", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def evaluate(self, steps: Iterator) -> None:
        """Play `steps` from now on; the evaluation before it is dropped."""
        with self._cond:
            self._job = steps
            self._cond.notify()

    def submit(self, task: Callable) -> Future:
        """Run task() on the engine thread before the next piece; its result or exception
        comes in the Future."""
        future: Future = Future()
        with self._cond:
            if len(self._tasks) >= MAX_TASKS:
                raise Busy("the engine has too many tasks waiting: try again in a moment")
            self._tasks.append((task, future))
            self._cond.notify()
        return future

    def stop(self, timeout: float = 10.0) -> None:
        """Stop after the piece being played (waiting at most `timeout` seconds)."""
        with self._cond:
            self._stopping = True
            self._job = None
            for _, future in self._tasks:
                future.cancel()
            self._tasks.clear()
            self._cond.notify()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _next(self):
        with self._cond:
            while not (self._stopping or self._tasks or self._job is not None):
                self._cond.wait()
            if self._stopping:
                return None, None
            if self._tasks:
                return self._tasks.popleft(), None
            return None, self._job

    def _run(self) -> None:
        while True:
            task, job = self._next()
            if task is None and job is None:
                return
            if task is not None:
                fn, future = task
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(fn())
                    except BaseException as exc:  # noqa: BLE001 - handed to the waiter
                        future.set_exception(exc)
                continue
            try:
                snapshot = next(job)
            except StopIteration:
                snapshot = None
                self._drop(job)
            except Exception as exc:  # noqa: BLE001 - the server goes on with the next change
                print(f"bollesim serve: an evaluation failed: {exc!r}", file=sys.stderr)
                snapshot = None
                self._drop(job)
            if snapshot is not None:
                with self._cond:
                    current = self._job is job
                if current:
                    self._publish(snapshot)

    def _drop(self, job) -> None:
        with self._cond:
            if self._job is job:
                self._job = None
