"""`bollesim run`, `bollesim sweep` and `bollesim sensitivity`: batches of games into a
run folder."""

from __future__ import annotations

import functools
import shlex
from pathlib import Path
from typing import Annotated

import typer

from bollesim.batch.limits import DEFAULT_SEED
from bollesim.batch.options import RunOptions
from bollesim.cli.options import (
    ChunkOption,
    ClusterOption,
    ExperimentArgument,
    GamesOption,
    JsonOption,
    MaxGamesOption,
    ParamOption,
    PartialOption,
    PolicyOption,
    PrecisionOption,
    ReadingOption,
    RestartOption,
    ResumeOption,
    RulesOption,
    SetOption,
    SpecSeedOption,
    ThreadsOption,
    WorkersOption,
    policy_params,
)
from bollesim.cli.output import emit, print_answers, print_cells, rates_line, timing_text
from bollesim.cli.running import (
    playing_games,
    run_mode,
    say_interrupted,
    say_resumed,
)
from bollesim.cli.wiring import app, command, examples
from bollesim.errors import UsageError
from bollesim.game.declaration import Game
from bollesim.terminal import printable


@command(
    app,
    epilog=examples(
        "bollesim run -P $baseline -n 1000000 --seed 1 --out results/$baseline",
        "bollesim run -P $baseline -p $param -n 100000 --threads 1",
        "bollesim run -P $trigger -p $setting -n 10000 --precision 0.005 --max-games 500000",
        "bollesim run -P $baseline -n 2000 --engine reference --out results/$baseline-ref",
        "bollesim run -P $baseline -n 10000000 --cluster tcp://10.0.0.5:8786",
        "bollesim run -P $baseline -n 10000000 --out results/big --resume",
        "bollesim run -P $baseline -n 10000 --json   # one JSON object on stdout",
    ),
)
def run(
    game: Game,
    policy: PolicyOption,
    games: Annotated[int, typer.Option("--games", "-n", help="Number of games to play.")] = 100_000,
    seed: Annotated[
        int, typer.Option(help="Run seed: game g is seeded from (seed, g).")
    ] = DEFAULT_SEED,
    param: ParamOption = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Output folder (default: results/POLICY-seedS).", show_default=False),
    ] = None,
    engine: Annotated[
        str, typer.Option(help="fast (numba) or reference (readable Python).")
    ] = "fast",
    threads: ThreadsOption = None,
    chunk: ChunkOption = None,
    precision: PrecisionOption = None,
    max_games: MaxGamesOption = None,
    rules: RulesOption = None,
    set_: SetOption = None,
    partial: PartialOption = None,
    readings: ReadingOption = None,
    cluster: ClusterOption = None,
    workers: WorkersOption = None,
    resume: ResumeOption = False,
    restart: RestartOption = False,
    json_: JsonOption = False,
) -> None:
    """Play a batch of games of $title into OUT/games.parquet and OUT/manifest.json.

    Read the results with polars: pl.read_parquet("OUT/games.parquet"), or with pandas:
    pd.read_parquet("OUT/games.parquet"). Replay any game with
    `bollesim play --from OUT --index N`. An interrupted run (Ctrl-C, a signal, a crash)
    keeps its finished chunks: the same command with --resume continues it.
    """
    from bollesim.batch.limits import check_count
    from bollesim.batch.manifest import ruleset_record
    from bollesim.batch.runfolder import open_run
    from bollesim.batch.runner import default_chunk, progress_chunk
    from bollesim.batch.session import run_cells
    from bollesim.batch.source import RulesetSource
    from bollesim.batch.spec import Cell
    from bollesim.game.policy import load_policy
    from bollesim.stats import analysis

    check_count("--games", games, "games")  # named by the flag, before a ruleset is loaded
    check_count("--seed", seed, "seed")
    mode = run_mode(resume, restart)
    source = RulesetSource.from_options(game, rules, set_, partial, readings)
    ruleset = source.load(game)
    chosen = load_policy(policy, game)
    params = policy_params(chosen, param)
    folder = out or Path("results") / f"{policy}-seed{seed}"
    if chunk is None and engine == "fast" and mode != "resume":
        # about 1% of the games, so the progress bar moves
        chunk = min(progress_chunk(games), default_chunk(chosen, engine))
    options = RunOptions(engine=engine, threads=threads, chunk_size=chunk, precision=precision,
                         max_games=max_games, mode=mode)
    try:
        with playing_games(f"{policy} ({engine})", cluster, workers, threads, games) as (dask, progress):
            manifest, outcome = run_cells(
                folder,
                [Cell(0, chosen, params)],
                ruleset,
                seed,
                games,
                options.replace(cluster=dask),
                progress=progress,
                extra_manifest=ruleset_record(ruleset, source),
            )
    except KeyboardInterrupt as exc:
        say_interrupted(folder, exc)
    n, rates = analysis.run_rates(open_run(folder, game))
    say_resumed(folder, outcome)
    t = manifest["timings"]
    typer.echo(
        printable(
            f"{timing_text(n, outcome.saved_before, t)}, engine ready in {t['warm_up_s']:.1f} s)"
            f" -> {folder}"
        ),
        err=json_,
    )
    if precision is not None:
        typer.echo(outcome.sentence(), err=json_)
    typer.echo(rates_line(game, rates), err=json_)
    if json_:
        emit({"command": "run", "out": str(folder), "policy": policy, "games": n,
               "seed": seed, "rates": rates, "timings": t,
               "stopped": outcome.sentence() if precision is not None else None})


