"""The writer's side of a run folder (runfolder.py): the lock, the work area, saving
chunks, resuming and the commit that puts a new OUT in its place; rows already in memory written
the same way (write_games), and a report's folder claimed."""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import re
import shutil
import time
from pathlib import Path

import polars as pl

from bollesim.batch.durable import (
    fsync_dir,
    fsync_file,
    put_in_place,
    remove_path,
    write_durable,
    writing,
)
from bollesim.batch.manifest import Manifest, json_bytes
from bollesim.batch.partial import (
    CHUNK_RUN_KEY,
    Chunk,
    beside,
    chunk_identity,
    chunk_name,
    foreign_chunk,
    interrupted_run,
    listing,
    read_owner,
    run_identity,
)
from bollesim.batch.runfolder import (
    GAMES,
    KINDS,
    MANIFEST,
    REPORT_SOURCE,
    RUN,
    SEARCH,
    WRITTEN,
    Run,
    RunFolderBusy,
    RunFolderError,
    file_sha256,
    fixed_columns,
    folder_kind,
    read_manifest,
)
from bollesim.game.declaration import Game
from bollesim.inputs import (
    check_out_folder,
    loads_json,
)

ROW_GROUP_ROWS = 1 << 18
"""Rows per Parquet row group of games.parquet (about 2.5 MB on disk), whatever the chunks."""
CHECKPOINT_ROWS = 1 << 12
"""A finished chunk is saved once it and the chunks before it hold at least this many rows
(or the chunk size, if larger), or CHECKPOINT_SECONDS have passed, or a round ends."""
CHECKPOINT_SECONDS = 30.0
CHECKPOINT_TABLES = 1024
"""... or this many chunks have gathered (many small cells)."""
_LEFTOVER = re.compile(r"\..+\.tmp")  # a temporary file a dead writer left in a run folder
# --------------------------------------------------------------------------- writing


