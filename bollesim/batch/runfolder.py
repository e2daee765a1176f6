"""A run folder: the games of a run or sweep, their manifest and their reports, kept as
one unit that readers can trust and an interrupted run can continue.

The folder OUT (`bollesim run/sweep --out OUT`) holds

    games.parquet    one row per game (docs/architecture.md §5): `game`, `seed`, `policy`, `cell`, the
                     policies' parameter columns (float64, null where a policy has no such
                     parameter), in a sweep whose cells change the ruleset `ruleset` (what
                     the cell changes, "" for nothing) and `ruleset_hash` (strings), then
                     runner.RESULT_COLUMNS; in row groups of ROW_GROUP_ROWS rows
    manifest.json    a JSON object: the fields of `Manifest`, listed below
    report.*         `bollesim report OUT` adds report.html, report.md and report-*.png
    other files      written by whoever commits OUT, in the same commit (Workspace.commit
                     `files`): e.g. `bollesim optimise`'s best.json and trajectory.parquet

and next to it, in OUT's parent folder, whoever writes OUT keeps

    .OUT.lock        held (flock, through the filelock package) by the one process that
                     writes OUT: a run, a sweep or a report. The kernel lets go of it when
                     the process dies, however it dies. The empty file stays.
    .OUT.partial/    the work of a run in progress: plan.json (what it plays, the key that
                     `--resume` compares) and chunks/, one Parquet file per finished chunk
                     of games, made durable (fsync) as it completes and named
                     ROUND-FIRSTJOB-ENDJOB-ROWS-SHA256PREFIX.parquet
    .OUT.new/        the next OUT while it is committed

Guarantees
- OUT is replaced whole. The games and manifest of a run are written and made durable in
  .OUT.new/, which takes OUT's place in one rename (Linux renameat2 RENAME_EXCHANGE;
  where a filesystem lacks it, two renames that the next writer completes). A reader
  never sees one run's games beside another run's manifest or reports.
- The manifest records the SHA-256 and size of games.parquet and its row count.
  `open_run` (used by `bollesim report`, `play --from` and the Python API) checks them,
  the manifest's fields and the Parquet schema, and refuses a folder that is truncated,
  corrupt, edited or inconsistent with a RunFolderError: one line naming the problem.
- One writer at a time: a second run, sweep, search (`bollesim optimise`, which holds the
  lock from the start of its search) or report into OUT is refused while the lock is
  held; so is a report written elsewhere with --out, which takes that folder's lock. A
  run or sweep refuses a search's folder (best.json) and a search a run's; a report's
  --out refuses a run folder, and the report of another run (.report-source.json in it
  names its run).
- Game g is seeded from (seed, g) alone, so a chunk's rows depend only on its games.
  An interrupted run (Ctrl-C, a signal, SIGKILL, power loss) keeps its finished chunks in
  .OUT.partial/; `--resume` plays only the missing ones and writes the same
  games.parquet, byte for byte, as an uninterrupted run. Leftovers of a dead writer
  (temporary files, a half-built .OUT.new/, a commit cut short) are repaired or removed
  by the next writer.

Manifest fields (`format` changes when their meaning does)
    format            FORMAT, the version of this layout
    version           the bollesim version that wrote the folder
    n_games           rows of games.parquet: games per cell times cells
    data_bytes        size of games.parquet in bytes
    data_sha256       SHA-256 of games.parquet (hex)
    manifest_sha256   SHA-256 of the other fields as canonical JSON (sorted keys, no
                      spaces): a manifest edited after the run is refused
    created           local time the run was committed (ISO 8601)
    game              the game played (bollesim.game.declaration); absent: Operation
                      Bøllebank, the one game of the versions before games were declared
    plan              what was asked (ruleset hash, seed, games, precision, max_games,
                      chunk_size, engine, cells): the key `--resume` compares
    seed              run seed: game g is seeded from (seed, g)
    games_per_cell    games played in each cell (game indices 0..games_per_cell-1)
    n_cells           number of cells
    cells             [{cell, policy, params}] in cell order; a cell that changes the
                      ruleset adds {rules, readings, ruleset_hash}: the key values and
                      reading variants it applies over ruleset_data, and the result's hash
    policy            the policy, or the cells' policies joined by ", "
    params            the parameters of a one-cell run, or a sentence saying where they are
    ruleset           the ruleset's name
    ruleset_hash      SHA-256 of the ruleset data
    ruleset_source    {file, partial, overrides, readings} the ruleset was loaded from
    ruleset_data      the ruleset's data, so any game can be replayed exactly
    engine            fast or reference
    threads           engine threads of the session that finished the run
    chunk_size        games per chunk
    machine           architecture, cores and Python of that session
    timings           {warm_up_s, run_s, total_s, games_per_s} of that session
    sessions          how many sessions played the run (1: never interrupted)
    cluster           {address, workers, threads} of a Dask cluster, or null
    precision         with --precision: {half_width, max_games, reached,
                      largest_half_width, largest_in: {cell, rate}}, else null
    stopped           with --precision: why adding games stopped, one sentence
    experiment        a sweep's name (null for a run)
    description       a sweep's description
    spec_file         a sweep's spec file
    spec              a sweep's spec as read
    sensitivity       a sensitivity run's layout (bollesim/stats/sensitivity.py): {cells_per_ruleset,
                      alternatives}: cell v * cells_per_ruleset + c is the experiment's
                      cell c under alternatives[v - 1] ("ID=VARIANT"), v = 0 the experiment
                      as specified
"""

