"""The fast engine's game loop and batch kernel: games in parallel with prange.

Each game g of a batch is seeded from (seed, first_game + g), so a game's result does
not depend on the batch, the block or the thread that plays it (DESIGN.md §3).
"""

import numpy as np
from numba import njit, prange, typeof, types

from bollesim import events as E
from bollesim import observation as O
from bollesim import rng
from bollesim.decisions import MAX_OPTIONS
from bollesim.engine import layout as L
from bollesim.engine import tables as T
from bollesim.engine.core import log, new_game
from bollesim.engine.end import end_phase
from bollesim.engine.execution import execution_phase
from bollesim.engine.orders import orders_phase
from bollesim.engine.reaction import reaction_phase
from bollesim.engine.tables import rule_arrays
from bollesim.policy import DECIDE_SIGNATURE
from bollesim.rules.loader import load_ruleset

# Explicit signatures: the policy is a typed function pointer, so these kernels compile
# once (and are cached on disk) for every policy and ruleset.
RULES_TYPE = typeof(rule_arrays(load_ruleset()))
DECIDE_TYPE = types.FunctionType(DECIDE_SIGNATURE)
I64, U64, F64 = types.int64, types.uint64, types.float64


@njit(cache=True)
def play_turns(st, R, ctx, decide):
    """§4: turns of four phases until the game is over."""
    while not st[L.X_OVER]:
        log(st, ctx, E.TURN_START, st[O.TURN], st[O.DEADLINE], st[O.ROE], 0)
        orders_phase(st, R, ctx, decide)
        if st[L.X_OVER]:
            break
        execution_phase(st, R, ctx, decide)
        if st[L.X_OVER]:
            break
        reaction_phase(st, R, ctx, decide)
        if st[L.X_OVER]:
            break
        end_phase(st, R, ctx, decide)


@njit(cache=True)
def write_result(st, R, draws, out):
    """One result row (layout.R_*), as reference/play.py's result_row."""
    reason = st[L.X_END_REASON]
    defeat = reason == E.END_DESTROYED or reason == E.END_VL2_KILLED or reason == E.END_TURN_40
    operational = st[O.OPERATIONAL] == 1 and not defeat
    tactical = st[O.TACTICAL] == 1 and not defeat
    military = operational or tactical
    fired = st[O.FIRE_ROE] > 0
    strategic = not fired or st[O.FIRE_ROE] >= R.s[T.S_UNRESTRICTED]
    political = not fired or st[O.FIRE_ROE] <= st[O.ROE]
    if R.s[T.S_DIPLO_MILITARY] or defeat:
        strategic = strategic and military
        political = political and military
    out[L.R_OPERATIONAL] = operational
    out[L.R_TACTICAL] = tactical
    out[L.R_STRATEGIC] = strategic
    out[L.R_POLITICAL] = political
    out[L.R_DEFEAT] = defeat
    out[L.R_END_TURN] = st[O.TURN]
    out[L.R_END_REASON] = reason
    out[L.R_FIRST_FIRE_TURN] = st[L.X_FIRE_TURN]
    out[L.R_FIRST_FIRE_ROE] = st[O.FIRE_ROE]
    out[L.R_FINAL_ROE] = st[O.ROE]
    out[L.R_DEADLINE] = st[O.DEADLINE]
    out[L.R_TANKS_AT_T2] = st[L.X_TANKS_AT_T2]
    out[L.R_AIRSTRIKE_TURN] = st[L.X_AIRSTRIKE_TURN]
    out[L.R_HEAVY] = st[L.X_HEAVY_HITS]
    out[L.R_LIGHT] = st[L.X_LIGHT_HITS]
    out[L.R_CHITS_DRAWN] = st[L.X_CHITS_DRAWN]
    out[L.R_RANDOM_DRAWS] = draws


@njit(
    types.void(RULES_TYPE, DECIDE_TYPE, F64[::1], I64, I64, I64[::1], U64[::1], U64[::1], I64[::1],
               I64[:, ::1], I64[::1]),
    cache=True,
)
def play_one(R, decide, params, seed, game, st, chance, prng, opts, trace, out):
    """Play game `game` of run `seed` from setup into out (and trace, if it has rows)."""
    rng.init_stream(chance, seed, game, rng.CHANCE)
    rng.init_stream(prng, seed, game, rng.POLICY)
    new_game(st, R)
    ctx = (chance, prng, params, opts, trace)
    play_turns(st, R, ctx, decide)
    write_result(st, R, chance[1], out)


@njit(
    types.void(RULES_TYPE, DECIDE_TYPE, F64[:, ::1], I64, I64, I64[:, ::1], I64),
    cache=True,
    parallel=True,
)
def play_batch(R, decide, params, seed, first_game, out, block):
    """Games first_game .. first_game + len(out) - 1 in parallel; params[g] are game g's
    policy parameters. Blocks of `block` games share their scratch buffers."""
    n = out.shape[0]
    n_blocks = (n + block - 1) // block
    for b in prange(n_blocks):
        st = np.zeros(L.STATE_SIZE, dtype=np.int64)
        chance = np.zeros(2, dtype=np.uint64)
        prng = np.zeros(2, dtype=np.uint64)
        opts = np.zeros(MAX_OPTIONS, dtype=np.int64)
        trace = np.zeros((0, L.TRACE_WIDTH), dtype=np.int64)
        lo = np.int64(b) * block  # prange indices may be unsigned: keep game ids int64
        for g in range(lo, min(n, lo + block)):
            play_one(R, decide, params[g], seed, first_game + g, st, chance, prng, opts, trace, out[g])
