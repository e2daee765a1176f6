"""The what-if page's web application (Starlette, ASGI): the page, its assets and its API.

    GET  /                    the page (static/index.html, page.js, page.css)
    GET  /assets/vega.js      Vega, Vega-Lite and vega-embed from vl-convert (no CDN)
    GET  /api/form            the form (form.py), the policies (their parameters, with the
                              names of a categorical one's choices), the trigger families,
                              the outcomes, the optimised parameters of --from, the
                              showcase's setting the page opens at (best.py), the limits
    POST /api/odds            {edits, policy, params, family, pinned}: start refining the
                              odds (pinned: the setting A {edits, policy, params} the
                              change is compared with as well as with the shipped rules);
                              the answer holds the ruleset's exact odds (rules/odds.py);
                              422 {errors} when the edits make no valid ruleset, 409
                              when a later change arrived meanwhile (it is evaluated)
    GET  /api/events          server-sent events: the latest snapshot of the odds
    POST /api/partial         {edits}: the partial TOML of the edited ruleset
    POST /api/report          {edits, policy, params, family}: write the balance report
                              into a lasting folder, results/whatif-TIME-N, that
                              names the changed keys (as --set) and the parameters
    GET  /report/TOKEN/FILE   the files of a report written by this server
    POST /api/replay          {edits, policy, params, outcome}: an example game, narrated
    POST /api/find            {edits, outcome, player, params, comparison, value, tolerance,
                              keys, budget}: the smallest change that meets one target,
                              certified on held-out games (find.py: `bollesim tune`'s code)
    POST /api/find/cancel     {}: stop the search for a change that is running

Every input is checked: a body is JSON of at most bodies.MAX_BODY bytes with only the fields of
its route, edits name declared keys only (edits.py), a policy is one of policies/ and its
parameters lie in their declared ranges. A request that fails is answered 400 (or 403,
404, 413, 415, 429) with {"error": one line}; nothing answers with a traceback or a path.
A request of another site (an Origin other than the page's, or a browser's Sec-Fetch-Site
other than same-origin, except a link followed to a page) is refused on every route, and
on loopback only the loopback host names are served (no DNS rebinding). A request with
both Content-Length and Transfer-Encoding is answered 400 and its connection closed (no
request smuggled behind it is read). A client that goes away before its request is
complete is one line on the server's terminal.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import re
import sys
import threading
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from bollesim.errors import UsageError
from bollesim.game.declaration import Trigger
from bollesim.game.patch import changed_units, partial_toml, value_at
from bollesim.serve import find, odds
from bollesim.serve.best import SHOWCASE
from bollesim.serve.bodies import error, read_json
from bollesim.serve.edits import BadRequest, assignments, build_ruleset, check_edits
from bollesim.serve.worker import Busy, EngineWorker
from bollesim.stats import analysis

MAX_STREAMS = 8
"""Event streams open at once (one per open page)."""
REPORT_GAMES = 2_000
"""Games per cell of the report's run (every cell's interval about ±2 points)."""
EXAMPLE_SEARCH = 20_000
"""Games searched for an example of an outcome."""
PING_S = 5.0
"""Seconds between keep-alive comments on an event stream."""
LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1", "[::1]"]
ASSETS = {"page.js": "text/javascript", "page.css": "text/css", "index.html": "text/html"}


@dataclass
class Settings:
    """What `bollesim serve` was started with."""

    max_games: int = 100_000
    seed: int = 1
    best: dict | None = None  # {"policy", "params", "folder"} of --from (best.py)
    loopback: bool = True
    results: Path = Path("results")  # where the reports' run folders are kept


@dataclass
class Latest:
    """The latest snapshot as JSON, published by the engine thread (which also writes the
    JSON, off the event loop) and awaited by the event streams."""

    loop: asyncio.AbstractEventLoop
    value: str | None = None
    version: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def publish(self, snapshot: dict) -> None:
        """From any thread."""
        try:
            text = json.dumps(snapshot, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError) as exc:
            print(f"bollesim serve: a snapshot could not be sent: {exc}", file=sys.stderr)
            return
        self.loop.call_soon_threadsafe(self._set, text)

    def _set(self, text: str) -> None:
        self.value, self.version = text, self.version + 1
        self.changed.set()
        self.changed = asyncio.Event()

    async def after(self, version: int, timeout: float) -> tuple[str | None, int]:
        """The snapshot newer than `version`, or (None, version) after `timeout` seconds."""
        if self.version == version:
            try:
                await asyncio.wait_for(self.changed.wait(), timeout)
            except TimeoutError:
                return None, version
        return self.value, self.version


class Server:
    """The state behind the routes: the engine thread, the policies, the reports."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.policies: dict = {}
        self._loading = threading.Lock()
        self.job = 0
        self.changes = 0  # /api/odds requests received: the newest is the one to evaluate
        self.streams = 0  # event streams admitted and not yet ended
        self.reports: dict[str, Path] = {}  # the reports written: token (folder name) -> folder
        self.ready = threading.Event()
        self.stopping = False
        self.latest: Latest | None = None
        self.worker: EngineWorker | None = None
        self.baselines = None
        self.finding: find.Job | None = None  # the search for a change running (find.py)

    # -------------------------------------------------------------- lifecycle

    def start(self) -> None:
        self.latest = Latest(asyncio.get_running_loop())
        self.worker = EngineWorker(self.latest.publish)
        self.worker.start()
        self.baselines = odds.Baselines(odds.GAME.load_ruleset())
        self.worker.submit(self._warm_up).add_done_callback(_say_if_failed)

    def closing(self) -> None:
        """Ctrl-C: tell the open pages and end their event streams (from any thread)."""
        self.stopping = True
        if self.latest is not None:
            self.latest.publish({"stopped": True})

    def stop(self) -> None:
        self.stopping = True
        if self.worker is not None:
            self.worker.stop()

    def _warm_up(self) -> None:
        """Load (or compile) the engine, the first policy, the strong player and the trigger
        families' before the first change; other policies load when first chosen."""
        first = (self.settings.best or SHOWCASE)["policy"]
        strong = [odds.GAME.strong] if odds.GAME.strong else []
        for name in dict.fromkeys([first, *strong, *(f.policy for f in odds.FAMILIES)]):
            self.policy(name)
        for name in dict.fromkeys([first, *strong]):  # compiled before the first change
            policy = self.policies[name]
            odds.play(policy, policy.param_vector(), self.baselines.rules, self.settings.seed,
                      0, 1)
        self.ready.set()
        self.latest.publish({"ready": True})

    def policy(self, name):
        from bollesim.game.policy import available_policies, load_policy

        known = available_policies(deciding=True)  # the lookahead player is far too slow here
        if name is None:
            raise BadRequest(f'no policy: the request needs "policy", one of {", ".join(known)}')
        if not isinstance(name, str) or name not in known:
            raise BadRequest(f"unknown policy {str(name)[:40]!r} (known: {', '.join(known)})")
        with self._loading:
            if name not in self.policies:
                self.policies[name] = load_policy(name)
        return self.policies[name]

    # -------------------------------------------------------------- requests

    def params(self, policy, raw) -> np.ndarray:
        if not isinstance(raw, dict):
            raise BadRequest("params: expected an object {name: number}")
        for name, value in raw.items():
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not math.isfinite(value):
                raise BadRequest(f"params: {str(name)[:40]!r} must be a number")
        try:
            return policy.param_vector(raw)
        except UsageError as exc:
            raise BadRequest(f"params: {exc}") from None

    def family(self, raw) -> Trigger:
        for f in odds.FAMILIES:
            if raw == f.id:
                return f
        known = ", ".join(f.id for f in odds.FAMILIES)
        raise BadRequest(f"family: expected one of {known}")

    def setting(self, body: dict):
        """(edits.Built: the ruleset or the loader's errors, policy, parameter vector) of a
        request; BadRequest for anything no page sends."""
        edits = check_edits(body.get("edits", {}))
        policy = self.policy(body.get("policy"))
        params = self.params(policy, body.get("params", {}))
        built = build_ruleset(edits)
        return built, policy, params

    def pinned(self, raw) -> odds.Setting | None:
        """The pinned setting A of a request ({edits, policy, params}), or None."""
        if raw is None:
            return None
        if not isinstance(raw, dict) or set(raw) - {"edits", "policy", "params"}:
            raise BadRequest("pinned: expected an object {edits, policy, params}")
        built, policy, params = self.setting(raw)
        if built.rules is None:
            raise BadRequest(f"pinned: {built.errors[0]['message']}")
        return odds.Setting(built.rules, policy, params)

    def evaluation(self, rules, policy, params, family: Trigger,
                   pinned: odds.Setting | None = None) -> odds.Evaluation:
        self.job += 1
        family_policy = self.policy(family.policy)
        family_params = params if family_policy is policy else family_policy.param_vector()
        strong = None
        if odds.GAME.strong and odds.GAME.strong != policy.name:
            strong_policy = self.policy(odds.GAME.strong)
            strong = odds.Setting(rules, strong_policy, strong_policy.param_vector())
        return odds.Evaluation(self.job, rules, policy, params, self.settings.seed, family,
                               family_policy, family_params, self.settings.max_games,
                               self.baselines, pinned, strong)


