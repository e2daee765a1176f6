"""`bollesim tune`: the smallest rule change that meets a designer's targets."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from bollesim.batch.options import RunOptions
from bollesim.cli.options import JsonOption, ThreadsOption
from bollesim.cli.output import emit
from bollesim.cli.running import progress_bar, stop_on_signals
from bollesim.cli.wiring import app, command, examples
from bollesim.game.declaration import Game
from bollesim.game.registry import command_line
from bollesim.terminal import printable


@command(
    app,
    epilog=examples(
        "bollesim tune SPEC.toml   # targets for $title's players (docs/tune.md)",
        "bollesim tune SPEC.toml --out results/two",
        "bollesim tune SPEC.toml --budget 200000 --json",
        "bollesim rules check --partial results/NAME/patch.toml",
    ),
)
def tune(
    game: Game,
    spec: Annotated[
        Path,
        typer.Argument(metavar="SPEC", show_default=False,
                       help="Tune file (TOML) of targets for $title (docs/tune.md)."),
    ],
    out: Annotated[
        Path | None,
        typer.Option(help="Result folder (default: results/NAME, NAME from the spec).",
                     show_default=False),
    ] = None,
    budget: Annotated[
        int | None,
        typer.Option(help="Games the tune may play in all, certification included "
                     "(default: the spec's).", show_default=False),
    ] = None,
    threads: ThreadsOption = None,
    replace: Annotated[bool, typer.Option(
        "--replace", help="Replace the tune result OUT holds already.")] = False,
    json_: JsonOption = False,
) -> None:
    """Find the smallest change to the rules of $title that meets every target of SPEC.

    Fewest keys first, then the least distance: the rules as they are, then every change
    of one key, then of two (up to the spec's max_keys), each raced on the same search
    games (optuna's TPE where a grid is too large). The changes that meet the targets are
    replayed on held-out games and certified with 95% intervals.
    OUT holds patch.toml (the solution as a partial ruleset: `rules check --partial`,
    `run --partial`), proposal-N.toml, tune.md and tune.html (the report, with the Pareto
    chart of change size against target error), trials.csv and tune.json.
    """
    from bollesim.batch.limits import check_count
    from bollesim.batch.runfolder import TUNE_FILES
    from bollesim.batch.workspace import Workspace, claim_own_report
    from bollesim.inputs import check_out_folder
    from bollesim.search.tune_answer import answer
    from bollesim.search.tune_report import PATCH, STEM, write_result
    from bollesim.search.tune_spec import load_tune

    if budget is not None:
        check_count("--budget", budget, "budget")
    job = load_tune(spec, game, budget)
    folder = check_out_folder(out or Path("results") / job.name, "a tune's result")
    with Workspace(folder):  # one writer at a time, whatever the command; checked before play
        earlier = claim_own_report(folder, STEM, replace, TUNE_FILES, beside_a_run=False)
        with stop_on_signals(), progress_bar(printable(f"tune {job.name}")) as bar:
            task = bar.add_task("games", total=job.budget)
            result = answer(job, options=RunOptions(threads=threads),
                            progress=lambda done: bar.update(task, advance=done))
        record = write_result(result, folder, earlier)
    typer.echo(printable(result.sentence()), err=json_)
    if result.solution is not None:
        check = command_line(game, f"rules check --partial {shlex.quote(str(folder / PATCH))}")
        typer.echo(printable(f"patch: {folder / PATCH}   ({check})"), err=json_)
    typer.echo(printable(f"Next: cat {shlex.quote(str(folder / (STEM + '.md')))}"), err=json_)
    if json_:
        emit({"command": "tune", "out": str(folder), **record})
