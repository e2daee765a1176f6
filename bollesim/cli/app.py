"""The `bollesim` command line (typer).

Every command is registered with `@command(group)`: it gets `--help` from its docstring
and `epilog`, and the shared error handling, which turns a `RulesetError` or a
`bollesim.errors.UsageError` into one line `error: ...` on stderr and exit code 2 (no
traceback). A new command is a function:

    @command(app, epilog=examples("bollesim policies"))
    def policies() -> None:
        \"\"\"List the policies and their parameters.\"\"\"
        from bollesim import policies_registry  # heavy imports inside the command
        ...
        raise UsageError("unknown policy 'x' (known: historical, ...)")  # -> exit 2

`fail(message)` reports directly; `with user_errors(): ...` gives the same handling to
code outside a command.
"""

from __future__ import annotations

import functools
import os
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from bollesim.bollebank.rules.loader import RulesetError, load_ruleset
from bollesim.errors import UsageError
from bollesim.terminal import printable

EXIT_USAGE = 2  # exit code of every reported error (same as typer's own usage errors)
DEFAULT_SEED = 1  # the run seed when none is given, as in bollesim.simulate

app = typer.Typer(
    name="bollesim",
    help="Monte Carlo strategy analysis for the solitaire wargame Operation Bøllebank.",
    epilog="Examples: bollesim play -P historical --seed 7 · bollesim run -P historical -n 1000000 · "
    "bollesim sweep experiments/first_fire.toml · bollesim report results/first_fire",
    no_args_is_help=True,
)
rules_app = typer.Typer(
    help="Validate and inspect rulesets (default.toml or a designer's copy).",
    epilog="Example: bollesim rules show --reconstructed",
    no_args_is_help=True,
)
app.add_typer(rules_app, name="rules")


