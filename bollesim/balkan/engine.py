"""The fast engine: Balkan Wars engagements as numba kernels over small integer arrays,
many games on threads of their own. It plays the reference engine's games die for die
(reference.py says what each step means; the same names here do the same), and
tests/test_balkan*.py hold the two to each other. engine_state.py holds the state (its
layout drawn there), the table's geometry, the dice and casualties; engine_move.py the
moves; engine_fire.py the firefights and close assaults; this module the game.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import types

from bollesim.balkan import luck, ruleset, tactics
from bollesim.balkan.engine_ask import C_STOPPED, CTL_SIZE, GO, reset_control
from bollesim.balkan.engine_fire import assaults, counters, firefights_of
from bollesim.balkan.engine_move import destination, move_phase
from bollesim.balkan.engine_state import (
    ASSAULTS,
    ATT,
    BOUNDS,
    CMD,
    COUNTER,
    DEF,
    DIST,
    END_REASONS,
    FIG,
    FIRST,
    FORM,
    GDIST,
    GENERALS,
    GLANE,
    LANE,
    MOVED,
    N_FIELDS,
    ON,
    ONES,
    ORDER,
    ROWS,
    STATUS,
    STREAM,
    contest,
    end_code,
    lost,
    throw,
    unmanaged,
)
from bollesim.balkan.result import RESULT
from bollesim.balkan.schema import MAX_STANDS
from bollesim.game.policy import DECIDE_SIGNATURE
from bollesim.jit import compiled
from bollesim.rng import CHANCE, init_stream

__all__ = ["END_REASONS", "firefights", "kernel", "play_games", "play_rules", "tables"]
I64, F64 = types.int64, types.float64


# ------------------------------------------------------------------ a game

@unmanaged
def setup(tab, gtab, ns, sc, st, gs, scratch):
    """The stands and generals at the start (reference.new_battle)."""
    for s in range(2):
        for i in range(ns[s]):
            st[FIG, s, i] = tab[s, i, ruleset.FIGURES]
            st[STATUS, s, i] = ON
            st[DIST, s, i] = tab[s, i, ruleset.START]
            st[LANE, s, i] = tab[s, i, ruleset.LANE]
            st[FORM, s, i] = tab[s, i, ruleset.FORMATION]
            st[MOVED, s, i] = 0
            st[CMD, s, i] = 1
            st[ORDER, s, i] = tactics.FULL
        for k in range(sc[GENERALS + s]):
            _, gs[GDIST, s, k], gs[GLANE, s, k] = destination(tab, ns, sc, s, k, st, scratch)


@unmanaged
def play_one(tab, gtab, ns, sc, params, stream, st, gs, scratch, fights, cas, out, ctl, decide):
    """One engagement into out (result.RESULT's columns, END_REASONS' codes); cas: its
    casualties per side, its first close assault's bound and their number (scratch). The
    attacker's declared decisions are asked as the control vector says (engine_ask.py);
    where it says stop, the game stops there and out is left as it was."""
    setup(tab, gtab, ns, sc, st, gs, scratch)
    cas[:] = 0
    code = -1
    bound = 0
    for bound in range(1, sc[BOUNDS] + 1):
        move_phase(stream, bound, tab, gtab, ns, sc, ATT, params, st, gs, scratch, cas, ctl, decide)
        if ctl[C_STOPPED]:
            return
        nf = firefights_of(stream, bound, tab, ns, sc, ATT, st, scratch, fights, cas)
        code = end_code(st, ns, sc)
        if code < 0:
            assaults(stream, bound, tab, ns, sc, params, st, scratch, fights, nf, cas, ctl, decide)
            if ctl[C_STOPPED]:
                return
            code = end_code(st, ns, sc)
        if code >= 0:
            break
        move_phase(stream, bound, tab, gtab, ns, sc, DEF, params, st, gs, scratch, cas, ctl, decide)
        nf = firefights_of(stream, bound, tab, ns, sc, DEF, st, scratch, fights, cas)
        code = end_code(st, ns, sc)
        if sc[COUNTER] and code < 0:
            counters(stream, bound, tab, ns, sc, st, scratch, fights, nf, cas)
            code = end_code(st, ns, sc)
        if code >= 0:
            break
    if code < 0:
        code = 3
    lost_a, lost_d = lost(st, ATT, ns[ATT]), lost(st, DEF, ns[DEF])
    out[0] = code == 0
    out[1] = lost_a <= 1
    out[2] = code == 1 or code == 2
    out[3] = bound
    out[4] = code
    out[5] = cas[FIRST]
    out[6] = cas[ASSAULTS]
    out[7] = lost_a
    out[8] = lost_d
    out[9] = cas[ATT]
    out[10] = cas[DEF]


def play_games(tab, gtab, ns, sc, params, seed, first_game, out, decide):
    """Games first_game .. first_game + len(out) - 1, game g at params[g], into out; the
    attacker's declared decisions asked of `decide` (a policy's compiled decide, a
    first-class function of DECIDE_SIGNATURE: tactics.family_decide for the family), his
    other choices the family's at params[g]."""
    stream = np.zeros(STREAM, dtype=np.int64)
    st = np.zeros((N_FIELDS, 2, MAX_STANDS), dtype=np.int64)
    gs = np.zeros((4, 2, gtab.shape[1]), dtype=np.int64)
    scratch = np.zeros((ROWS, MAX_STANDS * 2), dtype=np.int64)
    scratch[ONES] = 1
    fights = np.zeros((MAX_STANDS + 1, 5), dtype=np.int64)
    cas = np.zeros(4, dtype=np.int64)
    ctl = np.zeros(CTL_SIZE, dtype=np.int64)
    for g in range(out.shape[0]):
        init_stream(stream, seed, first_game + g, CHANCE)
        reset_control(ctl, seed, first_game + g, 0, -1, GO, -1)
        play_one(tab, gtab, ns, sc, params[g], stream, st, gs, scratch, fights, cas, out[g], ctl,
                 decide)


