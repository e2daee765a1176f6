"""Batches of games: `simulate` returns one row per game (docs/architecture.md §5);
`play_chunk` plays a range of games with either engine, and `to_table` makes their rows.
(`session.run_to_dir` plays a large batch into a run folder chunk by chunk.)

Game g of a run is seeded from (seed, g) alone, so rows do not depend on the engine, the
number of threads or the chunk size.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

import numpy as np
import polars as pl
import pyarrow as pa

from bollesim.batch.limits import DEFAULT_SEED, check_count
from bollesim.batch.options import RunOptions, check_threads
from bollesim.errors import UsageError
from bollesim.game.columns import typed_params
from bollesim.game.declaration import Game, Ruleset
from bollesim.game.policy import Policy, load_policy
from bollesim.game.registry import DEFAULT_GAME, load_game

HEAD_COLUMNS = (("game", pl.Int64), ("seed", pl.Int64), ("policy", pl.Utf8), ("cell", pl.Int32))
"""The columns before the parameters."""
RULESET_COLUMNS = (("ruleset", pl.Utf8), ("ruleset_hash", pl.Utf8))
"""The columns of a sweep whose cells change the ruleset (spec.py, a grid's `rules`
and `readings`): what the row's cell changes in the experiment's ruleset, one line ("" for
nothing), and the SHA-256 of the ruleset it played."""
ARROW_TYPES = {
    pl.Boolean: pa.bool_(),
    pl.Int16: pa.int16(),
    pl.Int32: pa.int32(),
    pl.Int64: pa.int64(),
    pl.Float64: pa.float64(),
    pl.Utf8: pa.string(),
}
DEFAULT_CHUNK = {"fast": 250_000, "reference": 1_000}
"""Games per chunk: a few seconds of play on two cores for either engine."""
FRAME_BYTES_PER_GAME = 200
"""Memory of one row of simulate()'s DataFrame, with room for the chunk being built."""


class ChunkPlayer(Protocol):
    """What plays chunks of games elsewhere: cluster.Cluster, as tasks on Dask workers."""

    def play(self, jobs: Iterable[tuple], engine: str) -> Iterator[np.ndarray]: ...

    def warm_up(self, rules: Ruleset, policy: Policy, engine: str) -> None: ...


def resolve_policy(policy: str | Policy, game: str | Game) -> Policy:
    """The policy itself, or the game's policy of that name."""
    return policy if isinstance(policy, Policy) else load_policy(policy, game)


def param_matrix(policy: Policy, n_games: int, params=None) -> np.ndarray:
    """Per-game parameter rows: params is None (defaults), a dict name -> value (one value
    or one per game), or an (n_games, n_params) array. One set for every game is a
    read-only broadcast view (10 million games would otherwise take 400 MB)."""
    if isinstance(params, np.ndarray):
        if params.shape != (n_games, len(policy.parameters)):
            raise UsageError(f"params must have shape ({n_games}, {len(policy.parameters)})")
        matrix = np.ascontiguousarray(params, dtype=np.float64)
        low, high = (np.array([getattr(p, end) for p in policy.parameters]) for end in ("low", "high"))
        outside = ~((matrix >= low) & (matrix <= high))  # NaN too
        if outside.any():
            row, column = np.argwhere(outside)[0]
            p = policy.parameters[column]
            raise UsageError(f"params[{row}, {column}]: {policy.name}.{p.name} = {matrix[row, column]:g} "
                             f"is outside its range {p.low:g}..{p.high:g}")
        return matrix
    params = dict(params or {})
    policy.check_names(params)
    scalars = {k: v for k, v in params.items() if np.ndim(v) == 0}
    out = np.broadcast_to(policy.param_vector(scalars), (n_games, len(policy.parameters)))
    if len(scalars) < len(params):
        out = out.copy()
    for name, values in params.items():
        if np.ndim(values) == 0:
            continue
        i = [p.name for p in policy.parameters].index(name)
        values = np.asarray(values)
        if values.dtype.kind in "US":  # a choice's names
            names, where = np.unique(values, return_inverse=True)
            values = np.array([policy.param_vector({name: str(n)})[i] for n in names])[where]
        values = values.astype(np.float64)
        if values.shape != (n_games,):
            raise UsageError(f"parameter {name!r}: {values.shape[0]} values for {n_games} games")
        for row in np.unique(values):  # validate each distinct value against its range
            policy.param_vector({name: row})
        out[:, i] = values
    return out


def result_columns(game: str | Game) -> tuple[tuple[str, type], ...]:
    """The game's result columns in its engine's order, with their dtypes (its declaration)."""
    return tuple((c.name, c.dtype) for c in load_game(game).result.columns)


