"""Counter-based random streams: every random draw of both engines goes through here.

A stream is an int64[2] array: [key, counter] (the bits of two uint64; int64 so that it
can live inside the fast engine's state vector). The n-th draw of a stream is
splitmix64(key + n * GOLDEN), so a draw depends only on (key, n), never on the thread,
chunk or engine that makes it (docs/architecture.md §3). Each game has two streams derived from
(run seed, game index): CHANCE for chits and dice, POLICY for the policy's own choices,
so two policies compared on the same seeds face the same luck (common random numbers).

All functions are numba-compiled and called from both engines, so the reference engine
and the fast engine get bit-identical numbers.
"""

import numpy as np

from bollesim.jit import compiled

CHANCE, POLICY = 0, 1  # stream ids
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_STREAM_SALT = np.uint64(0xD1B54A32D192ED03)


@compiled(inline=True)
def mix64(z):
    """The splitmix64 finaliser: a bijective scramble of a uint64."""
    z = np.uint64(z)
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@compiled
def stream_key(seed, game, stream):
    """The key of one game's stream, from (run seed, game index, stream id)."""
    k = mix64(np.uint64(seed) * GOLDEN + np.uint64(1))
    k = mix64(k ^ (np.uint64(game) * _M1 + np.uint64(2)))
    return mix64(k ^ (np.uint64(stream) * _STREAM_SALT + np.uint64(3)))


@compiled
def init_stream(out, seed, game, stream):
    """Write a fresh stream [key, 0] into out (int64[2])."""
    out[0] = np.int64(stream_key(seed, game, stream))
    out[1] = 0


@compiled(inline=True)
def next_u64(s, at=0):
    """The next 64 random bits of the stream at s[at : at + 2]; advances its counter.
    (`at` lets the fast engine keep its streams inside its state vector.)"""
    s[at + 1] += 1
    return mix64(np.uint64(s[at]) + np.uint64(s[at + 1]) * GOLDEN)


@compiled(inline=True)
def below(s, n, at=0):
    """A uniform integer in [0, n), n >= 1 (bias below n / 2**32, i.e. nil here)."""
    return np.int64(((next_u64(s, at) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@compiled(inline=True)
def d6(s, at=0):
    """One six-sided die: 1..6."""
    return below(s, 6, at) + 1


@compiled(inline=True)
def two_d6(s, at=0):
    """Two six-sided dice added: 2..12, as two draws."""
    return d6(s, at) + d6(s, at)


def new_stream(seed: int, game: int, stream: int) -> np.ndarray:
    """A fresh stream array for Python callers."""
    s = np.zeros(2, dtype=np.int64)
    init_stream(s, seed, game, stream)
    return s


@compiled(nogil=True)  # on several threads at once (engine/blocks.py)
def dice_floor(seed, draws, out, lo, hi):
    """What the luck alone costs (`bollesim bench`'s floor): for games lo .. hi - 1, exactly
    draws[g] dice for game g, seeded as the engines seed it, and nothing else; out[g] gets
    their sum."""
    for g in range(lo, hi):
        stream = np.zeros(2, dtype=np.int64)
        init_stream(stream, seed, np.int64(g), CHANCE)
        acc = 0
        for _ in range(draws[g]):
            acc += d6(stream)
        out[g] = acc