# ------------------------------------------------------------------ helpers


def _say_if_failed(future) -> None:
    if not future.cancelled() and future.exception() is not None:
        print(f"bollesim serve: the engine could not start: {future.exception()!r}",
              file=sys.stderr)


def article(label: str) -> str:
    """"an operational victory", "a defeat"."""
    return ("an " if label[:1].lower() in "aeiou" else "a ") + label


def _asset(name: str) -> bytes:
    return resources.files("bollesim.serve").joinpath("static", name).read_bytes()


# ------------------------------------------------------------------ routes


async def page(request: Request) -> Response:
    return Response(_asset("index.html"), media_type="text/html",
                    headers={"Cache-Control": "no-store"})


async def asset(request: Request) -> Response:
    name = request.path_params["name"]
    if name == "vega.js":
        from bollesim.report import charts

        return Response(charts.javascript(), media_type="text/javascript",
                        headers={"Cache-Control": "max-age=3600"})
    if name not in ASSETS or name == "index.html":
        raise HTTPException(404, "no such asset")
    return Response(_asset(name), media_type=ASSETS[name], headers={"Cache-Control": "no-store"})


async def form(request: Request) -> Response:
    """The form and the choices; the policies' parameters are read from their
    declarations (policies/*.py), so the page draws before the engine is ready."""
    from bollesim.game.policy import available_policies

    server: Server = request.app.state.server
    policies = []
    for name in available_policies(deciding=True):
        module = odds.GAME.policy_module(name)
        policies.append({"name": name, "doc": " ".join((module.__doc__ or "").split("\n\n")[0]
                                                       .split()),
                         "parameters": [
            {"name": p.name, "default": p.default, "low": p.low, "high": p.high, "doc": p.doc,
             "label": p.title, "never": p.never,
             "choices": list(p.choices) if p.choices is not None else None}
            for p in module.PARAMETERS]})
    s = server.settings
    return JSONResponse({
        **odds.GAME.form_module.form_model(), "policies": policies,
        "families": [{"id": f.id, "policy": f.policy, "param": f.param,
                      "label": analysis.parameter_label(f.policy, f.param)} for f in odds.FAMILIES],
        "outcomes": [{"outcome": o, "label": analysis.LABELS[o],
                      "minimise": o in analysis.MINIMISE} for o in analysis.OUTCOMES],
        "game": odds.GAME.title, "best": s.best, "showcase": SHOWCASE, "max_games": s.max_games,
        "seed": s.seed, "find": find.defaults(),
        "ready": server.ready.is_set()})


