"""Replaying games: one game played with its event trace kept and narrated
(docs/architecture.md §6), and a stored game of a run folder replayed from its row and
checked against it."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
import polars as pl

from bollesim.batch.manifest import cell_ruleset
from bollesim.bollebank.narrate import Narrator, outcome_line
from bollesim.bollebank.reference.play import play_game
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.errors import UsageError
from bollesim.game.policy import GamePlayer, Policy, load_policy


def narrated_game(
    rules: Ruleset,
    policy: Policy,
    params: np.ndarray,
    seed: int,
    game_index: int = 0,
    engine: str = "reference",
) -> tuple[list[str], dict]:
    """The turn-by-turn account of one game and its result row; either engine records
    the same events (docs/architecture.md §2)."""
    if isinstance(policy, GamePlayer):  # it narrates its own games
        return policy.narrated_game(rules, params, seed, game_index)
    if engine == "fast":
        from bollesim.batch.runner import to_frame
        from bollesim.bollebank.engine.trace import play_traced_game

        trace, results, _ = play_traced_game(rules, policy, params, seed, game_index)
        row = to_frame(results[None, :], policy, params[None, :], seed, game_index).row(0, named=True)
    else:
        trace = []
        with policy_compile_notice(policy):
            row = play_game(rules, policy, params, seed, game_index, trace)
    lines = Narrator(rules).narrate(trace)
    return [*header(rules, policy, params, seed, game_index), *lines, "", outcome_line(row)], row


POLICY_COMPILING = (
    "bollesim: compiling the policy {} once for this machine (about 20 s; later starts "
    "take under a second)..."
)


@contextmanager
def policy_compile_notice(policy: Policy):
    """Say so, on a terminal, when the reference engine is about to compile a policy's
    decide for the first time on this machine (a marker in numba's cache folder, as
    engine/play.compiled_for keeps for the kernels)."""
    from bollesim.bollebank.engine.play import compile_notice

    folder = numba.config.CACHE_DIR
    source = getattr(policy.decide, "py_func", None)  # presets share their family's decide
    name = source.__module__ if source is not None else policy.name
    marker = Path(folder) / f"compiled-decide-{name}" if folder else None
    if marker is not None and not marker.exists():
        compile_notice(sys.stderr, POLICY_COMPILING.format(policy.name))
    yield
    if marker is not None:
        try:
            marker.touch()
        except OSError:
            pass


def header(rules: Ruleset, policy: Policy, params: np.ndarray, seed: int, game_index: int) -> list[str]:
    """The first lines of a narrated game: what was played (either engine plays it alike)."""
    values = ", ".join(f"{p.name}={p.text(v)}" for p, v in zip(policy.parameters, params, strict=True))
    return [
        f"Policy {policy.name}" + (f" ({values})" if values else "") + f"; seed {seed}, game {game_index}",
        f"Ruleset {rules.name} (sha256 {rules.digest[:12]}…)",
    ]


@dataclass
class Replay:
    """One game of a run replayed by the reference engine, with its stored row."""

    lines: list[str]  # the narration, ending with the outcome line
    stored: dict  # the row of games.parquet
    replayed: dict  # the reference engine's result row
    differences: list[str]  # "column (stored x, replayed y)" for every result that differs


def find_row(run_dir: str | Path, game: int, cell: int | None = None) -> tuple[dict, dict]:
    """(row, manifest) of game `game` (in cell `cell`) of a run or sweep folder."""
    from bollesim.batch.runfolder import open_run

    run = open_run(run_dir)
    manifest = run.manifest
    scan = run.scan()
    rows = run.collect(scan.filter(pl.col("game") == game))
    if rows.height == 0:
        span = run.collect(scan.select(pl.col("game").min().alias("a"), pl.col("game").max().alias("b")))
        a, b = span.row(0)
        held = "it holds no games" if a is None else f"its games are {a}..{b}"
        raise UsageError(f"game {game} is not in {run_dir} ({held})")
    if cell is not None:
        if "cell" not in rows.columns:
            if cell != 0:
                raise UsageError(f"{run_dir} is a plain run with no cell {cell}")
        else:
            picked = rows.filter(pl.col("cell") == cell)
            if picked.height == 0:
                cells = sorted(rows["cell"].unique().to_list())
                raise UsageError(f"cell {cell} is not in {run_dir} (cells {cells[0]}..{cells[-1]})")
            rows = picked
    if rows.height > 1:
        cells = sorted(rows["cell"].unique().to_list())
        raise UsageError(
            f"game {game} is in {len(cells)} cells of {run_dir}: choose one with "
            f"--cell ({cells[0]}..{cells[-1]})"
        )
    return rows.row(0, named=True), manifest


def row_params(policy: Policy, row: dict) -> np.ndarray:
    missing = [p.name for p in policy.parameters if row.get(p.name) is None]
    if missing:
        raise UsageError(
            f"the row has no value for {policy.name}'s parameter {missing[0]!r} "
            "(was the policy changed after the run?)"
        )
    return policy.param_vector({p.name: row[p.name] for p in policy.parameters})


def replay_from_run(run_dir: str | Path, game: int, cell: int | None = None) -> Replay:
    """Replay game `game` of a run or sweep folder from its row alone (seed, policy and
    parameters from the row, ruleset from the manifest), narrated by the reference engine,
    and compare the result with the stored row."""
    row, manifest = find_row(run_dir, game, cell)
    rules = cell_ruleset(manifest, run_dir, row.get("cell") or 0)
    policy = load_policy(str(row.get("policy") or manifest.get("policy")))
    lines, replayed = narrated_game(
        rules, policy, row_params(policy, row), int(row["seed"]), int(row["game"])
    )
    return Replay(lines, row, replayed, result_differences(row, replayed))


def result_differences(stored: dict, replayed: dict) -> list[str]:
    """The result columns in which two rows of the same game differ."""
    from bollesim.batch.runner import RESULT

    def norm(name, value):
        if name in RESULT.nullable and not value:
            return None
        return value if value is None or isinstance(value, str) else int(value)

    out = []
    for name in RESULT.names:
        if name not in stored:
            continue
        a, b = norm(name, stored[name]), norm(name, replayed.get(name))
        if a != b:
            out.append(f"{name} (stored {a}, replayed {b})")
    return out

