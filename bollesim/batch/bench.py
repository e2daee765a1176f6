"""`bollesim bench`: how fast the fast engine is, against the reference engine and
against an RNG floor, measured in one run on the machine it runs on."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from functools import partial

import numpy as np

from bollesim import rng
from bollesim.batch.runner import play_chunk, set_threads
from bollesim.blocks import in_blocks
from bollesim.game.declaration import Game, Ruleset
from bollesim.game.policy import Policy, available_policies, load_policy
from bollesim.game.registry import load_game


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _compile_seconds(policy: Policy, cache_dir: str | None) -> float:
    """Wall time of a fresh process that imports the fast engine and plays one game."""
    env = dict(os.environ)
    if cache_dir:
        env["NUMBA_CACHE_DIR"] = cache_dir
    code = f"import bollesim; bollesim.simulate({policy.name!r}, 1, game={policy.game!r})"
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True)
    return time.perf_counter() - t


def measure(
    rules: Ruleset,
    policy: Policy,
    games: int,
    reference_games: int,
    seed: int = 1,
    cold: bool = True,
    progress=print,
) -> dict:
    """Every figure of the benchmark of the policy's game, as a dict (the keys of `bollesim
    bench --json`)."""
    import numba

    params = np.tile(policy.param_vector(), (games, 1))
    threads = numba.config.NUMBA_NUM_THREADS
    progress("warming up the fast engine")
    play_chunk(rules, policy, params[:16], seed, 0, "fast")
    set_threads(threads)
    out = {}
    t_all = min(
        _timed(lambda: play_chunk(rules, policy, params, seed, 0, "fast")) for _ in range(2)
    )
    results = play_chunk(rules, policy, params, seed, 0, "fast")
    progress(f"fast engine, {threads} threads: {games / t_all:,.0f} games/s")
    set_threads(1)
    t_one = _timed(lambda: play_chunk(rules, policy, params, seed, 0, "fast"))
    set_threads(threads)
    progress(f"fast engine, 1 thread: {games / t_one:,.0f} games/s")
    t_ref = _timed(
        lambda: play_chunk(rules, policy, params[:reference_games], seed, 0, "reference")
    )
    progress(f"reference engine: {reference_games / t_ref:,.1f} games/s")
    out.update(
        policy=policy.name,
        games=games,
        threads=threads,
        fast_games_per_s=round(games / t_all, 1),
        fast_games_per_s_1thread=round(games / t_one, 1),
        reference_games_per_s=round(reference_games / t_ref, 2),
        ratio_per_core=round((games / t_one) / (reference_games / t_ref), 1),
    )
    result = load_game(policy.game).result
    if result.draws:  # a game that counts its random draws: the RNG floor
        draws = np.ascontiguousarray(results[:, result.slot(result.draws)])
        sink = np.zeros(games, dtype=np.int64)
        floor = partial(rng.dice_floor, seed, draws, sink)
        floor(0, 16)
        t_floor = min(_timed(lambda: in_blocks(floor, games, threads)) for _ in range(2))
        progress(f"RNG floor: {games / t_floor:,.0f} games/s")
        out.update(
            rng_floor_games_per_s=round(games / t_floor, 1),
            floor_ratio=round(t_all / t_floor, 1),
            draws_per_game=round(float(draws.mean()), 2),
        )
    out["policies"] = policy_rates(load_game(policy.game), rules, max(1000, games // 4), seed,
                                   threads, progress)
    if cold:
        progress("compile time: a fresh process with an empty cache (takes a while)")
        with tempfile.TemporaryDirectory() as empty:
            out["compile_cold_s"] = round(_compile_seconds(policy, empty), 2)
        out["compile_cached_s"] = round(_compile_seconds(policy, None), 2)
        progress(f"compile: cold {out['compile_cold_s']} s, cached {out['compile_cached_s']} s")
    return out


def policy_rates(game: Game, rules: Ruleset, games: int, seed: int, threads: int,
                 progress=print) -> dict:
    """{policy: {"games_per_s": on all threads, "games_per_s_1thread": on one}} for every
    shipped policy of the game at its defaults, `games` games each (the lookahead player:
    a few)."""
    rates = {}
    for name in available_policies(game):
        policy = load_policy(name, game)
        n = games if policy.chunk is None else 2 * policy.chunk  # the lookahead: a few games
        params = np.tile(policy.param_vector(), (n, 1))
        play_chunk(rules, policy, params[:16], seed, 0, "fast")  # compiled, warm

        def play(policy=policy, params=params):
            play_chunk(rules, policy, params, seed, 0, "fast")

        set_threads(threads)
        t_all = min(_timed(play) for _ in range(2))
        set_threads(1)
        t_one = _timed(play)
        set_threads(threads)
        rates[name] = {
            "games_per_s": round(n / t_all, 1),
            "games_per_s_1thread": round(n / t_one, 1),
        }
        progress(f"{name}: {n / t_all:,.0f} games/s on {threads} threads, "
                 f"{n / t_one:,.0f} on one")
    return rates
