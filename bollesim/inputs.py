"""Files that come from users, read with limits.

A ruleset, a partial ruleset, an experiment spec or a run's manifest must be a regular
file (not a folder, a device such as /dev/zero, or a pipe that never ends), no larger than
its limit, and UTF-8 text. Anything else is an InputError: one line naming the file and
the problem, which the command line prints as `error: ...` with exit code 2.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from bollesim.errors import UsageError

MIB = 1 << 20
TOML_LIMIT = 4 * MIB
"""Rulesets, partial rulesets and experiment specs (default.toml is about 16 KB)."""
MANIFEST_LIMIT = 64 * MIB
"""A run folder's manifest.json (a 10,000-cell sweep's is about 2 MB)."""


class InputError(UsageError):
    """A file that cannot be read as asked; `problem` is the message without the path."""

    def __init__(self, path: str | Path, problem: str):
        self.path, self.problem = str(path), problem
        super().__init__(f"{path}: {problem}")


def read_bytes(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (InputError otherwise)."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputError(path, "cannot read it (no such file)") from None
    except OSError as exc:
        raise InputError(path, f"cannot read it ({exc.strerror})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise InputError(path, "is a folder, not a file")
        raise InputError(path, "is not a regular file (a device, pipe or socket)")
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(limit + 1)
        except OSError as exc:
            raise InputError(path, f"cannot read it ({exc.strerror})") from None
    if len(data) > limit:
        raise InputError(path, f"is larger than the {size_text(limit)} allowed")
    return data


def read_text(path: str | Path, limit: int) -> str:
    """The UTF-8 text of a regular file of at most `limit` bytes (InputError otherwise)."""
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            path, f"is not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start})"
        ) from None


def size_text(n: float) -> str:
    """Bytes in words: 512 bytes, 4.0 MB, 1.2 TB (powers of 1000, as disks are sold)."""
    if n < 1000:
        return f"{n:.0f} bytes"
    for unit in ("KB", "MB", "GB", "TB", "PB"):
        n /= 1000
        if n < 1000 or unit == "PB":
            return f"{n:.1f} {unit}"
    raise AssertionError("unreachable")
