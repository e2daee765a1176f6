"""Two runs, or two cells of sweeps, compared game by game on the same seeds.

    bollesim compare results/default results/tweak                 # two runs
    bollesim compare results/first_fire:0 results/first_fire:17    # two cells, DIR:CELL

    from bollesim.stats import compare as C
    a, b = C.open_side("results/default"), C.open_side("results/tweak")
    C.differences(a, b)             # one row per outcome: B - A, its interval, p-value
    C.write_compare(a, b, "results/compare-default-vs-tweak")

A side is a verified run folder (runfolder.open_run) or one cell of one (`DIR:CELL`; a
sweep of several cells needs its cell). Game g of a run is seeded from (seed, g), so two
sides are paired game by game: game g of A against game g of B, over the game numbers both
played; each pair must have the same seed, else the sides are refused (they do not share
their luck). Every difference is B minus A, what changing A into B does, with its 95%
interval (Newcombe's paired method) and the exact McNemar test (analysis.paired_comparison).

The comparison's report: compare.html (interactive, one file), compare.md with its chart
(compare-differences.png) and compare.csv (the table of differences).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from bollesim.bollebank.rules.loader import Ruleset
from bollesim.errors import UsageError
from bollesim.report import chartdata, plots
from bollesim.report.balance import Report, p_text, pct_ci, points, write_pages
from bollesim.report.chartdata import pct, signed_ci, signed_interval
from bollesim.stats import analysis as A

_CELL = re.compile(r"(.+):(\d+)")
OUTCOME_COLUMNS = ("operational", "tactical", "strategic", "political", "defeat")
"""The outcome columns a side reads (the derived outcomes come from them)."""


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a run folder, or one cell of it."""

    name: str  # as given: DIR or DIR:CELL
    path: Path
    cell: int | None  # None: a plain run
    label: str  # the cell's label (analysis.cell_labels) or the run's policy
    games: pl.DataFrame  # game, seed and the outcome columns, one row per game
    manifest: dict
    rules: Ruleset

    @property
    def record(self) -> dict:
        """The manifest's record of the side's cell: {cell, policy, params, ...}."""
        cells = self.manifest.get("cells") or []
        return next((c for c in cells if c.get("cell") == (self.cell or 0)), {})


def parse_side(text: str) -> tuple[Path, int | None]:
    """(folder, cell) of `DIR` or `DIR:CELL` (a folder whose name ends in `:N` wins)."""
    found = _CELL.fullmatch(text)
    if found and not Path(text).exists():
        return Path(found.group(1)), int(found.group(2))
    return Path(text), None


def open_side(text: str) -> Side:
    """The side named by `DIR` or `DIR:CELL`, from a verified folder (UsageError, one
    line, for a folder it cannot trust, a missing cell or a sweep without its cell)."""
    from bollesim.batch.experiment import cell_ruleset
    from bollesim.batch.runfolder import open_run

    path, cell = parse_side(text)
    run = open_run(path)
    scan = run.scan()
    cells = sorted(run.collect(scan.select(pl.col("cell").unique()))["cell"].to_list())
    if cell is None and len(cells) > 1:
        raise UsageError(f"{path} is a sweep of {len(cells)} cells: name one as "
                         f"{path}:CELL (cells {cells[0]}..{cells[-1]})")
    if cell is not None and cell not in cells:
        held = f"cells {cells[0]}..{cells[-1]}" if cells else "no games"
        raise UsageError(f"{path} has no cell {cell} ({held})")
    if not cells:
        raise UsageError(f"{path} holds no games: nothing to compare")
    chosen = cells[0] if cell is None else cell
    rows = run.collect(scan.filter(pl.col("cell") == chosen))
    if rows["game"].n_unique() != rows.height:
        raise UsageError(f"{text} holds a game number more than once: cannot pair its games")
    first_rows = run.collect(scan.group_by("cell").agg(pl.all().first()))  # one per cell
    labels = A.cell_labels(first_rows)
    label = labels.filter(pl.col("cell") == chosen)["label"][0]
    games = rows.select("game", "seed", *OUTCOME_COLUMNS).sort("game")
    return Side(text, path, cell, label, games, run.manifest,
                cell_ruleset(run.manifest, path, chosen))


def pair(a: Side, b: Side) -> pl.DataFrame:
    """The paired games: A's rows as cell 0 and B's as cell 1, over the game numbers both
    played. UsageError if they are the same games, share no game number, or play a game
    number from different seeds."""
    if a.path.resolve() == b.path.resolve() and (a.cell or 0) == (b.cell or 0):
        raise UsageError(f"{a.name} and {b.name} are the same games: compare two runs or "
                         "two cells")
    seeds = a.games.select("game", "seed").join(b.games.select("game", "seed"), on="game",
                                                suffix="_b")
    if seeds.height == 0:
        raise UsageError(f"{a.name} and {b.name} share no game number: nothing to pair")
    other = seeds.filter(pl.col("seed") != pl.col("seed_b"))
    if other.height:
        game, seed, seed_b = other.row(0)
        raise UsageError(
            f"{a.name} and {b.name} played game {game} from different seeds ({seed} and "
            f"{seed_b}): a paired comparison needs the same seeds (play {b.name} again "
            f"with --seed {seed})")
    common = seeds.select("game")
    return pl.concat([
        side.games.join(common, on="game").with_columns(pl.lit(i, pl.Int32).alias("cell"))
        for i, side in enumerate((a, b))
    ])


