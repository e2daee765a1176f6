"""Both engines give the same rows through the public paths, for every policy: `bollesim
run --engine reference` against `bollesim run`, and `simulate(engine="reference")` against
`simulate()` (docs/architecture.md, decision 2). A few hundred reference games in all (it plays about
150 games a second), so this runs in every CI job, not only in the slow set."""

from __future__ import annotations

import polars as pl
import pytest
from typer.testing import CliRunner

from bollesim.batch.runner import simulate
from bollesim.cli.app import app
from bollesim.game.policy import available_policies

cli = CliRunner()


@pytest.mark.parametrize("policy", available_policies(deciding=True))
def test_simulate_reference_equals_fast(policy):
    fast = simulate(policy, 90, seed=21)
    reference = simulate(policy, 90, seed=21, engine="reference", chunk_size=40)
    assert reference.height == 90 and reference.equals(fast)


@pytest.mark.parametrize("policy", available_policies(deciding=True))
def test_run_reference_equals_fast(policy, tmp_path):
    args = ["run", "-P", policy, "-n", "60", "--seed", "4", "--chunk", "25"]
    for engine in ("fast", "reference"):
        result = cli.invoke(app, [*args, "--engine", engine, "--out", str(tmp_path / engine)])
        assert result.exit_code == 0, result.output
    fast = pl.read_parquet(tmp_path / "fast" / "games.parquet")
    reference = pl.read_parquet(tmp_path / "reference" / "games.parquet")
    assert reference.height == 60 and reference.equals(fast)