def check_counts(n_games: int, seed: int) -> None:
    """A number of games and a run seed within limits.LIMITS."""
    check_count("the number of games", n_games, "games")
    check_count("the seed", seed, "seed")


def play_chunk(
    rules: Ruleset,
    policy: Policy,
    params: np.ndarray,
    seed: int,
    first_game: int,
    engine: str = "fast",
) -> np.ndarray:
    """Results (n, the game's result columns) int64 of games first_game .. first_game + n - 1,
    played as the policy's kind plays them (game.policy)."""
    # Both engines hand rows of params to the compiled decide(), which takes writable
    # contiguous float64 vectors: a read-only broadcast view is copied here.
    params = np.require(params, np.float64, ["C", "W"])
    return policy.play_chunk(rules, params, seed, first_game, engine)


def play_chunks(
    jobs: Iterable[tuple], engine: str = "fast", cluster: ChunkPlayer | None = None
) -> Iterator[np.ndarray]:
    """Results of each job (policy, params, seed, first_game, rules), in job order: played
    here, one after another on all cores, or as tasks on a Dask cluster (cluster.py)."""
    if cluster is not None:
        yield from cluster.play(jobs, engine)
        return
    for policy, params, seed, first_game, rules in jobs:
        yield play_chunk(rules, policy, params, seed, first_game, engine)


def to_frame(
    results: np.ndarray,
    policy: Policy,
    params: np.ndarray,
    seed: int,
    first_game: int,
    cell: int = 0,
) -> pl.DataFrame:
    """One row per game (docs/architecture.md §5) from the engine's result array."""
    return pl.from_arrow(to_table(results, policy, params, seed, first_game, cell))


def to_table(
    results: np.ndarray,
    policy: Policy,
    params: np.ndarray,
    seed: int,
    first_game: int,
    cell: int = 0,
    schema: pa.Schema | None = None,
) -> pa.Table:
    """The rows of to_frame as an Arrow table of `schema` (default: this policy's
    dataset_schema; parameters of other policies are null)."""
    schema = schema or dataset_schema(policy.game, (p.name for p in policy.parameters))
    n = results.shape[0]
    columns = {
        "game": _arrow(np.arange(first_game, first_game + n), pa.int64()),
        "seed": _arrow(np.full(n, seed), pa.int64()),
        "policy": _arrow_texts([policy.name], np.zeros(n, dtype=np.int64)),
        "cell": _arrow(np.full(n, cell), pa.int32()),
    }
    for i, p in enumerate(policy.parameters):
        columns[p.name] = _arrow(params[:, i], pa.float64())
    for i, c in enumerate(load_game(policy.game).result.columns):
        values = results[:, i]
        mask = values <= 0 if c.null_when_zero else None
        if c.texts:
            columns[c.name] = _arrow_texts(c.texts, values - c.null_when_zero, mask)
            continue
        columns[c.name] = _arrow(values, ARROW_TYPES[c.dtype], mask)
    arrays = [columns[f.name] if f.name in columns else pa.nulls(n, f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


# The columns are built from their buffers: pa.array imports pandas wherever it is
# installed, about 150 ms of every start.


def _arrow(values: np.ndarray, kind: pa.DataType, mask: np.ndarray | None = None) -> pa.Array:
    """values as an Arrow array of kind (bool or numeric), null where mask."""
    if kind == pa.bool_():
        data = np.packbits(values.astype(np.bool_), bitorder="little")
    else:
        data = np.ascontiguousarray(values, dtype=kind.to_pandas_dtype())
    validity = None if mask is None else pa.py_buffer(np.packbits(~mask, bitorder="little"))
    return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(data)])


def _arrow_texts(texts, codes: np.ndarray, mask: np.ndarray | None = None) -> pa.Array:
    """texts[codes] as an Arrow string array, null where mask."""
    encoded = [t.encode("utf-8") for t in texts]
    offsets = np.concatenate([[0], np.cumsum([len(e) for e in encoded])]).astype(np.int32)
    dictionary = pa.Array.from_buffers(
        pa.string(), len(texts), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )
    indices = _arrow(np.maximum(codes, 0), pa.int64(), mask)
    return pa.DictionaryArray.from_arrays(indices, dictionary).cast(pa.string())


def dataset_schema(game: str | Game, param_names: Iterable[str], rulesets: bool = False) -> pa.Schema:
    """The Arrow schema of the game's games.parquet: HEAD_COLUMNS, the parameters,
    RULESET_COLUMNS (with `rulesets`: a sweep whose cells change the ruleset), the game's
    result_columns."""
    head = [pa.field(name, ARROW_TYPES[kind]) for name, kind in HEAD_COLUMNS]
    params = [pa.field(name, pa.float64()) for name in param_names]
    ruleset = [pa.field(name, ARROW_TYPES[kind]) for name, kind in RULESET_COLUMNS] \
        if rulesets else []
    results = [pa.field(name, ARROW_TYPES[kind]) for name, kind in result_columns(game)]
    return pa.schema(head + params + ruleset + results)