def differences(a: Side, b: Side) -> pl.DataFrame:
    """One row per outcome (analysis.OUTCOMES): `outcome`, `n` (games paired), `rate_a`,
    `a_low`, `a_high`, `rate_b`, `b_low`, `b_high` (rates and 95% Wilson intervals),
    `diff` (rate_b - rate_a), `diff_low`, `diff_high` (its 95% paired interval),
    `only_a`, `only_b` (games where only that side had the outcome), `p_value` (exact
    McNemar), `significant` (p < 0.05)."""
    paired = pair(a, b)
    cmp = A.paired_comparison(paired, 1, 0)  # analysis's "a" is B here: diff = B - A
    return cmp.select(
        "outcome", "n",
        pl.col("rate_b").alias("rate_a"), pl.col("b_low").alias("a_low"),
        pl.col("b_high").alias("a_high"),
        pl.col("rate_a").alias("rate_b"), pl.col("a_low").alias("b_low"),
        pl.col("a_high").alias("b_high"),
        "diff", "diff_low", "diff_high",
        pl.col("only_b").alias("only_a"), pl.col("only_a").alias("only_b"),
        "p_value", "significant")


# --------------------------------------------------------------------------- what differs


def data_differences(a, b, path: str = "") -> list[str]:
    """`KEY: A -> B` for every value in which two ruleset data differ (rows by id)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in dict.fromkeys([*a, *b]):
            where = f"{path}.{key}" if path else str(key)
            out += data_differences(a.get(key), b.get(key), where)
        return out
    rows = isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(
        isinstance(x, dict) for x in a + b)
    if rows:
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out += data_differences(x, y, f"{path}[{x.get('id', y.get('id', i))}]")
        return out
    return [] if a == b else [f"{path}: {_value(a)} -> {_value(b)}"]


def _value(v) -> str:
    return "absent" if v is None else str(v)


def what_differs(a: Side, b: Side) -> list[str]:
    """What B changes from A, one line each: the policy, each parameter, each reading
    variant and each other ruleset value (`name`, `source` and reading values aside)."""
    from bollesim.bollebank.rules.readings import BY_ID, reading_keys

    out = []
    ra, rb = a.record, b.record
    if ra.get("policy") != rb.get("policy"):
        out.append(f"policy: {ra.get('policy')} -> {rb.get('policy')}")
    pa, pb = ra.get("params"), rb.get("params")
    if isinstance(pa, dict) and isinstance(pb, dict):
        for name in dict.fromkeys([*pa, *pb]):
            if pa.get(name) != pb.get(name) and ra.get("policy") == rb.get("policy"):
                out.append(f"{name}: {A.fmt_value(pa.get(name))} -> {A.fmt_value(pb.get(name))}")
    elif pa != pb:
        out.append("parameters: see each folder's cells")
    switched = [rid for rid in BY_ID if a.rules.readings[rid] != b.rules.readings[rid]]
    out += [f"{rid}: {a.rules.readings[rid]} -> {b.rules.readings[rid]}" for rid in switched]
    covered = {k for rid in switched for k in reading_keys(BY_ID[rid])}
    for line in data_differences(a.rules.data, b.rules.data):
        key = line.split(": ", 1)[0]
        if key != "name" and not key.endswith(".source") and not any(
                key == k or key.startswith(k + ".") or key.startswith(k + "[")
                for k in covered):
            out.append(line)
    return out


# --------------------------------------------------------------------------- the report


def _side_text(side: Side) -> str:
    return f"`{side.name}` ({side.label}, {side.games.height:,} games)"


def build_report(a: Side, b: Side, table: pl.DataFrame) -> Report:
    """The comparison's report: findings, the chart of differences, the table, what was
    compared and what differs."""
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
        items.append(f"**{A.LABELS[r['outcome']]}**: B has it {more} often, "
                     f"{pct(r['rate_a'])} → {pct(r['rate_b'])} ({points(r['diff'])} "
                     f"{'up' if r['diff'] > 0 else 'down'}, {_interval(r)}; {p_text(r['p_value'])}).")
    same = [A.LABELS[o] for o in table.filter(~pl.col("significant"))["outcome"].to_list()]
    if same:
        items.append("No significant difference (p ≥ 0.05) in " + ", ".join(same) + ".")
    items.append("**What B changes**: " + ("; ".join(f"`{c}`" for c in changes)
                                           if changes else "nothing recorded (the same policy, "
                                           "parameters and ruleset)") + ".")
    rep.ul(items)
    chart = chartdata.compared(table, "A", "B")
    rep.chart("differences", plots.draw(chart), "The rate of each outcome in B minus its rate "
              "in A on the same games, in percentage points, with 95% intervals.", chart)
    rep.h(2, "Paired differences (B − A)")
    rows = [[A.LABELS[r["outcome"]], pct_ci(r["rate_a"], r["a_low"], r["a_high"]),
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
            return ", ".join(f"{k}={A.fmt_value(v)}" for k, v in p.items()) or "none"
        return str(p or "not recorded")

    def each(get) -> list[str]:
        return [get(a), get(b)]

    return [
        ("folder", each(lambda s: f"`{s.path}`")),
        ("cell", each(lambda s: "a plain run" if s.cell is None else f"{s.cell}: {s.label}")),
        ("policy", each(lambda s: f"`{s.record.get('policy', s.manifest.get('policy'))}`")),
        ("parameters", each(params)),
        ("ruleset", each(lambda s: f"{s.rules.name}, sha256 `{s.rules.digest[:12]}…`")),
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
    """Write compare.html, compare.md, its chart and compare.csv into `out`; returns
    {"html", "markdown", "charts", "tables", "differences": the table}."""
    table = differences(a, b)
    rep = build_report(a, b, table)
    paths = write_pages(rep, out, "compare", {"compare.csv": table})
    return {**paths, "differences": table}
