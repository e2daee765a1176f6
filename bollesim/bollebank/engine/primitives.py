"""Operation Bøllebank's compiled decision primitives behind the signatures every game
shares (bollesim/game/positions.py): engine/rollout.py's pause, rollout and step, and the
options an imposed first Fire order allows (expert.FirstFire). Compiled code only, so the
pure-Python side of the game's positions (bollebank/positions.py) stays out of the
compile cache's key.
"""

import numpy as np

from bollesim.bollebank import codes, decisions, observation
from bollesim.bollebank.engine import layout
from bollesim.bollebank.engine import rollout as R
from bollesim.bollebank.engine.play import unmanaged, write_result
from bollesim.jit import compiled


@compiled
def bollebank_pause(work, decide, params, seed, game, start, script, n, to_end, snapshot, point,
                    row):
    st = unmanaged(work)
    R.pause(st, decide, params, seed, game, start, script, n, snapshot, to_end != 0)
    R.keep_point(st, point)
    if st[layout.X_OVER]:
        write_result(st, st[layout.CHANCE + 1], row)


@compiled
def bollebank_rollout(work, decide, params, seed, game, start, script, n, option, r, row):
    R.rollout(unmanaged(work), decide, params, seed, game, start, script, n, option, r, row)


@compiled
def bollebank_step(work, decide, params, seed, game, start, script, n, option, r, point, row):
    st = unmanaged(work)
    R.step(st, decide, params, seed, game, start, script, n, option, r)
    write_result(st, st[layout.CHANCE + 1], row)
    R.keep_point(st, point)


@compiled
def bollebank_draws(work, decide, params, seed, game, start, script, n, record):
    """The segment's draws (bollesim/game/chance.py): record[0] their number (one more
    than MAX_DRAWS when the record overflowed), then layout.DRAW_WIDTH values each."""
    st = unmanaged(work)
    R.draws(st, decide, params, seed, game, start, script, n)
    count = min(st[layout.DRAW_AT], layout.MAX_DRAWS + 1)
    record[0] = count
    kept = min(count, layout.MAX_DRAWS) * layout.DRAW_WIDTH
    record[1 : 1 + kept] = st[layout.DRAW_RECORD : layout.DRAW_RECORD + kept]


@compiled
def bollebank_forced(work, decide, params, seed, game, start, script, n, draw, outcome, r, row):
    R.forced(unmanaged(work), decide, params, seed, game, start, script, n, draw, outcome, r,
             row)


@compiled
def bollebank_allowed(kind, options, obs, restriction):
    """The indices of the options the player may take: all of them, but for an imposed
    first Fire order at an order decision before the first Fire order: its Fire orders are
    removed before the trigger is met, and once it is met, a decision offering Fire orders
    offers only those (the first Fire order at the first chance, as fire_at_roe and
    fire_at_turn give it)."""
    m = options.shape[0]
    roe, turn = restriction[0], restriction[1]
    ordering = kind == decisions.ISSUE_ORDER or kind == decisions.EXTRA_ORDER
    if not (roe > 0 or turn > 0) or obs[observation.FIRED] or not ordering:
        return np.arange(m)
    fire = np.zeros(m, dtype=np.bool_)
    for i in range(m):
        fire[i] = options[i] != decisions.PASS and decisions.order_kind(options[i]) == codes.FIRE
    if not fire.any():
        return np.arange(m)
    met = obs[observation.ROE] >= roe and obs[observation.TURN] >= turn
    return np.nonzero(fire if met else ~fire)[0]