def _print_version(value: bool) -> None:
    if value:
        from bollesim import __version__

        typer.echo(f"bollesim {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Monte Carlo strategy analysis for the solitaire wargame Operation Bøllebank.

    Shell completion: bollesim --install-completion (bash, zsh, fish, PowerShell)."""


# --------------------------------------------------------------------------- errors


def fail(message: str) -> NoReturn:
    """Print `error: <message>` as one line on stderr and exit with code 2."""
    line = " ".join(printable(message).splitlines()).strip() or "unknown error"
    typer.echo(f"error: {line}", err=True)
    raise typer.Exit(EXIT_USAGE)


@contextmanager
def user_errors() -> Iterator[None]:
    """Report a RulesetError or UsageError raised inside the block with `fail`."""
    try:
        yield
    except (RulesetError, UsageError) as exc:
        fail(str(exc))


def command(group: typer.Typer, name: str | None = None, **kwargs) -> Callable:
    """Register a function as a command of `group`, with the shared error handling.

    `kwargs` go to `typer.Typer.command` (e.g. `epilog="Example: ..."`)."""

    def register(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, **kw):
            with user_errors():
                return fn(*args, **kw)

        group.command(name, **kwargs)(wrapper)
        return fn

    return register


# --------------------------------------------------------------------------- options


def examples(*lines: str) -> str:
    """An epilog listing example command lines, one per line in `--help`."""
    return "Examples:\n\n" + "\n\n".join(f"  {line}" for line in lines)


RulesFile = Annotated[
    Path | None,
    typer.Argument(
        metavar="FILE",
        help="Ruleset TOML file (default: the shipped bollesim/bollebank/rules/default.toml).",
        show_default=False,
    ),
]
SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        "-s",
        metavar="KEY=VALUE",
        help="Override one value, e.g. --set roe.fire_allowed=10 (repeatable; VALUE is TOML).",
        show_default=False,
    ),
]
PartialOption = Annotated[
    Path | None,
    typer.Option(
        "--partial",
        metavar="FILE",
        help="A partial TOML merged over the ruleset before --set (tables merge, values replace).",
        show_default=False,
    ),
]


ReadingOption = Annotated[
    list[str] | None,
    typer.Option(
        "--reading",
        "-r",
        metavar="ID=VARIANT",
        help="Play another reading of the rules, e.g. --reading I-AIR=ceil (repeatable; "
        "`bollesim rules show --reconstructed` lists them).",
        show_default=False,
    ),
]


def _load(
    path: Path | None,
    overrides: list[str] | None,
    partial: Path | None,
    readings: list[str] | None = None,
):
    from bollesim.bollebank.rules.readings import parse_choices

    return load_ruleset(path, overrides or [], partial, parse_choices(readings or []))


def _label(
    path: Path | None,
    overrides: list[str] | None,
    partial: Path | None,
    readings: list[str] | None = None,
) -> str:
    label = str(path) if path is not None else "default.toml"
    if partial is not None:
        label += f" + {partial}"
    for assignment in overrides or []:
        label += f" + --set {assignment}"
    for choice in readings or []:
        label += f" + --reading {choice}"
    return label


# --------------------------------------------------------------------------- rules


@command(
    rules_app,
    "check",
    epilog=examples(
        "bollesim rules check",
        "bollesim rules check my_rules.toml --set roe.fire_allowed=10",
        "bollesim rules check --partial tweak.toml --reading I-AIR=ceil",
    ),
)
def rules_check(
    file: RulesFile = None,
    overrides: SetOption = None,
    partial: PartialOption = None,
    readings: ReadingOption = None,
) -> None:
    """Validate a ruleset: print `ok: ...` and exit 0, or one `error: ...` line and exit 2.

    The error names the file, the key and what is wrong with it (an unknown key, with
    the nearest known one; a value outside what is allowed).
    """
    rules = _load(file, overrides, partial, readings)
    typer.echo(
        printable(
            f"ok: {_label(file, overrides, partial, readings)} "
            f"(ruleset {rules.name}, sha256 {rules.digest[:12]}…)"
        )
    )


@command(
    rules_app,
    "show",
    epilog=examples(
        "bollesim rules show",
        "bollesim rules show my_rules.toml",
        "bollesim rules show --reconstructed --reading I-TARGET=literal",
    ),
)
def rules_show(
    file: RulesFile = None,
    reconstructed: Annotated[
        bool,
        typer.Option(
            "--reconstructed",
            help="List the readings: every R-.. (reconstructed value) and I-.. "
            "(interpretation) id, its default, its alternatives and the values this ruleset "
            "plays.",
        ),
    ] = False,
    overrides: SetOption = None,
    partial: PartialOption = None,
    readings: ReadingOption = None,
) -> None:
    """Print the tables of a ruleset, each with its provenance (rulebook § or R-/I- id)."""
    from bollesim.bollebank.rules.show import show_readings, show_tables

    rules = _load(file, overrides, partial, readings)
    console = _console()
    label = _label(file, overrides, partial, readings)
    console.print(printable(f"Ruleset {rules.name} ({label}), sha256 {rules.digest}"), style="bold")
    if reconstructed:
        show_readings(console, rules)
    else:
        show_tables(console, rules)


def _console():
    from rich.console import Console

    options = {"markup": False, "highlight": False, "emoji": False}
    console = Console(**options)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=120, **options)  # piped or captured: do not squeeze to 80
    return console


# --------------------------------------------------------------------------- commands
# One `@command(app, epilog=examples(...))` function per command. Engines and other heavy
# modules are imported inside the function so `--help` stays fast.


PolicyOption = Annotated[
    str,
    typer.Option("--policy", "-P", metavar="POLICY", help="Policy name (see `bollesim policies`)."),
]
ParamOption = Annotated[
    list[str] | None,
    typer.Option(
        "--param",
        "-p",
        metavar="NAME=VALUE",
        help="Set a policy parameter (repeatable).",
        show_default=False,
    ),
]
RulesOption = Annotated[
    Path | None,
    typer.Option(
        "--rules",
        metavar="FILE",
        help="Ruleset TOML file (default: the shipped one).",
        show_default=False,
    ),
]


def _policy_params(policy, assignments: list[str] | None):
    values = {}
    for assignment in assignments or []:
        name, sep, raw = assignment.partition("=")
        if not sep:
            raise UsageError(f"--param {assignment!r}: expected NAME=VALUE, e.g. stop_at_tanks=2")
        try:
            values[name.strip()] = float(raw)
        except ValueError:
            raise UsageError(f"--param {assignment!r}: {raw!r} is not a number") from None
    return policy.param_vector(values)


@command(app, epilog=examples("bollesim policies"))
def policies() -> None:
    """List the policies and their parameters (default, range, meaning)."""
    from bollesim.game.policy import available_policies, load_policy

    for name in available_policies():
        policy = load_policy(name)
        typer.echo(f"{name}: {policy.doc}")
        for p in policy.parameters:
            never = f" ({p.never:g}: never)" if p.never is not None else ""
            typer.echo(f"    {p.name} = {p.default:g}  ({p.low:g}..{p.high:g})  {p.doc}{never}")


@command(
    app,
    epilog=examples(
        "bollesim play -P historical --seed 7",
        "bollesim play -P random --seed 3 --game 12",
        "bollesim play -P historical -p stop_at_tanks=2 --set roe.fire_allowed=10",
        "bollesim play --from results/historical-seed1 --game 41",
        "bollesim play --from results/first_fire --game 41 --cell 4",
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
        int | None,
        typer.Option(
            help="With --from on a sweep: the cell whose game to replay.", min=0, show_default=False
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
) -> None:
    """Play one game and narrate it turn by turn, the way §11 of the rulebook reads.

    With --from DIR --game N, replay game N of a run or sweep from its stored row and
    check that the replay ends as the row says.
    """
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
    from bollesim.batch.experiment import check_count
    from bollesim.batch.replay import narrated_game
    from bollesim.batch.runner import ENGINES
    from bollesim.game.policy import load_policy

    if engine not in ENGINES:
        raise UsageError(f"--engine must be fast or reference, got {engine!r}")
    seed = check_count("--seed", DEFAULT_SEED if seed is None else seed, "seed")
    check_count("--game", game, "games")
    ruleset = _load(rules, set_, partial, readings)
    chosen = load_policy(policy)
    params = _policy_params(chosen, param)
    lines, _ = narrated_game(ruleset, chosen, params, seed, game, engine)
    typer.echo(printable("\n".join(lines)))


def _replay_from(run_dir: Path, game: int, cell: int | None, **others) -> None:
    from bollesim.batch.experiment import replay_from_run

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


def _progress_bar(label: str):
    """A rich progress bar over games (quiet when stderr is not a terminal)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    return Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=not console.is_terminal,
        transient=False,
    )


