"""`bollesim train`: fit the apprentice of the chosen game, the lookahead player's decisions
learned (bollesim/strong/train.py)."""

from __future__ import annotations

import shlex
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from bollesim.cli.options import PartialOption, ReadingOption, RulesOption, SetOption
from bollesim.cli.running import progress_bar
from bollesim.cli.wiring import app, command, examples
from bollesim.errors import UsageError
from bollesim.game.declaration import Game
from bollesim.inputs import check_out_file
from bollesim.terminal import printable


@command(
    app,
    epilog=examples(
        "bollesim train                                   # -> results/apprentice/$name.npz",
        "bollesim train --out FILE.npz   # its record beside it: FILE.toml",
        "bollesim train --games 2000 --tune-games 2000 --out /tmp/quick.npz   # a quick look",
        "bollesim train --reading $reading=VARIANT --out results/apprentice/VARIANT.npz   # for changed rules",
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
    out: Annotated[Path | None, typer.Option(help="The model file (.npz; its record beside it, "
                                             ".toml); default results/apprentice/$name.npz.")] = None,
    rules: RulesOption = None,
    set_: SetOption = None,
    partial: PartialOption = None,
    readings: ReadingOption = None,
) -> None:
    """Fit the apprentice: the lookahead player's decisions, learned.

    The lookahead player plays GAMES games of SEED; LightGBM fits when it leaves its
    base's choice and what it takes instead; the gate's threshold is chosen by play on
    games of TUNE_SEED; with --rounds 2 the lookahead over that apprentice labels a second
    round (measured: no gain, docs/apprentice.md). Same command, same model (its digest
    is in the record). Any game that declares an apprentice (docs/apprentice.md); the
    apprentice policy plays the game's shipped model.
    """
    from bollesim.batch.limits import check_count
    from bollesim.batch.source import RulesetSource
    from bollesim.strong import train as training
    from bollesim.strong.apprentice import apprenticeship

    apprenticeship(game)  # a game without decision points, or without an apprentice: refused
    out = Path("results/apprentice", f"{game.name}.npz") if out is None else out
    check_count("--games", games, "games", low=1)
    check_count("--tune-games", tune_games, "games", low=1)
    check_count("--seed", seed, "seed")
    check_count("--tune-seed", tune_seed, "seed")
    for name, value in (("--rounds", rounds), ("--threads", threads)):
        if not 1 <= value <= 64:
            raise UsageError(f"{name} must be a whole number from 1 to 64, got {value}")
    if out.suffix != ".npz":
        raise UsageError(f"--out {printable(str(out))}: a model file ends in .npz")
    out = check_out_file(out)  # before the first game: its name, its folder, writable
    ruleset = RulesetSource.from_options(game, rules, set_, partial, readings).load(game)
    with one_writer(out):
        with progress_bar("labelling (lookahead games)") as bar:
            task = bar.add_task("", total=games * rounds)
            try:
                trained = training.train(game, ruleset, seed, games, tune_seed, tune_games,
                                         rounds, threads, progress=lambda n: bar.advance(task, n))
            except training.TooFewLabels as e:
                raise UsageError(f"--games {games}: {e}") from None
        training.save(out, trained, command_line())
    last = trained.record["rounds"][-1]
    typer.echo(f"apprentice {trained.record['model_digest']} -> {out} "
               f"({trained.record['seconds']} s; gate threshold {last['threshold']:g}; "
               f"the lookahead left its base in {last['left']} of {last['decisions']} "
               f"decisions learned)")


@contextmanager
def one_writer(out: Path):
    """Hold the model file's lock (.NAME.lock beside it) while it is made: a second train
    into the same file is refused in one line, as a run into a folder in use is."""
    from filelock import FileLock, Timeout

    lock = FileLock(str(out.with_name(f".{out.name}.lock")), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise UsageError(f"{printable(str(out))} is being written by another bollesim train: "
                         "wait for it to finish, or choose another --out") from None
    try:
        yield
    finally:
        lock.release()


def command_line() -> str:
    """The command as typed (its options, the global ones included), for the record;
    "bollesim train" when not run from the command line."""
    typed = Path(sys.argv[0]).name in ("bollesim", "__main__.py") and "train" in sys.argv[1:]
    return shlex.join(["bollesim", *sys.argv[1:]]) if typed else "bollesim train"
