"""Batches of games: `simulate` returns one row per game (docs/architecture.md §5); `run_to_dir`
streams a large batch to Parquet in chunks, so memory stays flat however many games.

Game g of a run is seeded from (seed, g) alone, so rows do not depend on the engine, the
number of threads or the chunk size.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from bollesim import events as E
from bollesim.errors import UsageError
from bollesim.policy import Policy, load_policy
from bollesim.rules.loader import Ruleset, load_ruleset

if TYPE_CHECKING:
    from bollesim.cluster import Cluster

# Result columns in the fast engine's order (engine/layout.py R_*), with their dtypes.
RESULT_COLUMNS = (
    ("operational", pl.Boolean),
    ("tactical", pl.Boolean),
    ("strategic", pl.Boolean),
    ("political", pl.Boolean),
    ("defeat", pl.Boolean),
    ("end_turn", pl.Int16),
    ("end_reason", pl.Utf8),
    ("first_fire_turn", pl.Int16),
    ("first_fire_roe", pl.Int16),
    ("final_roe", pl.Int16),
    ("deadline", pl.Int16),
    ("tanks_at_t2", pl.Int16),
    ("airstrike_turn", pl.Int16),
    ("heavy_damage", pl.Int16),
    ("light_damage", pl.Int16),
    ("chits_drawn", pl.Int16),
    ("random_draws", pl.Int32),
)
NULL_WHEN_ZERO = ("first_fire_turn", "first_fire_roe", "airstrike_turn")
ENGINES = ("fast", "reference")
DEFAULT_CHUNK = 250_000


def resolve_policy(policy: str | Policy) -> Policy:
    return policy if isinstance(policy, Policy) else load_policy(policy)


def param_matrix(policy: Policy, n_games: int, params=None) -> np.ndarray:
    """Per-game parameter rows: params is None (defaults), a dict name -> value (one value
    or one per game), or an (n_games, n_params) array. One set for every game is a
    read-only broadcast view (10 million games would otherwise take 400 MB)."""
    if isinstance(params, np.ndarray):
        if params.shape != (n_games, len(policy.parameters)):
            raise UsageError(f"params must have shape ({n_games}, {len(policy.parameters)})")
        return np.ascontiguousarray(params, dtype=np.float64)
    params = dict(params or {})
    policy.check_names(params)
    scalars = {k: v for k, v in params.items() if np.ndim(v) == 0}
    out = np.broadcast_to(policy.param_vector(scalars), (n_games, len(policy.parameters)))
    if len(scalars) < len(params):
        out = out.copy()
    for name, values in params.items():
        if np.ndim(values) == 0:
            continue
        values = np.asarray(values, dtype=np.float64)
        if values.shape != (n_games,):
            raise UsageError(f"parameter {name!r}: {values.shape[0]} values for {n_games} games")
        i = [p.name for p in policy.parameters].index(name)
        for row in np.unique(values):  # validate each distinct value against its range
            policy.param_vector({name: row})
        out[:, i] = values
    return out


def _check_counts(n_games: int, seed: int) -> None:
    if n_games < 0:
        raise UsageError(f"the number of games must be 0 or more, got {n_games}")
    if not 0 <= seed < 2**63:
        raise UsageError(f"the seed must be a whole number from 0 to 2**63 - 1, got {seed}")


def play_chunk(
    rules: Ruleset,
    policy: Policy,
    params: np.ndarray,
    seed: int,
    first_game: int,
    engine: str = "fast",
) -> np.ndarray:
    """Results (n, N_RESULTS) int64 of games first_game .. first_game + n - 1."""
    from bollesim.engine import layout as L

    n = params.shape[0]
    out = np.zeros((n, L.N_RESULTS), dtype=np.int64)
    if engine == "fast":
        from bollesim.engine.play import play_batch
        from bollesim.engine.tables import pack_rules

        block = max(1, min(1024, n // 64))
        params = np.require(params, np.float64, ["C", "W"])  # a broadcast view is copied
        play_batch(pack_rules(rules), policy.decide, params, seed, first_game, out, block)
        return out
    from bollesim.reference.play import play_game

    for g in range(n):
        row = play_game(rules, policy, params[g], seed, first_game + g)
        out[g] = [_as_int(row[name]) for name, _ in RESULT_COLUMNS]
    return out


def play_chunks(
    rules: Ruleset, jobs: Iterable[tuple], engine: str = "fast", cluster: Cluster | None = None
) -> Iterator[np.ndarray]:
    """Results of each job (policy, params, seed, first_game), in job order: played here,
    one after another on all cores, or as tasks on a Dask cluster (cluster.py)."""
    if cluster is not None:
        yield from cluster.play(rules, jobs, engine)
        return
    for policy, params, seed, first_game in jobs:
        yield play_chunk(rules, policy, params, seed, first_game, engine)


def _as_int(value) -> int:
    if value is None:
        return 0
    if isinstance(value, str):
        return E.END_REASONS.index(value)
    return int(value)


def to_frame(
    results: np.ndarray,
    policy: Policy,
    params: np.ndarray,
    seed: int,
    first_game: int,
    cell: int = 0,
) -> pl.DataFrame:
    """One row per game (docs/architecture.md §5) from the engine's result array."""
    n = results.shape[0]
    columns: dict[str, pl.Series] = {
        "game": pl.Series(np.arange(first_game, first_game + n, dtype=np.int64)),
        "seed": pl.Series(np.full(n, seed, dtype=np.int64)),
        "policy": pl.Series([policy.name] * n, dtype=pl.Utf8),
        "cell": pl.Series(np.full(n, cell, dtype=np.int32)),
    }
    for i, p in enumerate(policy.parameters):
        columns[p.name] = pl.Series(params[:, i])
    for i, (name, dtype) in enumerate(RESULT_COLUMNS):
        values = results[:, i]
        if name == "end_reason":
            series = pl.Series(np.array(E.END_REASONS)[values])
        else:
            series = pl.Series(values).cast(dtype)
            if name in NULL_WHEN_ZERO:
                series = pl.when(series > 0).then(series).otherwise(None)
                series = pl.select(series).to_series()
        columns[name] = series.alias(name)
    return pl.DataFrame(columns)


