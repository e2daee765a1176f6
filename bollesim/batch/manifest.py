"""The manifest's fields that say what was played and on what (runfolder.Manifest), built
once for sweeps, runs and searches, and the ruleset record that lets a replay or a
comparison rebuild the ruleset exactly."""

from __future__ import annotations

import time
from pathlib import Path

from bollesim.batch.source import RulesetSource
from bollesim.batch.spec import changed_ruleset
from bollesim.errors import RulesetError, UsageError
from bollesim.game.declaration import Ruleset, declared, ruleset_digest

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


def run_ruleset(manifest: dict, run_dir: str | Path) -> Ruleset:
    """The ruleset a run was played with, rebuilt from its manifest and checked by its hash."""
    where = f"{run_dir}/manifest.json"
    check_ruleset_record(manifest, run_dir)
    digest = manifest.get("ruleset_hash")
    data = manifest.get("ruleset_data")
    if data is not None:
        try:
            rules = declared().rulebook.build(data, where)
        except RulesetError as exc:
            raise UsageError(f"{where}: the recorded ruleset no longer loads: {exc}") from None
    else:
        rules = declared().load_ruleset()
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
        rules = changed_ruleset(rules, record.get("rules") or {}, record.get("readings") or {})
    except RulesetError as exc:
        raise UsageError(f"{where}: its ruleset no longer loads: {exc}") from None
    if rules.digest != record.get("ruleset_hash"):
        raise UsageError(f"{where}: its rules and readings do not make the ruleset of its hash")
    return rules