OUTCOMES = ("operational", "tactical", "strategic", "political", "defeat", "no_result")
OVERLAP_NOTE = (
    "A game can win several victory types, so a row's victories and defeat can add up to "
    "more than 100%; no result: neither a victory nor a defeat."
)

JsonOption = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Print one JSON object on stdout for scripts (the human lines go to stderr).",
    ),
]


def _emit(data: dict) -> None:
    """The --json answer: one JSON object, one line, on stdout."""
    import json

    typer.echo(json.dumps(data, default=str))


def _outcome_means():
    """Each outcome's rate as a polars expression (no_result: no victory and no defeat)."""
    import polars as pl

    victories = [pl.col(c).fill_null(False) for c in OUTCOMES[:4]]
    no_result = ~pl.any_horizontal(victories) & ~pl.col("defeat").fill_null(False)
    return [pl.col(c).mean() for c in OUTCOMES[:5]] + [no_result.mean().alias("no_result")]


def _summary(run) -> tuple[int, dict[str, float]]:
    """Games and outcome rates of a verified run (runfolder.Run), read column by column (a
    10-million-game file would take a gigabyte in memory whole)."""
    import polars as pl

    row = run.collect(run.scan().select([pl.len().alias("n"), *_outcome_means()]))
    n = int(row["n"][0])
    return n, {c: float(row[c][0] or 0.0) for c in OUTCOMES}


def _rates_line(rates: dict[str, float]) -> str:
    return "  ".join(f"{c.replace('_', ' ')} {rates[c]:.1%}" for c in OUTCOMES)