async def start_odds(request: Request) -> Response:
    server: Server = request.app.state.server
    body = await read_json(request, {"edits", "policy", "params", "family", "pinned"})
    family = server.family(body.get("family", odds.FAMILIES[0].id))
    server.changes += 1
    change = server.changes
    built, policy, params = await asyncio.to_thread(server.setting, body)
    pinned = await asyncio.to_thread(server.pinned, body.get("pinned"))
    if change != server.changes:
        # A later change arrived while this one's ruleset was built (in a thread, so they
        # may finish in either order): evaluating this one would replace the later one.
        return error(409, "a later change replaced this one")
    if built.rules is None:
        server.worker.evaluate(iter(()))  # an invalid change stops the old work too
        return JSONResponse({"errors": built.errors}, status_code=422)
    evaluation = server.evaluation(built.rules, policy, params, family, pinned)
    server.worker.evaluate(evaluation.steps())
    rules = built.rules
    return JSONResponse({"job": evaluation.job, "digest": rules.digest,
                         "readings": rules.readings, "ready": server.ready.is_set(),
                         "exact": odds.GAME.exact_odds(rules)})


class EventStream(StreamingResponse):
    """An event stream that holds one of the server's MAX_STREAMS slots from the moment it
    is admitted until it ends, however it ends (even before its first byte)."""

    def __init__(self, server: Server, content):
        super().__init__(content, media_type="text/event-stream",
                         headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        self.server = server

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.server.streams -= 1


async def events(request: Request) -> Response:
    server: Server = request.app.state.server
    if server.streams >= MAX_STREAMS:
        raise HTTPException(429, f"at most {MAX_STREAMS} pages at once")

    async def stream():
        version = 0
        if server.ready.is_set():
            yield 'data: {"ready":true}\n\n'
        while True:
            text, version = await server.latest.after(version, PING_S)
            yield ": ping\n\n" if text is None else f"data: {text}\n\n"
            if server.stopping:
                break

    server.streams += 1  # counted here, in the same step as the check: a burst cannot pass
    return EventStream(server, stream())


async def save_partial(request: Request) -> Response:
    body = await read_json(request, {"edits"})
    built = await asyncio.to_thread(build_ruleset, check_edits(body.get("edits", {})))
    if built.rules is None:
        return JSONResponse({"errors": built.errors}, status_code=422)
    return Response(partial_toml(built.rules), media_type="application/toml",
                    headers={"Content-Disposition": 'attachment; filename="whatif.toml"'})


async def make_report(request: Request) -> Response:
    server: Server = request.app.state.server
    body = await read_json(request, {"edits", "policy", "params", "family"})
    family = server.family(body.get("family", "fire_at_turn.t"))
    built, policy, params = await asyncio.to_thread(server.setting, body)
    if built.rules is None:
        return JSONResponse({"errors": built.errors}, status_code=422)
    task = server.worker.submit(lambda: page_report(server, built.rules, policy, params, family))
    try:
        token = await asyncio.wrap_future(task)
    except UsageError as exc:  # e.g. the results folder cannot be written
        print(f"bollesim serve: the report was not written: {exc}", file=sys.stderr)
        return error(500, f"the report was not written: {exc}")
    return JSONResponse({"url": f"/report/{token}/report.html", "folder": str(server.reports[token])})


def new_folder(results: Path) -> str:
    """The name of a new, empty folder results/whatif-TIME-N, created here: mkdir either
    creates a folder or fails, so no two reports (of this server or another) share one."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    try:
        results.mkdir(parents=True, exist_ok=True)
        for n in itertools.count(1):
            try:
                (results / f"whatif-{stamp}-{n}").mkdir()
                return f"whatif-{stamp}-{n}"
            except FileExistsError:
                continue
    except OSError as exc:
        raise UsageError(f"cannot write {results}: {exc.strerror or exc}") from None


def page_report(server: Server, rules, policy, params, family) -> str:
    """A run folder of the current settings (the chosen policy, then the trigger family's
    settings, on the same seeds) in a new folder results/TOKEN, and its report in it: it
    stays when the server stops, and its replay commands work from the folder the server
    was started in. Returns TOKEN."""
    from bollesim.batch.manifest import ruleset_record
    from bollesim.batch.session import run_cells
    from bollesim.batch.source import RulesetSource
    from bollesim.batch.spec import Cell
    from bollesim.report.balance import write_report

    token = new_folder(server.settings.results)
    folder = server.settings.results / token
    family_policy = server.policy(family.policy)
    family_params = params if family_policy is policy else family_policy.param_vector()
    which = [p.name for p in family_policy.parameters].index(family.param)
    cells = [] if family_policy is policy else [Cell(0, policy, params)]
    for value in family.settings(family_policy, rules):
        vector = family_params.copy()
        vector[which] = value
        cells.append(Cell(len(cells), family_policy, vector))
    games = min(REPORT_GAMES, server.settings.max_games)
    # The ruleset as it was built: the shipped one with a --set of each changed key, which
    # the report's "What was run" names.
    changed = {unit: value_at(rules.data, unit) for unit in changed_units(rules)}
    source = RulesetSource(overrides=tuple(assignments(changed)))
    run_cells(folder, cells, rules, server.settings.seed, games,
              extra_manifest=ruleset_record(rules, source))
    write_report(folder)
    server.reports[token] = folder
    return token


_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}")


async def report_file(request: Request) -> Response:
    server: Server = request.app.state.server
    token, name = request.path_params["token"], request.path_params["name"]
    folder = server.reports.get(token)
    if folder is None or not _FILE.fullmatch(name):
        raise HTTPException(404, "no such report (open it again from the page)")
    path = folder / name
    if not path.is_file() or path.parent != folder:
        raise HTTPException(404, "no such report file")
    return FileResponse(path, headers={"Cache-Control": "no-store"})


async def replay(request: Request) -> Response:
    server: Server = request.app.state.server
    body = await read_json(request, {"edits", "policy", "params", "outcome"})
    outcome = body.get("outcome")
    if outcome not in analysis.OUTCOMES:
        raise BadRequest(f"outcome: expected one of {', '.join(analysis.OUTCOMES)}")
    built, policy, params = await asyncio.to_thread(server.setting, body)
    if built.rules is None:
        return JSONResponse({"errors": built.errors}, status_code=422)
    search = min(EXAMPLE_SEARCH, server.settings.max_games)
    seed = server.settings.seed
    game = await asyncio.wrap_future(server.worker.submit(
        lambda: odds.example_game(built.rules, policy, params, seed, outcome, search)))
    if game is None:
        return JSONResponse({"game": None, "message": f"none of the first {search:,} games "
                             f"ends with {article(analysis.LABELS[outcome])}"})
    from bollesim.batch.replay import narrated_game

    lines, _ = await asyncio.to_thread(narrated_game, built.rules, policy, params, seed, game)
    args = " ".join(f"-p {p.name}={v:g}" for p, v in zip(policy.parameters, params, strict=True))
    command = (f"bollesim play -P {policy.name} {args} --seed {seed} --game {game}"
               + (" --partial whatif.toml" if body.get("edits") else ""))
    return JSONResponse({"game": game, "seed": seed, "outcome": outcome, "lines": lines,
                         "command": command})


# ------------------------------------------------------------------ the application


async def _bad_request(request: Request, exc: Exception) -> Response:
    return error(400, str(exc))


async def _http_error(request: Request, exc: HTTPException) -> Response:
    return error(exc.status_code, exc.detail)


async def _busy(request: Request, exc: Exception) -> Response:
    return error(429, str(exc))


async def _gone(request: Request, exc: ClientDisconnect) -> Response:
    """The client went away (or was cut off, too slow) before its request was complete:
    one line; the answer goes nowhere."""
    print(f"bollesim serve: {request.method} {request.url.path}: the client went away before "
          "sending its whole request", file=sys.stderr)
    return Response(status_code=400)


async def _internal(request: Request, exc: Exception) -> Response:
    print(f"bollesim serve: {request.url.path}: {exc!r}", file=sys.stderr)
    return error(500, "internal error (see the server's terminal)")


def cross_site(scope) -> bool:
    """Whether a request comes from another site's page: its Origin is not the page's own,
    or the browser says (Sec-Fetch-Site) it is not same-origin. Following a link to one of
    the pages (not the API) from elsewhere is allowed, as typing its address is."""
    headers = dict(scope["headers"])
    origin = headers.get(b"origin")
    host = headers.get(b"host", b"")
    if origin is not None and origin not in (b"http://" + host, b"https://" + host):
        return True
    site = headers.get(b"sec-fetch-site", b"none")
    if site in (b"same-origin", b"none"):
        return False
    return not (headers.get(b"sec-fetch-mode") == b"navigate" and scope["method"] == "GET"
                and not scope["path"].startswith("/api/"))


def same_origin(app):
    """Refuse a request of another site's page on every route: its script could hold the
    event streams or start the engine."""

    async def middleware(scope, receive, send):
        if scope["type"] == "http" and cross_site(scope):
            await error(403, "cross-site request refused")(scope, receive, send)
            return
        await app(scope, receive, send)

    return middleware


def one_framing(app):
    """Answer a request that gives both Content-Length and Transfer-Encoding 400 and close
    its connection: a proxy in front may have framed its body by the other header, so
    what follows on the connection may be a smuggled request (RFC 9112 §6.3)."""

    async def middleware(scope, receive, send):
        names = {name for name, _ in scope.get("headers", ())}
        if scope["type"] == "http" and {b"content-length", b"transfer-encoding"} <= names:
            answer = error(400, "both Content-Length and Transfer-Encoding: refused")
            answer.headers["Connection"] = "close"
            await answer(scope, receive, send)
            return
        await app(scope, receive, send)

    return middleware


def create_app(settings: Settings) -> Starlette:
    server = Server(settings)

    @asynccontextmanager
    async def lifespan(app):
        server.start()
        try:
            yield
        finally:
            server.stop()

    routes = [
        Route("/", page),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/assets/{name}", asset),
        Route("/api/form", form),
        Route("/api/odds", start_odds, methods=["POST"]),
        Route("/api/events", events),
        Route("/api/partial", save_partial, methods=["POST"]),
        Route("/api/report", make_report, methods=["POST"]),
        Route("/report/{token}/{name}", report_file),
        Route("/api/replay", replay, methods=["POST"]),
        Route("/api/find", find.find_change, methods=["POST"]),
        Route("/api/find/cancel", find.cancel_find, methods=["POST"]),
    ]
    hosts = LOOPBACK_NAMES if settings.loopback else ["*"]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(one_framing),
                    Middleware(TrustedHostMiddleware, allowed_hosts=hosts),
                    Middleware(same_origin)],
        exception_handlers={BadRequest: _bad_request, HTTPException: _http_error,
                            Busy: _busy, ClientDisconnect: _gone, Exception: _internal},
    )
    app.state.server = server
    return app
