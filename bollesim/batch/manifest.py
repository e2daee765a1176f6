"""A run folder's manifest (manifest.json): its format (`Manifest`, checked when read
and sealed with its hash when written), and its fields that say what was played and on
what, built once for sweeps, runs and searches, with the ruleset record that lets a
replay or a comparison rebuild the ruleset exactly.

Manifest fields (`format` changes when their meaning does)
    format            FORMAT, the version of this layout
    version           the bollesim version that wrote the folder
    n_games           rows of games.parquet: games per cell times cells
    data_bytes        size of games.parquet in bytes
    data_sha256       SHA-256 of games.parquet (hex)
    manifest_sha256   SHA-256 of the other fields as canonical JSON (sorted keys, no
                      spaces): a manifest edited after the run is refused
    created           local time the run was committed (ISO 8601)
    game              the game played, its registered name (registry.load_game); absent:
                      Operation Bøllebank, the one game of the versions before games were
                      declared
    plan              what was asked (ruleset hash, seed, games, precision, max_games,
                      chunk_size, engine, cells): the key `--resume` compares
    seed              run seed: game g is seeded from (seed, g)
    games_per_cell    games played in each cell (game indices 0..games_per_cell-1)
    n_cells           number of cells
    cells             [{cell, policy, params}] in cell order; a cell that changes the
                      ruleset adds {rules, readings, ruleset_hash}: the key values and
                      reading variants it applies over ruleset_data, and the result's hash
    policy            the policy, or the cells' policies joined by ", "
    params            the parameters of a one-cell run, or a sentence saying where they are
    ruleset           the ruleset's name
    ruleset_hash      SHA-256 of the ruleset data
    ruleset_source    {file, partial, overrides, readings} the ruleset was loaded from
    ruleset_data      the ruleset's data, so any game can be replayed exactly
    engine            fast or reference
    threads           engine threads of the session that finished the run
    chunk_size        games per chunk
    machine           architecture, cores and Python of that session
    timings           {warm_up_s, run_s, total_s, games_per_s} of that session
    sessions          how many sessions played the run (1: never interrupted)
    cluster           {address, workers, threads} of a Dask cluster, or null
    precision         with --precision: {half_width, max_games, reached,
                      largest_half_width, largest_in: {cell, rate}}, else null
    stopped           with --precision: why adding games stopped, one sentence
    experiment        a sweep's name (null for a run)
    description       a sweep's description
    spec_file         a sweep's spec file
    spec              a sweep's spec as read
    sensitivity       a sensitivity run's layout (bollesim/stats/sensitivity.py): {cells_per_ruleset,
                      alternatives}: cell v * cells_per_ruleset + c is the experiment's
                      cell c under alternatives[v - 1] ("ID=VARIANT"), v = 0 the experiment
                      as specified
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import time
import typing
from dataclasses import dataclass
from pathlib import Path

from bollesim.batch.source import RulesetSource
from bollesim.batch.spec import changed_ruleset
from bollesim.errors import RulesetError, UsageError
from bollesim.game.declaration import Game, Ruleset, ruleset_digest
from bollesim.game.registry import DEFAULT_GAME, load_game
from bollesim.inputs import (
    MANIFEST_LIMIT,
    size_text,
)

FORMAT = 1
_HEX = re.compile(r"[0-9a-f]{64}")
# --------------------------------------------------------------------------- the manifest


@dataclass(frozen=True)
class Manifest:
    """The fields of manifest.json; the module docstring says what each one means."""

    format: int
    version: str
    n_games: int
    data_bytes: int
    data_sha256: str
    manifest_sha256: str
    created: str | None = None
    game: str | None = None
    plan: dict | None = None
    seed: int | None = None
    games_per_cell: int | None = None
    n_cells: int | None = None
    cells: list | None = None
    policy: str | None = None
    params: dict | str | None = None
    ruleset: str | None = None
    ruleset_hash: str | None = None
    ruleset_source: dict | None = None
    ruleset_data: dict | None = None
    engine: str | None = None
    threads: int | None = None
    chunk_size: int | None = None
    machine: str | None = None
    timings: dict | None = None
    sessions: int | None = None
    cluster: dict | None = None
    precision: dict | None = None
    stopped: str | None = None
    experiment: str | None = None
    description: str | None = None
    spec_file: str | None = None
    spec: dict | None = None
    sensitivity: dict | None = None

    @classmethod
    def from_json(cls, data: object) -> Manifest:
        """A checked Manifest from parsed JSON; ValueError names the first bad field."""
        if not isinstance(data, dict):
            raise ValueError(f"expected a JSON object, got a JSON {_json_kind(data)}")
        if "format" not in data:
            raise ValueError("no format field: written by an older bollesim or by hand")
        if data["format"] != FORMAT:
            raise ValueError(
                f"format {data['format']!r}, this bollesim reads format {FORMAT}: "
                "use the version that wrote it, or run it again"
            )
        hints = typing.get_type_hints(cls)
        known = {f.name: f for f in dataclasses.fields(cls)}
        for key, value in data.items():
            if key not in known:
                raise ValueError(f"unknown field {key!r}")
            if not _fits(hints[key], value):
                raise ValueError(f"field {key!r} has a wrong type: {_json_kind(value)}")
        for name, f in known.items():
            if f.default is dataclasses.MISSING and name not in data:
                raise ValueError(f"missing field {name!r}")
        manifest = cls(**data)
        manifest.check()
        if manifest.manifest_sha256 != manifest.content_sha256():
            raise ValueError("edited after the run (its fields do not match its manifest_sha256)")
        return manifest

    @classmethod
    def sealed(cls, **fields) -> Manifest:
        """A checked Manifest of `fields`, with its manifest_sha256."""
        manifest = cls(format=FORMAT, manifest_sha256="0" * 64, **fields)
        manifest.check()
        return dataclasses.replace(manifest, manifest_sha256=manifest.content_sha256())

    def content_sha256(self) -> str:
        fields = {k: v for k, v in self.to_json().items() if k != "manifest_sha256"}
        text = json.dumps(fields, sort_keys=True, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def check(self) -> None:
        """The manifest agrees with itself (ValueError naming the first disagreement)."""
        if self.n_games < 0 or self.data_bytes < 0:
            raise ValueError("negative n_games or data_bytes")
        for name in ("data_sha256", "manifest_sha256"):
            if not _HEX.fullmatch(getattr(self, name)):
                raise ValueError(f"{name} is not a SHA-256 in hex")
        if self.seed is not None and not 0 <= self.seed < 2**63:
            raise ValueError(f"seed {self.seed} is outside 0..2**63-1")
        if self.games_per_cell is not None and self.n_cells is not None:
            if self.games_per_cell * self.n_cells != self.n_games:
                raise ValueError(
                    f"n_games {self.n_games:,} is not games_per_cell {self.games_per_cell:,} "
                    f"times n_cells {self.n_cells}"
                )
        if self.cells is not None and self.n_cells is not None and len(self.cells) != self.n_cells:
            raise ValueError(f"{len(self.cells)} cells listed for n_cells {self.n_cells}")

    def to_json(self) -> dict:
        values = ((f.name, getattr(self, f.name)) for f in dataclasses.fields(self))
        return {k: v for k, v in values if v is not None}


def _fits(hint, value) -> bool:
    kinds = typing.get_args(hint) or (hint,)
    for kind in kinds:
        if kind is type(None):
            if value is None:
                return True
        elif kind is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return True
        elif isinstance(value, kind):
            return True
    return False


def _json_kind(value: object) -> str:
    names = {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def manifest_fields() -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(Manifest))


def json_bytes(data: dict) -> bytes:
    return (json.dumps(data, indent=2, allow_nan=False) + "\n").encode("utf-8")


MANIFEST_SLACK = 4096
"""Bytes a manifest gains after check_manifest_size: timings, outcome, hashes, sessions."""


def check_manifest_size(draft: dict) -> None:
    """UsageError, with the estimate, if the manifest of `draft` (its fields but for those
    MANIFEST_SLACK covers) would pass MANIFEST_LIMIT, the most read_manifest reads: a run
    is refused before it plays rather than committed into a folder no command can read."""
    size = len(json_bytes(draft)) + MANIFEST_SLACK
    if size > MANIFEST_LIMIT:
        cells = len(draft.get("cells") or [])
        raise UsageError(
            f"the manifest of these {cells:,} cells would be about {size_text(size)}, more "
            f"than the {size_text(MANIFEST_LIMIT)} a run folder's manifest may have: play "
            "fewer cells (fewer values per axis) or split the experiment")


PER_CELL = "per cell (see cells)"


def play_record(rules: Ruleset, cells: list[dict], seed: int, engine: str, timings: dict,
                **more) -> dict:
    """The manifest fields that say what was played and on what (runfolder.Manifest): the
    version and date, the seed, the cells (each its manifest record: cell, policy, params
    and what it changes in the ruleset), the policy and parameters, the ruleset, the engine
    and `more` fields of the caller's (threads, chunk_size), the machine and the timings."""
    from bollesim import __version__
    from bollesim.batch.runner import machine

    policies = list(dict.fromkeys(c["policy"] for c in cells))
    return {
        "version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "seed": seed,
        "n_cells": len(cells),
        "cells": cells,
        "policy": ", ".join(policies),
        "params": PER_CELL if len(cells) > 1 else cells[0]["params"],
        "ruleset": rules.name,
        "ruleset_hash": rules.digest,
        "engine": engine,
        **more,
        "machine": machine(),
        "timings": timings,
    }


