"""Files that come from users, read with limits.

A ruleset, a partial ruleset, an experiment spec or a run's manifest must be a regular
file (not a folder, a device such as /dev/zero, or a pipe that never ends), no larger than
its limit, and UTF-8 text. Anything else is an InputError: one line naming the file and
the problem, which the command line prints as `error: ...` with exit code 2.

Their TOML or JSON is read by `loads_toml` and `loads_json`, which also refuse what no
input of bollesim needs and Python cannot always carry: values nested more than MAX_DEPTH
levels deep and integers of more than INT_DIGITS digits (a LimitError).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import tomllib
from pathlib import Path

from bollesim.errors import UsageError

MIB = 1 << 20
TOML_LIMIT = 4 * MIB
"""Rulesets, partial rulesets and experiment specs (default.toml is about 16 KB)."""
MANIFEST_LIMIT = 64 * MIB
"""A run folder's manifest.json (a 10,000-cell sweep's is about 2 MB)."""
MAX_DEPTH = 32
"""Levels of nesting of a TOML or JSON input (the ruleset's deepest value has four)."""
INT_DIGITS = 24
"""Digits of an integer in a TOML or JSON input (the largest a seed may be, 2**64 - 1,
has 20)."""


NAME_MAX = 255
"""Bytes of one file or folder name (Linux, macOS and Windows file systems alike)."""
PATH_MAX = 4096
"""Bytes of a whole path (Linux)."""


def check_path(path: str | Path, longest_suffix: int = 0) -> Path:
    """`path` if the system can open it: no name in it longer than NAME_MAX bytes (the
    last one NAME_MAX - `longest_suffix`, for the files named after it), PATH_MAX in
    all, and text (UTF-8); InputError naming the name otherwise."""
    raw = os.fsencode(path)
    try:
        str(path).encode("utf-8")  # a name is written in manifests and reports
    except UnicodeEncodeError:  # bytes the file system encoding left undecoded
        raise InputError(_short(raw.decode("utf-8", "backslashreplace")),
                         "a name that is not UTF-8 text: rename it, or choose another") from None
    if len(raw) + longest_suffix > PATH_MAX:
        raise InputError(_short(path), f"a path of {len(raw):,} bytes (at most "
                         f"{PATH_MAX - longest_suffix:,} are allowed)")
    names = raw.rstrip(b"/").split(b"/")
    for i, name in enumerate(names):
        most = NAME_MAX - (longest_suffix if i == len(names) - 1 else 0)
        if len(name) > most:
            raise InputError(_short(path), f"a name of {len(name):,} bytes in it (at most "
                             f"{most} are allowed)")
    return Path(path)


def check_out_folder(out: str | Path, what: str, longest_suffix: int = 0) -> Path:
    """`out` as a folder to write `what` into ("a run", "a report"): check_path's checks,
    and not a filesystem's root (UsageError)."""
    check_path(out, longest_suffix)
    if Path(os.path.abspath(out)).parent == Path(os.path.abspath(out)):
        raise UsageError(f"{out}: cannot write {what} over a filesystem's root")
    return Path(out)


def check_out_file(out: str | Path, option: str = "--out") -> Path:
    """`out` as a file a command will write after its work, checked before it: check_path's
    checks, not a folder, not a link to nothing or a loop, and a folder that takes a file
    (one is made and removed there). UsageError naming `option` otherwise."""
    import tempfile

    check_path(out)
    out = Path(out)
    if os.path.lexists(out) and not os.path.exists(out):
        raise UsageError(f"{option} {_short(out)}: a link to nothing or a loop: choose another file")
    if out.is_dir():
        raise UsageError(f"{option} {_short(out)}: a folder, not a file: choose a file name")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out.parent):
            pass
    except OSError as exc:
        raise UsageError(f"{option} {_short(out)}: cannot write there "
                         f"({exc.strerror or exc}): choose another file") from None
    return out


def _short(path: str | Path) -> str:
    """A path for an error line: a long one as its first and last 40 characters."""
    text = str(path)
    return text if len(text) <= 100 else f"{text[:40]}...{text[-40:]}"


class InputError(UsageError):
    """A file that cannot be read as asked; `problem` is the message without the path."""

    def __init__(self, path: str | Path, problem: str):
        self.path, self.problem = str(path), problem
        super().__init__(f"{path}: {problem}")


def read_bytes(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (InputError otherwise)."""
    check_path(path)
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
        return data.decode("utf-8").removeprefix("\ufeff")  # an editor's byte-order mark
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


class LimitError(ValueError):
    """Data nested too deeply or an integer too long; str() is one line, `where` (the
    value's place, when known): `problem`."""

    def __init__(self, problem: str, where: str = ""):
        self.problem, self.where = problem, where
        super().__init__(f"{where}: {problem}" if where else problem)


_LONG_INT = re.compile(r"[0-9][0-9_]{4300,}")  # more digits than Python converts


def loads_toml(text: str) -> dict:
    """tomllib.loads within the limits: tomllib.TOMLDecodeError for text that is not TOML,
    LimitError for a value nested more than MAX_DEPTH levels or an integer of more than
    INT_DIGITS digits."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise LimitError(f"nested more than {MAX_DEPTH} levels deep") from None
    except tomllib.TOMLDecodeError:
        raise
    except ValueError:  # an integer of more digits than Python converts
        long = _LONG_INT.search(text)
        digits = len(long.group().replace("_", "")) if long else 4301
        line = f"line {text.count(chr(10), 0, long.start()) + 1}" if long and "\n" in text else ""
        raise LimitError(f"an integer of {digits:,} digits (at most {INT_DIGITS} are read)",
                         line) from None
    check_limits(data)
    return data


def loads_json(text: str | bytes, **kwargs):
    """json.loads within the limits of loads_toml: json.JSONDecodeError for text that is
    not JSON, LimitError beyond them."""

    def integer(digits: str) -> int:
        if len(digits.lstrip("-")) > INT_DIGITS:
            raise LimitError(f"an integer of {len(digits.lstrip('-')):,} digits (at most "
                             f"{INT_DIGITS} are read)")
        return int(digits)

    try:
        data = json.loads(text, parse_int=integer, **kwargs)
    except RecursionError:
        raise LimitError(f"nested more than {MAX_DEPTH} levels deep") from None
    check_limits(data)
    return data


def check_limits(value) -> None:
    """LimitError naming where `value` (dicts, lists, scalars) is nested more than
    MAX_DEPTH levels or holds an integer of more than INT_DIGITS digits; read without
    recursion, so any depth is refused."""
    largest = 10**INT_DIGITS
    todo: list[tuple[object, tuple]] = [(value, ())]
    while todo:
        node, path = todo.pop()
        if isinstance(node, dict | list):
            if len(path) >= MAX_DEPTH:
                raise LimitError(f"nested more than {MAX_DEPTH} levels deep", _where(path))
            items = node.items() if isinstance(node, dict) else enumerate(node)
            todo.extend((child, (*path, key)) for key, child in items)
        elif isinstance(node, int) and not isinstance(node, bool) and abs(node) >= largest:
            digits = int(node.bit_length() * math.log10(2)) + 1  # str() fails past 4,300
            raise LimitError(f"an integer of about {digits:,} digits (at most {INT_DIGITS} are "
                             "read)", _where(path))


def _where(path: tuple) -> str:
    """A value's place as keys and indexes, the first few: map.roads[0][0]..."""
    text = ""
    for key in path[:4]:
        text += f"[{key}]" if isinstance(key, int) else f".{str(key)[:40]}" if text else str(key)[:40]
    return (text or "the value") + ("..." if len(path) > 4 else "")
