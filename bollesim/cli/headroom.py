"""`bollesim headroom`: how well can the game be played? A skill ladder on the same games
(the beginner, each preset, the strong player, the best known point of each objective,
the expert at each of its rollout settings, the clairvoyant bound), the bracket of the
best achievable rate of the main win, the game's relative skill (docs/skill.md), and the
trigger sweeps of the spec on its own parameters, beside the same sweeps of the best point
found. Every sentence of the report is made from its numbers (bollesim/report/headroom.py);
the players and bounds are the game's own declaration (Game.headroom, a
bollesim/strong/headroom.py Headroom), played by cli/headroom_make.py."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bollesim.cli.wiring import app, command, examples
from bollesim.errors import UsageError
from bollesim.game.declaration import Game

DEFAULT_OUT = Path("results") / "headroom"


def new_folder(base: Path) -> Path:
    """`base`, or base-2, base-3 ... the first that does not exist: a default folder that
    never overwrites an earlier report (the committed one in results/showcase included)."""
    n, out = 1, base
    while out.exists():
        n += 1
        out = base.with_name(f"{base.name}-{n}")
    return out


def _count(help_: str):
    return typer.Option(help=help_, min=1)


@command(
    app,
    epilog=examples(
        "bollesim headroom                         # the full report, into results/headroom",
        "bollesim headroom --games 2000 --expert-games 10 --clairvoyant-games 40 "
        "--sweep-games 500     # a quick look",
        "bollesim headroom --penalised-games 300 --inner 16 --value-games 30000  "
        "# the penalised clairvoyant on 300 games (about ±3 points)",
    ),
)
def headroom(
    game: Game,
    games: Annotated[int, _count("Games of each scripted player.")] = 20000,
    expert_games: Annotated[int, _count(
        "Games of the expert at each of its rollout settings (the first of the same games).")] = 2000,
    clairvoyant_games: Annotated[int, _count(
        "Games of the clairvoyant bound (the first of the same games).")] = 2000,
    budget: Annotated[int, _count(
        "The clairvoyant's decisions searched per game before it is undecided.")] = 200,
    sweep_games: Annotated[int, _count("Games per setting of the trigger sweeps.")] = 10000,
    threads: Annotated[int, _count(
        "Threads of the clairvoyant, processes of the penalised clairvoyant.")] = 2,
    penalised_games: Annotated[int, typer.Option(
        help="Games of the penalised clairvoyant, per outcome it is measured on: the first "
        "of the clairvoyant's games, at most as many (0: none).", min=0)] = 20,
    inner: Annotated[int, typer.Option(
        help="The penalised clairvoyant's inner samples: draws of the chance to the next "
        "decision per line's decision.", min=1, max=1 << 16)] = 16,
    value_games: Annotated[int, _count(
        "Games of the strong player whose decisions V is fitted on (more games, a tighter "
        "bound: docs/skill.md).")] = 30000,
    seed: Annotated[int | None, typer.Option(
        help="The seed of the report's games (default: the game's own, one its searches "
        "did not play; the trigger sweeps play their spec's seed).", show_default=False)] = None,
    restricted: Annotated[Path | None, typer.Option(
        help="The restricted player's trigger sweep folder (a `bollesim sweep` of the "
        "strong player with its trigger imposed); without it the report says so.",
        show_default=False)] = None,
    spec: Annotated[Path | None, typer.Option(
        help="The trigger sweeps' spec (default: the game's own).", show_default=False)] = None,
    points: Annotated[Path | None, typer.Option(
        help="The best known points (default: the game's own).", show_default=False)] = None,
    out: Annotated[Path | None, typer.Option(
        help=f"The report folder (default: {DEFAULT_OUT}, or {DEFAULT_OUT}-2, -3 ... if it "
        "exists: never over an earlier report).", show_default=False)] = None,
    replace: Annotated[bool, typer.Option(
        "--replace", help="Replace the headroom report --out holds already.")] = False,
) -> None:
    """Write the headroom report: how well can $title be played?

    headroom.md with its charts and headroom.csv (every rung's counts). The skill ladder
    plays every player on the same games; the clairvoyant bound and the expert play the
    first of them. The penalised clairvoyant is the slow part: its time grows with
    --penalised-games, --inner and --value-games (docs/skill.md gives measured times)."""
    from bollesim.batch.limits import check_count
    from bollesim.batch.workspace import Workspace, claim_own_report
    from bollesim.cli.headroom_make import STEM, Settings, make, prepare
    from bollesim.inputs import check_out_folder
    from bollesim.strong.headroom import declared_headroom, imposed

    h = declared_headroom(game)
    if max(expert_games, clairvoyant_games) > games:
        raise UsageError("--expert-games and --clairvoyant-games must not exceed --games "
                         "(they play the first of the same games)")
    seed = h.seed if seed is None else check_count("--seed", seed, "seed")
    spec = spec if spec is not None else (Path(h.spec) if h.spec else None)
    points = points if points is not None else (Path(h.points) if h.points else None)
    for path, what in ((spec, "--spec"), (points, "--points")):
        if path is not None and not path.is_file():
            raise UsageError(f"{what} {path}: no such file (run from the repository's folder, "
                             f"or give {what})")
    if restricted is not None and not imposed(game):
        raise UsageError(f"--restricted: the strong player of {game.name} ({game.strong}) has "
                         "no parameter that imposes a trigger (Trigger.strong): there is no "
                         "restricted player to compare")
    if restricted is not None and not restricted.is_dir():
        raise UsageError(f"--restricted {restricted}: no such folder (a `bollesim sweep` of "
                         "the strong player with its trigger imposed)")
    out = check_out_folder(out if out is not None else new_folder(DEFAULT_OUT), "a report")
    settings = Settings(games, expert_games, clairvoyant_games, budget, sweep_games, threads,
                        min(penalised_games, clairvoyant_games), inner, value_games, restricted,
                        spec, points, out, seed, replace)
    plan = prepare(game, settings)
    with Workspace(out):  # one writer at a time, whatever the command
        earlier = claim_own_report(Path(out), STEM, replace)
        make(plan, settings, earlier)
    typer.echo(f"wrote {out / 'headroom.md'}")
