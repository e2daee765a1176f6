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