def with_ruleset(table: pa.Table, text: str, digest: str) -> pa.Table:
    """The rows of one cell with its RULESET_COLUMNS filled in."""
    for name, value in zip((n for n, _ in RULESET_COLUMNS), (text, digest), strict=True):
        i = table.schema.get_field_index(name)
        column = _arrow_texts([value], np.zeros(table.num_rows, dtype=np.int64))
        table = table.set_column(i, name, column)
    return table


def chunks(n_games: int, chunk_size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n_games, chunk_size):
        yield start, min(n_games, start + chunk_size)


def threads_used(threads: int | None) -> int:
    """The fast engine's threads: the number asked for, else numba's (all cores)."""
    import numba

    return threads or numba.get_num_threads()


def set_threads(threads: int | None) -> None:
    """Give the fast engine `threads` threads (None: leave them as they are)."""
    import numba

    check_threads(threads)
    if threads is not None:
        numba.set_num_threads(threads)


def simulate(
    policy: str | Policy,
    n_games: int,
    seed: int = DEFAULT_SEED,
    params=None,
    rules: Ruleset | None = None,
    engine: str | None = None,
    threads: int | None = None,
    chunk_size: int | None = None,
    first_game: int = 0,
    cluster: ChunkPlayer | None = None,
    progress: bool | Callable[[int], None] = False,
    options: RunOptions | None = None,
    game: str | Game = DEFAULT_GAME,
) -> pl.DataFrame:
    """Play games first_game .. first_game + n_games - 1 and return one row per game.

    Game g is seeded from (seed, g) alone, so the rows are the same whatever the engine,
    threads, chunk size or cluster, and the same as `bollesim run --seed S` writes.

    Parameters
    ----------
    policy : a policy name from policies/ (see `bollesim policies`) or a bollesim.game.policy.Policy
    n_games : how many games to play
    seed : the run seed, 0 .. 2**63 - 1 (default 1, as on the command line)
    params : None (the policy's defaults), a dict {name: value} with one value for every
        game or one value per game (e.g. {"t": np.arange(n) % 20 + 1}), or an
        (n_games, n_parameters) array; a categorical parameter's value may be the name of
        its choice, in any case ({"target": "tank"})
    rules : a Ruleset of the game (bollesim.load_ruleset(overrides=["roe.fire_allowed=10"]));
        None: the shipped default
    engine, threads, chunk_size, cluster : how the games are played (they change no row),
        given here or as `options`, a bollesim.batch.options.RunOptions (keywords given
        here are put over it): engine "fast" (numba, compiled on first use, then cached)
        or "reference" (plain Python: the same games, slowly); threads of the fast engine
        (None: all cores); games per piece of work; a bollesim.batch.cluster.Cluster that
        plays the pieces as tasks on its workers
    first_game : index of the first game (to continue a batch)
    game : the game whose policy `policy` names, a registered name ("bollebank",
        "balkan-wars", bollesim.load_game) or a Game; a Policy plays its own game
    progress : True shows a progress bar (tqdm.auto: a widget in Jupyter, text in a
        terminal) that moves as games finish; a callable gets the number of games each
        finished piece played. Either way the work goes in pieces of about 1% of the games
        (at least PROGRESS_PIECE), so the bar moves; the rows are the same.

    Returns
    -------
    polars.DataFrame, one row per game (`.to_pandas()` for pandas): `game`, `seed`,
    `policy`, `cell` (0), one column per policy parameter of its declared type
    (Parameter.dtype: a choice as pl.Enum of its names, a pandas Categorical after
    to_pandas(); a whole number Int64; a real number Float64), the outcomes
    `operational`, `tactical`, `strategic`, `political`, `defeat` (bool; a game can win
    several victory types, a defeat none), `end_turn`, `end_reason`, `first_fire_turn` and
    `first_fire_roe` (null: never fired), `final_roe`, `deadline`, `tanks_at_t2`,
    `airstrike_turn` (null: none), `heavy_damage`, `light_damage`, `chits_drawn`,
    `random_draws`, and how a defeat came: `first_loss_turn`, `loss_vehicle`,
    `loss_cause`, `loss_place` (the game's result declaration says what each means).

    Examples
    --------
    >>> import polars as pl
    >>> from bollesim import simulate, analysis as A
    >>> df = simulate("historical", 10_000, seed=1, progress=True)
    >>> df.select(pl.col("operational", "defeat").mean())
    >>> A.rates(df)                                         # every rate with its 95% interval
    >>> early = simulate("fire_at_roe", 10_000, params={"k": 8})   # same seeds: paired
    """
    policy = resolve_policy(policy, game)
    frame = _simulate(policy, n_games, seed, params, rules, first_game, progress,
                      RunOptions.of(options, engine=engine, threads=threads,
                                    chunk_size=chunk_size, cluster=cluster))
    return typed_params(frame, [policy])


