"""The cells of a run or sweep folder: the listing of its cells and their games
(`bollesim cells DIR`, `bollesim.cells(DIR)`), and a cell named by its number or by
its parameters (`DIR:k=12` in compare, `--cell k=12` in play).

A cell is named by its number ("4") or by terms joined by commas, each `name=value`
or a policy's name: "k=12", "fire_at_turn,t=12", "policy=fire_at_roe,k=25",
"I-AIR=ceil" (a reading). A value is a number, a choice's name ("target=tank") or
"never" for the parameter value that means never. The terms must name exactly one cell.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import polars as pl

from bollesim.batch.manifest import manifest_game
from bollesim.errors import UsageError
from bollesim.game.columns import typed_params
from bollesim.game.declaration import Game
from bollesim.stats import naming
from bollesim.terminal import shown

_NUMBER = re.compile(r"\d+")


def is_selector(text: str) -> bool:
    """Whether `text` (what follows DIR:) names a cell: a number or name=value terms."""
    return bool(_NUMBER.fullmatch(text)) or "=" in text


def cells(run_dir: str | Path, game: Game | None = None) -> pl.DataFrame:
    """One row per cell of a verified run or sweep folder: `cell`, `label` (as the
    report names it), `policy`, `games` (how many it holds), `first_game`, `last_game`,
    `readings` (the alternative readings it plays under, "" for none), then every
    parameter column (null where the cell's policy has no such parameter). The folder's
    game is its own (`game`, if given, must be it: runfolder.open_run)."""
    from bollesim.batch.runfolder import open_run

    run = open_run(run_dir, game)
    scan = run.scan()
    params = naming.param_columns(run.game, run.collect(scan.head(0)))
    per_cell = run.collect(
        scan.group_by("cell").agg(
            pl.col("policy").first(),
            pl.len().alias("games"),
            pl.col("game").min().alias("first_game"),
            pl.col("game").max().alias("last_game"),
            *[pl.col(p).first() for p in params],
        ).sort("cell")
    )
    per_cell = typed_params(per_cell, run.game)  # as Run.read and the report name them
    labels = naming.cell_labels(run.game, per_cell).select("cell", "label")
    readings = {c.get("cell"): _readings_text(c) for c in _records(run.manifest)}
    return per_cell.join(labels, on="cell").with_columns(
        pl.Series("readings", [readings.get(c, "") for c in per_cell["cell"]], pl.Utf8)
    ).select("cell", "label", "policy", "games", "first_game", "last_game", "readings", *params)


def pick_cell(run_dir: str | Path, manifest: dict, selector: str | int) -> int:
    """The number of the cell `selector` names in a folder's manifest (see the module's
    docstring); UsageError, one line, for terms that name no cell or several."""
    if isinstance(selector, int) or _NUMBER.fullmatch(selector):
        return int(selector)
    records = _records(manifest)
    terms = [t.strip() for t in selector.split(",") if t.strip()]
    if not terms:
        raise UsageError(f"{shown(selector)} names no cell: give a number or name=value terms")
    game = manifest_game(manifest)
    found = [r for r in records if all(_matches(game, r, term, run_dir, records) for term in terms)]
    if len(found) == 1:
        return int(found[0]["cell"])
    if not found:
        raise UsageError(f"no cell of {run_dir} has {shown(selector)}: list them with "
                         f"`bollesim cells {run_dir}`")
    numbers = ", ".join(str(r["cell"]) for r in found[:6])
    more = f" and {len(found) - 6} more" if len(found) > 6 else ""
    raise UsageError(f"{shown(selector)} names {len(found)} cells of {run_dir} ({numbers}{more}): "
                     f"add a term to choose one (`bollesim cells {run_dir}` lists them)")


def _records(manifest: dict) -> list[dict]:
    return [c for c in manifest.get("cells") or [] if isinstance(c, dict) and "cell" in c]


def _readings_text(record: dict) -> str:
    readings = record.get("readings") or {}
    return " ".join(f"{k}={v}" for k, v in readings.items()) if isinstance(readings, dict) else ""


def _matches(game: Game, record: dict, term: str, run_dir, records: list[dict]) -> bool:
    """Whether the cell of `record` has what `term` says; a name no cell knows is refused."""
    policy = str(record.get("policy", ""))
    name, sep, given = (part.strip() for part in term.partition("="))
    if not sep:  # a bare policy name
        if not any(r.get("policy") == name for r in records):
            known = sorted({str(r.get("policy")) for r in records})
            raise UsageError(f"no cell of {run_dir} plays policy {shown(name)} "
                             f"(its policies: {', '.join(known)})")
        return policy == name
    if name == "policy":
        return policy == given
    readings = record.get("readings") or {}
    if isinstance(readings, dict) and name in readings:
        return str(readings[name]).casefold() == given.casefold()
    params = record.get("params") or {}
    if name not in params:
        if not any(name in (r.get("params") or {}) or name in (r.get("readings") or {})
                   for r in records):
            known = sorted({k for r in records for k in (r.get("params") or {})})
            raise UsageError(f"no cell of {run_dir} has a parameter or reading {shown(name)} "
                             f"(its parameters: {', '.join(known)})")
        return False
    return _same(params[name], _parameter_value(game, policy, name, given))


def _parameter_value(game: Game, policy: str, name: str, given: str) -> float:
    """The number `given` stands for: a number, a choice's name, or "never"."""
    p = naming.declared_parameter(game, policy, name)
    if given.casefold() == "never":
        never = naming.never_value(game, policy, name)
        return math.nan if never is None else never
    if p is not None:
        try:
            return p.value(given)
        except ValueError as exc:
            raise UsageError(f"{policy}.{exc}") from None
    try:
        return float(given)
    except ValueError:
        raise UsageError(f"{name} = {shown(given)} is not a number") from None


def _same(stored, wanted: float) -> bool:
    if stored is None or (isinstance(stored, float) and not math.isfinite(stored)):
        return math.isnan(wanted)
    return not math.isnan(wanted) and math.isclose(float(stored), wanted)