class Workspace:
    """The writer's side of a run folder: the lock, the work area and the commit.

        with Workspace(out) as ws:          # takes the lock (RunFolderBusy if taken)
            saved = ws.start(plan, "new")   # or "resume" / "restart"
            ws.add(round, job, table) ...   # finished chunks, saved as they accumulate
            ws.commit(fields, schema)       # games.parquet + manifest.json replace OUT

    A report only takes the lock: `with Workspace(out): write the report`.

    kind: what OUT is to hold, RUN (games and a manifest) or SEARCH (a policy search's
    result, SEARCH_FILE beside them); a folder holding the other is refused. Its holder
    may enter it again (a search holds it while it searches, then commits through it).
    """

    def __init__(self, out: str | Path, kind: str = "run"):
        self.out = Path(os.path.abspath(check_out_folder(out, "a run", len(".partial") + 1)))
        self.kind = kind
        self.lock_path = beside(self.out, "lock")
        self.partial = beside(self.out, "partial")
        self.chunks = self.partial / "chunks"
        self.new = beside(self.out, "new")
        self.old = beside(self.out, "old")
        self.trash = beside(self.out, "trash")
        self._lock = None
        self._buffer: list = []  # (round, job, table) of finished, unsaved chunks
        self._buffer_rows = 0
        self._saved_at = time.monotonic()
        self.flush_rows = CHECKPOINT_ROWS
        self.identity: dict = {}  # run_identity of the plan being played (start)

    # ------------------------------------------------------------------ the lock

    def __enter__(self) -> Workspace:
        from filelock import FileLock, Timeout

        if self._lock is not None:
            self._lock.acquire()  # filelock counts: the last release lets go
            return self

        with writing(self.out.parent):
            self.out.parent.mkdir(parents=True, exist_ok=True)
            lock = FileLock(str(self.lock_path), timeout=0)
            try:
                lock.acquire()
            except Timeout:
                owner = read_owner(self.partial)
                raise RunFolderBusy(
                    f"{self.out} is in use by another bollesim process{owner}: wait for it "
                    "to finish, or choose another folder"
                ) from None
        self._lock = lock
        return self

    def __exit__(self, *exc) -> None:
        self._buffer.clear()
        if self._lock is not None:
            self._lock.release()
            if not self._lock.is_locked:
                self._lock = None

    # ------------------------------------------------------------------ starting

    def start(self, plan: dict, mode: str = "new") -> list[Chunk]:
        """Prepare to play `plan` (a JSON dict, with `planned`, the games it will play).

        mode "new" refuses a folder with an interrupted run, "restart" discards it,
        "resume" keeps its saved chunks if its plan is the same and each is this run's
        (RunFolderError naming one another run played). Returns the saved chunks, in play
        order, each checked against its hash."""
        with writing(self.out):
            self.check_replaceable()
            self.recover()
            waiting = interrupted_run(self.out)
            if waiting is not None and mode == "new":
                raise RunFolderError(f"{self.out}: {waiting.sentence()}")
            self.identity = run_identity(plan)
            if waiting is not None and mode == "resume":
                _same_plan(self.out, waiting.plan, plan)
                self._refuse_foreign(self._saved_chunks())
            else:
                remove_path(self.partial)
            fresh = not self.partial.exists()
            self.chunks.mkdir(parents=True, exist_ok=True)
            if fresh:
                plan = {**plan, "sessions": 0}
            else:
                plan = {**plan, "sessions": waiting.plan.get("sessions", 0)}
            plan["sessions"] += 1
            write_durable(self.partial / "plan.json", json_bytes(plan))
            (self.partial / "owner").write_text(str(os.getpid()), encoding="utf-8")
            self.sessions = plan["sessions"]
            return self._saved_chunks()

    def check_replaceable(self) -> None:
        """OUT may be replaced: it is new, empty or a run folder of this kind, and not the
        current folder."""
        out = self.out
        cwd = Path.cwd()
        if cwd == out or out in cwd.parents:
            raise RunFolderError(f"{out} is the current folder or holds it: choose another folder")
        refuse_broken_link(out)
        if out.exists() and not out.is_dir():
            raise RunFolderError(f"{out} is a file, not a folder: choose another folder")
        found = folder_kind(out)
        if found is not None and found != self.kind:
            raise RunFolderError(f"{out} holds {KINDS[found]}, which {KINDS[self.kind]} would "
                                 "replace: choose another folder")
        if out.is_dir():
            names = sorted(p.name for p in out.iterdir() if not _LEFTOVER.fullmatch(p.name))
            if names and GAMES not in names and MANIFEST not in names:
                shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
                raise RunFolderError(
                    f"{out} holds files that are not a bollesim run ({shown}): a run replaces "
                    "its folder whole, so choose an empty or new folder"
                )

    def _refuse_foreign(self, chunks: list[Chunk]) -> None:
        """RunFolderError naming a saved chunk that another run played (a file copied in)."""
        for chunk in chunks:
            why = foreign_chunk(self.identity, chunk_identity(chunk.path))
            if why is not None:
                raise RunFolderError(
                    f"--resume: {chunk.path} does not belong to the interrupted run in "
                    f"{self.out}: {why}; remove it (or --restart to play the run again)")

    def _saved_chunks(self) -> list[Chunk]:
        """The saved chunks whose content matches their name; anything else in chunks/ goes."""
        good = [c for c in listing(self.chunks) if file_sha256(c.path).startswith(c.prefix)]
        keep = {c.path.name for c in good}
        for entry in os.scandir(self.chunks):
            if entry.name not in keep:
                os.unlink(entry.path)
        return good

    # ------------------------------------------------------------------ saving chunks

    def add(self, rnd: int, job: int, table) -> None:
        """A finished job's rows; saved with the jobs before it once enough have gathered."""
        if self._buffer and (self._buffer[-1][0] != rnd or self._buffer[-1][1] + 1 != job):
            self.flush()
        self._buffer.append((rnd, job, table))
        self._buffer_rows += table.num_rows
        if (
            self._buffer_rows >= self.flush_rows
            or len(self._buffer) >= CHECKPOINT_TABLES
            or time.monotonic() - self._saved_at >= CHECKPOINT_SECONDS
        ):
            self.flush()

    def flush(self) -> None:
        """Save the gathered jobs as one durable chunk file."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self._buffer:
            return
        rnd, first = self._buffer[0][0], self._buffer[0][1]
        end = self._buffer[-1][1] + 1
        table = pa.concat_tables([t for _, _, t in self._buffer]).combine_chunks()
        table = table.replace_schema_metadata(
            {**(table.schema.metadata or {}), CHUNK_RUN_KEY: json.dumps(self.identity)})
        sink = io.BytesIO()
        pq.write_table(table, sink, compression="zstd")
        data = sink.getvalue()
        prefix = hashlib.sha256(data).hexdigest()[:16]
        with writing(self.out, RESUME_HINT):
            write_durable(self.chunks / chunk_name(rnd, first, end, table.num_rows, prefix), data)
        self._buffer.clear()
        self._buffer_rows = 0
        self._saved_at = time.monotonic()

    def read_chunk(self, chunk: Chunk):
        """The rows of a saved chunk (an Arrow table), checked against its hash."""
        import pyarrow.parquet as pq

        data = chunk.path.read_bytes()
        if not hashlib.sha256(data).hexdigest().startswith(chunk.prefix):
            chunk.path.unlink()
            raise RunFolderError(
                f"{chunk.path} changed on disk after it was saved: it is removed; "
                "run again with --resume to play its games again"
            )
        return pq.read_table(io.BytesIO(data))

    # ------------------------------------------------------------------ committing

    def commit(self, fields: dict, schema, files: dict[str, bytes] | None = None) -> dict:
        """Merge the saved chunks into games.parquet, write manifest.json (with the data's
        rows, size and SHA-256) and `files` ({name: bytes}, beside them) and put them all
        in OUT's place. Returns the manifest."""
        self.flush()
        with writing(self.out, RESUME_HINT):
            manifest = self._build(fields, schema, files or {})
            write_durable(self.partial / "commit.json", json_bytes({"sha256": manifest.data_sha256}))
            self._replace()
            self._clean_up()
        return manifest.to_json()

    def _build(self, fields: dict, schema, files: dict[str, bytes]) -> Manifest:
        """The next OUT in .OUT.new: games.parquet, manifest.json and `files`, durable
        (removed if it cannot be finished)."""
        remove_path(self.new)
        self.new.mkdir()
        try:
            for name, data in files.items():
                if Path(name).name != name or name in (GAMES, MANIFEST):
                    raise ValueError(f"cannot write {name!r} beside the games")
                write_durable(self.new / name, data)
            rows = self._merge(self.new / GAMES, schema)
            if rows != fields["n_games"]:
                raise AssertionError(f"{rows} rows saved for {fields['n_games']} games")
            data = self.new / GAMES
            manifest = Manifest.sealed(
                data_bytes=data.stat().st_size, data_sha256=file_sha256(data),
                **fields)
            write_durable(self.new / MANIFEST, json_bytes(manifest.to_json()))
            fsync_dir(self.new)
        except BaseException:
            shutil.rmtree(self.new, ignore_errors=True)
            raise
        return manifest

    def _merge(self, path: Path, schema) -> int:
        """Write the saved chunks, in order, as one Parquet file of ROW_GROUP_ROWS groups."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        tmp = path.with_name(f".{path.name}.tmp")
        rows = 0
        pending: list = []
        pending_rows = 0
        with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:

            def write_group(n: int) -> None:
                nonlocal pending, pending_rows
                table = pa.concat_tables(pending).combine_chunks()
                writer.write_table(table.slice(0, n), row_group_size=n)
                rest = table.slice(n)
                pending, pending_rows = ([rest] if rest.num_rows else []), rest.num_rows

            for chunk in listing(self.chunks):
                table = self.read_chunk(chunk).cast(schema)
                pending.append(table)
                pending_rows += table.num_rows
                rows += table.num_rows
                while pending_rows >= ROW_GROUP_ROWS:
                    write_group(ROW_GROUP_ROWS)
            if pending_rows or rows == 0:
                if pending:
                    write_group(pending_rows)
                else:
                    writer.write_table(schema.empty_table())
        fsync_file(tmp)
        os.replace(tmp, path)
        return rows

    def _replace(self) -> None:
        """Put .OUT.new in OUT's place (put_in_place), durably."""
        put_in_place(self.new, self.out, self.old)
        fsync_dir(self.out.parent)

    def _clean_up(self) -> None:
        """After the commit: what the old folder holds that bollesim did not write moves into
        OUT (carry_over); then the old folder and the work area go (the work area first, in
        one rename, so that no half-deleted work area looks like an interrupted run). Done
        again by `recover` if a crash cuts it short, the carrying over included."""
        for former in (self.new, self.old):  # where put_in_place left the former OUT
            carry_over(former, self.out)
        remove_path(self.trash)
        if self.partial.exists():
            os.rename(self.partial, self.trash)
        for path in (self.new, self.old, self.trash):
            remove_path(path)

    def recover(self) -> None:
        """Complete or undo what a dead writer left: a commit cut short, a half-built
        .OUT.new, a half-done two-rename replacement, a half-deleted work area."""
        with writing(self.out):
            remove_path(self.trash)
            marker = self.partial / "commit.json"
            sha = None
            if marker.exists():
                try:
                    sha = loads_json(marker.read_text(encoding="utf-8"))["sha256"]
                except (OSError, ValueError, KeyError, TypeError):
                    sha = None
            if sha is not None and _committed_sha(self.out) == sha:
                self._clean_up()
                return
            if sha is not None and _committed_sha(self.new) == sha:
                if not self.out.exists() or self.out.is_dir():
                    self._replace()
                    self._clean_up()
                    return
            marker.unlink(missing_ok=True)
            remove_path(self.new)
            if self.old.exists():
                if self.out.exists():
                    remove_path(self.old)
                else:
                    os.rename(self.old, self.out)