def _play_experiment(experiment, folder: Path, *, mode: str, cluster: str | None,
                     workers: int | None, threads: int | None, **options):
    """Play an experiment's cells into folder (session.sweep) behind the progress bar,
    on the cluster if one is asked for, stopping cleanly on a signal: (manifest, outcome)
    as session.sweep gives them."""
    from bollesim.batch.session import sweep as run_sweep

    n_cells = len(experiment.cells)
    try:
        label = printable(f"{experiment.name} ({n_cells} cells)")
        with playing_games(label, cluster, workers, threads) as (dask, progress):
            manifest, outcome = run_sweep(
                experiment, folder, options=RunOptions(threads=threads, cluster=dask, mode=mode),
                progress=progress, **options)
    except KeyboardInterrupt as exc:
        say_interrupted(folder, exc)
    say_resumed(folder, outcome)
    return manifest, outcome


def _check_overrides(games: int | None, seed: int | None, fewest_games: int | None = None) -> None:
    """-n and --seed given over a spec's, named by their flags before the spec is read
    (-n from `fewest_games` if given, else from LIMITS' lowest)."""
    from bollesim.batch.limits import check_count

    if games is not None:
        check_count("--games", games, "games", fewest_games)
    if seed is not None:
        check_count("--seed", seed, "seed")


@command(
    app,
    epilog=examples(
        "bollesim sweep $experiment",
        "bollesim sweep $experiment -n 2000 --out results/quick",
        "bollesim sweep $experiment --precision 0.005 --max-games 400000",
        "bollesim sweep $experiment -n 100000 --cluster local --workers 2",
        "bollesim sweep $experiment --resume",
        "bollesim sweep $experiment -n 2000 --json | jq '.cells[0]'",
    ),
)
def sweep(
    game: Game,
    spec: ExperimentArgument,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Output folder (default: results/NAME, NAME from the spec).", show_default=False
        ),
    ] = None,
    games: GamesOption = None,
    seed: SpecSeedOption = None,
    precision: PrecisionOption = None,
    max_games: MaxGamesOption = None,
    threads: ThreadsOption = None,
    chunk: ChunkOption = None,
    cluster: ClusterOption = None,
    workers: WorkersOption = None,
    resume: ResumeOption = False,
    restart: RestartOption = False,
    json_: JsonOption = False,
) -> None:
    """Play every cell of an experiment of $title on common random numbers.

    Game g of every cell has the same seed. Writes OUT/games.parquet (one row per game,
    with `cell` and the parameter columns) and OUT/manifest.json (the cells and the spec).

    -n and --seed override the spec's games per cell and seed. Then:
    `bollesim report OUT`, and `bollesim play --from OUT --index N --cell C`. An interrupted
    sweep keeps its finished chunks: the same command with --resume continues it.
    """
    from bollesim.batch.runfolder import open_run
    from bollesim.batch.spec import load_experiment
    from bollesim.report import answer
    from bollesim.stats import analysis

    _check_overrides(games, seed)
    experiment = load_experiment(spec, game)
    folder = out or Path("results") / experiment.name
    n_cells = len(experiment.cells)
    manifest, outcome = _play_experiment(
        experiment, folder, mode=run_mode(resume, restart), cluster=cluster, workers=workers,
        threads=threads, games=games, seed=seed, precision=precision, max_games=max_games,
        chunk_size=chunk)
    t = manifest["timings"]
    typer.echo(
        printable(
            f"{n_cells} cells x {outcome.games_per_cell:,} games = "
            f"{timing_text(manifest['n_games'], outcome.saved_before, t)}, engine ready in "
            f"{t['warm_up_s']:.1f} s) -> {folder}"
        ),
        err=json_,
    )
    if outcome.precision is not None:
        typer.echo(outcome.sentence(), err=json_)
    run = open_run(folder, game)
    cells = analysis.cell_rates(run)
    print_cells(game, cells, err=json_)
    said = answer.answers(game, run.read())
    print_answers(said, err=json_)
    typer.echo(printable(f"Next: bollesim report {shlex.quote(str(folder))}"), err=json_)
    if json_:
        emit({"command": "sweep", "out": str(folder), "experiment": experiment.name,
               "games_per_cell": outcome.games_per_cell, "games": manifest["n_games"],
               "seed": manifest["seed"], "timings": t,
               "stopped": outcome.sentence() if outcome.precision is not None else None,
               "cells": cells.to_dicts(),
               "answer": [{"swept": heading, "sentences": lines} for heading, lines in said]})


