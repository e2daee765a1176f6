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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from bollesim.errors import UsageError
from bollesim.rules.loader import RulesetError, load_ruleset
from bollesim.terminal import printable

EXIT_USAGE = 2  # exit code of every reported error (same as typer's own usage errors)

app = typer.Typer(
    name="bollesim",
    help="Monte Carlo strategy analysis for the solitaire wargame Operation Bøllebank.",
    epilog="Examples: bollesim play -P historical --seed 7 · bollesim run -P historical -n 1000000 · "
    "bollesim sweep experiments/first_fire.toml · bollesim report results/first_fire",
    no_args_is_help=True,
    add_completion=False,
)
rules_app = typer.Typer(
    help="Validate and inspect rulesets (default.toml or a designer's copy).",
    epilog="Example: bollesim rules show --reconstructed",
    no_args_is_help=True,
)
app.add_typer(rules_app, name="rules")


# --------------------------------------------------------------------------- errors


def fail(message: str) -> NoReturn:
    """Print `error: <message>` as one line on stderr and exit with code 2."""
    line = " ".join(str(message).splitlines()).strip() or "unknown error"
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
        help="Ruleset TOML file (default: the shipped bollesim/rules/default.toml).",
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
    from bollesim.rules.readings import parse_choices

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
    from bollesim.rules.show import show_readings, show_tables

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
    from bollesim.policy import available_policies, load_policy

    for name in available_policies():
        policy = load_policy(name)
        typer.echo(f"{name}: {policy.doc}")
        for p in policy.parameters:
            typer.echo(f"    {p.name} = {p.default:g}  ({p.low:g}..{p.high:g})  {p.doc}")


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
            help="Run seed (with --game, fixes the game exactly) (default: 7).", show_default=False
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
    from bollesim.policy import load_policy
    from bollesim.replay import narrated_game
    from bollesim.runner import ENGINES

    if engine not in ENGINES:
        raise UsageError(f"--engine must be fast or reference, got {engine!r}")
    ruleset = _load(rules, set_, partial, readings)
    chosen = load_policy(policy)
    params = _policy_params(chosen, param)
    seed = 7 if seed is None else seed
    lines, _ = narrated_game(ruleset, chosen, params, seed, game, engine)
    typer.echo("\n".join(lines))


def _replay_from(run_dir: Path, game: int, cell: int | None, **others) -> None:
    from bollesim.experiment import replay_from_run

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
    typer.echo(f"Replaying {where} of {run_dir}: policy {row['policy']}, seed {row['seed']}")
    typer.echo("\n".join(replay.lines))
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


OUTCOMES = ("operational", "tactical", "strategic", "political", "defeat")


def _summary(path: Path) -> tuple[int, tuple[float, ...]]:
    """Games and outcome rates of a games.parquet, read column by column (a 10-million-game
    file would take a gigabyte in memory whole)."""
    import polars as pl

    row = (
        pl.scan_parquet(path)
        .select([pl.len().alias("n")] + [pl.col(c).mean() for c in OUTCOMES])
        .collect()
        .row(0)
    )
    return row[0], tuple(r or 0.0 for r in row[1:])


def _rates_line(rates: tuple[float, ...]) -> str:
    return "  ".join(f"{c} {r:.1%}" for c, r in zip(OUTCOMES, rates, strict=True))


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


