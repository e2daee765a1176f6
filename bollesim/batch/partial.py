"""The work of a run in progress, kept beside its folder (.OUT.partial/): the chunks
saved so far, the run each records, an interrupted run found, and its writer's lock probed."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from bollesim.inputs import (
    loads_json,
)
from bollesim.terminal import shown

_CHUNK_NAME = re.compile(r"(\d+)-(\d+)-(\d+)-(\d+)-([0-9a-f]{16})\.parquet")
# --------------------------------------------------------------------------- interrupted runs


def beside(out: str | Path, what: str) -> Path:
    """The path `.OUT.WHAT` next to the run folder `out` (what: lock, partial, new, old, trash)."""
    out = Path(os.path.abspath(out))
    return out.parent / f".{out.name}.{what}"


@dataclass(frozen=True)
class Interrupted:
    """The work an interrupted run left next to its folder."""

    out: Path
    plan: dict
    saved: int  # games saved in finished chunks
    planned: int  # games the run will play at least (at most, with --precision)

    def sentence(self) -> str:
        partial = beside(self.out, "partial")
        writer = self.plan.get("writer")
        if isinstance(writer, str):  # write_games: games held in memory, nothing to resume
            return (f"{partial} is what a write stopped midway left ({writer}; it cannot be "
                    f"resumed): run {writer} again, which starts afresh, or give --restart to "
                    "a run or sweep into this folder")
        return (
            f"an interrupted run has {self.saved:,} of {self.planned:,} games saved in "
            f"{partial}: continue it with the same command and --resume, or start it again "
            "with --restart"
        )


def interrupted_run(out: str | Path) -> Interrupted | None:
    """The interrupted run waiting to be resumed into `out`, if any (read-only, no lock)."""
    out = Path(os.path.abspath(out))
    partial = beside(out, "partial")
    try:
        plan = loads_json((partial / "plan.json").read_text(encoding="utf-8"))
        saved = sum(c.rows for c in listing(partial / "chunks"))
    except (OSError, ValueError):
        return None
    if not isinstance(plan, dict) or not isinstance(plan.get("planned"), int):
        return None
    return Interrupted(out, plan, saved, plan["planned"])


def lock_held(out: str | Path) -> bool:
    """Whether a live process holds the lock of the run folder `out` (a writer at work);
    probed with a shared lock taken and dropped at once, never waiting."""
    import fcntl

    lock_path = beside(out, "lock")
    try:
        fd = os.open(lock_path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops the probe's lock
    return False


class Chunk(NamedTuple):
    """A saved chunk: jobs first..end-1 of the round that starts at game `round`."""

    round: int
    first: int
    end: int
    rows: int
    prefix: str  # of the file's SHA-256
    path: Path


def listing(folder: Path) -> list[Chunk]:
    """The saved chunks in a folder, in play order, without overlaps (names only)."""
    found = []
    for entry in os.scandir(folder):
        m = _CHUNK_NAME.fullmatch(entry.name)
        if m:
            numbers = [int(g) for g in m.groups()[:4]]
            found.append(Chunk(*numbers, m.group(5), Path(entry.path)))
    chunks: list[Chunk] = []
    for c in sorted(found):
        last = chunks[-1] if chunks else None
        if c.end > c.first and not (last and last.round == c.round and last.end > c.first):
            chunks.append(c)
    return chunks


CHUNK_RUN_KEY = b"bollesim.run"
"""The key of a chunk file's Parquet metadata that names the run it belongs to."""


def run_identity(plan: dict) -> dict:
    """What makes a run's rows, as its chunks record it: seed, engine, ruleset hash and a
    hash of the cells (policy, parameters, rules of each)."""
    cells = json.dumps(plan.get("cells"), sort_keys=True, separators=(",", ":"))
    return {"seed": plan.get("seed"), "engine": plan.get("engine"),
            "ruleset_hash": plan.get("ruleset_hash"),
            "cells": hashlib.sha256(cells.encode()).hexdigest()[:16]}


def chunk_identity(path: Path) -> dict | None:
    """The run identity a chunk file records, None if it records none or cannot be read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        raw = (pq.read_metadata(path).metadata or {}).get(CHUNK_RUN_KEY)
        found = loads_json(raw) if raw is not None else None
    except (pa.ArrowException, OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def foreign_chunk(identity: dict, found: dict | None) -> str | None:
    """How a chunk's recorded identity differs from this run's, None if it is this run's."""
    if found is None:
        return "it records no run (not saved by this run)"
    names = {"seed": "seed", "engine": "engine", "ruleset_hash": "ruleset", "cells": "cells"}
    for key, name in names.items():
        if found.get(key) != identity[key]:
            if key in ("seed", "engine"):
                return f"it is of {name} {shown(found.get(key))}, this run's is {shown(identity[key])}"
            return f"it plays other {name}" if key == "cells" else f"it plays another {name}"
    return None


def chunk_name(rnd: int, first: int, end: int, rows: int, prefix: str) -> str:
    return f"{rnd}-{first}-{end}-{rows}-{prefix}.parquet"


def read_owner(partial: Path) -> str:
    try:
        return f" (process {int((partial / 'owner').read_text(encoding='utf-8'))})"
    except (OSError, ValueError):
        return ""
