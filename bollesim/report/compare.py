"""The report of two runs or cells compared game by game (`bollesim compare A B`): the sides
opened from verified run folders (`DIR` or `DIR:CELL`), and the folder of their paired
differences (stats/compare.py): compare.html, compare.md, compare-differences.png and
compare.csv, written whole or not at all."""

from __future__ import annotations

import os
import re
import secrets
import shutil
from pathlib import Path

import polars as pl

from bollesim.batch.cells import is_selector, pick_cell
from bollesim.errors import UsageError
from bollesim.game.declaration import Game
from bollesim.inputs import INT_DIGITS, check_path
from bollesim.report import chartdata, plots
from bollesim.report.chartdata import signed_ci, signed_interval
from bollesim.report.document import Report, p_text, pct_ci, points, write_pages
from bollesim.stats import naming
from bollesim.stats.compare import Side, differences, outcome_columns, what_differs
from bollesim.stats.naming import pct
from bollesim.terminal import one_line

_CELL = re.compile(r"(.+):([^:/]+)")


def parse_side(text: str) -> tuple[Path, str | None]:
    """(folder, cell) of `DIR` or `DIR:CELL`, CELL a number or name=value terms
    (batch/cells.py; a folder whose name ends so wins)."""
    found = _CELL.fullmatch(text)
    if not found or not is_selector(found.group(2)):
        return Path(text), None
    if found.group(2).isdigit() and len(found.group(2)) > INT_DIGITS:
        raise UsageError(f"{check_path(found.group(1))}: no cell {found.group(2)[:INT_DIGITS]}... "
                         f"(a number of {len(found.group(2)):,} digits)")
    if check_path(text).exists():
        return Path(text), None
    return Path(found.group(1)), found.group(2)


def open_side(text: str, game: Game | None = None) -> Side:
    """The side named by `DIR` or `DIR:CELL`, from a verified folder of its own game (of
    `game`, if given), UsageError, one line, for a folder it cannot trust, a missing cell
    or a sweep without its cell."""
    from bollesim.batch.manifest import cell_ruleset
    from bollesim.batch.runfolder import open_run

    path, selector = parse_side(text)
    run = open_run(path, game)
    cell = None if selector is None else pick_cell(path, run.manifest, selector)
    scan = run.scan()
    cells = sorted(run.collect(scan.select(pl.col("cell").unique()))["cell"].to_list())
    if cell is None and len(cells) > 1:
        raise UsageError(f"{path} is a sweep of {len(cells)} cells: name one as "
                         f"{path}:CELL, a number ({cells[0]}..{cells[-1]}) or its parameters "
                         f"({path}:NAME=VALUE; `bollesim cells {path}` lists them)")
    if cell is not None and cell not in cells:
        held = f"cells {cells[0]}..{cells[-1]}" if cells else "no games"
        raise UsageError(f"{path} has no cell {cell} ({held})")
    if not cells:
        raise UsageError(f"{path} holds no games: nothing to compare")
    chosen = cells[0] if cell is None else cell
    rows = run.collect(scan.filter(pl.col("cell") == chosen))
    if rows["game"].n_unique() != rows.height:
        raise UsageError(f"{text} holds a game number more than once: cannot pair its games")
    labels = naming.cell_labels(run.game, run.cell_firsts())
    label = labels.filter(pl.col("cell") == chosen)["label"][0]
    games = rows.select("game", "seed", *outcome_columns(run.game)).sort("game")
    return Side(run.game, text, path, cell, label, games, run.manifest,
                cell_ruleset(run.manifest, path, chosen))


def _side_text(side: Side) -> str:
    return f"`{side.name}` ({side.label}, {side.games.height:,} games)"