def chunks(n_games: int, chunk_size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n_games, chunk_size):
        yield start, min(n_games, start + chunk_size)


def set_threads(threads: int | None) -> None:
    import numba

    if threads is None:
        return
    if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise UsageError(
            f"--threads must be from 1 to {numba.config.NUMBA_NUM_THREADS}, got {threads}"
        )
    numba.set_num_threads(threads)


def simulate(
    policy: str | Policy,
    n_games: int,
    seed: int = 0,
    params=None,
    rules: Ruleset | None = None,
    engine: str = "fast",
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    first_game: int = 0,
    cluster: Cluster | None = None,
) -> pl.DataFrame:
    """Play n_games and return one row per game (a polars DataFrame); with a
    cluster.Cluster, the chunks are played as tasks on its workers (same rows).

    >>> df = simulate("historical", 10_000, seed=1)
    >>> df.select(pl.col("operational", "defeat").mean())
    """
    _check_counts(n_games, seed)
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r} (choose fast or reference)")
    policy = resolve_policy(policy)
    rules = rules or load_ruleset()
    matrix = param_matrix(policy, n_games, params)
    set_threads(threads)
    spans = list(chunks(n_games, max(1, chunk_size)))
    jobs = ((policy, matrix[a:b], seed, first_game + a) for a, b in spans)
    frames = [
        to_frame(results, policy, matrix[a:b], seed, first_game + a)
        for (a, b), results in zip(spans, play_chunks(rules, jobs, engine, cluster), strict=True)
    ]
    return (
        pl.concat(frames)
        if frames
        else to_frame(
            np.zeros((0, len(RESULT_COLUMNS)), dtype=np.int64), policy, matrix, seed, first_game
        )
    )


def run_to_dir(
    out_dir: str | Path,
    policy: str | Policy,
    n_games: int,
    seed: int = 0,
    params=None,
    rules: Ruleset | None = None,
    engine: str = "fast",
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    progress: Callable[[int], None] | None = None,
    extra_manifest: dict | None = None,
    cluster: Cluster | None = None,
) -> dict:
    """Play a batch into out_dir/games.parquet and out_dir/manifest.json, chunk by chunk
    (with a cluster.Cluster, as tasks on its workers).

    Both files are written under temporary names and renamed when complete, so an
    interrupted run leaves no half-written file (and keeps an earlier run's files).
    """
    _check_counts(n_games, seed)
    policy = resolve_policy(policy)
    rules = rules or load_ruleset()
    out_dir = prepare_dir(out_dir)
    matrix = param_matrix(policy, n_games, params)
    set_threads(threads)
    t0 = time.perf_counter()
    warm = warm_up(rules, policy, engine, cluster)

    def write(results: np.ndarray, a: int, b: int) -> None:
        sink.write(to_frame(results, policy, matrix[a:b], seed, a).to_arrow())
        if progress:
            progress(b - a)

    # One writer thread: chunk k is written while chunk k + 1 plays (the kernel releases
    # the GIL); writes stay in game order.
    with ParquetSink(out_dir / "games.parquet") as sink, ThreadPoolExecutor(1) as writer:
        t1 = time.perf_counter()
        pending = None
        spans = list(chunks(n_games, max(1, chunk_size)))
        jobs = ((policy, matrix[a:b], seed, a) for a, b in spans)
        for (a, b), results in zip(spans, play_chunks(rules, jobs, engine, cluster), strict=True):
            if pending is not None:
                pending.result()
            pending = writer.submit(write, results, a, b)
        if pending is not None:
            pending.result()
        empty = np.zeros((0, len(RESULT_COLUMNS)), dtype=np.int64)
        sink.commit(to_frame(empty, policy, matrix[:0], seed, 0).to_arrow())
        run_seconds = time.perf_counter() - t1
    manifest = make_manifest(rules, policy, matrix, seed, n_games, engine, threads, chunk_size)
    manifest["timings"] = timings(warm, run_seconds, t0, n_games)
    if cluster is not None:
        manifest["cluster"] = cluster.describe()
    manifest.update(extra_manifest or {})
    write_json(out_dir / "manifest.json", manifest)
    return manifest