def carry_over(former: Path, out: Path) -> None:
    """Move into `out` each entry of the folder `former` that bollesim did not write there
    (runfolder.WRITTEN): a reader's notes, another run's folder. What a run wrote there,
    games and reports of other games, is left to go with `former`."""
    if not former.is_dir():
        return
    moved = False
    for entry in os.scandir(former):
        if WRITTEN.fullmatch(entry.name) or _LEFTOVER.fullmatch(entry.name):
            continue
        if not os.path.lexists(out / entry.name):
            os.rename(entry.path, out / entry.name)
            moved = True
    if moved:
        fsync_dir(out)


def _committed_sha(folder: Path) -> str | None:
    try:
        return read_manifest(folder).data_sha256
    except RunFolderError:
        return None


def _same_plan(out: Path, old: dict, new: dict) -> None:
    """RunFolderError naming the first thing `new` asks differently from the interrupted run."""
    for key, value in new.items():
        if key in ("planned", "sessions"):
            continue
        if old.get(key) != value:
            what = "other cells" if key == "cells" else f"{key} {old.get(key)!r}, not {value!r}"
            raise RunFolderError(
                f"--resume: the interrupted run in {out} plays {what}: give the options it was "
                "started with, or --restart to discard it"
            )


RESUME_HINT = "the finished chunks are saved: fix that, then run the same command with --resume"


