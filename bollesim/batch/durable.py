"""Writes that survive a crash: a file written whole or not at all, a folder put in
another's place in one rename, and an OSError while writing as one line."""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
from pathlib import Path

from bollesim.batch.runfolder import RunFolderError


class writing:
    """Turn an OSError while writing under `where` into one line (RunFolderError), with
    a hint of what to do."""

    def __init__(self, where: Path, hint: str = ""):
        self.where, self.hint = where, hint

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, tb) -> None:
        if kind is None or not issubclass(kind, OSError):
            return
        if exc.errno == errno.ENOSPC:
            problem = "the disk is full"
        elif exc.errno in (errno.ENOENT, errno.ESTALE):
            problem = "a folder it writes to was removed"
        else:
            problem = exc.strerror or str(exc)
        hint = f"; {self.hint}" if self.hint else ""
        raise RunFolderError(f"cannot write {self.where}: {problem}{hint}") from None


def write_durable(path: Path, data: bytes) -> None:
    """Write a file under a temporary name, fsync it, rename it into place, fsync the folder:
    after a crash the file is either complete or absent."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def write_together(folder: Path, files: dict[str, bytes]) -> None:
    """Write the files {name: bytes} into `folder` as write_durable does, all of them or
    none: each is made durable under a temporary name first, then all are renamed into
    place while SIGINT and SIGTERM wait (held_signals), so an interrupt leaves the old ones."""
    tmps = {name: folder / f".{name}.{os.getpid()}.tmp" for name in files}
    try:
        for name, data in files.items():
            fd = os.open(tmps[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        with held_signals():
            for name, tmp in tmps.items():
                os.replace(tmp, folder / name)
            fsync_dir(folder)
    finally:
        for tmp in tmps.values():
            tmp.unlink(missing_ok=True)


class held_signals:
    """SIGINT and SIGTERM wait until the block is done, then are delivered (in the main
    thread, where Python runs its handlers; elsewhere they are not held)."""

    SIGNALS = ("SIGINT", "SIGTERM")

    def __enter__(self) -> None:
        import signal
        import threading

        self.caught, self.previous = [], {}
        if threading.current_thread() is threading.main_thread():
            for name in self.SIGNALS:
                number = getattr(signal, name)
                self.previous[number] = signal.signal(number, lambda n, _: self.caught.append(n))

    def __exit__(self, *exc) -> None:
        import signal

        for number, handler in self.previous.items():
            signal.signal(number, handler)
        if self.caught:
            signal.raise_signal(self.caught[0])


def fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_path(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def put_in_place(new: Path, out: Path, old: Path) -> None:
    """Put the folder `new` in `out`'s place: one rename, or two where exchange is missing
    (`out` to `old` first). The former `out`, if any, is left in `new` or `old`."""
    if not out.exists():
        os.rename(new, out)
    elif not _exchange(new, out):
        os.rename(out, old)
        os.rename(new, out)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where the C
    library or the filesystem cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))
