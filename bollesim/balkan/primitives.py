"""Balkan Wars' compiled decision primitives behind the signatures every game shares
(bollesim/game/positions.py): an engagement is short, so a position is the script of the
attacker's choices from the start (the SETUP snapshot), and each primitive replays the game
from setup in the fast engine (engine.play_one, its decisions asked as engine_ask.py's
control vector says). Compiled code only, so the pure-Python side (positions.py) stays out
of the compile cache's key: positions.py hands the signatures in (compile_primitives).

work: the engine's tables, flat (new_work): the stands' [2, MAX_STANDS, N_COLUMNS], the
generals' [2, MAX_GENERALS, N_GENERAL_COLUMNS], the sides' sizes and the scalars.
"""

import numpy as np

from bollesim.balkan import ruleset
from bollesim.balkan.engine import play_one
from bollesim.balkan.engine_ask import C_POINT, C_STOPPED, GO, NOTE, POINT_WIDTH, STOP, new_control
from bollesim.balkan.engine_state import N_FIELDS, ONES, ROWS, STREAM
from bollesim.balkan.schema import MAX_STANDS
from bollesim.jit import compiled
from bollesim.rng import CHANCE, init_stream

TAB = 2 * MAX_STANDS * ruleset.N_COLUMNS
GTAB = 2 * ruleset.MAX_GENERALS * ruleset.N_GENERAL_COLUMNS
NS = TAB + GTAB
SC = NS + 2
WORK_SIZE = SC + len(ruleset.SCALARS)
N_RESULTS = 11  # result.RESULT's columns, as engine.play_one writes them


@compiled
def play(work, decide, params, seed, game, script, n, option, stop, key, point, row):
    """Game `game` from setup: script[:n], then `option` (-1: none), then decide; past the
    option, rollout `key`'s streams (-1: the game's own). stop (STOP, NOTE): the next
    decision past the script into `point` (point[0] -1: the game ended first). row: the
    result row, when the game was played out."""
    tab = work[:TAB].reshape((2, MAX_STANDS, ruleset.N_COLUMNS))
    gtab = work[TAB:NS].reshape((2, ruleset.MAX_GENERALS, ruleset.N_GENERAL_COLUMNS))
    ns, sc = work[NS:SC], work[SC:WORK_SIZE]
    stream = np.zeros(STREAM, dtype=np.int64)
    init_stream(stream, seed, game, CHANCE)
    st = np.zeros((N_FIELDS, 2, MAX_STANDS), dtype=np.int64)
    gs = np.zeros((4, 2, ruleset.MAX_GENERALS), dtype=np.int64)
    scratch = np.zeros((ROWS, MAX_STANDS * 2), dtype=np.int64)
    scratch[ONES] = 1
    fights = np.zeros((MAX_STANDS + 1, 5), dtype=np.int64)
    cas = np.zeros(4, dtype=np.int64)
    out = np.zeros(N_RESULTS, dtype=np.int64)
    ctl = new_control(seed, game, script, n, option, stop, key)
    play_one(tab, gtab, ns, sc, params, stream, st, gs, scratch, fights, cas, out, ctl, decide)
    if stop != GO and point.shape[0]:
        point[:POINT_WIDTH] = ctl[C_POINT : C_POINT + POINT_WIDTH]
    if not ctl[C_STOPPED] and row.shape[0]:
        row[:] = out


@compiled
def nothing():
    return np.zeros(0, dtype=np.int64)


def balkan_pause(work, decide, params, seed, game, start, script, n, to_end, snapshot, point, row):
    snapshot[:] = 0  # every position is a script from setup
    play(work, decide, params, seed, game, script, n, -1, NOTE if to_end else STOP, -1, point, row)


def balkan_rollout(work, decide, params, seed, game, start, script, n, option, r, row):
    play(work, decide, params, seed, game, script, n, option, GO, r, nothing(), row)


def balkan_step(work, decide, params, seed, game, start, script, n, option, r, point, row):
    play(work, decide, params, seed, game, script, n, option, STOP, max(r, -1), point, row)


def balkan_allowed(kind, options, obs, restriction):
    return np.arange(options.shape[0])


def compile_primitives(signatures):
    """(pause, rollout, step, allowed), compiled for (their signatures, in that order)."""
    functions = (balkan_pause, balkan_rollout, balkan_step, balkan_allowed)
    return tuple(compiled(f, signature=s, nogil=True) for f, s in zip(functions, signatures, strict=True))
