"""Playing cells into a run folder: `run_cells` (one session of play: rounds of chunks,
saved as they finish, resumed after an interruption, more rounds for --precision),
`run_to_dir` (one policy) and `sweep` (an experiment, experiment specs: spec.py)."""

from __future__ import annotations

import itertools
import math
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from bollesim.batch.limits import DEFAULT_SEED, check_count
from bollesim.batch.manifest import play_record, ruleset_record
from bollesim.batch.options import RunOptions
from bollesim.batch.precision import (
    DEFAULT_MAX_GAMES,
    Outcome,
    games_needed,
    judge,
    precision_rates,
    rate_columns,
    round_up,
)
from bollesim.batch.runner import check_counts, param_matrix, resolve_policy
from bollesim.batch.spec import Cell, Experiment, param_names
from bollesim.errors import UsageError
from bollesim.game.declaration import Game, Ruleset
from bollesim.game.policy import Policy
from bollesim.game.registry import DEFAULT_GAME, load_game

if TYPE_CHECKING:
    from bollesim.batch.cluster import Cluster


def run_cells(
    out_dir: str | Path,
    cells: tuple[Cell, ...] | list[Cell],
    rules: Ruleset,
    seed: int,
    games: int,
    options: RunOptions | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    extra_manifest: dict | None = None,
) -> tuple[dict, Outcome]:
    """Play games 0..games-1 of every cell into the run folder out_dir (runfolder.py), here
    or, with options.cluster, as tasks on its workers. Returns (manifest, outcome).

    With options.precision, keep adding games (continuing the game indices, so the seed
    scheme is unchanged and every cell still plays the same games) until every cell's rates
    of precision_rates() (the flags of the cells' game) have a 95% Wilson half-width of at most that, or a cell has
    options.max_games games (default DEFAULT_MAX_GAMES). progress(done, total) gets game
    counts over all cells.

    Finished chunks are saved as they complete. options.mode "resume" continues an
    interrupted run (its saved chunks are not played again; the result is the same file as
    an uninterrupted run's), "restart" discards it, and the default "new" refuses a folder
    holding one. The chunk size defaults to the interrupted run's when resuming, else
    runner.default_chunk.
    """
    from bollesim.batch import runner
    from bollesim.batch.manifest import check_manifest_size, manifest_fields
    from bollesim.batch.partial import interrupted_run
    from bollesim.batch.workspace import Workspace

    check_count("the number of games", games, "games")
    check_count("the seed", seed, "seed")
    if not cells:
        raise UsageError("no cells to play")
    game = cells_game(cells)
    check_count("the number of cells", len(cells), "cells")
    options = RunOptions.of(options)
    precision, mode, engine, cluster, threads = (options.precision, options.mode, options.engine,
                                                 options.cluster, options.threads)
    if precision is not None:
        if any(c.per_game for c in cells):
            raise UsageError("--precision adds games: give one parameter set, not one per game")
    elif options.max_games is not None:
        raise UsageError("--max-games caps the games added for --precision: give --precision too")
    cap = DEFAULT_MAX_GAMES if options.max_games is None else options.max_games
    chunk_size = options.chunk_size
    extra = {**ruleset_record(rules), **(extra_manifest or {})}
    unknown = sorted(set(extra) - set(manifest_fields()))
    if unknown:
        raise UsageError(f"{unknown[0]!r} is not a manifest field (see bollesim.batch.runfolder)")
    runner.set_threads(threads)

    ws = Workspace(out_dir)
    ws.check_replaceable()  # refusals first: nothing is written for a request refused
    waiting = interrupted_run(ws.out) if mode == "resume" else None
    if chunk_size is None and mode == "resume":  # the chunks of the run being resumed
        before = waiting.plan if waiting is not None else _committed_plan(ws.out)
        chunk_size = before.get("chunk_size")
    plan = {
        "ruleset_hash": rules.digest,
        "seed": seed,
        "games": games,
        "precision": precision,
        "max_games": cap if precision is not None else None,
        "chunk_size": chunk_size or min(runner.default_chunk(c.policy, engine) for c in cells),
        "engine": engine,
        "cells": [c.key() for c in cells],
        "planned": (min(games, cap) if precision is not None else games) * len(cells),
    }
    records = [c.describe() for c in cells]
    check_manifest_size({  # the manifest as it will be, but for its timings and outcome
        **play_record(rules, records, seed, engine, {}, threads=runner.threads_used(threads),
                      chunk_size=plan["chunk_size"]),
        "plan": plan, **extra})
    play = _Session(ws, cells, rules, seed, plan, engine, cluster, progress)
    play.check_resources(games, cap, waiting.saved if waiting is not None else 0)
    with ws:
        if mode == "resume" and interrupted_run(ws.out) is None:
            ws.recover()  # a writer killed while it cleaned up after its commit
            done = _complete_run(ws.out, plan)
            if done is not None:
                return done, Outcome.from_manifest(done)
        saved = ws.start(plan, mode)
        outcome = play.rounds(saved, games, cap)
        fields = {
            **play_record(rules, records, seed, engine, play.timings(),
                          threads=runner.threads_used(threads), chunk_size=play.chunk),
            "plan": {k: v for k, v in plan.items() if k != "planned"},
            "n_games": outcome.games_per_cell * len(cells),
            "games_per_cell": outcome.games_per_cell,
            "precision": outcome.record(),
            "stopped": outcome.sentence() if precision is not None else None,
            "sessions": ws.sessions,
            "cluster": cluster.describe() if cluster is not None else None,
            "game": game.name,
            **extra,
        }
        manifest = ws.commit(fields, play.schema)
    return manifest, outcome


