"""Batches on a Dask cluster (docs/architecture.md §8, bollesim/batch/cluster.py): a local cluster of two
worker processes plays the same rows as this process, whatever the chunk size, through
simulate, `bollesim run` and `bollesim sweep`; its mistakes are one-line errors."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import polars as pl
import pytest
from test_sweep import SMALL, assert_one_line_error, invoke, write_spec

import bollesim
from bollesim.batch.cluster import Cluster
from bollesim.batch.session import sweep
from bollesim.batch.spec import load_experiment
from bollesim.errors import UsageError
from bollesim.game.policy import load_policy

# One worker: one local Dask cluster (two more processes) serves the module.
pytestmark = pytest.mark.xdist_group("cluster")

POLICIES = ("random", "historical", "fire_at_roe")


@pytest.fixture(scope="module")
def cluster():
    for name in POLICIES:  # compile here first: the workers then load numba's disk cache
        bollesim.simulate(name, 2, seed=1)
    with Cluster("local", workers=2) as c:
        yield c


@pytest.mark.parametrize(
    ("policy", "params"),
    [
        ("random", None),
        ("historical", {"stop_at_tanks": np.arange(3000) % 5}),  # differing from game to game
    ],
)
def test_cluster_plays_the_same_rows(cluster, policy, params):
    here = bollesim.simulate(policy, 3000, seed=5, params=params, chunk_size=997)
    tasks = tasks_run(cluster)
    there = bollesim.simulate(policy, 3000, seed=5, params=params, chunk_size=350, cluster=cluster)
    assert there.equals(here)
    assert tasks_run(cluster) - tasks == 9  # one task per chunk, played on the workers
    assert cluster.describe() == {"address": "local", "workers": 2, "threads": 1}


def tasks_run(cluster) -> int:
    """Chunk tasks the cluster's worker processes have played so far."""
    from bollesim.batch.cluster import _policy

    counts = cluster.client.run(lambda: _policy.cache_info().hits + _policy.cache_info().misses)
    return sum(counts.values())


def test_sweep_on_a_cluster_writes_the_same_dataset(cluster, tmp_path):
    experiment = load_experiment(write_spec(tmp_path, SMALL))
    sweep(experiment, tmp_path / "here", games=900)
    manifest, _ = sweep(experiment, tmp_path / "there", games=900, cluster=cluster)
    here = pl.read_parquet(tmp_path / "here" / "games.parquet")
    there = pl.read_parquet(tmp_path / "there" / "games.parquet")
    assert there.equals(here) and here.height == 4 * 900
    assert manifest["cluster"]["workers"] == 2


def test_cells_with_their_own_rulesets_on_a_cluster(cluster, tmp_path):
    """A grid with rule axes (tests/test_rule_axes.py): each cell's ruleset reaches the
    workers, and the rows are this machine's."""
    from test_rule_axes import AXES

    experiment = load_experiment(write_spec(tmp_path, AXES))
    sweep(experiment, tmp_path / "here", games=300, chunk_size=128)
    sweep(experiment, tmp_path / "there", games=300, chunk_size=128, cluster=cluster)
    here = pl.read_parquet(tmp_path / "here" / "games.parquet")
    there = pl.read_parquet(tmp_path / "there" / "games.parquet")
    assert there.equals(here) and here["ruleset_hash"].n_unique() == 4


def test_run_on_a_local_cluster_from_the_command_line(tmp_path):
    args = ("run", "-P", "historical", "-n", "2500", "--seed", "3", "--chunk", "600")
    assert invoke(*args, "--out", tmp_path / "here").exit_code == 0
    result = invoke(*args, "--out", tmp_path / "there", "--cluster", "local", "--workers", "2")
    assert result.exit_code == 0, result.output
    here = pl.read_parquet(tmp_path / "here" / "games.parquet")
    there = pl.read_parquet(tmp_path / "there" / "games.parquet")
    assert there.equals(here) and here.height == 2500
    manifest = json.loads((tmp_path / "there" / "manifest.json").read_text())
    assert manifest["cluster"] == {"address": "local", "workers": 2, "threads": 1}


def test_cluster_mistakes_are_one_line(tmp_path):
    run = ("run", "-P", "historical", "-n", "10", "--out", tmp_path / "o")
    assert_one_line_error(invoke(*run, "--workers", "2"), "--cluster local")
    assert_one_line_error(invoke(*run, "--cluster", "local", "--workers", "0"), "--workers")
    assert_one_line_error(invoke(*run, "--cluster", "nowhere"), "'nowhere'", "tcp://HOST:PORT")
    assert not (tmp_path / "o").exists()


def test_workers_load_policies_by_name(cluster):
    notebook = dataclasses.replace(load_policy("historical"), name="my_policy")
    with pytest.raises(UsageError, match="my_policy.*by name"):
        bollesim.simulate(notebook, 10, cluster=cluster)


def test_a_local_cluster_listens_on_loopback_only(cluster):
    """Scheduler, dashboard and workers: Dask moves pickled data, so nothing may listen
    on an interface other machines reach."""
    import psutil

    me = psutil.Process()
    listening = [
        conn.laddr.ip
        for process in [me, *me.children(recursive=True)]
        for conn in process.net_connections(kind="inet")
        if conn.status == psutil.CONN_LISTEN
    ]
    assert len(listening) >= 1 + 1 + 2 * 2  # scheduler, dashboard, each worker and nanny
    assert set(listening) == {"127.0.0.1"}, listening
    assert cluster.client.dashboard_link.startswith("http://127.0.0.1:")
