"""In-memory sweeps: every cell of an experiment played into one polars frame, no files.

    import bollesim
    from bollesim.report import plots
    df = bollesim.sweep_frame("experiments/first_fire.toml", games=2_000, progress=True)
    plots.rates_by_trigger(bollesim.load_game("bollebank"), df, "t")

The cells come from bollesim.batch.spec (a spec file or an Experiment), every cell plays
games 0..N-1 on the same seeds, and the frame has the rows and columns `bollesim sweep`
writes to games.parquet.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from bollesim.batch.options import RunOptions
from bollesim.batch.spec import Experiment, load_experiment, param_names
from bollesim.game.columns import typed_params
from bollesim.game.declaration import Game
from bollesim.game.registry import DEFAULT_GAME


def sweep_frame(experiment: str | Path | Experiment, *, games: int | None = None,
                seed: int | None = None, engine: str | None = None, threads: int | None = None,
                progress: bool = False, options: RunOptions | None = None,
                game: str | Game = DEFAULT_GAME) -> pl.DataFrame:
    """Play every cell of an experiment on common random numbers and return the games.

    Parameters
    ----------
    experiment : a spec file (experiments/*.toml, see bollesim.batch.spec) of the game
        `game` (a registered name or a Game), or an Experiment from
        bollesim.batch.spec.load_experiment (of its own game)
    games : games per cell (None: the spec's)
    seed : the run seed (None: the spec's)
    engine, threads, options : as for bollesim.simulate
    progress : show one progress bar over all the cells' games (tqdm.auto)

    Returns
    -------
    polars.DataFrame: one row per game of every cell, as `bollesim sweep` writes to
    games.parquet (which keeps the parameters as Float64): `game`, `seed`, `policy`,
    `cell`, the union of the cells' parameter columns (null where a policy has no such
    parameter; each of its declared type, as bollesim.simulate gives them), `ruleset` and
    `ruleset_hash` if a grid varies the rules (see bollesim.batch.spec), then the result
    columns of bollesim.simulate.

    Examples
    --------
    >>> df = sweep_frame("experiments/first_fire.toml", games=1_000)
    >>> from bollesim.stats import paired_tests
    >>> paired_tests.best_trigger(bollesim.load_game("bollebank"), df, "t", policy="fire_at_turn")
    """
    from bollesim.batch.runner import (
        check_counts,
        dataset_schema,
        stored_rows,
    )

    options = RunOptions.of(options, engine=engine, threads=threads)
    spec = experiment if isinstance(experiment, Experiment) else load_experiment(experiment, game)
    n = spec.games if games is None else games
    seed = spec.seed if seed is None else seed
    check_counts(n, seed)
    rulesets = any(c.changes_rules for c in spec.cells)
    columns = pl.from_arrow(
        dataset_schema(spec.game, param_names(spec.cells), rulesets=rulesets).empty_table()).schema
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n * len(spec.cells), desc=spec.name, unit="game", unit_scale=True)
    frames = []
    try:
        for cell in spec.cells:
            rules = cell.ruleset or spec.rules
            frame = stored_rows(cell.policy, n, seed, params=cell.param_dict(), rules=rules,
                                options=options,
                                progress=bar.update if bar is not None else False)
            frame = frame.with_columns(pl.lit(cell.cell, pl.Int32).alias("cell"))
            if rulesets:
                frame = frame.with_columns(pl.lit(cell.ruleset_text()).alias("ruleset"),
                                           pl.lit(rules.digest).alias("ruleset_hash"))
            frames.append(frame.select(
                pl.col(c).cast(t) if c in frame.columns else pl.lit(None, t).alias(c)
                for c, t in columns.items()
            ))
    finally:
        if bar is not None:
            bar.close()
    return typed_params(pl.concat(frames), [c.policy for c in spec.cells])
