"""A run folder: the games of a run or sweep, their manifest and their reports, kept as
one unit that readers can trust and an interrupted run can continue.

The folder OUT (`bollesim run/sweep --out OUT`) holds

    games.parquet    one row per game (docs/architecture.md §5): `game`, `seed`, `policy`, `cell`, the
                     policies' parameter columns (float64, null where a policy has no such
                     parameter; Run.read gives them their declared types,
                     columns.typed_params), in a sweep whose cells change the ruleset `ruleset` (what
                     the cell changes, "" for nothing) and `ruleset_hash` (strings), then
                     runner.result_columns(); in row groups of ROW_GROUP_ROWS rows
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

The manifest's format: manifest.py; the writer's side: workspace.py; the work
of a run in progress: partial.py; durable writes: durable.py.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from bollesim.batch.manifest import Manifest, manifest_game
from bollesim.batch.partial import beside, interrupted_run, lock_held, read_owner
from bollesim.errors import UsageError
from bollesim.game.columns import typed_params
from bollesim.game.declaration import Game
from bollesim.game.registry import DEFAULT_GAME, registered
from bollesim.inputs import (
    MANIFEST_LIMIT,
    InputError,
    LimitError,
    check_path,
    loads_json,
    read_text,
)

GAMES = "games.parquet"
MANIFEST = "manifest.json"


RUN, SEARCH = "run", "search"
SEARCH_FILE = "best.json"
"""The file that makes a run folder a policy search's result (`bollesim optimise`)."""
KINDS = {RUN: "a run's or sweep's games", SEARCH: "a policy search's result"}
TRAJECTORY = "trajectory.parquet"
"""A search's every rung of every trial, beside its SEARCH_FILE."""
RATES_CSV = "rates.csv"
"""The balance report's table of every cell's rates."""
ANALYSIS = "analysis"
"""The stem of the luck and errors of many of a run's games (`bollesim analyse --from DIR
-n N`): ANALYSIS_JSON, which the balance report reads, beside analysis.md, analysis.html
and their charts."""
ANALYSIS_JSON = f"{ANALYSIS}.json"
TUNE_FILES = re.compile(r"tune(-[\w.-]+)?\.(md|html|png|csv|json)|patch\.toml|proposal-\d+\.toml"
                        r"|trials\.csv")
"""The files of an inverse design's result (`bollesim tune`, search/tune_report.py)."""
WRITTEN = re.compile(
    "|".join(map(re.escape, (GAMES, MANIFEST, SEARCH_FILE, TRAJECTORY, RATES_CSV)))
    + rf"|(report|sensitivity|optimise|compare|headroom|{ANALYSIS})(-[\w.-]+)?\.(md|html|png|csv|json)"
    + f"|{TUNE_FILES.pattern}")
"""The names of the files bollesim writes into a run folder: the run's and a search's
(above) and its reports' and analysis's (STEM.md, STEM.html, STEM-*.png, their tables).
A run put in a run folder's place replaces these; anything else there (a reader's notes,
another run's folder) it keeps (workspace.carry_over)."""
REPORT_SOURCE = ".{kind}-source.json"  # kind: "report" or "sensitivity"
"""In a folder a report was written to with --out: {"run", "data_sha256"} of its run."""


class RunFolderError(UsageError):
    """A run folder that cannot be trusted or written as asked; str() is one line."""


class RunFolderBusy(RunFolderError):
    """Another process holds the run folder's lock."""

# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Run:
    """A verified run folder: its manifest (a dict of Manifest's fields) and its games."""

    path: Path
    manifest: dict

    @property
    def game(self) -> Game:
        """The game its games are of, as its manifest records it."""
        return manifest_game(self.manifest)

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
        """The games, each parameter column of its declared type (columns.typed_params;
        scan() gives them as stored, Float64)."""
        return typed_params(self.collect(self.scan()), self.game)

    def cell_firsts(self) -> pl.DataFrame:
        """One row per cell, its first game, parameters typed as read() gives them: what a
        cell's label is made from (naming.cell_labels)."""
        return typed_params(self.collect(self.scan().group_by("cell").agg(pl.all().first())),
                            self.game)

    def collect(self, query: pl.LazyFrame) -> pl.DataFrame:
        """query.collect(), with a file that passed the checks but fails to decode (made by
        hand to match its manifest) refused in one line. Some damage makes polars' decoder
        panic: PanicException, which is not an Exception, is refused the same way."""
        try:
            return query.collect()
        except (pl.exceptions.PolarsError, pl.exceptions.PanicException, OSError) as exc:
            problem = " ".join(str(exc).split())[:120]
            raise RunFolderError(f"{self.path}: {GAMES} cannot be read ({problem})") from None


def open_run(path: str | Path, game: Game | None = None) -> Run:
    """Open a run or sweep folder and check that its games are the ones its manifest
    describes: manifest fields, games.parquet's size, SHA-256, row count and columns, of
    the game it records (`game`, if given, must be that one: a command asked for one game
    refuses another's folder). Anything else raises RunFolderError, one line naming the
    folder and the problem."""
    folder = check_path(path)

    def refuse(problem: str):
        raise RunFolderError(f"{folder}: {problem}")

    if not folder.is_dir():
        if folder.exists():
            refuse("is a file, not a run folder")
        waiting = interrupted_run(folder)
        if waiting is not None and lock_held(folder):
            refuse(f"no such folder yet: a run is writing it now"
                   f"{read_owner(beside(folder, 'partial'))} ({waiting.saved:,} of "
                   f"{waiting.planned:,} games saved so far): wait for it to finish")
        if waiting is not None:
            refuse(f"no such folder yet: {waiting.sentence()}")
        refuse("no such folder (give a run or sweep folder)")
    games = folder / GAMES
    if not (folder / MANIFEST).exists() and not games.exists():
        refuse(f"no {GAMES} or {MANIFEST}: not a run or sweep folder")
    manifest = read_manifest(folder)
    held = manifest.game or DEFAULT_GAME
    if held not in registered():
        refuse(f"holds games of {held!r}, a game this installation does not know (known: "
               f"{', '.join(registered())})")
    if game is not None and held != game.name:
        refuse(f"holds games of {held!r}, not of {game.name!r}")
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
    problem = (schema_problem(games, manifest.n_games, manifest_game(manifest.to_json()))
               or rows_problem(games, manifest))
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


def schema_problem(path: Path, rows: int, game: Game) -> str | None:
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
    expected = {f.name: f.type for f in fixed_columns(game)}
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


def fixed_columns(game: Game):
    """The Arrow fields every games.parquet of the game holds (parameter columns come in
    between)."""
    import pyarrow as pa

    from bollesim.batch.runner import ARROW_TYPES, HEAD_COLUMNS, result_columns

    return [pa.field(name, ARROW_TYPES[kind]) for name, kind in HEAD_COLUMNS + result_columns(game)]


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
