"""The what-if page's long pieces of work (a search for a change, an analysis of luck):
one of each kind at a time, run on the engine thread between two pieces of the odds (the
odds wait meanwhile), their progress sent on the page's event stream as
{KIND: {"games": done, "budget": total}}, ending with {KIND: {"done": true, ...}} or
{KIND: {"cancelled": true}}. Cancelling, the page going away or the server stopping stops
one at its next piece of games.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bollesim.serve.bodies import read_json

PUBLISH_S = 0.25
"""Seconds between two progress messages."""


class Cancelled(Exception):
    """The work was cancelled (by the page, or the server stopping)."""


@dataclass
class Job:
    """A piece of work running: its kind (its name on the event stream), its size in
    games, the games played, and the flag that stops it."""

    kind: str
    budget: int
    played: int = 0
    cancel: threading.Event = field(default_factory=threading.Event)
    published: float = 0.0

    def publish(self, server, message: dict) -> None:
        server.latest.publish({self.kind: message})

    def progress(self, server, games: int) -> None:
        """`games` more played: said at most every PUBLISH_S; Cancelled if it must stop."""
        self.played += games
        if self.cancel.is_set() or server.stopping:
            raise Cancelled
        now = time.monotonic()
        if now - self.published >= PUBLISH_S:
            self.published = now
            self.publish(server, {"games": self.played, "budget": self.budget})

    def run(self, server, work: Callable[[], dict]) -> dict:
        """work() on the engine thread, its progress and its end said on the stream."""
        self.publish(server, {"games": 0, "budget": self.budget})
        t0 = time.perf_counter()
        try:
            answer = work()
        except Cancelled:
            self.publish(server, {"cancelled": True})
            return {"cancelled": True, "games": self.played}
        self.publish(server, {"done": True, "games": self.played, "budget": self.budget})
        return {**answer, "seconds": round(time.perf_counter() - t0, 1)}


def routes(kind: str, fields: set[str], what: str,
           prepare: Callable[[object, dict], tuple[object, list]],
           work: Callable[[object, Job, object], dict]) -> list[Route]:
    """The two routes of one kind of work: POST /api/KIND starts it (run_alone; `what`
    names it in the refusal while one runs) and POST /api/KIND/cancel stops it."""

    async def start(request: Request) -> Response:
        return await run_alone(request, kind, fields, f"{what} is already running (one at a "
                               "time): wait for its answer, or cancel it", prepare, work)

    async def stop(request: Request) -> Response:
        return await cancel(request, kind)

    return [Route(f"/api/{kind}", start, methods=["POST"]),
            Route(f"/api/{kind}/cancel", stop, methods=["POST"])]


async def run_alone(request: Request, kind: str, fields: set[str], busy: str,
                    prepare: Callable[[object, dict], tuple[object, list]],
                    work: Callable[[object, Job, object], dict]) -> Response:
    """The route of one kind of work: the request's body read (only `fields`), refused
    (429, `busy`) while one of its kind runs; prepare(server, body) (in a thread) gives
    (what to do, []), its size in games its `budget`, or (None, the loader's errors: a
    422); work(server, job, it) on the engine thread gives the answer."""
    server = request.app.state.server
    body = await read_json(request, fields)
    if server.running.get(kind) is not None:
        raise HTTPException(429, busy)
    job = server.running[kind] = Job(kind, 0)  # taken in the step that checked it is free
    try:
        it, errors = await asyncio.to_thread(prepare, server, body)
        if it is None:
            return JSONResponse({"errors": errors}, status_code=422)
        job.budget = it.budget
        done = asyncio.wrap_future(server.worker.submit(
            lambda: job.run(server, lambda: work(server, job, it))))
        while not done.done():
            await asyncio.wait({done}, timeout=0.5)
            if not done.done() and await request.is_disconnected():
                job.cancel.set()  # the page went away: nobody reads the answer
        return JSONResponse(done.result())
    finally:
        server.running[kind] = None


async def cancel(request: Request, kind: str) -> Response:
    """Stop the work of `kind` that is running, if any."""
    await read_json(request, set())
    job = request.app.state.server.running.get(kind)
    if job is not None:
        job.cancel.set()
    return JSONResponse({"cancelled": job is not None})
