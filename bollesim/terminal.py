"""Text from files and users made safe to print on a terminal.

A ruleset, an experiment spec or a run folder may hold any string; printed as it is, an
escape sequence in it could move the cursor, rewrite earlier lines or retitle the
terminal. Everything the command line prints that came from outside passes through
`printable`.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and the C1 controls (ESC starts the sequences).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: object) -> str:
    """str(text) with every control character shown as a visible escape (`\\x1b`)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


SHOWN_CHARS = 80
"""The most characters of a user's value that an error line quotes."""


def shown(value: object) -> str:
    """A value from a TOML or JSON input as those files spell it (true, "text", [1, 2],
    1979-05-27), shortened to SHOWN_CHARS, for an error line: never a Python repr."""
    text = _spelled(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def _spelled(value: object) -> str:
    import datetime
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, str):  # TOML's literal 'text' when it can hold it, else "text"
        value = value[: SHOWN_CHARS * 2]
        plain = "'" not in value and not _CONTROL.search(value) and "\n" not in value
        return f"'{value}'" if plain else json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_spelled(v) for v in value[:SHOWN_CHARS // 2]) + "]"
    if isinstance(value, dict):
        items = list(value.items())[: SHOWN_CHARS // 4]
        return "{ " + ", ".join(f"{k} = {_spelled(v)}" for k, v in items) + " }"
    return str(value)


def one_line(text: object, limit: int = SHOWN_CHARS) -> str:
    """A name from a file (a ruleset's `name`) for one line of output: control characters,
    newlines and tabs escaped, at most `limit` characters (then "...")."""
    text = printable(text).replace("\n", "\\n").replace("\t", "\\t")
    return text if len(text) <= limit else text[: limit - 3] + "..."