def build_report(a: Side, b: Side, table: pl.DataFrame) -> Report:
    """The comparison's report: findings, the chart of differences, the table, what was
    compared and what differs."""
    game = a.game
    title = f"Comparison: {b.name} against {a.name}"
    rep = Report(title)
    rep.h(1, title)
    n = int(table["n"][0])
    rep.p(f"**A** = {_side_text(a)}; **B** = {_side_text(b)}. Paired on {n:,} games: game g "
          "of A and game g of B have the same seed (the same luck as far as the decisions "
          "allow). Every difference is B − A.")
    changes = what_differs(a, b)
    rep.h(2, "Findings")
    items = []
    for r in table.filter(pl.col("significant")).iter_rows(named=True):
        more = "more" if r["diff"] > 0 else "less"
        items.append(f"**{game.result.labels[r['outcome']]}**: B has it {more} often, "
                     f"{pct(r['rate_a'])} → {pct(r['rate_b'])} ({points(r['diff'])} "
                     f"{'up' if r['diff'] > 0 else 'down'}, {_interval(r)}; {p_text(r['p_value'])}).")
    same = [game.result.labels[o] for o in table.filter(~pl.col("significant"))["outcome"].to_list()]
    if same:
        items.append("No significant difference (p ≥ 0.05) in " + ", ".join(same) + ".")
    items.append("**What B changes**: " + ("; ".join(f"`{c}`" for c in changes)
                                           if changes else "nothing recorded (the same policy, "
                                           "parameters and ruleset)") + ".")
    rep.ul(items)
    chart = chartdata.compared(game, table, "A", "B")
    rep.chart("differences", plots.draw(chart), "The rate of each outcome in B minus its rate "
              "in A on the same games, in percentage points, with 95% intervals.", chart)
    rep.h(2, "Paired differences (B − A)")
    rows = [[game.result.labels[r["outcome"]], pct_ci(r["rate_a"], r["a_low"], r["a_high"]),
             pct_ci(r["rate_b"], r["b_low"], r["b_high"]),
             signed_ci(r["diff"], r["diff_low"], r["diff_high"]),
             f"{r['only_a']:,}", f"{r['only_b']:,}",
             ("significant" if r["significant"] else "not significant")
             + f" ({p_text(r['p_value'])})"]
            for r in table.iter_rows(named=True)]
    rep.table(["outcome", "A (95% CI)", "B (95% CI)", "B − A, points (95% CI)", "only A",
               "only B", "significant?"], rows, right={1, 2, 3, 4, 5})
    rep.h(2, "What was compared")
    rep.table(["", "A", "B"], [[k, *v] for k, v in _facts(a, b)])
    rep.h(2, "How to read this comparison")
    rep.ul([
        "A rate is the share of games with the outcome, with its 95% Wilson interval.",
        "Both sides play the same game numbers from the same seed, so each game of B is "
        "compared with the same game of A. \"Only A\" counts the games where A had the "
        "outcome and B did not; the exact McNemar test asks whether those two counts differ "
        "more than chance allows (significant at p < 0.05), and Newcombe's paired method "
        "gives the interval of the difference.",
        "\"Points\" are percentage points: 45% against 40% is 5 points.",
    ])
    return rep


def _interval(r: dict) -> str:
    return "95% interval " + signed_interval(r["diff_low"], r["diff_high"])


def _facts(a: Side, b: Side) -> list[tuple[str, list[str]]]:
    def params(side: Side) -> str:
        p = side.record.get("params")
        if isinstance(p, dict):
            return ", ".join(f"{k}={naming.fmt_value(v)}" for k, v in p.items()) or "none"
        return str(p or "not recorded")

    def each(get) -> list[str]:
        return [get(a), get(b)]

    return [
        ("folder", each(lambda s: f"`{s.path}`")),
        ("cell", each(lambda s: "a plain run" if s.cell is None else f"{s.cell}: {s.label}")),
        ("policy", each(lambda s: f"`{s.record.get('policy', s.manifest.get('policy'))}`")),
        ("parameters", each(params)),
        ("ruleset", each(lambda s: f"{one_line(s.rules.name)}, sha256 `{s.rules.digest[:12]}…`")),
        ("seed", each(lambda s: f"`{s.manifest.get('seed', 'not recorded')}`")),
        ("games", each(lambda s: f"{s.games.height:,}")),
        ("engine", each(lambda s: str(s.manifest.get("engine", "not recorded")))),
        ("bollesim version", each(lambda s: str(s.manifest.get("version")))),
    ]


def default_out(a: Side, b: Side) -> Path:
    """results/compare-A-vs-B, each side by its folder's name (and cell)."""
    def name(side: Side) -> str:
        return side.path.resolve().name + (f"-{side.cell}" if side.cell is not None else "")

    return Path("results") / re.sub(r"[^A-Za-z0-9_.-]+", "-", f"compare-{name(a)}-vs-{name(b)}")


def write_compare(a: Side, b: Side, out: str | Path) -> dict:
    """Write compare.html, compare.md, its chart (compare-differences.png) and compare.csv
    as the folder `out`, whole or not at all: into .OUT.PID.TAG.new beside it, which then
    takes its place (an earlier comparison there is replaced; a folder holding other files,
    or a file, is refused with UsageError). Returns {"html", "markdown", "charts",
    "tables", "differences": the table}."""
    from bollesim.batch.durable import put_in_place

    out = Path(out)
    table = differences(a, b)
    rep = build_report(a, b, table)
    tag = f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}"
    new, old = out.with_name(f"{tag}.new"), out.with_name(f"{tag}.old")
    out.parent.mkdir(parents=True, exist_ok=True)
    new.mkdir()
    try:
        paths = write_pages(rep, new, "compare", {"compare.csv": table})
        if out.is_symlink() or out.exists() and not out.is_dir():
            raise UsageError(f"{out} is not a folder: choose another --out")
        if out.is_dir():
            others = sorted(set(os.listdir(out)) - set(os.listdir(new)))
            if others:
                shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
                raise UsageError(f"{out} holds files that are not a comparison's ({shown}): "
                                 "a comparison replaces its folder whole, so choose an empty "
                                 "or new folder")
        put_in_place(new, out, old)
    finally:
        for path in (new, old):
            shutil.rmtree(path, ignore_errors=True)
    moved = {key: [out / p.name for p in value] if isinstance(value, list) else out / value.name
             for key, value in paths.items()}
    return {**moved, "differences": table}
