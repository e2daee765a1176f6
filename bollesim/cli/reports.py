"""`bollesim report` and `bollesim compare`: the balance report of a run or sweep, and
two runs or cells compared game by game."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Annotated

import typer

from bollesim.cli.chosen import Chosen
from bollesim.cli.options import JsonOption
from bollesim.cli.output import emit
from bollesim.cli.wiring import app, command, examples
from bollesim.errors import UsageError
from bollesim.terminal import printable


@command(
    app,
    epilog=examples(
        "bollesim report $results",
        "bollesim report results/$baseline-seed1 --out /tmp/$baseline-report",
        "bollesim report $results --json",
    ),
)
def report(
    chosen: Chosen,
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
    """Write the balance report of a run or sweep (of the game its folder holds).

    report.html (one file that works offline: interactive charts, sortable tables),
    report.md with its charts as PNG files, and rates.csv (every rate, its interval and
    counts). The folder of a `bollesim sensitivity` run gets its sensitivity report
    (sensitivity.html, sensitivity.md, sensitivity-*.csv)."""
    from bollesim.batch.manifest import check_ruleset_record
    from bollesim.batch.runfolder import open_run
    from bollesim.batch.workspace import Workspace, claim_report_folder
    from bollesim.inputs import check_out_folder
    from bollesim.report.balance import write_report
    from bollesim.report.sensitivity import write_sensitivity

    if out is not None:
        check_out_folder(out, "a report")
    game = chosen.of_folder(run_dir)
    run = open_run(run_dir, game)  # refuses a folder it cannot trust, before taking any lock
    check_ruleset_record(run.manifest, run_dir)
    into_run = out is None or os.path.abspath(out) == os.path.abspath(run_dir) or (
        os.path.exists(out) and os.path.samefile(out, run_dir))
    with Workspace(run_dir if into_run else out):  # no other command writes it meanwhile
        run = open_run(run_dir, game)
        if run.n_games == 0:
            raise UsageError(f"{run_dir} holds no games (a run of -n 0): there is nothing to report")
        sensitivity = bool(run.manifest.get("sensitivity"))
        if not into_run:
            claim_report_folder(out, run, "sensitivity" if sensitivity else "report")
        write = write_sensitivity if sensitivity else write_report
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
        emit({"command": "report", "html": str(paths["html"]),
               "markdown": str(paths["markdown"]), "rates": paths.get("rates") and
               str(paths["rates"]), "tables": tables,
               "charts": [str(p) for p in paths["charts"]]})


SideArgument = Annotated[
    str,
    typer.Argument(
        metavar="A",
        help="A run folder, or DIR:CELL for one cell of a sweep, CELL its number or its "
        "parameters (DIR:k=12; `bollesim cells DIR` lists them).",
        show_default=False,
    ),
]


@command(
    app,
    epilog=examples(
        "bollesim compare results/default results/tweak",
        "bollesim compare $results:0 $results:1",
        "bollesim compare results/default $results:$setting",
        "bollesim compare results/default results/tweak --out /tmp/cmp --json",
    ),
)
def compare(
    chosen: Chosen,
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
            help="The folder of compare.html, compare.md, its chart and compare.csv, "
            "written whole (default: results/compare-A-vs-B).",
            show_default=False,
        ),
    ] = None,
    json_: JsonOption = False,
) -> None:
    """Compare two runs, or two cells of sweeps, of one game, game by game on the same seeds.

    Game g of A is paired with game g of B (both must be played from the same seed).
    Prints B - A for every outcome with its 95% interval (Newcombe's paired method) and
    the exact McNemar test, what B changes (policy, parameters, readings, ruleset
    values), and writes the comparison's report: compare.html (interactive), compare.md
    with its chart, compare.csv."""
    from bollesim.batch.workspace import Workspace
    from bollesim.inputs import check_out_folder
    from bollesim.report.chartdata import signed_ci
    from bollesim.report.compare import default_out, open_side, parse_side, write_compare
    from bollesim.report.document import p_text
    from bollesim.stats.compare import what_differs

    if out is not None:
        check_out_folder(out, "a comparison")
    side_a, side_b = (open_side(text, chosen.of_folder(parse_side(text)[0])) for text in (a, b))
    folder = out or default_out(side_a, side_b)
    try:
        with Workspace(folder):  # one writer per folder, whatever the command
            written = write_compare(side_a, side_b, folder)
    except OSError as exc:
        raise UsageError(f"cannot write the comparison to {folder}: {exc.strerror or exc}") from None
    table = written["differences"]
    changes = what_differs(side_a, side_b)
    say = functools.partial(typer.echo, err=json_)
    say(printable(f"A: {a} ({side_a.label}); B: {b} ({side_b.label})"))
    say(printable("B changes: " + ("; ".join(changes) if changes else "nothing recorded")))
    say(f"paired on {int(table['n'][0]):,} games (the same seeds); B - A in points:")
    labels = side_a.game.result.labels
    width = max(len(labels[o]) for o in table["outcome"])
    for r in table.iter_rows(named=True):
        mark = " *" if r["significant"] else "  "
        say(f"  {labels[r['outcome']]:<{width}} {r['rate_a']:>7.1%} {r['rate_b']:>7.1%}"
            f"  {signed_ci(r['diff'], r['diff_low'], r['diff_high'])}{mark} {p_text(r['p_value'])}")
    say("* significant (exact McNemar, p < 0.05)")
    say(printable(f"wrote {written['html']}, {written['markdown']} and {written['tables'][0]}"))
    if json_:
        emit({"command": "compare", "a": a, "b": b, "what_differs": changes,
               "paired_games": int(table["n"][0]), "differences": table.to_dicts(),
               "html": str(written["html"]), "markdown": str(written["markdown"]),
               "csv": str(written["tables"][0])})


@command(
    app,
    epilog=examples(
        "bollesim cells $results",
        "bollesim cells $results --json | jq '.cells[0]'",
        "bollesim compare $results:0 $results:$setting",
        "bollesim play --from $results --cell $trigger,$setting --index 41",
    ),
)
def cells(
    chosen: Chosen,
    run_dir: Annotated[
        Path,
        typer.Argument(metavar="DIR", help="A run or sweep folder.", show_default=False),
    ],
    json_: JsonOption = False,
) -> None:
    """List the cells of a run or sweep folder and the games each holds.

    One line per cell: its number, its label, its games (how many, first..last), and the
    parameters it sets. Name a cell by number or by its parameters wherever a cell is
    asked for: `compare DIR:$setting ...`, `play --from DIR --cell $setting` (terms joined by
    commas, a policy's name among them if two policies share a parameter:
    `POLICY,NAME=VALUE`). In Python: `bollesim.cells(DIR)`, a polars frame."""
    from bollesim.batch.cells import cells as cell_table

    game = chosen.of_folder(run_dir)
    table = cell_table(run_dir, game)
    if json_:
        emit({"command": "cells", "folder": str(run_dir), "cells": table.to_dicts()})
        return
    fixed = {"cell", "label", "policy", "games", "first_game", "last_game", "readings"}
    params = [c for c in table.columns if c not in fixed]
    width = max([len("label"), *(len(v) for v in table["label"].to_list())])
    cells_word = "cell" if table.height == 1 else "cells"
    typer.echo(printable(f"{run_dir}: {table.height:,} {cells_word}, "
                         f"{int(table['games'].sum()):,} games"))
    typer.echo(f"{'cell':>5}  {'label':<{width}}  {'games':>9}  {'game numbers':<15}  sets")
    for row in table.iter_rows(named=True):
        sets = " ".join(f"{p}={_value(game, row['policy'], p, row[p])}" for p in params
                        if row[p] is not None)
        sets += f" {row['readings']}" if row["readings"] else ""
        span = f"{row['first_game']}..{row['last_game']}"
        typer.echo(printable(f"{row['cell']:>5}  {row['label']:<{width}}  {row['games']:>9,}  "
                             f"{span:<15}  {sets}"))


def _value(game, policy: str, name: str, value) -> str:
    from bollesim.stats.naming import declared_parameter, fmt_value

    p = declared_parameter(game, policy, name)
    return p.text(value) if p is not None and value == value else fmt_value(value)