@command(
    app,
    epilog=examples(
        "bollesim sensitivity $experiment -n 2000",
        "bollesim sensitivity $experiment -n 500 --only $reading",
        "bollesim sensitivity $experiment -n 2000 --resume",
        "bollesim sensitivity $experiment -n 1000 --json",
        "bollesim sensitivity $experiment -n 2000 --strong   # and for the strong player",
    ),
)
def sensitivity(
    game: Game,
    spec: ExperimentArgument,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Output folder (default: results/NAME-sensitivity).", show_default=False
        ),
    ] = None,
    games: GamesOption = None,
    seed: SpecSeedOption = None,
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only",
            metavar="ID",
            help="Vary only this reading (repeatable; default: every reading with "
            "alternatives, see `bollesim rules show --reconstructed`).",
            show_default=False,
        ),
    ] = None,
    strong: Annotated[
        bool,
        typer.Option(help="Put the experiment's trigger question to the strong player too "
                     "(the trigger imposed at each setting swept) and say whether "
                     "each finding holds for it."),
    ] = False,
    threads: ThreadsOption = None,
    chunk: ChunkOption = None,
    cluster: ClusterOption = None,
    workers: WorkersOption = None,
    resume: ResumeOption = False,
    restart: RestartOption = False,
    json_: JsonOption = False,
) -> None:
    """Play an experiment of $title under each alternative reading of its rules, on the
    same seeds, and report what each one changes.

    One sweep: every cell of the experiment as specified and under each alternative
    (a variant of a reading, $readings) in turn. Writes the sweep to OUT
    (games.parquet, manifest.json) and the sensitivity report next to it:
    sensitivity.html, sensitivity.md (a tornado chart per outcome: how far each
    alternative moves its rate; a table saying whether each finding, the best trigger
    for each victory type and the ranking of the policies, still holds), and the CSV
    files. An interrupted run continues with --resume."""
    from bollesim.batch.sensitivity import sensitivity_experiment
    from bollesim.batch.spec import load_experiment
    from bollesim.batch.workspace import Workspace
    from bollesim.report.sensitivity import write_sensitivity
    from bollesim.stats.sensitivity import moved_sentences, steady_sentence

    _check_overrides(games, seed, fewest_games=1)  # a rate of no games is no finding
    experiment = sensitivity_experiment(load_experiment(spec, game), only, strong)
    if games is None and experiment.games == 0:
        raise UsageError(f"{spec}: games = 0: a sensitivity run needs games to compare (give -n)")
    folder = out or Path("results") / experiment.name
    n_cells, n_alternatives = len(experiment.cells), len(experiment.sensitivity["alternatives"])
    manifest, outcome = _play_experiment(
        experiment, folder, mode=run_mode(resume, restart), cluster=cluster, workers=workers,
        threads=threads, games=games, seed=seed, chunk_size=chunk)
    with Workspace(folder):
        written = write_sensitivity(folder)
    t = manifest["timings"]
    say = functools.partial(typer.echo, err=json_)
    say(printable(
        f"{n_cells} cells ({n_cells // (n_alternatives + 1)} x {n_alternatives + 1} readings) x "
        f"{outcome.games_per_cell:,} games = "
        f"{timing_text(manifest['n_games'], outcome.saved_before, t)}) -> {folder}"))
    robust = written["robustness"]
    if robust.height:
        say(steady_sentence(robust))
        for line in moved_sentences(robust):
            say(printable(f"  - {line}"))
    say(printable(f"wrote {written['html']} and {written['markdown']} "
                  f"({len(written['charts'])} charts next to it)"))
    if json_:
        emit({"command": "sensitivity", "out": str(folder), "experiment": experiment.name,
               "alternatives": experiment.sensitivity["alternatives"],
               "games_per_cell": outcome.games_per_cell, "games": manifest["n_games"],
               "seed": manifest["seed"], "timings": t,
               "effects": written["effects"].to_dicts(),
               "robustness": written["robustness"].to_dicts(),
               "html": str(written["html"]), "markdown": str(written["markdown"])})
