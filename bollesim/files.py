"""A file written whole or not at all (`atomic_write`): a temporary name in the same
folder, then a rename, so that a reader never sees part of it. The reports and what
bollesim keeps (kept.py) are written so; a run's files, which must also outlive a crash,
are synced to disk as well (batch/durable.py).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def atomic_write(path: Path, data: bytes) -> None:
    """Write data to path atomically: a temporary file in the same folder, then rename.
    The file gets the usual permissions (0666 less the umask)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