@cache
def kernel():
    """play_games compiled once, on first use, for any policy's decide: one compile of the
    engine serves the family and every other policy, and the family's games lose nothing
    by calling its answers through a pointer."""
    return compiled(play_games, nogil=True, signature=types.void(
        I64[:, :, ::1], I64[:, :, ::1], I64[::1], I64[::1], F64[:, ::1], I64, I64, I64[:, ::1],
        types.FunctionType(DECIDE_SIGNATURE)))


def tables(rules: ruleset.Ruleset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two sides' stand tables in one array [2, MAX_STANDS, columns], their generals'
    [2, MAX_GENERALS, columns] and the sides' sizes."""
    tab = np.zeros((2, MAX_STANDS, ruleset.N_COLUMNS), dtype=np.int64)
    tab[ATT, :len(rules.attacker)] = rules.attacker
    tab[DEF, :len(rules.defender)] = rules.defender
    gtab = np.zeros((2, ruleset.MAX_GENERALS, ruleset.N_GENERAL_COLUMNS), dtype=np.int64)
    for s, generals in enumerate(rules.generals):
        gtab[s, :len(generals)] = generals
    return tab, gtab, np.array([len(rules.attacker), len(rules.defender)], dtype=np.int64)


def play_rules(rules: ruleset.Ruleset, params: np.ndarray, seed: int, first_game: int) -> np.ndarray:
    """Result rows of games first_game .. + len(params) - 1 on one thread (tests, tools)."""
    tab, gtab, ns = tables(rules)
    out = np.zeros((params.shape[0], len(RESULT.columns)), dtype=np.int64)
    kernel()(tab, gtab, ns, rules.scalars, np.ascontiguousarray(params, dtype=np.float64),
             seed, first_game, out, tactics.family_decide)
    return out


@compiled(nogil=True)
def firefights(mods_a, mods_d, sc, seed, counts):
    """counts[g] = (winner + 1, casualties to the first side, to the second) of firefight
    g, one die per modifier a side, each from game g's stream (the odds' frequency check
    and a measure of the dice alone)."""
    stream = np.zeros(STREAM, dtype=np.int64)
    table = np.ones((3, max(mods_a.shape[0], mods_d.shape[0])), dtype=np.int64)  # dice, mods
    table[1, :mods_a.shape[0]] = mods_a
    table[2, :mods_d.shape[0]] = mods_d
    for g in range(counts.shape[0]):
        init_stream(stream, seed, g, CHANCE)
        ta, sa = throw(stream, 1, luck.FIRE_A, table, 0, 1, mods_a.shape[0], sc)
        td, sd = throw(stream, 1, luck.FIRE_D, table, 0, 2, mods_d.shape[0], sc)
        winner, to_a, to_d = contest(ta, sa, td, sd)
        counts[g, 0] = winner + 1
        counts[g, 1] = to_a
        counts[g, 2] = to_d