class ParquetSink:
    """A Parquet file written table by table under a temporary name in its folder and
    renamed into place by commit(); leaving the `with` block without commit() removes
    the temporary file, so an interrupted run never leaves a half-written file (and keeps
    an earlier run's)."""

    def __init__(self, path: Path):
        self.path = path
        self.tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        self.writer = None

    def write(self, table) -> None:
        """Append an Arrow table; the first one fixes the schema, later ones are cast to it."""
        import pyarrow.parquet as pq

        if self.writer is None:
            self.writer = pq.ParquetWriter(self.tmp, table.schema, compression="zstd")
        self.writer.write_table(table.cast(self.writer.schema))

    def commit(self, empty_table) -> None:
        """Close and rename into place; with nothing written, `empty_table` gives the schema
        of a valid, empty file."""
        if self.writer is None:
            self.write(empty_table)
        self.writer.close()
        self.writer = None
        os.replace(self.tmp, self.path)

    def __enter__(self) -> ParquetSink:
        return self

    def __exit__(self, *exc) -> None:
        if self.writer is not None:
            self.writer.close()
        self.tmp.unlink(missing_ok=True)


def timings(warm_up_s: float, run_s: float, t0: float, games: int) -> dict:
    """The manifest's timings: compile or cache load, play, wall total, throughput."""
    return {
        "warm_up_s": round(warm_up_s, 3),
        "run_s": round(run_s, 3),
        "total_s": round(time.perf_counter() - t0, 3),
        "games_per_s": round(games / run_s, 1) if run_s > 0 else None,
    }


def warm_up(rules: Ruleset, policy: Policy, engine: str, cluster: Cluster | None = None) -> float:
    """Load (or compile) the engine before timing, here or on every worker of a cluster;
    returns the seconds it took."""
    t = time.perf_counter()
    if cluster is not None:
        cluster.warm_up(rules, policy, engine)
    else:
        play_chunk(rules, policy, policy.param_vector()[None, :], 0, 0, engine)
    return time.perf_counter() - t


def prepare_dir(out_dir: str | Path) -> Path:
    """Create out_dir if needed and check it is writable (UsageError otherwise)."""
    path = Path(out_dir)
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-test.{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"cannot write to output folder {str(path)!r}: {exc.strerror}") from None
    return path


def make_manifest(
    rules: Ruleset,
    policy: Policy,
    matrix: np.ndarray,
    seed: int,
    n_games: int,
    engine: str,
    threads: int | None,
    chunk_size: int,
) -> dict:
    import numba

    from bollesim import __version__

    same = len(matrix) > 0 and (  # one parameter set for every game
        matrix.strides[0] == 0  # param_matrix's broadcast view
        or np.array_equal(matrix, np.broadcast_to(matrix[0], matrix.shape), equal_nan=True)
    )
    return {
        "version": __version__,
        "ruleset": rules.name,
        "ruleset_hash": rules.digest,
        "policy": policy.name,
        "params": {p.name: float(matrix[0, i]) for i, p in enumerate(policy.parameters)}
        if same
        else "per game (see the parameter columns)",
        "seed": seed,
        "n_games": n_games,
        "engine": engine,
        "threads": threads or numba.get_num_threads(),
        "chunk_size": chunk_size,
        "machine": f"{platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def write_json(path: Path, data: dict) -> None:
    """Write JSON atomically (temp file in the same folder, then rename)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
