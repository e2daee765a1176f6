"""The page's request bodies: JSON of at most MAX_BODY bytes with only the fields of its
route (a route of app.py or find.py)."""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.requests import Request

from bollesim.inputs import LimitError, loads_json
from bollesim.serve.edits import BadRequest

MAX_BODY = 512 * 1024
"""Bytes of one request body (an edit of every key of the ruleset is about 40 KB)."""


def _reject_constant(name: str):
    raise BadRequest(f"not JSON: {name} is not a number")


async def read_json(request: Request, fields: set[str]) -> dict:
    """The request's JSON object (checked: type, size, fields), or BadRequest/HTTPException."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise HTTPException(415, "send JSON (Content-Type: application/json)")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise HTTPException(413, f"the request is larger than {MAX_BODY:,} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise HTTPException(413, f"the request is larger than {MAX_BODY:,} bytes")
    try:
        data = loads_json(body.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise BadRequest("not JSON") from None
    except LimitError as exc:
        raise BadRequest(f"not read: {exc}") from None
    if not isinstance(data, dict):
        raise BadRequest("expected a JSON object")
    unknown = sorted(set(data) - fields)
    if unknown:
        raise BadRequest(f"unknown field {unknown[0][:40]!r} (fields: {', '.join(sorted(fields))})")
    return data
