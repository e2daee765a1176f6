"""`bollesim rules check` and `bollesim rules show`: validate and inspect a ruleset."""

from __future__ import annotations

from typing import Annotated

import typer

from bollesim.batch.source import RulesetSource
from bollesim.cli.options import PartialOption, ReadingOption, RulesFile, SetOption
from bollesim.cli.output import table_console
from bollesim.cli.wiring import command, examples, rules_app
from bollesim.game.declaration import Game
from bollesim.terminal import one_line, printable


@command(
    rules_app,
    "check",
    epilog=examples(
        "bollesim rules check",
        "bollesim rules check my_rules.toml   # a copy of $rules_file",
        "bollesim rules check --partial tweak.toml --reading $reading=VARIANT",
    ),
)
def rules_check(
    game: Game,
    file: RulesFile = None,
    overrides: SetOption = None,
    partial: PartialOption = None,
    readings: ReadingOption = None,
) -> None:
    """Validate a ruleset of $title: print `ok: ...` and exit 0, or one `error: ...` line
    and exit 2.

    The error names the file, the key and what is wrong with it (an unknown key, with
    the nearest known one; a value outside what is allowed).
    """
    source = RulesetSource.from_options(game, file, overrides, partial, readings)
    rules = source.load(game)
    typer.echo(
        printable(
            f"ok: {source.label()} "
            f"(ruleset {one_line(rules.name)}, sha256 {rules.digest[:12]}…)"
        )
    )


@command(
    rules_app,
    "show",
    epilog=examples(
        "bollesim rules show",
        "bollesim rules show my_rules.toml",
        "bollesim rules show --reconstructed --reading $reading=VARIANT",
    ),
)
def rules_show(
    game: Game,
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
    """Print the tables of a ruleset of $title, each with its provenance (rulebook § or
    reading id)."""
    import importlib

    from bollesim.errors import UsageError

    if not game.show:
        raise UsageError(f"{game.title} has no `rules show`")
    show = importlib.import_module(game.show)

    source = RulesetSource.from_options(game, file, overrides, partial, readings)
    rules = source.load(game)
    console = table_console()
    label = source.label()
    console.print(printable(f"Ruleset {one_line(rules.name)} ({label}), sha256 {rules.digest}"), style="bold")
    if reconstructed:
        show.show_readings(console, rules)
    else:
        show.show_tables(console, rules)
