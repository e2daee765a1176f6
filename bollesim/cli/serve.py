"""`bollesim serve`: the what-if page."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bollesim.batch.limits import DEFAULT_SEED
from bollesim.cli.chosen import Chosen
from bollesim.cli.wiring import app, command, examples
from bollesim.errors import UsageError


@command(
    app,
    epilog=examples(
        "bollesim serve",
        "bollesim serve --port 8800 --no-browser",
        "bollesim serve --from results/optimise   # start at the best parameters found",
        "bollesim serve --max-games 20000 --seed 7",
    ),
)
def serve(
    chosen: Chosen,
    host: Annotated[
        str,
        typer.Option(help="Address to listen on. Anything but loopback serves the page to "
                     "other machines (a warning says so)."),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: any free one).")] = 8765,
    browser: Annotated[
        bool, typer.Option("--browser/--no-browser", help="Open the page in the browser.")
    ] = True,
    from_: Annotated[
        Path | None,
        typer.Option(
            "--from",
            metavar="DIR",
            help="A folder of `bollesim optimise` holding best.json: start at the best "
            "policy and parameters it found (and serve the folder's game).",
            show_default=False,
        ),
    ] = None,
    max_games: Annotated[
        int,
        typer.Option(help="Games the page refines each answer to (the cap per change), "
                     "2,000 to 1,000,000."),
    ] = 100_000,
    seed: Annotated[int, typer.Option(help="Run seed of every game the page plays.")] = DEFAULT_SEED,
) -> None:
    """Start the what-if page of $title: change a table of the rules, watch the odds move.

    A local web page shows every table of the ruleset as the rulebook does, every reading
    as a switch, a policy and its parameters; each change is played at once against the
    default ruleset on the same seeds, and refined while you wait. Save the edited ruleset
    as a partial TOML, open the full balance report, replay an example game."""
    from bollesim.batch.limits import check_count
    from bollesim.serve.best import read_best
    from bollesim.serve.server import serve as run_server

    check_count("--seed", seed, "seed")
    if not 0 <= port <= 65535:
        raise UsageError(f"--port must be from 0 to 65535 (0: any free one), got {port}")
    if not 2_000 <= max_games <= 1_000_000:
        raise UsageError(f"--max-games must be from 2,000 to 1,000,000, got {max_games:,}")
    game = chosen.of_folder(from_) if from_ is not None else chosen.game
    best = read_best(from_, game) if from_ is not None else None
    run_server(game, host, port, open_browser=browser, best=best, max_games=max_games, seed=seed)
