"""Requests the page refuses before any route sees them: another site's (by Origin or
Sec-Fetch-Site), and one with both Content-Length and Transfer-Encoding; and the one shape
of every refusal, `error`."""

from __future__ import annotations

from starlette.responses import JSONResponse


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(message).split())}, status_code=status)


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