from __future__ import annotations

import ctypes
import dataclasses
import errno
import hashlib
import io
import json
import os
import re
import shutil
import time
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import polars as pl

from bollesim.errors import UsageError
from bollesim.game.declaration import CHOICE, DEFAULT, declared
from bollesim.inputs import (
    MANIFEST_LIMIT,
    InputError,
    LimitError,
    check_out_folder,
    check_path,
    loads_json,
    read_text,
    size_text,
)
from bollesim.terminal import shown

FORMAT = 1
GAMES = "games.parquet"
MANIFEST = "manifest.json"
ROW_GROUP_ROWS = 1 << 18
"""Rows per Parquet row group of games.parquet (about 2.5 MB on disk), whatever the chunks."""
CHECKPOINT_ROWS = 1 << 12
"""A finished chunk is saved once it and the chunks before it hold at least this many rows
(or the chunk size, if larger), or CHECKPOINT_SECONDS have passed, or a round ends."""
CHECKPOINT_SECONDS = 30.0
CHECKPOINT_TABLES = 1024
"""... or this many chunks have gathered (many small cells)."""
_HEX = re.compile(r"[0-9a-f]{64}")
_LEFTOVER = re.compile(r"\..+\.tmp")  # a temporary file a dead writer left in a run folder
_CHUNK_NAME = re.compile(r"(\d+)-(\d+)-(\d+)-(\d+)-([0-9a-f]{16})\.parquet")


RUN, SEARCH = "run", "search"
SEARCH_FILE = "best.json"
"""The file that makes a run folder a policy search's result (`bollesim optimise`)."""
KINDS = {RUN: "a run's or sweep's games", SEARCH: "a policy search's result"}
REPORT_SOURCE = ".{kind}-source.json"  # kind: "report" or "sensitivity"
"""In a folder a report was written to with --out: {"run", "data_sha256"} of its run."""


class RunFolderError(UsageError):
    """A run folder that cannot be trusted or written as asked; str() is one line."""


class RunFolderBusy(RunFolderError):
    """Another process holds the run folder's lock."""


# --------------------------------------------------------------------------- the manifest