def run_to_dir(
    out_dir: str | Path,
    policy: str | Policy,
    n_games: int,
    seed: int = DEFAULT_SEED,
    params=None,
    rules: Ruleset | None = None,
    engine: str | None = None,
    threads: int | None = None,
    chunk_size: int | None = None,
    progress: Callable[[int], None] | None = None,
    extra_manifest: dict | None = None,
    cluster: Cluster | None = None,
    mode: str | None = None,
    options: RunOptions | None = None,
    game: str | Game = DEFAULT_GAME,
) -> dict:
    """Play a batch into the run folder out_dir (games.parquet and manifest.json, see
    runfolder.py), chunk by chunk (with a cluster.Cluster, as tasks on its workers), and
    return its manifest. `params` as for simulate(), one value or one per game; `game`
    the game whose policy `policy` names (a Policy plays its own).

    engine, threads, chunk_size, cluster and mode, or `options` (a RunOptions, with the
    keywords given put over it): how the games are played (batch/options.py). mode
    "resume" continues an interrupted run into out_dir, "restart" discards it; the default
    refuses a folder holding one. progress(k) is told of every k games played."""
    options = RunOptions.of(options, engine=engine, threads=threads, chunk_size=chunk_size,
                            cluster=cluster, mode=mode)
    check_counts(n_games, seed)
    policy = resolve_policy(policy, game)
    per_game = isinstance(params, np.ndarray) or any(
        np.ndim(v) > 0 for v in dict(params or {}).values()
    )
    if per_game:
        cell = Cell(0, policy, param_matrix(policy, n_games, params))
    else:
        policy.check_names(dict(params or {}))
        cell = Cell(0, policy, policy.param_vector(params))
    seen = [0]

    def advance(done: int, total: int) -> None:
        if progress and done > seen[0]:
            progress(done - seen[0])
            seen[0] = done

    manifest, _ = run_cells(
        out_dir,
        [cell],
        rules or load_game(policy.game).load_ruleset(),
        seed,
        n_games,
        options,
        progress=advance,
        extra_manifest=extra_manifest,
    )
    return manifest


def cells_game(cells) -> Game:
    """The game the cells' policies play: a run folder holds one game's games."""
    names = sorted({c.policy.game for c in cells})
    if len(names) != 1:
        raise UsageError(f"the cells play {len(names)} games ({', '.join(names)}): a run "
                         "folder holds one game's games")
    return load_game(names[0])


def _committed_plan(out: Path) -> dict:
    """The plan recorded by the run in out, or {} (unreadable folders are judged later)."""
    from bollesim.batch.runfolder import RunFolderError, read_manifest

    try:
        return read_manifest(out).plan or {}
    except RunFolderError:
        return {}


def _complete_run(out: Path, plan: dict) -> dict | None:
    """The manifest of out if it holds the complete run of `plan`, else None."""
    from bollesim.batch.runfolder import RunFolderError, open_run

    try:
        manifest = open_run(out).manifest
    except RunFolderError:
        return None
    asked = {k: v for k, v in plan.items() if k != "planned"}
    return manifest if manifest.get("plan") == asked else None


