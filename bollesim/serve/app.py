"""The what-if page's web application (Starlette, ASGI): the page, its assets and its API.

Its routes, each with its body and answers, are listed in docs/serve.md ("The page's
API"; tests/test_serve_two_games.py checks the list against the routes below).

Every input is checked: a body is JSON of at most bodies.MAX_BODY bytes with only the fields of
its route, edits name declared keys only (edits.py), a policy is one of the game's and its
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
import re
import sys
import time
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from bollesim.errors import UsageError
from bollesim.game.declaration import Game
from bollesim.game.patch import changed_units, partial_toml, value_at
from bollesim.game.registry import command_line
from bollesim.serve import find, luck, odds
from bollesim.serve.bodies import read_json
from bollesim.serve.edits import BadRequest, assignments, build_ruleset, check_edits
from bollesim.serve.guards import error, one_framing, same_origin
from bollesim.serve.state import Server, Settings
from bollesim.serve.worker import Busy
from bollesim.stats import naming

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


# ------------------------------------------------------------------ helpers


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
    game, result = server.game, server.game.result
    policies = []
    for name in available_policies(game, deciding=True):
        module = game.policy_module(name)
        policies.append({"name": name, "doc": " ".join((module.__doc__ or "").split("\n\n")[0]
                                                       .split()),
                         "parameters": [
            {"name": p.name, "default": p.default, "low": p.low, "high": p.high, "doc": p.doc,
             "label": p.title, "never": p.never,
             "choices": list(p.choices) if p.choices is not None else None}
            for p in module.PARAMETERS]})
    s = server.settings
    return JSONResponse({
        **game.form_module.form_model(), "policies": policies,
        "families": [{"id": f.id, "policy": f.policy, "param": f.param,
                      "label": naming.parameter_label(game, f.policy, f.param)}
                     for f in game.triggers],
        "outcomes": [{"outcome": o, "label": result.labels[o], "minimise": o in result.minimise}
                     for o in result.outcome_names],
        "game": game.title, "best": s.best, "showcase": game.opening,
        "max_games": s.max_games, "seed": s.seed, "find": find.defaults(game),
        "luck": luck.defaults(game),
        "check_partial": command_line(game, "rules check --partial whatif.toml"),
        "ready": server.ready.is_set()})


async def start_odds(request: Request) -> Response:
    server: Server = request.app.state.server
    body = await read_json(request, {"edits", "policy", "params", "family", "pinned"})
    family = server.family(body.get("family"))
    server.changes += 1
    change = server.changes
    built, policy, params = await asyncio.to_thread(server.setting, body)
    pinned = await asyncio.to_thread(server.pinned, body.get("pinned"))
    if change < server.applied:
        # A later change took effect while this one's ruleset was built (in a thread, so
        # they may finish in either order): evaluating this one would replace it. A later
        # request refused (400) took no effect and replaced nothing.
        return error(409, "a later change replaced this one")
    server.applied = change
    if built.rules is None:
        server.worker.evaluate(iter(()))  # an invalid change stops the old work too
        return JSONResponse({"errors": built.errors}, status_code=422)
    evaluation = server.evaluation(built.rules, policy, params, family, pinned)
    server.worker.evaluate(evaluation.steps())
    rules = built.rules
    return JSONResponse({"job": evaluation.job, "digest": rules.digest,
                         "readings": rules.readings, "ready": server.ready.is_set(),
                         "exact": server.game.exact_odds(rules)})


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
    game = request.app.state.server.game
    body = await read_json(request, {"edits"})
    built = await asyncio.to_thread(build_ruleset, game, check_edits(game, body.get("edits", {})))
    if built.rules is None:
        return JSONResponse({"errors": built.errors}, status_code=422)
    return Response(partial_toml(game, built.rules), media_type="application/toml",
                    headers={"Content-Disposition": 'attachment; filename="whatif.toml"'})


async def make_report(request: Request) -> Response:
    server: Server = request.app.state.server
    body = await read_json(request, {"edits", "policy", "params", "family"})
    family = server.family(body.get("family"))
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
    changed = {unit: value_at(rules.data, unit) for unit in changed_units(server.game, rules)}
    source = RulesetSource(overrides=tuple(assignments(server.game, changed)))
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
    outcome, result = body.get("outcome"), server.game.result
    if outcome not in result.outcome_names:
        raise BadRequest(f"outcome: expected one of {', '.join(result.outcome_names)}")
    built, policy, params = await asyncio.to_thread(server.setting, body)
    if built.rules is None:
        return JSONResponse({"errors": built.errors}, status_code=422)
    search = min(EXAMPLE_SEARCH, server.settings.max_games)
    seed = server.settings.seed
    index = await asyncio.wrap_future(server.worker.submit(
        lambda: odds.example_game(built.rules, policy, params, seed, outcome, search)))
    if index is None:
        return JSONResponse({"game": None, "message": f"none of the first {search:,} games "
                             f"ends with {article(result.labels[outcome])}"})
    from bollesim.batch.replay import narrated_game

    lines, _ = await asyncio.to_thread(narrated_game, built.rules, policy, params, seed, index)
    command = replay_command(server.game, policy, params, seed, index, bool(body.get("edits")))
    return JSONResponse({"game": index, "seed": seed, "outcome": outcome, "lines": lines,
                         "command": command})


def replay_command(game: Game, policy, params, seed: int, index: int, edited: bool) -> str:
    """The command line that plays game number `index` of `seed` again, narrated: with the
    page's game chosen first where it is not the default one (registry.command_line)."""
    args = " ".join(f"-p {p.name}={v:g}" for p, v in zip(policy.parameters, params, strict=True))
    return command_line(game, f"play -P {policy.name} {args} --seed {seed} --index {index}"
                        + (" --partial whatif.toml" if edited else ""))


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
        *find.ROUTES,
        *luck.ROUTES,
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