ExperimentArgument = Annotated[
    Path,
    typer.Argument(
        metavar="SPEC",
        help="Experiment file (TOML), e.g. experiments/first_fire.toml.",
        show_default=False,
    ),
]
SpecSeedOption = Annotated[
    int | None, typer.Option(help="Run seed (default: the spec's).", show_default=False)
]
GamesOption = Annotated[
    int | None,
    typer.Option(
        "--games", "-n", help="Games per cell (default: the spec's games).", show_default=False
    ),
]
PrecisionOption = Annotated[
    float | None,
    typer.Option(
        metavar="P",
        help="Keep adding games (same seed scheme) until every rate's 95% Wilson "
        "half-width (operational, tactical, strategic, political, defeat; per cell) is at most P "
        "(0.01 = one percentage point), or --max-games is reached.",
        show_default=False,
    ),
]
MaxGamesOption = Annotated[
    int | None,
    typer.Option(
        metavar="M",
        help="With --precision: at most M games per cell (default: 1,000,000).",
        show_default=False,
    ),
]
ThreadsOption = Annotated[
    int | None,
    typer.Option(help="Threads for the fast engine (default: all cores).", show_default=False),
]
ChunkOption = Annotated[
    int | None,
    typer.Option(
        help="Games per chunk, the unit of play and of saving (default: 250,000 for the fast "
        "engine, 1,000 for the reference engine; when resuming, the interrupted run's).",
        show_default=False,
    ),
]
ResumeOption = Annotated[
    bool,
    typer.Option(
        "--resume",
        help="Continue the interrupted run into OUT from its saved chunks (same options; "
        "the result is the same as an uninterrupted run's).",
    ),
]
RestartOption = Annotated[
    bool,
    typer.Option("--restart", help="Discard an interrupted run into OUT and start again."),
]
ClusterOption = Annotated[
    str | None,
    typer.Option(
        help="Play the chunks as tasks on a Dask cluster: 'local' (worker processes on this "
        "machine) or a scheduler address, tcp://HOST:PORT. Same rows as without.",
        show_default=False,
    ),
]
WorkersOption = Annotated[
    int | None,
    typer.Option(help="Workers of a --cluster local (default: one per core).", show_default=False),
]


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP, stopping a run the way Ctrl-C does."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextmanager
def _stop_on_signals() -> Iterator[None]:
    """While a batch plays, SIGTERM and SIGHUP stop it as Ctrl-C does: its finished chunks
    are saved and the command says how to resume."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Interrupted(signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _mode(resume: bool, restart: bool) -> str:
    if resume and restart:
        raise UsageError("--resume continues an interrupted run, --restart discards it: give one")
    return "resume" if resume else "restart" if restart else "new"


def _interrupted(folder: Path, exc: KeyboardInterrupt) -> NoReturn:
    """Say what an interrupted run saved and how to continue it; exit 128 + the signal."""
    from bollesim.batch.runfolder import interrupted_run

    waiting = interrupted_run(folder)
    saved = f"{waiting.saved:,} of {waiting.planned:,} games are saved" if waiting else "no game was saved"
    args = [a for a in sys.argv[1:] if a not in ("--resume", "--restart")]
    if Path(sys.argv[0]).name in ("bollesim", "__main__.py"):
        how = "continue with: " + shlex.join(["bollesim", *args, "--resume"])
    else:
        how = "continue with the same command and --resume"
    typer.echo(printable(f"interrupted: {saved} ({folder}); {how}"), err=True)
    signum = getattr(exc, "signum", signal.SIGINT)
    raise typer.Exit(128 + signum)


@contextmanager
def _cluster(address: str | None, workers: int | None, threads: int | None):
    """The Dask cluster of --cluster, or None (play on this machine)."""
    if address is None:
        if workers is not None:
            raise UsageError("--workers sizes a Dask cluster: give --cluster local too")
        yield None
        return
    from bollesim.batch.cluster import Cluster

    with Cluster(address, workers, threads) as cluster:
        yield cluster


@command(
    app,
    epilog=examples(
        "bollesim run -P historical -n 1000000 --seed 1 --out results/historical",
        "bollesim run -P historical -p stop_at_tanks=2 -n 100000 --threads 1",
        "bollesim run -P fire_at_roe -p k=18 -n 10000 --precision 0.005 --max-games 500000",
        "bollesim run -P random -n 2000 --engine reference --out results/random-ref",
        "bollesim run -P historical -n 10000000 --cluster tcp://10.0.0.5:8786",
        "bollesim run -P historical -n 10000000 --out results/big --resume",
        "bollesim run -P historical -n 10000 --json   # one JSON object on stdout",
    ),
)
def run(
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
    """Play a batch of games into OUT/games.parquet and OUT/manifest.json.

    Read the results with polars: pl.read_parquet("OUT/games.parquet"), or with pandas:
    pd.read_parquet("OUT/games.parquet"). Replay any game with
    `bollesim play --from OUT --game N`. An interrupted run (Ctrl-C, a signal, a crash)
    keeps its finished chunks: the same command with --resume continues it.
    """
    from bollesim.batch.experiment import (
        Cell,
        check_count,
        check_precision,
        ruleset_record,
        run_cells,
    )
    from bollesim.batch.runfolder import open_run
    from bollesim.batch.runner import ENGINES, default_chunk, progress_chunk
    from bollesim.game.policy import load_policy

    check_count("--games", games, "games")
    check_count("--seed", seed, "seed")
    if engine not in ENGINES:
        raise UsageError(f"--engine must be fast or reference, got {engine!r}")
    if precision is not None:
        check_precision(precision)
    elif max_games is not None:
        raise UsageError("--max-games caps the games added for --precision: give --precision too")
    mode = _mode(resume, restart)
    ruleset = _load(rules, set_, partial, readings)
    chosen = load_policy(policy)
    params = _policy_params(chosen, param)
    folder = out or Path("results") / f"{policy}-seed{seed}"
    if chunk is None and engine == "fast" and mode != "resume":
        # about 1% of the games, so the progress bar moves
        chunk = min(progress_chunk(games), default_chunk(chosen, engine))
    source = {
        "file": str(rules) if rules else None,
        "partial": str(partial) if partial else None,
        "overrides": list(set_ or []),
        "readings": list(readings or []),
    }
    try:
        with (
            _stop_on_signals(),
            _cluster(cluster, workers, threads) as dask,
            _progress_bar(f"{policy} ({engine})") as bar,
        ):
            task = bar.add_task("games", total=games)
            manifest, outcome = run_cells(
                folder,
                [Cell(0, chosen, params)],
                ruleset,
                seed,
                games,
                precision=precision,
                max_games=max_games,
                threads=threads,
                chunk_size=chunk,
                engine=engine,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                extra_manifest=ruleset_record(ruleset, source),
                cluster=dask,
                mode=mode,
            )
    except KeyboardInterrupt as exc:
        _interrupted(folder, exc)
    n, rates = _summary(open_run(folder))
    _said_resumed(folder, outcome)
    t = manifest["timings"]
    typer.echo(
        printable(
            f"{n:,} games in {t['run_s']:.2f} s ({t['games_per_s'] or 0:,.0f} games/s, "
            f"engine ready in {t['warm_up_s']:.1f} s) -> {folder}"
        ),
        err=json_,
    )
    if precision is not None:
        typer.echo(outcome.sentence(), err=json_)
    typer.echo(_rates_line(rates), err=json_)
    if json_:
        _emit({"command": "run", "out": str(folder), "policy": policy, "games": n,
               "seed": seed, "rates": rates, "timings": t,
               "stopped": outcome.sentence() if precision is not None else None})


def _play_experiment(experiment, folder: Path, *, mode: str, cluster: str | None,
                     workers: int | None, threads: int | None, **options):
    """Play an experiment's cells into folder (experiment.sweep) behind the progress bar,
    on the cluster if one is asked for, stopping cleanly on a signal: (manifest, outcome)
    as experiment.sweep gives them."""
    from bollesim.batch.experiment import sweep as run_sweep

    n_cells = len(experiment.cells)
    try:
        with (
            _stop_on_signals(),
            _cluster(cluster, workers, threads) as dask,
            _progress_bar(printable(f"{experiment.name} ({n_cells} cells)")) as bar,
        ):
            task = bar.add_task("games", total=None)
            manifest, outcome = run_sweep(
                experiment, folder, threads=threads, cluster=dask, mode=mode,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                **options)
    except KeyboardInterrupt as exc:
        _interrupted(folder, exc)
    _said_resumed(folder, outcome)
    return manifest, outcome


def _said_resumed(folder: Path, outcome) -> None:
    """A line on stderr when --resume found the run complete, or continued one."""
    if outcome.already_complete:
        typer.echo(printable(f"nothing to resume: {folder} holds this run, complete"), err=True)
    elif outcome.saved_before:
        typer.echo(f"resumed: {outcome.saved_before:,} games were saved already", err=True)


@command(
    app,
    epilog=examples(
        "bollesim sweep experiments/first_fire.toml",
        "bollesim sweep experiments/first_fire.toml -n 2000 --out results/quick",
        "bollesim sweep experiments/policies.toml --precision 0.005 --max-games 400000",
        "bollesim sweep experiments/first_fire.toml -n 100000 --cluster local --workers 2",
        "bollesim sweep experiments/first_fire.toml --resume",
        "bollesim sweep experiments/first_fire.toml -n 2000 --json | jq '.cells[0]'",
    ),
)
def sweep(
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
    """Play every cell of an experiment on common random numbers.

    Game g of every cell has the same seed. Writes OUT/games.parquet (one row per game,
    with `cell` and the parameter columns) and OUT/manifest.json (the cells and the spec).

    -n and --seed override the spec's games per cell and seed. Then:
    `bollesim report OUT`, and `bollesim play --from OUT --game N --cell C`. An interrupted
    sweep keeps its finished chunks: the same command with --resume continues it.
    """
    from bollesim.batch.experiment import check_count, check_precision, load_experiment
    from bollesim.batch.runfolder import open_run

    if games is not None:
        check_count("--games", games, "games")
    if seed is not None:
        check_count("--seed", seed, "seed")
    if precision is not None:
        check_precision(precision)
    experiment = load_experiment(spec)
    folder = out or Path("results") / experiment.name
    n_cells = len(experiment.cells)
    manifest, outcome = _play_experiment(
        experiment, folder, mode=_mode(resume, restart), cluster=cluster, workers=workers,
        threads=threads, games=games, seed=seed, precision=precision, max_games=max_games,
        chunk_size=chunk)
    t = manifest["timings"]
    typer.echo(
        printable(
            f"{n_cells} cells x {outcome.games_per_cell:,} games = {manifest['n_games']:,} "
            f"games in {t['run_s']:.2f} s ({t['games_per_s'] or 0:,.0f} games/s, engine "
            f"ready in {t['warm_up_s']:.1f} s) -> {folder}"
        ),
        err=json_,
    )
    if outcome.precision is not None:
        typer.echo(outcome.sentence(), err=json_)
    cells = _cell_rates(open_run(folder))
    _print_cells(cells, err=json_)
    typer.echo(printable(f"Next: bollesim report {shlex.quote(str(folder))}"), err=json_)
    if json_:
        _emit({"command": "sweep", "out": str(folder), "experiment": experiment.name,
               "games_per_cell": outcome.games_per_cell, "games": manifest["n_games"],
               "seed": manifest["seed"], "timings": t,
               "stopped": outcome.sentence() if outcome.precision is not None else None,
               "cells": cells.to_dicts()})


def _cell_rates(run):
    """One row per cell of a verified run (runfolder.Run): cell, label, policy, games and
    each outcome's rate, aggregated from a lazy scan (memory stays flat)."""
    import polars as pl

    from bollesim.stats import analysis as A

    scan = run.scan()
    first_rows = run.collect(scan.group_by("cell").agg(pl.all().first()))  # one row per cell
    labels = A.cell_labels(first_rows) if first_rows.height else None
    table = run.collect(
        scan.group_by("cell").agg(pl.len().alias("games"), *_outcome_means()).sort("cell")
    )
    if labels is None:
        return table.with_columns(pl.lit("").alias("label"), pl.lit("").alias("policy"))
    return labels.join(table, on="cell").sort("cell")


