"""`bollesim policies` and `bollesim play`: the policies, and one game narrated (or
replayed from a run folder)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bollesim.batch.limits import DEFAULT_SEED
from bollesim.batch.source import RulesetSource
from bollesim.cli.chosen import Chosen
from bollesim.cli.options import (
    ParamOption,
    PartialOption,
    ReadingOption,
    RulesOption,
    SetOption,
    policy_params,
)
from bollesim.cli.output import emit
from bollesim.cli.wiring import app, command, examples
from bollesim.errors import UsageError
from bollesim.game.declaration import Game
from bollesim.terminal import printable


@command(app, epilog=examples("bollesim policies"))
def policies(game: Game) -> None:
    """List the policies of $title and their parameters (default, range or choices, meaning)."""
    from bollesim.game.policy import available_policies, load_policy

    for name in available_policies(game):
        policy = load_policy(name, game)
        typer.echo(f"{name}: {policy.doc}")
        for p in policy.parameters:
            never = "" if p.never is None else f"({p.never:g}: never)"
            note = f" {never}" if never and never not in p.doc else ""
            allowed = f"{p.low:g}..{p.high:g}" if p.choices is None else " | ".join(p.choices)
            typer.echo(f"    {p.name} = {p.text(p.default)}  ({allowed})  {p.doc}{note}")


@command(
    app,
    epilog=examples(
        "bollesim play -P $baseline --seed 7",
        "bollesim play -P $baseline --seed 3 --index 12 --engine reference",
        "bollesim play -P $baseline -p $param",
        "bollesim play -P $baseline --seed 7 --json | jq '.result'",
        "bollesim play --from results/$baseline-seed1 --index 41",
        "bollesim play --from $results --index 41 --cell 4",
        "bollesim play --from $results --index 41 --cell $setting",
    ),
)
def play(
    chosen: Chosen,
    policy: Annotated[
        str | None,
        typer.Option(
            "--policy",
            "-P",
            metavar="POLICY",
            help="Policy name (see `bollesim policies`).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Run seed (with --index, fixes the game exactly) (default: 1, as for run).",
            show_default=False,
        ),
    ] = None,
    index: Annotated[int | None, typer.Option(
        help="The game's number within the run (>= 0; default 0).", min=0,
        show_default=False)] = None,
    old_index: Annotated[str | None, typer.Option(
        "--game", hidden=True, help="The old spelling of --index.")] = None,
    from_: Annotated[
        Path | None,
        typer.Option(
            "--from",
            metavar="DIR",
            help="Replay game --index of this run or sweep folder exactly "
            "(its game, policy, parameters, seed and ruleset come from the folder).",
            show_default=False,
        ),
    ] = None,
    cell: Annotated[
        str | None,
        typer.Option(
            metavar="CELL",
            help="With --from on a sweep: the cell whose game to replay, by number or by its "
            "parameters (k=12, or fire_at_turn,t=12; `bollesim cells DIR` lists them).",
            show_default=False,
        ),
    ] = None,
    param: ParamOption = None,
    rules: RulesOption = None,
    set_: SetOption = None,
    partial: PartialOption = None,
    readings: ReadingOption = None,
    engine: Annotated[
        str, typer.Option(help="reference (readable Python) or fast (numba): the same game.")
    ] = "reference",
    json_: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print the game as one JSON document (docs/game.schema.json): every "
            "decision with its options, every event, the narration, the result.",
        ),
    ] = False,
) -> None:
    """Play one game of $title and narrate it turn by turn, as its rulebook's example of
    play reads.

    With --from DIR --index N, replay game N of a run or sweep (of the folder's game) from
    its stored row and check that the replay ends as the row says.
    """
    index = _index(index, old_index)
    if json_ and (from_ is not None or engine != "reference"):
        raise UsageError("--json records a new game as the reference engine plays it: "
                         "drop --from and --engine")
    if from_ is not None:
        _replay_from(
            from_,
            chosen.of_folder(from_),
            index,
            cell,
            policy=policy,
            seed=seed,
            param=param,
            rules=rules,
            set_=set_,
            partial=partial,
            readings=readings,
        )
        return
    if cell is not None:
        raise UsageError("--cell picks a cell of a sweep: use it with --from DIR")
    if policy is None:
        raise UsageError(
            "name a policy with -P POLICY, or replay a stored game with --from DIR --index N"
        )
    from bollesim.batch.limits import check_count
    from bollesim.batch.options import ENGINES
    from bollesim.batch.replay import narrated_game
    from bollesim.game.policy import load_policy

    if engine not in ENGINES:
        raise UsageError(f"--engine must be fast or reference, got {engine!r}")
    game = chosen.game
    seed = check_count("--seed", DEFAULT_SEED if seed is None else seed, "seed")
    check_count("--index", index, "games")
    ruleset = RulesetSource.from_options(game, rules, set_, partial, readings).load(game)
    player = load_policy(policy, game)
    params = policy_params(player, param)
    if json_:
        from bollesim.batch.replay import narrate

        emit(narrate(player, seed, index, params, ruleset))
        return
    lines, _ = narrated_game(ruleset, player, params, seed, index, engine)
    typer.echo(printable("\n".join(lines)))


def _index(index: int | None, old: str | None) -> int:
    """The game's number of --index, or of the old spelling `play --game N`, which still
    works and says so in a note (the global --game, before the command, names the game)."""
    if old is None:
        return 0 if index is None else index
    if index is not None:
        raise UsageError("give the game's number once, with --index N (play --game N is its "
                         "old spelling)")
    if not old.isdigit():
        raise UsageError(f"play --game takes a game's number, now spelled --index N; to choose "
                         f"the game, put --game before the command: bollesim --game "
                         f"{printable(old)[:40]} play ...")
    typer.echo(f"note: play --game {old} is now play --index {old} (--game before the "
               "command chooses the game)", err=True)
    return int(old)


def _replay_from(run_dir: Path, game: Game, index: int, cell: str | None, **others) -> None:
    from bollesim.batch.replay import replay_from_run

    flags = {
        "policy": "-P",
        "seed": "--seed",
        "param": "-p",
        "rules": "--rules",
        "set_": "--set",
        "partial": "--partial",
        "readings": "--reading",
    }
    given = [flag for name, flag in flags.items() if others.get(name) not in (None, [])]
    if given:
        raise UsageError(
            f"--from replays a stored game with its own policy, parameters, seed "
            f"and ruleset: drop {', '.join(given)}"
        )
    replay = replay_from_run(run_dir, index, cell, game)
    row = replay.stored
    where = f"game {index}" + (f", cell {row['cell']}" if "cell" in row else "")
    typer.echo(
        printable(f"Replaying {where} of {run_dir}: policy {row['policy']}, seed {row['seed']}")
    )
    typer.echo(printable("\n".join(replay.lines)))
    if replay.differences:
        raise UsageError(
            f"the replay of game {index} differs from its stored row in "
            + "; ".join(replay.differences)
        )
    typer.echo(f"(The replay matches the stored row of game {index}.)")