@dataclass(frozen=True)
class Manifest:
    """The fields of manifest.json; the module docstring says what each one means."""

    format: int
    version: str
    n_games: int
    data_bytes: int
    data_sha256: str
    manifest_sha256: str
    created: str | None = None
    game: str | None = None
    plan: dict | None = None
    seed: int | None = None
    games_per_cell: int | None = None
    n_cells: int | None = None
    cells: list | None = None
    policy: str | None = None
    params: dict | str | None = None
    ruleset: str | None = None
    ruleset_hash: str | None = None
    ruleset_source: dict | None = None
    ruleset_data: dict | None = None
    engine: str | None = None
    threads: int | None = None
    chunk_size: int | None = None
    machine: str | None = None
    timings: dict | None = None
    sessions: int | None = None
    cluster: dict | None = None
    precision: dict | None = None
    stopped: str | None = None
    experiment: str | None = None
    description: str | None = None
    spec_file: str | None = None
    spec: dict | None = None
    sensitivity: dict | None = None

    @classmethod
    def from_json(cls, data: object) -> Manifest:
        """A checked Manifest from parsed JSON; ValueError names the first bad field."""
        if not isinstance(data, dict):
            raise ValueError(f"expected a JSON object, got a JSON {_json_kind(data)}")
        if "format" not in data:
            raise ValueError("no format field: written by an older bollesim or by hand")
        if data["format"] != FORMAT:
            raise ValueError(
                f"format {data['format']!r}, this bollesim reads format {FORMAT}: "
                "use the version that wrote it, or run it again"
            )
        hints = typing.get_type_hints(cls)
        known = {f.name: f for f in dataclasses.fields(cls)}
        for key, value in data.items():
            if key not in known:
                raise ValueError(f"unknown field {key!r}")
            if not _fits(hints[key], value):
                raise ValueError(f"field {key!r} has a wrong type: {_json_kind(value)}")
        for name, f in known.items():
            if f.default is dataclasses.MISSING and name not in data:
                raise ValueError(f"missing field {name!r}")
        manifest = cls(**data)
        manifest.check()
        if manifest.manifest_sha256 != manifest.content_sha256():
            raise ValueError("edited after the run (its fields do not match its manifest_sha256)")
        return manifest

    @classmethod
    def sealed(cls, **fields) -> Manifest:
        """A checked Manifest of `fields`, with its manifest_sha256."""
        manifest = cls(format=FORMAT, manifest_sha256="0" * 64, **fields)
        manifest.check()
        return dataclasses.replace(manifest, manifest_sha256=manifest.content_sha256())

    def content_sha256(self) -> str:
        fields = {k: v for k, v in self.to_json().items() if k != "manifest_sha256"}
        text = json.dumps(fields, sort_keys=True, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def check(self) -> None:
        """The manifest agrees with itself (ValueError naming the first disagreement)."""
        if self.n_games < 0 or self.data_bytes < 0:
            raise ValueError("negative n_games or data_bytes")
        for name in ("data_sha256", "manifest_sha256"):
            if not _HEX.fullmatch(getattr(self, name)):
                raise ValueError(f"{name} is not a SHA-256 in hex")
        if self.seed is not None and not 0 <= self.seed < 2**63:
            raise ValueError(f"seed {self.seed} is outside 0..2**63-1")
        if self.games_per_cell is not None and self.n_cells is not None:
            if self.games_per_cell * self.n_cells != self.n_games:
                raise ValueError(
                    f"n_games {self.n_games:,} is not games_per_cell {self.games_per_cell:,} "
                    f"times n_cells {self.n_cells}"
                )
        if self.cells is not None and self.n_cells is not None and len(self.cells) != self.n_cells:
            raise ValueError(f"{len(self.cells)} cells listed for n_cells {self.n_cells}")

    def to_json(self) -> dict:
        values = ((f.name, getattr(self, f.name)) for f in dataclasses.fields(self))
        return {k: v for k, v in values if v is not None}


def _fits(hint, value) -> bool:
    kinds = typing.get_args(hint) or (hint,)
    for kind in kinds:
        if kind is type(None):
            if value is None:
                return True
        elif kind is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return True
        elif isinstance(value, kind):
            return True
    return False


def _json_kind(value: object) -> str:
    names = {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def manifest_fields() -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(Manifest))


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Run:
    """A verified run folder: its manifest (a dict of Manifest's fields) and its games."""

    path: Path
    manifest: dict

    @property
    def games_path(self) -> Path:
        return self.path / GAMES

    @property
    def n_games(self) -> int:
        return self.manifest["n_games"]

    def scan(self) -> pl.LazyFrame:
        """The games, lazily (polars reads only the columns and row groups a query needs)."""
        return pl.scan_parquet(self.games_path, glob=False)  # [, * and ? are not patterns

    def read(self) -> pl.DataFrame:
        return self.collect(self.scan())

    def collect(self, query: pl.LazyFrame) -> pl.DataFrame:
        """query.collect(), with a file that passed the checks but fails to decode (made by
        hand to match its manifest) refused in one line. Some damage makes polars' decoder
        panic: PanicException, which is not an Exception, is refused the same way."""
        try:
            return query.collect()
        except (pl.exceptions.PolarsError, pl.exceptions.PanicException, OSError) as exc:
            problem = " ".join(str(exc).split())[:120]
            raise RunFolderError(f"{self.path}: {GAMES} cannot be read ({problem})") from None


def open_run(path: str | Path) -> Run:
    """Open a run or sweep folder and check that its games are the ones its manifest
    describes: manifest fields, games.parquet's size, SHA-256, row count and columns.
    Anything else raises RunFolderError, one line naming the folder and the problem."""
    folder = check_path(path)

    def refuse(problem: str):
        raise RunFolderError(f"{folder}: {problem}")

    if not folder.is_dir():
        if folder.exists():
            refuse("is a file, not a run folder")
        waiting = interrupted_run(folder)
        if waiting is not None and lock_held(folder):
            refuse(f"no such folder yet: a run is writing it now"
                   f"{_read_owner(Workspace(folder).partial)} ({waiting.saved:,} of "
                   f"{waiting.planned:,} games saved so far): wait for it to finish")
        if waiting is not None:
            refuse(f"no such folder yet: {waiting.sentence()}")
        refuse("no such folder (give a run or sweep folder)")
    games = folder / GAMES
    if not (folder / MANIFEST).exists() and not games.exists():
        refuse(f"no {GAMES} or {MANIFEST}: not a run or sweep folder")
    manifest = read_manifest(folder)
    game = manifest.game or DEFAULT
    if game != declared().name:
        refuse(f"holds games of {game!r}, this process plays {declared().name!r}: "
               f"set {CHOICE}={game} to read it")
    if not games.exists():
        refuse(f"no {GAMES}: the manifest describes {manifest.n_games:,} games")
    if not games.is_file():
        refuse(f"{GAMES} is not a regular file")
    size = games.stat().st_size
    if size != manifest.data_bytes:
        refuse(
            f"{GAMES} is {size:,} bytes, the manifest says {manifest.data_bytes:,}: "
            "truncated or replaced; run it again"
        )
    if file_sha256(games) != manifest.data_sha256:
        refuse(f"{GAMES} does not match the SHA-256 in its manifest: corrupt or edited; run it again")
    problem = schema_problem(games, manifest.n_games) or rows_problem(games, manifest)
    if problem:
        refuse(f"{GAMES}: {problem}")
    return Run(folder, manifest.to_json())


def folder_kind(folder: Path) -> str | None:
    """SEARCH or RUN for a run folder of either kind, None for anything else."""
    if (folder / SEARCH_FILE).exists():
        return SEARCH
    if (folder / GAMES).exists() or (folder / MANIFEST).exists():
        return RUN
    return None


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
    _write_durable(source, _json_bytes({"run": str(run.path.resolve()),
                                        "data_sha256": run.manifest["data_sha256"]}))


def read_manifest(folder: Path) -> Manifest:
    """The checked manifest of a folder (RunFolderError naming the problem otherwise)."""
    path = folder / MANIFEST
    try:
        text = read_text(path, MANIFEST_LIMIT)
        data = loads_json(text)
        return Manifest.from_json(data)
    except InputError as exc:
        raise RunFolderError(f"{path}: {exc.problem}") from None
    except json.JSONDecodeError as exc:
        raise RunFolderError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    except LimitError as exc:
        raise RunFolderError(f"{path}: not read: {exc}") from None
    except ValueError as exc:
        raise RunFolderError(f"{path}: {exc}") from None


MANIFEST_SLACK = 4096
"""Bytes a manifest gains after check_manifest_size: timings, outcome, hashes, sessions."""


def check_manifest_size(draft: dict) -> None:
    """UsageError, with the estimate, if the manifest of `draft` (its fields but for those
    MANIFEST_SLACK covers) would pass MANIFEST_LIMIT, the most read_manifest reads: a run
    is refused before it plays rather than committed into a folder no command can read."""
    size = len(_json_bytes(draft)) + MANIFEST_SLACK
    if size > MANIFEST_LIMIT:
        cells = len(draft.get("cells") or [])
        raise UsageError(
            f"the manifest of these {cells:,} cells would be about {size_text(size)}, more "
            f"than the {size_text(MANIFEST_LIMIT)} a run folder's manifest may have: play "
            "fewer cells (fewer values per axis) or split the experiment")


def schema_problem(path: Path, rows: int) -> str | None:
    """What is wrong with a games.parquet's footer: unreadable, rows, columns or types."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        meta = pq.read_metadata(path)
        schema = meta.schema.to_arrow_schema()
    except (pa.ArrowException, OSError) as exc:
        return f"not a readable Parquet file ({' '.join(str(exc).split())[:120]})"
    if meta.num_rows != rows:
        return f"{meta.num_rows:,} rows, the manifest says {rows:,}"
    expected = {f.name: f.type for f in fixed_columns()}
    for name, kind in expected.items():
        if schema.get_field_index(name) < 0:
            return f"no column {name!r}"
        if not schema.field(name).type.equals(kind):
            return f"column {name!r} is {schema.field(name).type}, expected {kind}"
    optional = {f.name: f.type for f in ruleset_columns()}
    for f in schema:
        if f.name in optional and not f.type.equals(optional[f.name]):
            return f"column {f.name!r} is {f.type}, expected {optional[f.name]}"
        if f.name not in expected and f.name not in optional and f.type != pa.float64():
            return f"column {f.name!r} is {f.type}: a parameter column must be double"
    return None


def rows_problem(path: Path, manifest: Manifest) -> str | None:
    """Rows that another run played, by the footer's statistics (or the columns where
    they are missing): a seed other than the manifest's, a cell it does not list, a game
    number past its games per cell."""
    import pyarrow.parquet as pq

    if manifest.n_games == 0:
        return None
    meta = pq.read_metadata(path)
    ranges = {}
    for name in ("seed", "cell", "game"):
        column = meta.schema.to_arrow_schema().get_field_index(name)
        stats = [meta.row_group(g).column(column).statistics for g in range(meta.num_row_groups)]
        if all(st is not None and st.has_min_max for st in stats):
            ranges[name] = (min(st.min for st in stats), max(st.max for st in stats))
        else:
            found = pl.scan_parquet(path).select(pl.col(name).min().alias("a"),
                                                 pl.col(name).max().alias("b")).collect()
            ranges[name] = (found["a"][0], found["b"][0])
    if manifest.seed is not None and ranges["seed"] != (manifest.seed, manifest.seed):
        other = ranges["seed"][1] if ranges["seed"][0] == manifest.seed else ranges["seed"][0]
        return f"holds rows of seed {other}, its manifest says seed {manifest.seed}: rows of another run"
    cells = [c.get("cell") for c in manifest.cells or [] if isinstance(c, dict)]
    if cells and not (min(cells) <= ranges["cell"][0] and ranges["cell"][1] <= max(cells)):
        return f"holds rows of cells {ranges['cell'][0]}..{ranges['cell'][1]}, its manifest " \
               f"lists cells {min(cells)}..{max(cells)}: rows of another run"
    if manifest.games_per_cell is not None and ranges["game"][1] >= manifest.games_per_cell:
        return f"holds game {ranges['game'][1]:,}, its manifest says {manifest.games_per_cell:,} " \
               "games per cell: rows of another run"
    return None


def fixed_columns():
    """The Arrow fields every games.parquet holds (parameter columns come in between)."""
    import pyarrow as pa

    from bollesim.batch.runner import ARROW_TYPES, HEAD_COLUMNS, RESULT_COLUMNS

    return [pa.field(name, ARROW_TYPES[kind]) for name, kind in HEAD_COLUMNS + RESULT_COLUMNS]


def ruleset_columns():
    """The Arrow fields of a sweep whose cells change the ruleset (runner.RULESET_COLUMNS)."""
    import pyarrow as pa

    from bollesim.batch.runner import ARROW_TYPES, RULESET_COLUMNS

    return [pa.field(name, ARROW_TYPES[kind]) for name, kind in RULESET_COLUMNS]


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def write_games(out: str | Path | Workspace, games: pl.DataFrame,
                files: dict[str, bytes] | None = None,
                writer: str = "the command that wrote it", kind: str = RUN, **fields) -> dict:
    """Write rows already in memory (made by a tool or a test) as the run folder `out`,
    through the same commit as a run's: the fixed columns are cast to their types, the
    others to double. `fields` are Manifest fields; n_games and the data's hash are
    filled in. `files` ({name: bytes}) are written into the folder in the same commit.
    `writer` names, for whoever finds the work of a write killed midway, what writes the
    folder again (there is nothing to resume). `out` may be the folder's Workspace, held
    by the caller, else one of `kind` is taken. Returns the manifest."""
    import pyarrow as pa

    from bollesim import __version__

    fixed = {f.name: f.type for f in fixed_columns()}
    table = games.to_arrow()
    schema = pa.schema([pa.field(c, fixed.get(c, pa.float64())) for c in games.columns])
    with out if isinstance(out, Workspace) else Workspace(out, kind) as ws:
        ws.start({"planned": games.height, "writer": writer}, "restart")
        if games.height:
            ws.add(0, 0, table.cast(schema))
        return ws.commit({"version": __version__, **fields, "n_games": games.height}, schema,
                         files)


# --------------------------------------------------------------------------- interrupted runs


@dataclass(frozen=True)
class Interrupted:
    """The work an interrupted run left next to its folder."""

    out: Path
    plan: dict
    saved: int  # games saved in finished chunks
    planned: int  # games the run will play at least (at most, with --precision)

    def sentence(self) -> str:
        partial = self.out.parent / f".{self.out.name}.partial"
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
    partial = out.parent / f".{out.name}.partial"
    try:
        plan = loads_json((partial / "plan.json").read_text(encoding="utf-8"))
        saved = sum(c.rows for c in _listing(partial / "chunks"))
    except (OSError, ValueError):
        return None
    if not isinstance(plan, dict) or not isinstance(plan.get("planned"), int):
        return None
    return Interrupted(out, plan, saved, plan["planned"])


def lock_held(out: str | Path) -> bool:
    """Whether a live process holds the lock of the run folder `out` (a writer at work);
    probed with a shared lock taken and dropped at once, never waiting."""
    import fcntl

    lock_path = Workspace(out).lock_path
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


def _listing(folder: Path) -> list[Chunk]:
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


def _chunk_identity(path: Path) -> dict | None:
    """The run identity a chunk file records, None if it records none or cannot be read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        raw = (pq.read_metadata(path).metadata or {}).get(CHUNK_RUN_KEY)
        found = loads_json(raw) if raw is not None else None
    except (pa.ArrowException, OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def _foreign(identity: dict, found: dict | None) -> str | None:
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


def _chunk_name(rnd: int, first: int, end: int, rows: int, prefix: str) -> str:
    return f"{rnd}-{first}-{end}-{rows}-{prefix}.parquet"


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
        parent, name = self.out.parent, self.out.name
        self.lock_path = parent / f".{name}.lock"
        self.partial = parent / f".{name}.partial"
        self.chunks = self.partial / "chunks"
        self.new = parent / f".{name}.new"
        self.old = parent / f".{name}.old"
        self.trash = parent / f".{name}.trash"
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

        with _writing(self.out.parent):
            self.out.parent.mkdir(parents=True, exist_ok=True)
            lock = FileLock(str(self.lock_path), timeout=0)
            try:
                lock.acquire()
            except Timeout:
                owner = _read_owner(self.partial)
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
        with _writing(self.out):
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
                _remove(self.partial)
            fresh = not self.partial.exists()
            self.chunks.mkdir(parents=True, exist_ok=True)
            if fresh:
                plan = {**plan, "sessions": 0}
            else:
                plan = {**plan, "sessions": waiting.plan.get("sessions", 0)}
            plan["sessions"] += 1
            _write_durable(self.partial / "plan.json", _json_bytes(plan))
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
            why = _foreign(self.identity, _chunk_identity(chunk.path))
            if why is not None:
                raise RunFolderError(
                    f"--resume: {chunk.path} does not belong to the interrupted run in "
                    f"{self.out}: {why}; remove it (or --restart to play the run again)")

    def _saved_chunks(self) -> list[Chunk]:
        """The saved chunks whose content matches their name; anything else in chunks/ goes."""
        good = [c for c in _listing(self.chunks) if file_sha256(c.path).startswith(c.prefix)]
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
        with _writing(self.out, RESUME_HINT):
            _write_durable(self.chunks / _chunk_name(rnd, first, end, table.num_rows, prefix), data)
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
        with _writing(self.out, RESUME_HINT):
            manifest = self._build(fields, schema, files or {})
            _write_durable(self.partial / "commit.json", _json_bytes({"sha256": manifest.data_sha256}))
            self._replace()
            self._clean_up()
        return manifest.to_json()

    def _build(self, fields: dict, schema, files: dict[str, bytes]) -> Manifest:
        """The next OUT in .OUT.new: games.parquet, manifest.json and `files`, durable
        (removed if it cannot be finished)."""
        _remove(self.new)
        self.new.mkdir()
        try:
            for name, data in files.items():
                if Path(name).name != name or name in (GAMES, MANIFEST):
                    raise ValueError(f"cannot write {name!r} beside the games")
                _write_durable(self.new / name, data)
            rows = self._merge(self.new / GAMES, schema)
            if rows != fields["n_games"]:
                raise AssertionError(f"{rows} rows saved for {fields['n_games']} games")
            data = self.new / GAMES
            manifest = Manifest.sealed(
                data_bytes=data.stat().st_size, data_sha256=file_sha256(data),
                **{"game": declared().name, **fields})
            _write_durable(self.new / MANIFEST, _json_bytes(manifest.to_json()))
            _fsync_dir(self.new)
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

            for chunk in _listing(self.chunks):
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
        _fsync_file(tmp)
        os.replace(tmp, path)
        return rows

    def _replace(self) -> None:
        """Put .OUT.new in OUT's place (put_in_place), durably."""
        put_in_place(self.new, self.out, self.old)
        _fsync_dir(self.out.parent)

    def _clean_up(self) -> None:
        """After the commit: the old folder and the work area go (the work area first, in one
        rename, so that no half-deleted work area looks like an interrupted run)."""
        _remove(self.trash)
        if self.partial.exists():
            os.rename(self.partial, self.trash)
        for path in (self.new, self.old, self.trash):
            _remove(path)

    def recover(self) -> None:
        """Complete or undo what a dead writer left: a commit cut short, a half-built
        .OUT.new, a half-done two-rename replacement, a half-deleted work area."""
        with _writing(self.out):
            _remove(self.trash)
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
            _remove(self.new)
            if self.old.exists():
                if self.out.exists():
                    _remove(self.old)
                else:
                    os.rename(self.old, self.out)


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


def _read_owner(partial: Path) -> str:
    try:
        return f" (process {int((partial / 'owner').read_text(encoding='utf-8'))})"
    except (OSError, ValueError):
        return ""


def _json_bytes(data: dict) -> bytes:
    return (json.dumps(data, indent=2, allow_nan=False) + "\n").encode("utf-8")


RESUME_HINT = "the finished chunks are saved: fix that, then run the same command with --resume"


class _writing:
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


def _write_durable(path: Path, data: bytes) -> None:
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
    _fsync_dir(path.parent)


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove(path: Path) -> None:
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

