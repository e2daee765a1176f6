"""`bollesim bench`: games per second of both engines."""

from __future__ import annotations

from typing import Annotated

import typer

from bollesim.cli.wiring import app, command, examples
from bollesim.game.declaration import Game


@command(app, epilog=examples("bollesim bench", "bollesim bench --json --games 200000 --no-cold"))
def bench(
    game: Game,
    json_: Annotated[
        bool, typer.Option("--json", help="End with one JSON line of all figures.")
    ] = False,
    policy: Annotated[str | None, typer.Option(
        "--policy", "-P", help="Policy to time (default: $baseline).", show_default=False)] = None,
    games: Annotated[int, typer.Option(help="Fast-engine games per measurement.")] = 500_000,
    reference_games: Annotated[int, typer.Option(help="Reference-engine games.")] = 300,
    cold: Annotated[
        bool, typer.Option(help="Also time a cold compile (a fresh process, empty cache).")
    ] = True,
) -> None:
    """Measure games per second of $title: fast engine, reference engine, RNG floor.

    The fast engine on all cores and on one thread (for the chosen policy, then for every
    shipped policy), the reference engine, their ratio per
    core, an RNG floor and the engine's ratio to it, random draws per game, and the
    compile time cold and cached."""
    import json

    from bollesim import resources
    from bollesim.batch.bench import measure
    from bollesim.batch.limits import check_count
    from bollesim.game.policy import load_policy

    check_count("--games", games, "bench_games")
    check_count("--reference-games", reference_games, "bench_reference_games")
    resources.check_memory(games * resources.MEMORY_BYTES_PER_GAME,
                           f"--games {games:,} (played as one chunk)", "give fewer --games")

    figures = measure(
        game.load_ruleset(),
        load_policy(policy or game.baseline, game),
        games,
        reference_games,
        cold=cold,
        progress=lambda line: typer.echo(line, err=json_),
    )
    for key, value in figures.items():
        if not isinstance(value, dict):  # per-policy figures: shown as they came
            typer.echo(f"{key:>28}: {value}", err=json_)
    if json_:
        typer.echo(json.dumps(figures))
