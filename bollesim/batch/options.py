"""How games are played, as one frozen object: `RunOptions`, checked once where it is made
and passed down unchanged through `simulate`, `run_to_dir`, `sweep`, `run_cells`, the
searches and the command line.

None of its fields changes a row: game g is seeded from (seed, g) alone, whatever the
engine, threads, chunk size or cluster (docs/architecture.md §3). What is played (policy,
games, seed, rules) and who watches (a progress callback) are the callers' own arguments.

    options = RunOptions(threads=2, chunk_size=10_000)
    bollesim.simulate("historical", 100_000, options=options)
    bollesim.simulate("historical", 100_000, threads=2)      # the same: keywords build one
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass
from typing import Any

from bollesim.batch.limits import check_count, check_precision
from bollesim.errors import UsageError
from bollesim.terminal import shown

ENGINES = ("fast", "reference")
MODES = ("new", "resume", "restart", "replace")
"""A run folder's modes: "new" refuses a folder holding an interrupted or a finished run,
"resume" continues an interrupted run (a finished run of the same plan is already complete),
"restart" discards an interrupted run, "replace" discards whatever run the folder holds."""


@dataclass(frozen=True)
class RunOptions:
    """engine: "fast" (numba) or "reference" (plain Python: the same games, slowly);
    threads: the fast engine's threads (None: all cores); chunk_size: games per piece of
    work (None: the engine's, or the interrupted run's when resuming); cluster: a
    bollesim.batch.cluster.Cluster whose workers play the pieces (None: here);
    precision: with a run folder, add games until every rate's 95% half-width is at most
    this (None: a fixed number of games); max_games: the most games per cell precision may
    reach; mode: a run folder's MODES."""

    engine: str = "fast"
    threads: int | None = None
    chunk_size: int | None = None
    cluster: Any = None
    precision: float | None = None
    max_games: int | None = None
    mode: str = "new"

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise UsageError(f"unknown engine {shown(self.engine)} (choose fast or reference)")
        check_threads(self.threads)
        if self.chunk_size is not None:
            check_count("chunk_size (--chunk)", self.chunk_size, "chunk")
        if self.precision is not None:
            check_precision(self.precision)
        if self.max_games is not None:
            check_count("--max-games", self.max_games, "max_games")
        if self.mode not in MODES:
            raise UsageError(f"unknown mode {shown(self.mode)} (new, resume, restart or replace)")

    def replace(self, **changes) -> RunOptions:
        """These options with `changes` (checked again)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def of(cls, options: RunOptions | None = None, **keywords) -> RunOptions:
        """`options`, or the defaults, with the keywords given (not None) over them: how a
        public function's keyword arguments become one object."""
        if options is not None and not isinstance(options, RunOptions):
            raise TypeError(f"options must be a RunOptions, not {type(options).__name__}")
        given = {k: v for k, v in keywords.items() if v is not None}
        base = options or cls()
        return dataclasses.replace(base, **given) if given else base


def check_threads(threads) -> None:
    """UsageError unless `threads` is None or a whole number of the fast engine's threads."""
    if threads is None:
        return
    import numba

    whole = isinstance(threads, numbers.Integral) and not isinstance(threads, bool)
    if not whole or not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise UsageError(f"threads (--threads) must be a whole number from 1 to "
                         f"{numba.config.NUMBA_NUM_THREADS}, got {shown(threads)}")