@contextmanager
def _cluster(address: str | None, workers: int | None, threads: int | None):
    """The Dask cluster of --cluster, or None (play on this machine)."""
    if address is None:
        if workers is not None:
            raise UsageError("--workers sizes a Dask cluster: give --cluster local too")
        yield None
        return
    from bollesim.cluster import Cluster

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
    ),
)
def run(
    policy: PolicyOption,
    games: Annotated[int, typer.Option("--games", "-n", help="Number of games to play.")] = 100_000,
    seed: Annotated[int, typer.Option(help="Run seed: game g is seeded from (seed, g).")] = 1,
    param: ParamOption = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Output folder (default: results/POLICY-seedS).", show_default=False),
    ] = None,
    engine: Annotated[
        str, typer.Option(help="fast (numba) or reference (readable Python).")
    ] = "fast",
    threads: ThreadsOption = None,
    chunk: Annotated[
        int, typer.Option(help="Games per chunk written to Parquet.", min=1)
    ] = 250_000,
    precision: PrecisionOption = None,
    max_games: MaxGamesOption = None,
    rules: RulesOption = None,
    set_: SetOption = None,
    partial: PartialOption = None,
    readings: ReadingOption = None,
    cluster: ClusterOption = None,
    workers: WorkersOption = None,
) -> None:
    """Play a batch of games into OUT/games.parquet and OUT/manifest.json.

    Read the results with polars: pl.read_parquet("OUT/games.parquet"), or with pandas:
    pd.read_parquet("OUT/games.parquet"). Replay any game with
    `bollesim play --from OUT --game N`.
    """
    from bollesim.experiment import Cell, check_precision, ruleset_record, run_cells
    from bollesim.policy import load_policy
    from bollesim.runner import ENGINES, run_to_dir

    if games < 0:
        raise UsageError(f"--games must be 0 or more, got {games}")
    if engine not in ENGINES:
        raise UsageError(f"--engine must be fast or reference, got {engine!r}")
    if precision is not None:
        check_precision(precision)
    elif max_games is not None:
        raise UsageError("--max-games caps the games added for --precision: give --precision too")
    ruleset = _load(rules, set_, partial, readings)
    chosen = load_policy(policy)
    params = _policy_params(chosen, param)
    folder = out or Path("results") / f"{policy}-seed{seed}"
    source = {
        "file": str(rules) if rules else None,
        "partial": str(partial) if partial else None,
        "overrides": list(set_ or []),
        "readings": list(readings or []),
    }
    extra = ruleset_record(ruleset, source)
    outcome = None
    with _cluster(cluster, workers, threads) as dask, _progress_bar(f"{policy} ({engine})") as bar:
        task = bar.add_task("games", total=games)
        if precision is None:
            manifest = run_to_dir(
                folder,
                chosen,
                games,
                seed,
                params={p.name: v for p, v in zip(chosen.parameters, params, strict=True)},
                rules=ruleset,
                engine=engine,
                threads=threads,
                chunk_size=chunk,
                progress=lambda k: bar.advance(task, k),
                extra_manifest=extra,
                cluster=dask,
            )
        else:
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
                extra_manifest=extra,
                cluster=dask,
            )
    n, rates = _summary(folder / "games.parquet")
    t = manifest["timings"]
    typer.echo(
        f"{n:,} games in {t['run_s']:.2f} s ({t['games_per_s'] or 0:,.0f} games/s, "
        f"engine ready in {t['warm_up_s']:.1f} s) -> {folder}"
    )
    if outcome is not None:
        typer.echo(outcome.sentence())
    typer.echo(_rates_line(rates))


