"""`bollesim policies` and `bollesim play`: the policies, and one game narrated (or
replayed from a run folder)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bollesim.batch.limits import DEFAULT_SEED
from bollesim.batch.source import RulesetSource
from bollesim.cli.options import (
    ParamOption,
    PartialOption,
    ReadingOption,
    RulesOption,
    SetOption,
    policy_params,
)
from bollesim.cli.output import emit
from bollesim.cli.wiring import app, command, example_param, examples
from bollesim.errors import UsageError
from bollesim.game.registry import declared
from bollesim.terminal import printable

BASELINE = declared().baseline


@command(app, epilog=examples("bollesim policies"))
def policies() -> None:
    """List the policies and their parameters (default, range or choices, meaning)."""
    from bollesim.game.policy import available_policies, load_policy

    for name in available_policies():
        policy = load_policy(name)
        typer.echo(f"{name}: {policy.doc}")
        for p in policy.parameters:
            never = "" if p.never is None else f"({p.never:g}: never)"
            note = f" {never}" if never and never not in p.doc else ""
            allowed = f"{p.low:g}..{p.high:g}" if p.choices is None else " | ".join(p.choices)
            typer.echo(f"    {p.name} = {p.text(p.default)}  ({allowed})  {p.doc}{note}")


@command(
    app,
    epilog=examples(
        f"bollesim play -P {BASELINE} --seed 7",
        f"bollesim play -P {BASELINE} --seed 3 --game 12 --engine reference",
        f"bollesim play -P {BASELINE} -p {example_param()}",
        f"bollesim play -P {BASELINE} --seed 7 --json | jq '.result'",
        f"bollesim play --from results/{BASELINE}-seed1 --game 41",
        "bollesim play --from results/first_fire --game 41 --cell 4",
        "bollesim play --from results/first_fire --game 41 --cell k=12",
    ),
)
def play(
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
            help="Run seed (with --game, fixes the game exactly) (default: 1, as for run).",
            show_default=False,
        ),
    ] = None,
    game: Annotated[int, typer.Option(help="Game index within the run (>= 0).", min=0)] = 0,
    from_: Annotated[
        Path | None,
        typer.Option(
            "--from",
            metavar="DIR",
            help="Replay game --game of this run or sweep folder exactly "
            "(its policy, parameters, seed and ruleset come from the folder).",
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
    """Play one game and narrate it turn by turn, the way §11 of the rulebook reads.

    With --from DIR --game N, replay game N of a run or sweep from its stored row and
    check that the replay ends as the row says.
    """
    if json_ and (from_ is not None or engine != "reference"):
        raise UsageError("--json records a new game as the reference engine plays it: "
                         "drop --from and --engine")
    if from_ is not None:
        _replay_from(
            from_,
            game,
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
            "name a policy with -P POLICY, or replay a stored game with --from DIR --game N"
        )
    from bollesim.batch.limits import check_count
    from bollesim.batch.options import ENGINES
    from bollesim.batch.replay import narrated_game
    from bollesim.game.policy import load_policy

    if engine not in ENGINES:
        raise UsageError(f"--engine must be fast or reference, got {engine!r}")
    seed = check_count("--seed", DEFAULT_SEED if seed is None else seed, "seed")
    check_count("--game", game, "games")
    ruleset = RulesetSource.from_options(rules, set_, partial, readings).load()
    chosen = load_policy(policy)
    params = policy_params(chosen, param)
    if json_:
        from bollesim.batch.replay import narrate

        emit(narrate(chosen, seed, game, params, ruleset))
        return
    lines, _ = narrated_game(ruleset, chosen, params, seed, game, engine)
    typer.echo(printable("\n".join(lines)))


def _replay_from(run_dir: Path, game: int, cell: str | None, **others) -> None:
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
    replay = replay_from_run(run_dir, game, cell)
    row = replay.stored
    where = f"game {game}" + (f", cell {row['cell']}" if "cell" in row else "")
    typer.echo(
        printable(f"Replaying {where} of {run_dir}: policy {row['policy']}, seed {row['seed']}")
    )
    typer.echo(printable("\n".join(replay.lines)))
    if replay.differences:
        raise UsageError(
            f"the replay of game {game} differs from its stored row in "
            + "; ".join(replay.differences)
        )
    typer.echo(f"(The replay matches the stored row of game {game}.)")