def stored_rows(policy: Policy, n_games: int, seed: int = DEFAULT_SEED, params=None,
                rules: Ruleset | None = None, first_game: int = 0,
                progress: bool | Callable[[int], None] = False,
                options: RunOptions | None = None) -> pl.DataFrame:
    """simulate()'s rows as games.parquet stores them: every parameter column Float64, as
    the engines take them (sweeps.sweep_frame builds its frame of them, then types it)."""
    return _simulate(policy, n_games, seed, params, rules, first_game, progress,
                     RunOptions.of(options))


def _simulate(policy: Policy, n_games: int, seed: int, params, rules: Ruleset | None,
              first_game: int, progress, options: RunOptions) -> pl.DataFrame:
    """simulate() of the policy's game, with its options made."""
    from bollesim.resources import check_memory

    if options.precision is not None or options.mode != "new":
        raise UsageError("simulate plays a fixed number of games in memory: precision and "
                         "mode are for a run folder (run_to_dir, sweep)")
    check_counts(n_games, seed)
    check_count("first_game", first_game, "games")
    check_count("first_game + n_games", first_game + n_games, "games")
    if rules is not None and not all(hasattr(rules, a) for a in ("name", "digest", "data", "readings")):
        raise TypeError(f"rules must be a Ruleset (bollesim.load_ruleset(...)) or None, "
                        f"not {type(rules).__name__}")
    check_memory(n_games * FRAME_BYTES_PER_GAME, f"simulate() of {n_games:,} games")
    rules = rules or load_game(policy.game).load_ruleset()
    matrix = param_matrix(policy, n_games, params)
    set_threads(options.threads)
    engine = options.engine
    size = max(1, options.chunk_size or default_chunk(policy, engine))
    bar, advance = _progress(progress, n_games, policy.name)
    if advance is not None:
        size = min(size, progress_chunk(n_games))
    spans = list(chunks(n_games, size))
    jobs = ((policy, matrix[a:b], seed, first_game + a, rules) for a, b in spans)
    frames = []
    try:
        for (a, b), results in zip(spans, play_chunks(jobs, engine, options.cluster), strict=True):
            frames.append(to_frame(results, policy, matrix[a:b], seed, first_game + a))
            if advance is not None:
                advance(b - a)
    finally:
        if bar is not None:
            bar.close()
    if not frames:
        empty = np.zeros((0, len(result_columns(policy.game))), dtype=np.int64)
        return to_frame(empty, policy, matrix, seed, first_game)
    return pl.concat(frames)


def default_chunk(policy: Policy, engine: str) -> int:
    """Games per piece of work: the engine's DEFAULT_CHUNK, or fewer for a slow policy."""
    return min(DEFAULT_CHUNK[engine], policy.chunk or DEFAULT_CHUNK[engine])


PROGRESS_PIECE = 2_000
"""The smallest piece of work when a progress bar is shown."""


def progress_chunk(n_games: int) -> int:
    """Games per piece of work for a progress bar that moves: about 1% of the games, at
    least PROGRESS_PIECE and at most the fast engine's DEFAULT_CHUNK (200,000 games: 100
    steps of 2,000)."""
    return min(DEFAULT_CHUNK["fast"], max(PROGRESS_PIECE, -(-n_games // 100)))


def _progress(progress, total: int, label: str):
    """(bar or None, callback or None) for simulate's `progress` argument."""
    if callable(progress):
        return None, progress
    if not progress:
        return None, None
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=label, unit="game", unit_scale=True)
    return bar, bar.update


def timings(warm_up_s: float, run_s: float, t0: float, games: int) -> dict:
    """The manifest's timings: compile or cache load, play, wall total, throughput."""
    return {
        "warm_up_s": round(warm_up_s, 3),
        "run_s": round(run_s, 3),
        "total_s": round(time.perf_counter() - t0, 3),
        "games_per_s": round(games / run_s, 1) if run_s > 0 else None,
    }


def machine() -> str:
    return f"{platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}"


def warm_up(rules: Ruleset, policy: Policy, engine: str, cluster: ChunkPlayer | None = None) -> float:
    """Load (or compile) the engine before timing, here or on every worker of a cluster;
    returns the seconds it took."""
    t = time.perf_counter()
    if cluster is not None:
        cluster.warm_up(rules, policy, engine)
    else:
        play_chunk(rules, policy, policy.param_vector()[None, :], 0, 0, engine)
    return time.perf_counter() - t