def claim_report_folder(out: Path, run: Run, kind: str = "report") -> None:
    """Make `out`, a folder other than the run's, the home of `run`'s report of this kind
    (its files differ from the other kind's), holding its lock (Workspace):
    RunFolderError if it is a run folder or holds the same kind of report of another run;
    else REPORT_SOURCE names the run from now on."""
    out = Path(os.path.abspath(out))
    if out.exists() and not out.is_dir():
        raise RunFolderError(f"{out} is a file, not a folder: choose another folder")
    found = folder_kind(out)
    if found is not None:
        raise RunFolderError(f"{out} holds {KINDS[found]}: write the report of {run.path} into "
                             "that folder itself (no --out) or into a folder of its own")
    source = out / REPORT_SOURCE.format(kind=kind)
    try:
        before = loads_json(source.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        before = None
    if isinstance(before, dict) and before.get("data_sha256") != run.manifest["data_sha256"]:
        raise RunFolderError(f"{out} holds the {kind} of another run ({before.get('run')}): "
                             "choose another folder, or empty it")
    out.mkdir(parents=True, exist_ok=True)
    write_durable(source, json_bytes({"run": str(run.path.resolve()),
                                        "data_sha256": run.manifest["data_sha256"]}))


def refuse_broken_link(out: Path) -> None:
    """RunFolderError when `out` is a link to nothing or a loop: nothing can be written
    there, which would be found only after the work."""
    if os.path.lexists(out) and not out.exists():
        try:
            os.stat(out)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise RunFolderError(f"{out} is a link that loops: choose another folder") from None
        raise RunFolderError(f"{out} is a link to nothing: choose another folder") from None


def claim_own_report(out: Path, stem: str, replace: bool, own: re.Pattern | None = None,
                     beside_a_run: bool = True) -> list[Path]:
    """Check, before any work and holding its lock (Workspace), that `out` may take a report
    made of no run's games (`headroom`, its files STEM.md, STEM.csv, STEM-*.png; `tune`,
    those `own` matches): a new or empty folder, a run's folder if `beside_a_run` (it sits
    beside the run's games and reports), or one that
    holds such a report already, which only `replace` lets it replace (RunFolderError
    naming the flag otherwise). Refused too: a file, a link to nothing or a loop, a policy
    search's result, a folder of files bollesim did not write. Returns the earlier
    report's files, for the caller to remove when it writes the new one."""
    shown = out
    refuse_broken_link(out)
    if out.exists() and not out.is_dir():
        raise RunFolderError(f"{shown} is a file, not a folder: choose another folder")
    kind = folder_kind(out)
    if kind == SEARCH or kind == RUN and not beside_a_run:
        raise RunFolderError(f"{shown} holds {KINDS[kind]}: choose another folder")
    if not out.is_dir():
        return []
    own = own or re.compile(re.escape(stem) + r"(-[\w.-]+)?\.(md|html|png|csv|json)")
    names = [p.name for p in out.iterdir()]
    foreign = sorted(n for n in names if not (WRITTEN.fullmatch(n) or _LEFTOVER.fullmatch(n)
                                              or n.startswith(".") and n.endswith("-source.json")))
    if foreign:
        listed = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
        raise RunFolderError(f"{shown} holds files bollesim did not write ({listed}): choose "
                             "an empty or new folder")
    earlier = sorted(out / n for n in names if own.fullmatch(n))
    if earlier and not replace:
        raise RunFolderError(f"{shown} holds a {stem} report already: give --replace to "
                             "replace it, or choose another folder")
    return earlier


def write_games(out: str | Path | Workspace, game: Game, games: pl.DataFrame,
                files: dict[str, bytes] | None = None,
                writer: str = "the command that wrote it", kind: str = RUN, **fields) -> dict:
    """Write rows of the game's games already in memory (made by a tool or a test) as the
    run folder `out`, through the same commit as a run's: the fixed columns are cast to
    their types, the others to double. `fields` are Manifest fields; n_games and the data's hash are
    filled in. `files` ({name: bytes}) are written into the folder in the same commit.
    `writer` names, for whoever finds the work of a write killed midway, what writes the
    folder again (there is nothing to resume). `out` may be the folder's Workspace, held
    by the caller, else one of `kind` is taken. Returns the manifest."""
    import pyarrow as pa

    from bollesim import __version__

    fixed = {f.name: f.type for f in fixed_columns(game)}
    games = games.with_columns(  # a choice's names (columns.typed_params) as their indices
        pl.col(c).to_physical() for c, t in games.schema.items()
        if isinstance(t, pl.Enum) and c not in fixed)
    table = games.to_arrow()
    schema = pa.schema([pa.field(c, fixed.get(c, pa.float64())) for c in games.columns])
    with out if isinstance(out, Workspace) else Workspace(out, kind) as ws:
        ws.start({"planned": games.height, "writer": writer}, "restart")
        if games.height:
            ws.add(0, 0, table.cast(schema))
        return ws.commit({"version": __version__, "game": game.name, **fields,
                          "n_games": games.height}, schema, files)
