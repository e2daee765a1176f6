"""What the commands print: the console for tables, one JSON object for --json, a run's
rates in one line, a sweep's table of cells."""

from __future__ import annotations

import os

import typer

from bollesim.game.declaration import Game
from bollesim.terminal import printable


def table_console():
    from rich.console import Console

    options = {"markup": False, "highlight": False, "emoji": False}
    console = Console(**options)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=120, **options)  # piped or captured: do not squeeze to 80
    return console


def overlap_note(game: Game) -> str:
    """Why a row's rates can add up to more than 100%, in the game's outcomes' names."""
    result = game.result
    label = result.labels
    wins = [label[w] for w in result.wins]
    return (f"A game can count several wins at once ({', '.join(wins)}), so a row's rates can "
            f"add up to more than 100%; {label[result.no_result]}: none of the wins, and not "
            f"{label[result.loss]}.")


def emit(data: dict) -> None:
    """The --json answer: one JSON object, one line, on stdout."""
    import json

    typer.echo(json.dumps(data, default=str))


def timing_text(total: int, saved_before: int, timings: dict) -> str:
    """`N games in S s (R games/s` of this session's games: after a resume, the games it
    played, not those saved before it (the timings are this session's)."""
    played = total - saved_before
    count = (f"{played:,} games" if not saved_before
             else f"{played:,} of the {total:,} games (the others were saved before)")
    return f"{count} in {timings['run_s']:.2f} s ({timings['games_per_s'] or 0:,.0f} games/s"


def rates_line(game: Game, rates: dict[str, float]) -> str:
    """A run's rates (analysis.run_rates) of the game's summary outcomes in one line."""
    return "  ".join(f"{c.replace('_', ' ')} {rates[c]:.1%}" for c in game.result.summary)


def print_cells(game: Game, cells, err: bool = False) -> None:
    """The sweep's table: one line of rates per cell, and why a row can pass 100%."""
    summary = game.result.summary
    if cells.height == 0:
        return
    width = max(len(v) for v in cells["label"].to_list())
    names = [c.replace("_", " ")[:11] for c in summary]
    typer.echo(f"{'cell':>4}  {'':<{width}}  " + "  ".join(f"{c:>11}" for c in names), err=err)
    for row in cells.iter_rows(named=True):
        typer.echo(
            f"{row['cell']:>4}  {printable(row['label']):<{width}}  "
            + "  ".join(f"{row[c]:>11.1%}" for c in summary),
            err=err,
        )
    typer.echo(overlap_note(game), err=err)


def print_answers(said: list[tuple[str, list[str]]], err: bool = False) -> None:
    """A sweep's answer in words (report.answer.answers): per swept parameter, its
    sentences, wrapped."""
    import textwrap

    for heading, lines in said:
        typer.echo(printable(f"The answer, {heading}:"), err=err)
        for line in lines:
            typer.echo(textwrap.fill(printable(line), width=100, initial_indent="  - ",
                                     subsequent_indent="    "), err=err)
