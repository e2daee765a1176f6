"""Replaying games: one game narrated (the game's narration, docs/architecture.md §6),
and a stored game of a run folder replayed from its row and checked against it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from bollesim.batch.limits import DEFAULT_SEED, check_count
from bollesim.batch.manifest import cell_ruleset, manifest_game
from bollesim.errors import UsageError
from bollesim.game.declaration import Game, Ruleset
from bollesim.game.policy import DecidePolicy, GamePlayer, Policy, load_policy
from bollesim.game.registry import DEFAULT_GAME, load_game
from bollesim.game.result import Result


def narrated_game(rules: Ruleset, policy: Policy, params: np.ndarray, seed: int,
                  game_index: int = 0, engine: str = "reference") -> tuple[list[str], dict]:
    """The turn-by-turn account of one game of the policy's game and its result row (the
    game's narration, Game.narration; a player of whole games narrates its own)."""
    if isinstance(policy, GamePlayer):
        return policy.narrated_game(rules, params, seed, game_index)
    return load_game(policy.game).narrated_game(rules, policy, params, seed, game_index, engine)


def narrate(policy: str | Policy, seed: int = DEFAULT_SEED, index: int = 0, params=None,
            rules: Ruleset | None = None, game: str | Game = DEFAULT_GAME) -> dict:
    """One game as data, the document `bollesim play --json` prints (docs/game.schema.json):
    what was played, every decision with its options and choice and every event in order,
    the narration and the result row. The reference engine plays it; a player of whole
    games (lookahead) has no decisions to record and is refused.

    policy: a policy's name of the game `game` (a registered name or a Game) or a Policy
    (of its own game); seed, index: which game (as in simulate, game `index` of the run
    seeded `seed`); params: None (the defaults), {name: value} or the parameter vector;
    rules: a Ruleset of the game (None: the shipped one).
    """
    if not isinstance(index, int) or isinstance(index, bool):
        raise TypeError(f"index is the game's number in its run, not {type(index).__name__}")
    policy = load_policy(policy, game) if isinstance(policy, str) else policy
    if not isinstance(policy, DecidePolicy):
        raise UsageError(f"policy {policy.name!r} plays whole games itself: it has no decisions "
                         "to record as a game's JSON document")
    check_count("seed", seed, "seed")
    check_count("index", index, "games")
    played = load_game(policy.game)
    rules = rules if rules is not None else played.load_ruleset()
    vector = params if isinstance(params, np.ndarray) else policy.param_vector(params)
    return played.game_document(rules, policy, vector, seed, index)


@dataclass
class Replay:
    """One game of a run replayed by the reference engine, with its stored row."""

    lines: list[str]  # the narration, ending with the outcome line
    stored: dict  # the row of games.parquet
    replayed: dict  # the reference engine's result row
    differences: list[str]  # "column (stored x, replayed y)" for every result that differs


def find_row(run_dir: str | Path, index: int, cell: int | str | None = None,
             game: Game | None = None) -> tuple[dict, dict]:
    """(row, manifest) of game number `index` (in cell `cell`: its number, or its
    parameters as batch/cells.py reads them) of a run or sweep folder (of the game `game`,
    if given: runfolder.open_run)."""
    from bollesim.batch.cells import pick_cell
    from bollesim.batch.runfolder import open_run

    run = open_run(run_dir, game)
    manifest = run.manifest
    if cell is not None:
        cell = pick_cell(run_dir, manifest, cell)
    scan = run.scan()
    rows = run.collect(scan.filter(pl.col("game") == index))
    if rows.height == 0:
        span = run.collect(scan.select(pl.col("game").min().alias("a"), pl.col("game").max().alias("b")))
        a, b = span.row(0)
        held = "it holds no games" if a is None else f"its games are {a}..{b}"
        raise UsageError(f"game {index} is not in {run_dir} ({held})")
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
            f"game {index} is in {len(cells)} cells of {run_dir}: choose one with "
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


def replay_from_run(run_dir: str | Path, index: int, cell: int | str | None = None,
                    game: Game | None = None) -> Replay:
    """Replay game number `index` of a run or sweep folder (of the game `game`, if given)
    from its row alone (seed, policy and parameters from the row, ruleset and game from
    the manifest), narrated by the reference engine, and compare the result with the
    stored row."""
    row, manifest = find_row(run_dir, index, cell, game)
    played = manifest_game(manifest)
    rules = cell_ruleset(manifest, run_dir, row.get("cell") or 0)
    policy = load_policy(str(row.get("policy") or manifest.get("policy")), played)
    lines, replayed = narrated_game(
        rules, policy, row_params(policy, row), int(row["seed"]), int(row["game"])
    )
    return Replay(lines, row, replayed, result_differences(played.result, row, replayed))


def result_differences(result: Result, stored: dict, replayed: dict) -> list[str]:
    """The result columns in which two rows of the same game differ."""

    def norm(name, value):
        if name in result.nullable and not value:
            return None
        return value if value is None or isinstance(value, str) else int(value)

    out = []
    for name in result.names:
        if name not in stored:
            continue
        a, b = norm(name, stored[name]), norm(name, replayed.get(name))
        if a != b:
            out.append(f"{name} (stored {a}, replayed {b})")
    return out

