"""Batches as tasks on a Dask cluster (docs/architecture.md §8): each chunk of games is one task,
and results come back in game order, so a run on a cluster writes the same rows as one
on this machine (game g is seeded from (seed, g) alone, docs/architecture.md §3).

    with Cluster("local", workers=2) as cluster:         # worker processes here
        run_to_dir("results/h", "historical", 10**7, seed=1, cluster=cluster)
    Cluster("tcp://10.0.0.5:8786")                        # a running scheduler

Workers load policies by name from their own `policies/` and compile the engine on
first use (numba caches it per machine), so every worker needs this package installed.

A local cluster listens on the loopback interface only. Dask sends pickled data, so
whoever can reach a scheduler or worker can run code on it: reach a remote cluster over
TLS (a `tls://` address, with certificates in Dask's configuration) or on a network
that only trusted machines share (docs/usage.md, "On a Dask cluster").
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator
from functools import cache

import numpy as np

from bollesim.errors import UsageError
from bollesim.game.declaration import Ruleset
from bollesim.game.policy import Policy, available_policies

CONNECT_TIMEOUT = "10s"
LOOPBACK = "127.0.0.1"
"""Where a local cluster's scheduler, workers and dashboard listen."""


class Cluster:
    """A Dask client. `address` is "local" (start `workers` worker processes on this
    machine, one engine thread each by default) or a running scheduler's address.
    `threads`: engine threads per task (default: all of a worker machine's cores)."""

    def __init__(
        self, address: str = "local", workers: int | None = None, threads: int | None = None
    ):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise UsageError(
                "a Dask cluster needs the distributed package: pip install 'bollesim[cluster]'"
            ) from None
        self.address = address
        self._shared: dict[str, object] = {}  # play(): rulesets scattered to the workers
        self._local = None
        if address == "local":
            most = 4 * (os.cpu_count() or 1)
            n = workers if workers is not None else (os.cpu_count() or 1)
            if not 1 <= n <= most:
                raise UsageError(f"--workers must be from 1 to {most} (4 per core), got {n}")
            # Everything on the loopback interface: Dask moves pickled data, so a port
            # open to the network would run code sent by anyone who can reach it.
            self._local = LocalCluster(
                n_workers=n,
                threads_per_worker=1,
                host=LOOPBACK,
                dashboard_address=f"{LOOPBACK}:0",
                silence_logs=40,
            )
            self.client = Client(self._local)
            threads = threads or max(1, (os.cpu_count() or 1) // n)
        else:
            if workers is not None:
                raise UsageError("--workers sizes a local cluster; a running one has its own")
            try:
                self.client = Client(address, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as exc:
                raise UsageError(
                    f"cannot reach a Dask scheduler at {address!r} ({exc}); give its address "
                    "as tcp://HOST:PORT, or --cluster local"
                ) from None
        self.threads = threads
        self.workers = list(self.client.scheduler_info()["workers"])
        if not self.workers:
            self.close()
            raise UsageError(f"the Dask cluster at {address!r} has no workers")

    def warm_up(self, rules: Ruleset, policy: Policy, engine: str) -> None:
        """Load (or compile) the engine and the policy on every worker."""
        named = policy_named(policy)
        futures = [
            self.client.submit(
                _play,
                rules,
                named,
                policy.param_vector()[None, :],
                0,
                0,
                engine,
                self.threads,
                workers=[w],
                pure=False,
            )
            for w in self.workers
        ]
        self.client.gather(futures)

    def play(self, jobs: Iterable[tuple], engine: str) -> Iterator[np.ndarray]:
        """Results of each job (policy, params, seed, first_game, rules), in job order, with
        at most two tasks per worker in flight (memory stays flat). Each ruleset is sent
        to every worker once while the cluster lives: scattering it again for a later
        batch would give its data the key of one being released, and the workers would
        lose it (a search plays many batches)."""
        shared = self._shared  # ruleset digest -> its data on the workers
        in_flight: deque = deque()
        for policy, params, seed, first_game, rules in jobs:
            if rules.digest not in shared:
                shared[rules.digest] = self.client.scatter(rules, broadcast=True)
            in_flight.append(
                self.client.submit(
                    _play,
                    shared[rules.digest],
                    policy_named(policy),
                    np.ascontiguousarray(params),
                    seed,
                    first_game,
                    engine,
                    self.threads,
                    pure=False,
                )
            )
            if len(in_flight) >= 2 * len(self.workers):
                yield in_flight.popleft().result()
        while in_flight:
            yield in_flight.popleft().result()

    def describe(self) -> dict:
        return {"address": self.address, "workers": len(self.workers), "threads": self.threads}

    def close(self) -> None:
        self.client.close()
        if self._local is not None:
            self._local.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def policy_named(policy: Policy) -> tuple[str, str]:
    """(its game, its name): workers load a policy by its game's and its own name, so it
    must be a module of its game's policies (Game.policies)."""
    if policy.name not in available_policies(policy.game):
        raise UsageError(
            f"policy {policy.name!r} is not a module of the policies of {policy.game!r}: a "
            "cluster's workers load policies by name"
        )
    return policy.game, policy.name


@cache
def _policy(named: tuple[str, str]) -> Policy:
    from bollesim.game.policy import load_policy

    game, name = named
    return load_policy(name, game)


def _play(rules, named, params, seed, first_game, engine, threads) -> np.ndarray:
    """A task: one chunk of games on a worker."""
    from bollesim.batch.runner import play_chunk, set_threads

    set_threads(threads)
    return play_chunk(rules, _policy(named), params, seed, first_game, engine)
