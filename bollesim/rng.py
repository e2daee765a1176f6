"""Counter-based random streams: every random draw of both engines goes through here.

Each game has two streams derived from (run seed, game index): CHANCE for the game's
luck (chits, dice, sides), POLICY for the policy's own choices, so two policies compared
on the same seeds face the same luck (common random numbers). A draw depends only on its
key and its index, never on the thread, chunk or engine that makes it
(docs/architecture.md §3). Streams are int64 arrays (the bits of uint64s; int64 so that
they can live inside the fast engine's state vector):

- POLICY is sequential, int64[2] = [key, counter]: its n-th draw is
  splitmix64(key + n * GOLDEN).
- CHANCE is keyed by purpose, int64[keyed_size(purposes)] = [key, draws, then for each
  purpose p: the turn of its last draw, its draws in that turn]. The n-th draw of purpose
  p in turn t is splitmix64(mix64(key ^ (t * 256 + p + 1) * SALT) + n * GOLDEN): a choice
  that changes how many draws one purpose makes in one turn re-deals nothing else, so a
  game has one future however it is played (bollebank/luck.py names the purposes).

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


FIRST_ROLLOUT_STREAM = 2  # stream ids 0 and 1 are every game's CHANCE and POLICY
MAX_ROLLOUTS = 1 << 24  # rollouts per decision that get streams of their own


@compiled
def rollout_key(seed, game, decision, rollout, stream):
    """The key of a rollout's stream (CHANCE or POLICY): rollout r after decision k of a
    game (bollesim/game/positions.py). Its stream id is never a game's own, and the
    rollouts of every option of one decision share their keys (common random numbers
    across the options)."""
    sid = FIRST_ROLLOUT_STREAM + 2 * (decision * MAX_ROLLOUTS + rollout) + stream
    return np.int64(stream_key(seed, game, sid))


DRAW_STREAMS = 1 << 62  # the first stream id of the rollouts after a forced draw
MAX_DRAWS = 1 << 12  # draws after one decision that get streams of their own


@compiled
def draw_key(seed, game, decision, draw, rollout, stream):
    """The key of a rollout's stream (CHANCE or POLICY) that plays on after a draw forced
    to an outcome (bollesim/game/chance.py): the draw numbered `draw` among those made
    after the game's first `decision` decisions. Its stream id is neither a game's nor a
    decision's rollout's, and the rollouts of every outcome of one draw share their keys
    (common random numbers across the outcomes)."""
    sid = DRAW_STREAMS + 2 * ((decision * MAX_DRAWS + draw) * MAX_ROLLOUTS + rollout) + stream
    return np.int64(stream_key(seed, game, sid))


@compiled
def init_stream(out, seed, game, stream):
    """Write a fresh stream [key, 0, ...] into out (sequential or keyed)."""
    out[:] = 0
    out[0] = np.int64(stream_key(seed, game, stream))


@compiled(inline=True)
def next_u64(s, at=0):
    """The next 64 random bits of the stream at s[at : at + 2]; advances its counter.
    (`at` lets the fast engine keep its streams inside its state vector.)"""
    s[at + 1] += 1
    return mix64(np.uint64(s[at]) + np.uint64(s[at + 1]) * GOLDEN)


@compiled(inline=True)
def scaled(bits, n):
    """A uniform integer in [0, n) from 64 random bits, n >= 1 (bias below n / 2**32,
    i.e. nil here)."""
    return np.int64(((bits >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@compiled(inline=True)
def below(s, n, at=0):
    """A uniform integer in [0, n) from the sequential stream at s[at : at + 2]."""
    return scaled(next_u64(s, at), n)


def keyed_size(purposes: int) -> int:
    """The length of a keyed stream with that many purposes."""
    return 2 + 2 * purposes


@compiled(inline=True)
def keyed_u64(s, turn, purpose, at=0):
    """The next 64 random bits of `purpose` in `turn` from the keyed stream at s[at:];
    counts the draw."""
    c = at + 2 + 2 * purpose
    if s[c] != turn:
        s[c] = turn
        s[c + 1] = 0
    n = s[c + 1]
    s[c + 1] = n + 1
    s[at + 1] += 1
    sub = mix64(np.uint64(s[at]) ^ (np.uint64(turn * 256 + purpose + 1) * _STREAM_SALT))
    return mix64(sub + np.uint64(n) * GOLDEN)


@compiled(inline=True)
def keyed_below(s, n, turn, purpose, at=0):
    """A uniform integer in [0, n) of `purpose` in `turn`."""
    return scaled(keyed_u64(s, turn, purpose, at), n)


@compiled(inline=True)
def keyed_d6(s, turn, purpose, at=0):
    """One six-sided die of `purpose` in `turn`: 1..6."""
    return keyed_below(s, 6, turn, purpose, at) + 1


@compiled(inline=True)
def keyed_two_d6(s, turn, purpose, at=0):
    """Two six-sided dice of `purpose` in `turn` added: 2..12, as two draws."""
    return keyed_d6(s, turn, purpose, at) + keyed_d6(s, turn, purpose, at)


def new_stream(seed: int, game: int, stream: int, purposes: int = 0) -> np.ndarray:
    """A fresh stream array for Python callers: sequential, or keyed with `purposes`."""
    s = np.zeros(keyed_size(purposes) if purposes else 2, dtype=np.int64)
    init_stream(s, seed, game, stream)
    return s


_FLOOR_STREAM = keyed_size(1)


@compiled(nogil=True)  # on several threads at once (engine/blocks.py)
def dice_floor(seed, draws, out, lo, hi):
    """What the luck alone costs (`bollesim bench`'s floor): for games lo .. hi - 1, exactly
    draws[g] dice for game g from a keyed stream seeded as the engines seed it (one
    purpose in one turn), and nothing else; out[g] gets their sum."""
    stream = np.zeros(_FLOOR_STREAM, dtype=np.int64)
    for g in range(lo, hi):
        init_stream(stream, seed, np.int64(g), CHANCE)
        acc = 0
        for _ in range(draws[g]):
            acc += keyed_d6(stream, 1, 0)
        out[g] = acc
