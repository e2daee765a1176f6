"""The options and arguments that several commands share (typer `Annotated` types), and
what they make: the ruleset of --rules/--set/--partial/--reading, a policy's parameters
of -p NAME=VALUE."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bollesim.errors import UsageError

RulesFile = Annotated[
    Path | None,
    typer.Argument(
        metavar="FILE",
        help="Ruleset TOML file of $title (default: the shipped $rules_file).",
        show_default=False,
    ),
]


SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        "-s",
        metavar="KEY=VALUE",
        help="Override one value of the ruleset, KEY a key path of its tables (repeatable; "
        "VALUE is TOML; `bollesim rules show` lists them).",
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
        help="Play another reading of the rules, e.g. --reading $reading=VARIANT (repeatable; "
        "`bollesim rules show --reconstructed` lists them).",
        show_default=False,
    ),
]


PolicyOption = Annotated[
    str,
    typer.Option("--policy", "-P", metavar="POLICY",
                 help="A policy of $title, e.g. $baseline (see `bollesim policies`)."),
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


def policy_params(policy, assignments: list[str] | None):
    """The parameter vector of -p NAME=VALUE options: a number, or a choice's name."""
    values = {}
    for assignment in assignments or []:
        name, sep, raw = assignment.partition("=")
        if not sep:
            raise UsageError(f"--param {assignment!r}: expected NAME=VALUE, e.g. "
                             f"{policy.parameters[0].name if policy.parameters else 'k'}=2")
        if name.strip() in values:
            raise UsageError(f"--param {name.strip()} is given twice ({name.strip()}="
                             f"{values[name.strip()]} and {assignment}): give it once")
        values[name.strip()] = raw
    try:
        return policy.param_vector(values)
    except UsageError as exc:
        raise UsageError(f"--param {exc}") from None


JsonOption = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Print one JSON object on stdout for scripts (the human lines go to stderr).",
    ),
]


ExperimentArgument = Annotated[
    Path,
    typer.Argument(
        metavar="SPEC",
        help="Experiment file (TOML) of $title, e.g. $experiment.",
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
        "half-width (each outcome of $title, per cell) is at most P (0.01 = one percentage "
        "point), or --max-games is reached.",
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