def _print_cells(cells, err: bool = False) -> None:
    """The sweep's table: one line of rates per cell, and why a row can pass 100%."""
    from bollesim.terminal import printable

    if cells.height == 0:
        return
    width = max(len(v) for v in cells["label"].to_list())
    names = [c.replace("_", " ")[:11] for c in OUTCOMES]
    typer.echo(f"{'cell':>4}  {'':<{width}}  " + "  ".join(f"{c:>11}" for c in names), err=err)
    for row in cells.iter_rows(named=True):
        typer.echo(
            f"{row['cell']:>4}  {printable(row['label']):<{width}}  "
            + "  ".join(f"{row[c]:>11.1%}" for c in OUTCOMES),
            err=err,
        )
    typer.echo(OVERLAP_NOTE, err=err)


@command(
    app,
    epilog=examples(
        "bollesim optimise experiments/optimise_operational.toml",
        "bollesim optimise experiments/optimise_pareto.toml --out results/front",
        "bollesim optimise experiments/optimise_operational.toml --budget 400000 --json",
        "bollesim optimise experiments/optimise_operational.toml --cluster local --workers 2",
        "bollesim serve --from results/optimise_operational   # plays best.json",
    ),
)
def optimise(
    spec: Annotated[
        Path,
        typer.Argument(
            metavar="SPEC",
            help="Search file (TOML), e.g. experiments/optimise_operational.toml.",
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
        typer.Option(help="Games the search may play (default: the spec's).", show_default=False),
    ] = None,
    threads: ThreadsOption = None,
    cluster: ClusterOption = None,
    workers: WorkersOption = None,
    json_: JsonOption = False,
) -> None:
    """Search a policy family's parameters for the best objective.

    The candidates race by successive halving on common random numbers (the same games for
    every candidate); the finalists and the defaults are then replayed on held-out games.
    OUT holds games.parquet and manifest.json (the held-out games: `bollesim report OUT`),
    trajectory.parquet (the race), best.json ({"policy": ..., "params": {...}}) and
    optimise.md (held-out estimates with intervals, paired differences, charts).
    """
    import dataclasses

    from bollesim.batch.runfolder import Workspace
    from bollesim.search.optimise import RANGES, load_search, write_result
    from bollesim.search.optimise import optimise as run_search

    search = load_search(spec)
    if budget is not None:
        low, high = RANGES["budget"]
        if not low <= budget <= high:
            raise UsageError(f"--budget must be a whole number from {low:,} to {high:,}, got {budget}")
        search = dataclasses.replace(search, budget=budget)
    folder = out or Path("results") / search.name
    with Workspace(folder) as workspace:  # refuse a folder that cannot take the result now,
        workspace.check_replaceable()     # not after the search
    with (
        _stop_on_signals(),
        _cluster(cluster, workers, threads) as dask,
        _progress_bar(printable(f"optimise {search.name}")) as bar,
    ):
        task = bar.add_task("games", total=None)
        result = run_search(search, threads=threads, cluster=dask,
                            progress=lambda done, total: bar.update(task, completed=done, total=total))
        write_result(search, result, folder)
    best = result.best
    params = " ".join(f"{k}={v}" for k, v in best["params"].items())
    t = result.timings
    typer.echo(printable(f"{len(result.pool)} candidates, {result.games_searched:,} search games "
                         f"and {result.holdout.height:,} held-out games in {t['total_s']:.0f} s "
                         f"-> {folder}"), err=json_)
    typer.echo(printable(f"best: {best['policy']} {params}"), err=json_)
    typer.echo(printable(f"Next: cat {shlex.quote(str(folder / 'optimise.md'))}"), err=json_)
    if json_:
        import json

        record = json.loads((folder / "best.json").read_text(encoding="utf-8"))
        _emit({"command": "optimise", "out": str(folder), "best": best,
               "held_out": record["held_out"], "candidates": len(result.pool),
               "search_games": result.games_searched, "holdout_games": result.holdout.height,
               "timings": t})


@command(
    app,
    epilog=examples(
        "bollesim report results/first_fire",
        "bollesim report results/historical-seed1 --out /tmp/historical-report",
        "bollesim report results/first_fire --json",
    ),
)
def report(
    run_dir: Annotated[
        Path,
        typer.Argument(
            metavar="DIR",
            help="A run or sweep folder (with games.parquet and manifest.json).",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path | None, typer.Option(help="Where to write (default: DIR).", show_default=False)
    ] = None,
    json_: JsonOption = False,
) -> None:
    """Write the balance report of a run or sweep.

    report.html (one file that works offline: interactive charts, sortable tables),
    report.md with its charts as PNG files, and rates.csv (every rate, its interval and
    counts). The folder of a `bollesim sensitivity` run gets its sensitivity report
    (sensitivity.html, sensitivity.md, sensitivity-*.csv)."""
    from bollesim.batch.runfolder import Workspace, open_run
    from bollesim.report.balance import write_report
    from bollesim.stats.sensitivity import write_sensitivity

    run = open_run(run_dir)  # refuses a folder it cannot trust, before taking any lock
    into_run = out is None or os.path.abspath(out) == os.path.abspath(run_dir)
    with Workspace(run_dir) if into_run else nullcontext():  # no run replaces it meanwhile
        run = open_run(run_dir)
        if run.n_games == 0:
            raise UsageError(f"{run_dir} holds no games (a run of -n 0): there is nothing to report")
        write = write_sensitivity if run.manifest.get("sensitivity") else write_report
        try:
            paths = write(run_dir, out)
        except OSError as exc:
            raise UsageError(
                f"cannot write the report to {out or run_dir}: {exc.strerror or exc}"
            ) from None
    tables = [str(p) for p in paths["tables"]]
    typer.echo(
        printable(
            f"wrote {paths['html']}, {paths['markdown']} ({len(paths['charts'])} charts next "
            f"to it) and {', '.join(tables)}"
        ),
        err=json_,
    )
    if json_:
        _emit({"command": "report", "html": str(paths["html"]),
               "markdown": str(paths["markdown"]), "rates": paths.get("rates") and
               str(paths["rates"]), "tables": tables,
               "charts": [str(p) for p in paths["charts"]]})


@command(
    app,
    epilog=examples(
        "bollesim sensitivity experiments/first_fire.toml -n 2000",
        "bollesim sensitivity experiments/first_fire.toml -n 500 --only I-AIR --only R-TRACK",
        "bollesim sensitivity experiments/first_fire.toml -n 2000 --resume",
        "bollesim sensitivity experiments/policies.toml -n 1000 --json",
    ),
)
def sensitivity(
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
    threads: ThreadsOption = None,
    chunk: ChunkOption = None,
    cluster: ClusterOption = None,
    workers: WorkersOption = None,
    resume: ResumeOption = False,
    restart: RestartOption = False,
    json_: JsonOption = False,
) -> None:
    """Play an experiment under each alternative reading of the rules, on the same seeds,
    and report what each one changes.

    One sweep: every cell of the experiment as specified and under each alternative
    (a variant of a reading, docs/readings.md) in turn. Writes the sweep to OUT
    (games.parquet, manifest.json) and the sensitivity report next to it:
    sensitivity.html, sensitivity.md (a tornado chart per outcome: how far each
    alternative moves its rate; a table saying whether each finding, the best trigger
    for each victory type and the ranking of the policies, still holds), and the CSV
    files. An interrupted run continues with --resume."""
    from bollesim.batch.experiment import check_count, load_experiment
    from bollesim.batch.runfolder import Workspace
    from bollesim.stats.sensitivity import sensitivity_experiment, write_sensitivity

    if games is not None:
        check_count("--games", games, "games")
    if seed is not None:
        check_count("--seed", seed, "seed")
    experiment = sensitivity_experiment(load_experiment(spec), only)
    folder = out or Path("results") / experiment.name
    n_cells, n_alternatives = len(experiment.cells), len(experiment.sensitivity["alternatives"])
    manifest, outcome = _play_experiment(
        experiment, folder, mode=_mode(resume, restart), cluster=cluster, workers=workers,
        threads=threads, games=games, seed=seed, chunk_size=chunk)
    with Workspace(folder):
        written = write_sensitivity(folder)
    t = manifest["timings"]
    say = functools.partial(typer.echo, err=json_)
    say(printable(
        f"{n_cells} cells ({n_cells // (n_alternatives + 1)} x {n_alternatives + 1} readings) x "
        f"{outcome.games_per_cell:,} games = {manifest['n_games']:,} games in "
        f"{t['run_s']:.2f} s ({t['games_per_s'] or 0:,.0f} games/s) -> {folder}"))
    robust = written["robustness"]
    if robust.height:
        counts = {v: int((robust["verdict"] == v).sum()) for v in ("holds", "holds within noise",
                                                                  "changes")}
        say(f"findings under each alternative: {counts['holds']} hold, "
            f"{counts['holds within noise']} hold within noise, {counts['changes']} change")
    say(printable(f"wrote {written['html']} and {written['markdown']} "
                  f"({len(written['charts'])} charts next to it)"))
    if json_:
        _emit({"command": "sensitivity", "out": str(folder), "experiment": experiment.name,
               "alternatives": experiment.sensitivity["alternatives"],
               "games_per_cell": outcome.games_per_cell, "games": manifest["n_games"],
               "seed": manifest["seed"], "timings": t,
               "effects": written["effects"].to_dicts(),
               "robustness": written["robustness"].to_dicts(),
               "html": str(written["html"]), "markdown": str(written["markdown"])})


SideArgument = Annotated[
    str,
    typer.Argument(
        metavar="A",
        help="A run folder, or DIR:CELL for one cell of a sweep.",
        show_default=False,
    ),
]


@command(
    app,
    epilog=examples(
        "bollesim compare results/default results/tweak",
        "bollesim compare results/first_fire:0 results/first_fire:17",
        "bollesim compare results/default results/tweak --out /tmp/cmp --json",
    ),
)
def compare(
    a: SideArgument,
    b: Annotated[
        str,
        typer.Argument(
            metavar="B",
            help="The other run folder or DIR:CELL; differences are B minus A.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Where to write compare.html, compare.md and compare.csv "
            "(default: results/compare-A-vs-B).",
            show_default=False,
        ),
    ] = None,
    json_: JsonOption = False,
) -> None:
    """Compare two runs, or two cells of sweeps, game by game on the same seeds.

    Game g of A is paired with game g of B (both must be played from the same seed).
    Prints B - A for every outcome with its 95% interval (Newcombe's paired method) and
    the exact McNemar test, what B changes (policy, parameters, readings, ruleset
    values), and writes the comparison's report: compare.html (interactive), compare.md
    with its chart, compare.csv."""
    from bollesim.report.chartdata import signed_ci
    from bollesim.stats import compare as C

    side_a, side_b = C.open_side(a), C.open_side(b)
    folder = out or C.default_out(side_a, side_b)
    try:
        written = C.write_compare(side_a, side_b, folder)
    except OSError as exc:
        raise UsageError(f"cannot write the comparison to {folder}: {exc.strerror or exc}") from None
    table = written["differences"]
    changes = C.what_differs(side_a, side_b)
    say = functools.partial(typer.echo, err=json_)
    say(printable(f"A: {a} ({side_a.label}); B: {b} ({side_b.label})"))
    say(printable("B changes: " + ("; ".join(changes) if changes else "nothing recorded")))
    say(f"paired on {int(table['n'][0]):,} games (the same seeds); B - A in points:")
    for r in table.iter_rows(named=True):
        mark = " *" if r["significant"] else "  "
        say(f"  {r['outcome'].replace('_', ' '):<12} {r['rate_a']:>7.1%} {r['rate_b']:>7.1%}"
            f"  {signed_ci(r['diff'], r['diff_low'], r['diff_high'])}{mark} p={r['p_value']:.2g}")
    say("* significant (exact McNemar, p < 0.05)")
    say(printable(f"wrote {written['html']}, {written['markdown']} and {written['tables'][0]}"))
    if json_:
        _emit({"command": "compare", "a": a, "b": b, "what_differs": changes,
               "paired_games": int(table["n"][0]), "differences": table.to_dicts(),
               "html": str(written["html"]), "markdown": str(written["markdown"]),
               "csv": str(written["tables"][0])})


@command(app, epilog=examples("bollesim bench", "bollesim bench --json --games 200000 --no-cold"))
def bench(
    json_: Annotated[
        bool, typer.Option("--json", help="End with one JSON line of all figures.")
    ] = False,
    policy: Annotated[str, typer.Option("--policy", "-P", help="Policy to time.")] = "historical",
    games: Annotated[
        int, typer.Option(help="Fast-engine games per measurement.", min=1000)
    ] = 500_000,
    reference_games: Annotated[int, typer.Option(help="Reference-engine games.", min=10)] = 300,
    cold: Annotated[
        bool, typer.Option(help="Also time a cold compile (a fresh process, empty cache).")
    ] = True,
) -> None:
    """Measure games per second: fast engine, reference engine, RNG floor.

    The fast engine on all cores and on one thread (for the chosen policy, then for every
    shipped policy), the reference engine, their ratio per
    core, an RNG floor and the engine's ratio to it, random draws per game, and the
    compile time cold and cached."""
    import json

    from bollesim.batch.bench import measure
    from bollesim.game.policy import load_policy

    figures = measure(
        load_ruleset(),
        load_policy(policy),
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
            "policy and parameters it found.",
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
    """Start the what-if page: change a table of the rules, watch the odds move.

    A local web page shows every table of the ruleset as the rulebook does, every reading
    as a switch, a policy and its parameters; each change is played at once against the
    default ruleset on the same seeds, and refined while you wait. Save the edited ruleset
    as a partial TOML, open the full balance report, replay an example game."""
    from bollesim.batch.experiment import check_count
    from bollesim.serve.best import read_best
    from bollesim.serve.server import serve as run_server

    check_count("--seed", seed, "seed")
    if not 0 <= port <= 65535:
        raise UsageError(f"--port must be from 0 to 65535 (0: any free one), got {port}")
    if not 2_000 <= max_games <= 1_000_000:
        raise UsageError(f"--max-games must be from 2,000 to 1,000,000, got {max_games:,}")
    best = read_best(from_) if from_ is not None else None
    run_server(host, port, open_browser=browser, best=best, max_games=max_games, seed=seed)


def main() -> None:  # pragma: no cover - entry point for `python -m bollesim`
    app(prog_name="bollesim")
