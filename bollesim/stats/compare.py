"""Two runs, or two cells of sweeps, compared game by game on the same seeds.

    bollesim compare results/default results/tweak                 # two runs
    bollesim compare results/first_fire:0 results/first_fire:17    # two cells, DIR:CELL

    from bollesim.report.compare import open_side, write_compare
    from bollesim.stats.compare import differences
    a, b = open_side("results/default"), open_side("results/tweak")
    differences(a, b)               # one row per outcome: B - A, its interval, p-value
    write_compare(a, b, "results/compare-default-vs-tweak")

A side is a verified run folder (runfolder.open_run) or one cell of one (`DIR:CELL`; a
sweep of several cells needs its cell), opened by report/compare.py. Game g of a run is seeded from (seed, g), so two
sides are paired game by game: game g of A against game g of B, over the game numbers both
played; each pair must have the same seed, else the sides are refused (they do not share
their luck). Every difference is B minus A, what changing A into B does, with its 95%
interval (Newcombe's paired method) and the exact McNemar test (analysis.paired_comparison).

The comparison's report (report/compare.py): compare.html (interactive, one file),
compare.md with its chart (compare-differences.png) and compare.csv (the table of
differences).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from bollesim.errors import UsageError
from bollesim.game.declaration import Game, Ruleset
from bollesim.stats import naming, paired_tests


def outcome_columns(game: Game) -> tuple[str, ...]:
    """The game's outcome columns a side reads (the derived outcomes come from them)."""
    return game.result.flags


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a run folder, or one cell of it, of its game."""

    game: Game  # the game its folder holds
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


def pair(a: Side, b: Side) -> pl.DataFrame:
    """The paired games: A's rows as cell 0 and B's as cell 1, over the game numbers both
    played. UsageError if they are the same games, share no game number, or play a game
    number from different seeds, or if they hold games of two games."""
    if a.game is not b.game:
        raise UsageError(f"{a.name} holds games of {a.game.name!r}, {b.name} of {b.game.name!r}: "
                         "compare two runs of one game")
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
    """One row per outcome (game.result.outcome_names): `outcome`, `n` (games paired), `rate_a`,
    `a_low`, `a_high`, `rate_b`, `b_low`, `b_high` (rates and 95% Wilson intervals),
    `diff` (rate_b - rate_a), `diff_low`, `diff_high` (its 95% paired interval),
    `only_a`, `only_b` (games where only that side had the outcome), `p_value` (exact
    McNemar), `significant` (p < 0.05)."""
    paired = pair(a, b)
    cmp = paired_tests.paired_comparison(a.game, paired, 1, 0)  # analysis's "a" is B here: diff = B - A
    return cmp.select(
        "outcome", "n",
        pl.col("rate_b").alias("rate_a"), pl.col("b_low").alias("a_low"),
        pl.col("b_high").alias("a_high"),
        pl.col("rate_a").alias("rate_b"), pl.col("a_low").alias("b_low"),
        pl.col("a_high").alias("b_high"),
        "diff", "diff_low", "diff_high",
        pl.col("only_b").alias("only_a"), pl.col("only_a").alias("only_b"),
        "p_value", "significant")


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
    rulebook = a.game.rulebook
    out = []
    ra, rb = a.record, b.record
    if ra.get("policy") != rb.get("policy"):
        out.append(f"policy: {ra.get('policy')} -> {rb.get('policy')}")
    pa, pb = ra.get("params"), rb.get("params")
    if isinstance(pa, dict) and isinstance(pb, dict):
        for name in dict.fromkeys([*pa, *pb]):
            if pa.get(name) != pb.get(name) and ra.get("policy") == rb.get("policy"):
                out.append(f"{name}: {naming.fmt_value(pa.get(name))} -> {naming.fmt_value(pb.get(name))}")
    elif pa != pb:
        out.append("parameters: see each folder's cells")
    switched = [rid for rid in rulebook.READINGS if a.rules.readings[rid] != b.rules.readings[rid]]
    out += [f"{rid}: {a.rules.readings[rid]} -> {b.rules.readings[rid]}" for rid in switched]
    covered = {k for rid in switched for k in rulebook.reading_keys(rulebook.READINGS[rid])}
    for line in data_differences(a.rules.data, b.rules.data):
        key = line.split(": ", 1)[0]
        if key != "name" and not key.endswith(".source") and not any(
                key == k or key.startswith(k + ".") or key.startswith(k + "[")
                for k in covered):
            out.append(line)
    return out
