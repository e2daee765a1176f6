"""`bollesim optimise`: search a policy family's parameters for an objective."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from bollesim.batch.options import RunOptions
from bollesim.cli.options import ClusterOption, JsonOption, ThreadsOption, WorkersOption
from bollesim.cli.output import emit
from bollesim.cli.running import playing_games, say_search_stopped
from bollesim.cli.wiring import app, command, examples
from bollesim.game.declaration import Game
from bollesim.terminal import printable


@command(
    app,
    epilog=examples(
        "bollesim optimise SPEC.toml   # a search of a policy of $title (docs/optimise.md)",
        "bollesim optimise SPEC.toml --out results/front",
        "bollesim optimise SPEC.toml --budget 400000 --json",
        "bollesim optimise SPEC.toml --cluster local --workers 2",
        "bollesim serve --from results/NAME   # plays its best.json",
    ),
)
def optimise(
    game: Game,
    spec: Annotated[
        Path,
        typer.Argument(
            metavar="SPEC",
            help="Search file (TOML) of a policy of $title (docs/optimise.md).",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Result folder (default: results/NAME, NAME from the spec).", show_default=False
        ),
    ] = None,
    budget: Annotated[
        int | None,
        typer.Option(help="Games the search may play in all, the held-out games included "
                     "(default: the spec's). The smallest it accepts is (finalists + 2) x "
                     "holdout_games, plus each seed's first rung of games, plus trial_games "
                     "less one first rung; a smaller one is refused with that number.",
                     show_default=False),
    ] = None,
    threads: ThreadsOption = None,
    cluster: ClusterOption = None,
    workers: WorkersOption = None,
    json_: JsonOption = False,
) -> None:
    """Search a policy family of $title for the parameters of the best objective.

    The defaults and the presets in the space, then optuna's TPE sampler's trials, play the
    same games (common random numbers) in growing blocks, each dropped once clearly worse
    than the best so far; the finalists, the best preset and the defaults are then
    replayed on held-out games.
    OUT holds games.parquet and manifest.json (the held-out games: `bollesim report OUT`),
    trajectory.parquet (the race), best.json ({"policy": ..., "params": {...}}) and
    optimise.md (held-out estimates with intervals, paired differences, charts).
    """
    from bollesim import resources
    from bollesim.batch.limits import check_count
    from bollesim.batch.runfolder import SEARCH
    from bollesim.batch.runner import FRAME_BYTES_PER_GAME
    from bollesim.batch.workspace import Workspace
    from bollesim.search.optimise import optimise as run_search
    from bollesim.search.optimise_report import write_result
    from bollesim.search.optimise_spec import load_search

    if budget is not None:
        check_count("--budget", budget, "budget")
    search = load_search(spec, game, budget)
    folder = out or Path("results") / search.name
    held_out = search.held_out_games
    resources.check_memory(2 * held_out * FRAME_BYTES_PER_GAME,
                           f"{held_out:,} held-out games ((finalists + the best seed and the "
                           "defaults) x holdout_games)",
                           "lower holdout_games or finalists")
    resources.check_disk(folder, held_out, held_out)
    # The folder is held from the start (no other command writes it meanwhile) and
    # refused now if it cannot take the result, not after the search.
    with Workspace(folder, SEARCH) as workspace:
        workspace.check_replaceable()
        try:
            label = printable(f"optimise {search.name}")
            with playing_games(label, cluster, workers, threads) as (dask, progress):
                result = run_search(search, options=RunOptions(threads=threads, cluster=dask),
                                    progress=progress)
                write_result(search, result, workspace)
        except KeyboardInterrupt as exc:
            say_search_stopped(folder, exc)
    best = result.best
    params = " ".join(f"{k}={v}" for k, v in best["params"].items())
    t = result.timings
    typer.echo(printable(f"{len(result.pool)} trials, {result.games_searched:,} search games "
                         f"and {result.holdout.height:,} held-out games in {t['total_s']:.0f} s "
                         f"-> {folder}"), err=json_)
    typer.echo(printable(f"best: {best['policy']} {params}"), err=json_)
    typer.echo(printable(f"Next: cat {shlex.quote(str(folder / 'optimise.md'))}"), err=json_)
    if json_:
        import json

        record = json.loads((folder / "best.json").read_text(encoding="utf-8"))
        emit({"command": "optimise", "out": str(folder), "best": best,
               "held_out": record["held_out"], "candidates": len(result.pool),
               "search_games": result.games_searched, "holdout_games": result.holdout.height,
               "timings": t})
