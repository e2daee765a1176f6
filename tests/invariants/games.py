"""The checked games: every invariant after every phase (check_phase) and on the result
row, over games played as play.play_games plays them."""

from __future__ import annotations

from functools import partial

import numpy as np

from bollesim.blocks import in_blocks
from bollesim.bollebank import observation
from bollesim.bollebank.engine import layout
from bollesim.bollebank.engine.core import new_game
from bollesim.bollebank.engine.play import (
    BATCH_ARGS,
    ORDERS,
    for_policy,
    new_vector,
    play_phase,
    unmanaged,
    write_result,
)
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.game.policy import Policy
from bollesim.jit import compiled
from invariants.end import (
    check_result,
    deadline,
    game_end,
    hull_marker,
    operational_victory,
    tactical_victory,
    turn_advance,
    victory_offer,
)
from invariants.execution import airstrike, fire_count, marker_changes, movement, stacking
from invariants.orders import (
    ability_moves,
    fire_sides,
    fire_status,
    setup_marker,
    standing_orders,
    tow_orders,
    track_changes,
)
from invariants.position import (
    ability_levels,
    chit_kinds,
    chit_places,
    hit_counts,
    in_range,
    marker_places,
    observation_live,
    tow_links,
)
from invariants.reaction import damage, roe, stun_and_skip, target_priority
from invariants.violations import RESULT_ROW, TRACE_EVENTS


@compiled
def check_phase(before, st, phase):
    """0 if st, after `phase` (play.ORDERS .. END), is a legal position given `before`
    (st[:STATE_SIZE] just before the phase), else the first broken invariant's code."""
    return (
        in_range(st)  # first: the checks below index by these counts and references
        or chit_places(st)
        or chit_kinds(st)
        or setup_marker(before, st, phase)
        or track_changes(before, st, phase)
        or marker_places(st)
        or marker_changes(before, st, phase)
        or roe(before, st, phase)
        or ability_levels(st)
        or ability_moves(before, st, phase)  # before movement, which reads ability sides
        or fire_status(before, st, phase)
        or fire_sides(before, st, phase)
        or tow_links(before, st)
        or movement(before, st, phase)
        or stacking(before, st, phase)
        or fire_count(before, st, phase)
        or standing_orders(st, phase)
        or tow_orders(before, st, phase)
        or damage(before, st, phase)
        or hit_counts(st)
        or stun_and_skip(before, st, phase)
        or hull_marker(before, st, phase)
        or turn_advance(before, st, phase)
        or game_end(st, phase)
        or operational_victory(before, st, phase)
        or tactical_victory(before, st, phase)
        or victory_offer(before, st, phase)
        or target_priority(before, st, phase)
        or deadline(before, st, phase)
        or airstrike(before, st, phase)
        or observation_live(st)  # last: a breach above may leave it stale too
    )


@compiled
def play_checked_game(st, decide, seed, game, before, row, error):
    """play.play_game with the invariants checked after every phase and on the result row;
    error gets (code, turn, phase) of the first violation, where play stops, or zeros. The
    trace region of st keeps the events of the phase being played."""
    error[:] = 0
    new_game(st, seed, game)
    phase = ORDERS
    while not st[layout.X_OVER]:
        st[layout.X_N_EVENTS] = 0  # only core.log reads it: play is unchanged
        before[:] = st[: layout.STATE_SIZE]
        played = phase
        phase = play_phase(st, decide, phase)
        code = check_phase(before, st, played)
        if code:
            error[0], error[1], error[2] = code, before[observation.TURN], played
            return
    write_result(st, st[layout.CHANCE + 1], row)
    code = check_result(st, row)
    if code:
        error[0], error[1], error[2] = code, st[observation.TURN], RESULT_ROW


@compiled(nogil=True)  # threads play blocks at once (blocks.py)
def play_checked_games(rules, decide, scripted, params, seed, first_game, errors, lo, hi):
    """Games first_game + lo .. first_game + hi - 1 as play.play_games plays them (params[g]
    are game first_game + g's parameters), with every invariant checked: errors[g] =
    (code, turn, phase) of the game's first violation, or zeros."""
    owner = new_vector(rules, TRACE_EVENTS, scripted)
    st = unmanaged(owner)
    before = np.empty(layout.STATE_SIZE, dtype=np.int64)
    row = np.empty(layout.N_RESULTS, dtype=np.int64)
    for g in range(lo, hi):
        st[layout.PARAMS : layout.PARAMS + params.shape[1]] = params[g].view(np.int64)
        play_checked_game(st, decide, seed, first_game + g, before, row, errors[g])
    owner[0] = 0  # a last use of owner, so it outlives its unmanaged view st


def check_games(
    rules: Ruleset, policy: Policy, n: int, seed: int, params: dict | None = None
) -> np.ndarray:
    """errors (n, 3) int64 of games 0 .. n - 1 of run `seed`, all with the policy's
    parameters (defaults overridden by params): (code, turn, phase) of each game's first
    violation, zeros for a game that kept every invariant."""
    import numba

    matrix = np.tile(policy.kernel_params(policy.param_vector(params)), (n, 1))
    errors = np.zeros((n, 3), dtype=np.int64)
    kernel, decide, scripted = for_policy(play_checked_games, BATCH_ARGS, policy)
    play = partial(kernel, rules.packed, decide, scripted, matrix, seed, 0, errors)
    in_blocks(play, n, numba.get_num_threads())
    return errors