class _Session:
    """One session of play of a run of cells: the rounds of games (one round, or more with
    --precision), each round's chunks as jobs (span, cell), saved chunks skipped."""

    def __init__(self, ws, cells, rules, seed, plan, engine, cluster, progress):
        from bollesim.batch import runner
        from bollesim.batch.workspace import CHECKPOINT_ROWS

        self.ws, self.cells, self.rules, self.seed = ws, list(cells), rules, seed
        self.plan, self.engine, self.cluster, self.progress = plan, engine, cluster, progress
        self.chunk = plan["chunk_size"]
        self.precision = plan["precision"]
        self.with_rulesets = any(c.changes_rules for c in cells)
        self.result = cells_game(cells).result
        self.schema = runner.dataset_schema(cells_game(cells), param_names(cells),
                                            rulesets=self.with_rulesets)
        self.index = {c.cell: i for i, c in enumerate(cells)}
        self.counts = np.zeros((len(cells), len(precision_rates(self.result))), dtype=np.int64)
        self.played = 0  # games played (or found saved) so far, over all cells
        self.saved_before = 0  # games an interrupted run had saved
        self.warm_s = self.run_s = 0.0
        self.t0 = time.perf_counter()
        ws.flush_rows = max(self.chunk, CHECKPOINT_ROWS)

    def timings(self) -> dict:
        """The manifest's timings of this session's games."""
        from bollesim.batch import runner

        return runner.timings(self.warm_s, self.run_s, self.t0, self.played - self.saved_before)

    def check_resources(self, games: int, cap: int, saved: int) -> None:
        """Refuse a run the disk or memory cannot hold, with the estimate (resources.py);
        `saved` games are on disk already."""
        from bollesim import resources

        most = (cap if self.precision is not None else games) * len(self.cells)
        resources.check_disk(self.ws.out, max(0, most - saved), most)
        workers = len(self.cluster.workers) if self.cluster is not None else 0
        in_flight = 2 * workers + 3  # playing, being written, being saved (+ tasks)
        chunk = min(self.chunk, max(1, most // len(self.cells)))
        rows = in_flight * chunk + min(self.ws.flush_rows, most)
        resources.check_memory(
            rows * resources.MEMORY_BYTES_PER_GAME,
            f"a chunk of {self.chunk:,} games",
            "give a smaller --chunk",
        )

    def rounds(self, saved, games: int, cap: int) -> Outcome:
        """Play every round; returns the outcome. Saved chunks of rounds that never come
        (impossible unless the folder was tampered with) are removed."""
        from bollesim.batch import runner

        by_round: dict[int, list] = {}
        for chunk in saved:
            by_round.setdefault(chunk.round, []).append(chunk)
        self.warm_s = runner.warm_up(self.rules, self.cells[0].policy, self.engine, self.cluster)
        t1 = time.perf_counter()
        done, target = 0, (min(games, cap) if self.precision is not None else games)
        unit = 10 ** max(0, len(str(max(games, 1))) - 2)  # 2000 -> added in hundreds
        while True:
            self._round(done, target, by_round.pop(done, []))
            done = target
            outcome = judge(self.result, self.counts, done, self.precision, cap)
            if self.precision is None or outcome.reached or done >= cap:
                break
            need = games_needed(self.counts / done, self.precision, cap)
            target = min(cap, round_up(max(done + unit, math.ceil(need * 1.02)), unit))
        for chunk in itertools.chain.from_iterable(by_round.values()):
            chunk.path.unlink()
        self.run_s = time.perf_counter() - t1
        outcome.saved_before = self.saved_before = sum(c.rows for c in saved)
        return outcome

    def _job_rows(self, done: int, target: int, job: int) -> int:
        a = done + (job // len(self.cells)) * self.chunk
        return min(target, a + self.chunk) - a

    def _round(self, done: int, target: int, saved: list) -> None:
        """Play games done..target-1 of every cell, except the jobs of saved chunks."""
        from bollesim.batch import runner

        n_jobs = -(-(target - done) // self.chunk) * len(self.cells)
        kept = []
        for chunk in saved:
            rows = sum(self._job_rows(done, target, j) for j in range(chunk.first, chunk.end))
            if chunk.end <= n_jobs and rows == chunk.rows:
                kept.append(chunk)
            else:
                chunk.path.unlink()
        for chunk in kept:
            if self.precision is not None:
                self._count(self.ws.read_chunk(chunk))
            self.played += chunk.rows
        self._report(done, target)
        jobs: deque = deque()

        def feed():
            for job, a, b, i in _unsaved_jobs(len(self.cells), done, target, self.chunk, kept):
                jobs.append((job, a, b, i))
                yield self.cells[i].policy, self.cells[i].chunk_params(a, b), self.seed, a, \
                    self.ruleset(i)

        pending = None
        try:
            with ThreadPoolExecutor(1) as writer:
                for results in runner.play_chunks(feed(), self.engine, self.cluster):
                    if pending is not None:
                        pending.result()
                    # chunk k is written while chunk k + 1 plays (the kernel releases the GIL)
                    pending = writer.submit(self._keep, done, target, *jobs.popleft(), results)
                if pending is not None:
                    pending.result()
                    pending = None
            self.ws.flush()
        except KeyboardInterrupt:  # Ctrl-C or a signal (cli.py): save what is finished
            if pending is not None and not pending.cancelled():
                pending.exception()
            self.ws.flush()
            raise

    def _keep(self, done: int, target: int, job: int, a: int, b: int, i: int, results) -> None:
        """A finished job: its rows to the workspace, its outcomes to the counts."""
        from bollesim.batch import runner

        cell = self.cells[i]
        params = cell.chunk_params(a, b)
        table = runner.to_table(results, cell.policy, params, self.seed, a, cell.cell, self.schema)
        if self.with_rulesets:
            table = runner.with_ruleset(table, cell.ruleset_text(), self.ruleset(i).digest)
        if self.precision is not None:
            self.counts[i] += results[:, rate_columns(self.result)].sum(axis=0)
        self.ws.add(done, job, table)
        self.played += b - a
        self._report(done, target)

    def ruleset(self, i: int) -> Ruleset:
        """The ruleset cell i plays: its own, or the run's."""
        return self.cells[i].ruleset or self.rules

    def _count(self, table) -> None:
        sums = (
            pl.from_arrow(table.select(["cell", *precision_rates(self.result)]))
            .group_by("cell")
            .agg(pl.col(precision_rates(self.result)).sum())
        )
        for row in sums.iter_rows():
            self.counts[self.index[row[0]]] += row[1:]

    def _report(self, done: int, target: int) -> None:
        if self.progress:
            self.progress(self.played, target * len(self.cells))


def _unsaved_jobs(
    n_cells: int, done: int, target: int, chunk: int, saved: list
) -> Iterator[tuple[int, int, int, int]]:
    """(job, first game, end game, cell index) of a round's jobs that no saved chunk holds,
    lazily: job j is span j // n_cells of `chunk` games of cell j % n_cells."""
    covered = iter(saved)
    nxt = next(covered, None)
    job = 0
    for a in range(done, target, chunk):
        b = min(target, a + chunk)
        for i in range(n_cells):
            while nxt is not None and nxt.end <= job:
                nxt = next(covered, None)
            if nxt is None or not nxt.first <= job < nxt.end:
                yield job, a, b, i
            job += 1


def sweep(
    experiment: Experiment,
    out_dir: str | Path | None = None,
    *,
    games: int | None = None,
    seed: int | None = None,
    precision: float | None = None,
    max_games: int | None = None,
    threads: int | None = None,
    chunk_size: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    cluster: Cluster | None = None,
    mode: str | None = None,
    options: RunOptions | None = None,
) -> tuple[dict, Outcome]:
    """Play every cell of an experiment on common random numbers (arguments given here
    override the spec's) into out_dir (default results/<name>), here or on a cluster.
    How the games are played: the keywords or `options`, as for run_cells (the spec's
    precision and max_games where neither gives them). Returns (manifest, outcome)."""
    options = RunOptions.of(options, precision=precision, max_games=max_games, threads=threads,
                            chunk_size=chunk_size, cluster=cluster, mode=mode)
    out = Path(out_dir) if out_dir is not None else Path("results") / experiment.name
    if options.precision is None and options.max_games is not None and experiment.precision is None:
        raise UsageError("--max-games caps the games added for --precision: give --precision too")
    if options.precision is None and experiment.precision is not None:
        options = options.replace(precision=experiment.precision)
    if options.max_games is None and options.precision is not None and experiment.max_games is not None:
        options = options.replace(max_games=experiment.max_games)  # the spec's cap
    extra = {
        "experiment": experiment.name,
        "description": experiment.description,
        "spec_file": str(experiment.path) if experiment.path else None,
        "spec": experiment.spec,
        "sensitivity": experiment.sensitivity,
        **ruleset_record(experiment.rules, experiment.ruleset_source),
    }
    return run_cells(
        out,
        experiment.cells,
        experiment.rules,
        experiment.seed if seed is None else seed,
        experiment.games if games is None else games,
        options,
        progress=progress,
        extra_manifest=extra,
    )
