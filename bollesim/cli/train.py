"""`bollesim train`: fit the apprentice, the lookahead player's order decisions learned."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from bollesim.cli.options import PartialOption, ReadingOption, RulesOption, SetOption
from bollesim.cli.running import progress_bar
from bollesim.cli.wiring import app, command, examples
from bollesim.errors import UsageError
from bollesim.game.declaration import Game

SHIPPED = "bollesim/bollebank/apprentice/shipped.npz"


def decisions_known(game: Game, command: str) -> None:
    """`train` plays the decisions of bollesim/bollebank/ by name (the apprentice is
    Bøllebank's): another game is refused in one line."""
    package = "bollesim.bollebank"
    if not game.engine.startswith(f"{package}."):
        raise UsageError(f"{command} plays the decisions of {package} only: {game.title} "
                         "declares none yet")


@command(
    app,
    epilog=examples(
        "bollesim train                                   # -> results/apprentice/apprentice.npz",
        f"bollesim train --out {SHIPPED}   # the shipped one (about 10 minutes)",
        "bollesim train --games 2000 --tune-games 2000 --out /tmp/quick.npz   # a quick look",
        "bollesim train --set tracks.tank_to_hit=8 --out results/apprentice/tank8.npz   # for changed rules",
    ),
)
def train(
    game: Game,
    games: Annotated[int, typer.Option("--games", "-n",
                                       help="Lookahead games labelled a round.")] = 24000,
    seed: Annotated[int, typer.Option(help="Seed of the first round's games (then seed + 1, "
                                      "...); keep it apart from the seeds you measure on.")] = 1001,
    rounds: Annotated[int, typer.Option(help="Rounds of expert iteration: from the second, "
                                        "the lookahead over the apprentice labels.")] = 1,
    tune_seed: Annotated[int, typer.Option(help="Seed of the games the gate's threshold is "
                                           "chosen on.")] = 1000,
    tune_games: Annotated[int, typer.Option(help="Games a threshold plays.")] = 20000,
    threads: Annotated[int, typer.Option(help="Threads for labelling and fitting.")] = 2,
    out: Annotated[Path, typer.Option(help="The model file (.npz; its record beside it, "
                                      ".toml).")] = Path("results/apprentice/apprentice.npz"),
    rules: RulesOption = None,
    set_: SetOption = None,
    partial: PartialOption = None,
    readings: ReadingOption = None,
) -> None:
    """Fit the apprentice: the lookahead player's order decisions, learned.

    The lookahead player plays GAMES games of SEED; LightGBM fits when it leaves its
    base's choice and what it takes instead; the gate's threshold is chosen by play on
    games of TUNE_SEED; with --rounds 2 the lookahead over that apprentice labels a second
    round (measured: no gain, docs/apprentice.md). Same command, same model (its digest
    is in the record). The apprentice policy plays the shipped model;
    docs/apprentice.md says how it was made and how strong it is.
    """
    from bollesim.batch.limits import check_count
    from bollesim.batch.source import RulesetSource
    from bollesim.bollebank.apprentice import train as training

    decisions_known(game, "train")
    check_count("--games", games, "games", low=1)
    check_count("--tune-games", tune_games, "games", low=1)
    check_count("--seed", seed, "seed")
    check_count("--tune-seed", tune_seed, "seed")
    for name, value in (("--rounds", rounds), ("--threads", threads)):
        if not 1 <= value <= 64:
            raise UsageError(f"{name} must be a whole number from 1 to 64, got {value}")
    if out.suffix != ".npz":
        raise UsageError(f"--out {out}: a model file ends in .npz")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--out {out}: cannot make its folder ({e.strerror})") from None
    ruleset = RulesetSource.from_options(game, rules, set_, partial, readings).load(game)
    with progress_bar("labelling (lookahead games)") as bar:
        task = bar.add_task("", total=games * rounds)
        try:
            trained = training.train(ruleset, seed, games, tune_seed, tune_games, rounds, threads,
                              progress=lambda n: bar.advance(task, n))
        except training.TooFewLabels as e:
            raise UsageError(f"--games {games}: {e}") from None
    command_line = shlex.join(["bollesim", "train", *sys.argv[2:]]) if sys.argv[1:2] == [
        "train"] else "bollesim train"
    training.save(out, trained, command_line)
    last = trained.record["rounds"][-1]
    typer.echo(f"apprentice {trained.record['model_digest']} -> {out} "
               f"({trained.record['seconds']} s; gate threshold {last['threshold']:g}; "
               f"the lookahead left its base in {last['left']} of {last['decisions']} "
               f"order decisions)")