@command(
    app,
    epilog=examples(
        "bollesim sweep experiments/first_fire.toml",
        "bollesim sweep experiments/first_fire.toml -n 2000 --out results/quick",
        "bollesim sweep experiments/policies.toml --precision 0.005 --max-games 400000",
        "bollesim sweep experiments/first_fire.toml -n 100000 --cluster local --workers 2",
    ),
)
def sweep(
    spec: Annotated[
        Path,
        typer.Argument(
            metavar="SPEC",
            help="Experiment file (TOML), e.g. experiments/first_fire.toml.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Output folder (default: results/NAME, NAME from the spec).", show_default=False
        ),
    ] = None,
    games: GamesOption = None,
    seed: Annotated[
        int | None, typer.Option(help="Run seed (default: the spec's).", show_default=False)
    ] = None,
    precision: PrecisionOption = None,
    max_games: MaxGamesOption = None,
    threads: ThreadsOption = None,
    cluster: ClusterOption = None,
    workers: WorkersOption = None,
) -> None:
    """Play every cell of an experiment on common random numbers.

    Game g of every cell has the same seed. Writes OUT/games.parquet (one row per game,
    with `cell` and the parameter columns) and OUT/manifest.json (the cells and the spec).

    -n and --seed override the spec's games per cell and seed. Then:
    `bollesim report OUT`, and `bollesim play --from OUT --game N --cell C`.
    """
    from bollesim.experiment import load_experiment
    from bollesim.experiment import sweep as run_sweep

    if games is not None and games < 0:
        raise UsageError(f"--games must be 0 or more, got {games}")
    if precision is not None:
        from bollesim.experiment import check_precision

        check_precision(precision)
    experiment = load_experiment(spec)
    folder = out or Path("results") / experiment.name
    n_cells = len(experiment.cells)
    with (
        _cluster(cluster, workers, threads) as dask,
        _progress_bar(f"{experiment.name} ({n_cells} cells)") as bar,
    ):
        task = bar.add_task("games", total=None)
        manifest, outcome = run_sweep(
            experiment,
            folder,
            games=games,
            seed=seed,
            precision=precision,
            max_games=max_games,
            threads=threads,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
            cluster=dask,
        )
    t = manifest["timings"]
    typer.echo(
        f"{n_cells} cells x {outcome.games_per_cell:,} games = {manifest['n_games']:,} "
        f"games in {t['run_s']:.2f} s ({t['games_per_s'] or 0:,.0f} games/s, engine "
        f"ready in {t['warm_up_s']:.1f} s) -> {folder}"
    )
    if outcome.precision is not None:
        typer.echo(outcome.sentence())
    _print_cells(folder)
    typer.echo(f"Next: bollesim report {folder}")


def _print_cells(folder: Path) -> None:
    """One line of rates per cell, aggregated from a lazy scan (memory stays flat)."""
    import polars as pl

    from bollesim import analysis as A

    scan = pl.scan_parquet(folder / "games.parquet")
    first_rows = scan.group_by("cell").agg(pl.all().first()).collect()  # one row per cell
    if first_rows.height == 0:
        return
    labels = dict(A.cell_labels(first_rows).select("cell", "label").iter_rows())
    cols = ("operational", "tactical", "strategic", "political", "defeat")
    table = scan.group_by("cell").agg([pl.col(c).mean() for c in cols]).sort("cell").collect()
    width = max(len(v) for v in labels.values())
    typer.echo(f"{'cell':>4}  {'':<{width}}  " + "  ".join(f"{c[:11]:>11}" for c in cols))
    for row in table.iter_rows():
        typer.echo(
            f"{row[0]:>4}  {labels[row[0]]:<{width}}  " + "  ".join(f"{r:>11.1%}" for r in row[1:])
        )


@command(
    app,
    epilog=examples(
        "bollesim report results/first_fire",
        "bollesim report results/historical-seed1 --out /tmp/historical-report",
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
) -> None:
    """Write the balance report of a run or sweep.

    report.html (one self-contained file, charts embedded), report.md and its charts as
    PNG files."""
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir}: no such folder (give a run or sweep folder)")
    if not (run_dir / "games.parquet").exists():
        raise UsageError(
            f"{run_dir}: no games.parquet (run `bollesim run` or `bollesim sweep` into it first)"
        )
    from bollesim.report import write_report

    try:
        paths = write_report(run_dir, out)
    except OSError as exc:
        raise UsageError(
            f"cannot write the report to {out or run_dir}: {exc.strerror or exc}"
        ) from None
    typer.echo(
        f"wrote {paths['html']} and {paths['markdown']} ({len(paths['charts'])} charts next to it)"
    )


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

    The fast engine on all cores and on one thread, the reference engine, their ratio per
    core, an RNG floor and the engine's ratio to it, random draws per game, and the
    compile time cold and cached."""
    import json

    from bollesim.bench import measure
    from bollesim.policy import load_policy

    figures = measure(
        load_ruleset(),
        load_policy(policy),
        games,
        reference_games,
        cold=cold,
        progress=lambda line: typer.echo(line, err=json_),
    )
    for key, value in figures.items():
        typer.echo(f"{key:>28}: {value}", err=json_)
    if json_:
        typer.echo(json.dumps(figures))


def main() -> None:  # pragma: no cover - entry point for `python -m bollesim`
    app(prog_name="bollesim")