def ruleset_record(rules: Ruleset, source: RulesetSource | None = None) -> dict:
    """Manifest fields that let `replay_from_run` rebuild the ruleset exactly: its data,
    and where it came from (the shipped ruleset when no source is given)."""
    return {
        "ruleset_source": (source or RulesetSource()).record(),
        "ruleset_data": rules.data,
    }


def check_ruleset_record(manifest: dict, run_dir: str | Path) -> None:
    """UsageError if a manifest's ruleset data does not hash to its recorded ruleset_hash."""
    digest, data = manifest.get("ruleset_hash"), manifest.get("ruleset_data")
    if digest and isinstance(data, dict) and ruleset_digest(data) != digest:
        raise UsageError(f"{run_dir}/manifest.json: the recorded ruleset data does not match "
                         "its hash")


def manifest_game(manifest: dict) -> Game:
    """The game a run played, as its manifest records it (none recorded: Operation
    Bøllebank, the one game before games were declared)."""
    return load_game(manifest.get("game") or DEFAULT_GAME)


def run_ruleset(manifest: dict, run_dir: str | Path) -> Ruleset:
    """The ruleset a run was played with, rebuilt from its manifest and checked by its hash."""
    where = f"{run_dir}/manifest.json"
    check_ruleset_record(manifest, run_dir)
    digest = manifest.get("ruleset_hash")
    data = manifest.get("ruleset_data")
    if data is not None:
        try:
            rules = manifest_game(manifest).rulebook.build(data, where)
        except RulesetError as exc:
            raise UsageError(f"{where}: the recorded ruleset no longer loads: {exc}") from None
    else:
        rules = manifest_game(manifest).load_ruleset()
        if digest and rules.digest != digest:
            raise UsageError(
                f"{where} records no ruleset data and its ruleset (sha256 "
                f"{digest[:12]}…) is not the default one: cannot replay exactly"
            )
    return rules


def cell_ruleset(manifest: dict, run_dir: str | Path, cell: int) -> Ruleset:
    """The ruleset a cell of a run was played with: the run's, with the rules and readings
    its manifest record names applied, checked by the cell's ruleset hash."""
    rules = run_ruleset(manifest, run_dir)
    record = next((c for c in manifest.get("cells") or [] if c.get("cell") == cell), {})
    if not record.get("rules") and not record.get("readings"):
        return rules
    where = f"{run_dir}/manifest.json: cell {cell}"
    try:
        rules = changed_ruleset(manifest_game(manifest), rules, record.get("rules") or {},
                                record.get("readings") or {})
    except RulesetError as exc:
        raise UsageError(f"{where}: its ruleset no longer loads: {exc}") from None
    if rules.digest != record.get("ruleset_hash"):
        raise UsageError(f"{where}: its rules and readings do not make the ruleset of its hash")
    return rules
