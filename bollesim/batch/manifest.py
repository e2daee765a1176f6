"""The manifest's fields that say what was played and on what (runfolder.Manifest), built
once for sweeps, runs and searches, and the ruleset record that lets a replay rebuild the
ruleset exactly."""

from __future__ import annotations

import time

from bollesim.batch.source import RulesetSource
from bollesim.bollebank.rules.loader import Ruleset

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
