"""A lookahead game in one kernel call (bollesim/bollebank/lookahead.py plays it).

At each decision put to the player the kernel finds the point by replaying the game's
phase from its snapshot (rollout.pause), and, for the kinds of decision it looks at,
scores the options by rollouts (rollout.rollout: the option, then streams of the
rollout's own, so nothing drawn after the decision is the game's). The rollouts are
spent by successive halving: every option gets `first` rollouts, the best quarter
(KEEP) goes on with twice as many (the same rollout numbers for every option: common
random numbers), until two are left or the options have `rollouts` each; a round after
which no option scores above the base policy's choice ends the search there (any_above).
The best of them, if it scores above the base's choice, is tried against it again on
`rollouts` fresh rollouts each (the first were the ones it was picked on, which flatter
it), and taken when it beats it there by `confidence` standard errors of their paired
difference (choose). A decision whose base choice gives the same outcome in all of its
first `screen` rollouts looks settled, and is left to the base, as are the other kinds.
Keeping a quarter, not a half, and ending a round that finds nothing spend about 30%
fewer rollouts, with no significant loss of strength (docs/lookahead.md).

An imposed first Fire order (CFG_FIRE_ROE, CFG_FIRE_TURN; the trigger of bollesim/bollebank/scripted/plan.py
fire_now): until the first Fire order, an order decision's Fire orders are removed
before the trigger is met, and once it is met, a decision offering Fire orders offers
only those (the first Fire order is given at the first chance, as fire_at_roe and
fire_at_turn give it). The caller sets the base policy's own trigger to the same, so
the rollouts obey it too.
"""

import numpy as np
from numba import types

from bollesim.bollebank import codes, decisions, observation
from bollesim.bollebank.engine import layout
from bollesim.bollebank.engine.play import DECIDE_TYPE, new_vector, unmanaged, write_result
from bollesim.bollebank.engine.rollout import SNAP_AT, SNAP_SIZE, pause, rollout
from bollesim.jit import compiled

# The player's configuration (float64), one slot each:
N_OUTCOMES = layout.R_DEFEAT + 1
CFG_WEIGHTS = 0  # the objective's weight of each outcome flag (layout.R_OPERATIONAL...)
CFG_ROLLOUTS = N_OUTCOMES  # the most rollouts an option gets
CFG_FIRST = CFG_ROLLOUTS + 1  # the rollouts of every option in the first round
CFG_CONFIDENCE = CFG_FIRST + 1  # standard errors the best needs over the base's choice
CFG_KINDS = CFG_CONFIDENCE + 1  # bit mask of the decision kinds looked at (decisions.py)
CFG_FIRE_ROE = CFG_KINDS + 1  # imposed first Fire order: from this RoE (0: not imposed)
CFG_FIRE_TURN = CFG_FIRE_ROE + 1  # and from this turn (0: not imposed)
CFG_SCREEN = CFG_FIRE_TURN + 1  # rollouts of the base's choice that screen a decision
CFG_SIZE = CFG_SCREEN + 1
KEEP = 4  # successive halving keeps the best 1/KEEP of the options a round (at least two)

# A row of the decision log: what was asked and what was taken.
LOG_KIND, LOG_N, LOG_BASE, LOG_CHOICE, LOG_TURN, LOG_ROLLOUTS, LOG_AT = range(7)
LOG_WIDTH = 7  # LOG_ROLLOUTS: rollouts spent on it; LOG_AT: its options' offset in the flat logs
TALLY_DECISIONS, TALLY_LOOKED, TALLY_ROLLOUTS = range(3)

LOOKAHEAD_ARGS = (
    types.int64[::1],  # rules
    DECIDE_TYPE,  # the base policy
    types.int64,  # scripted (player.py)
    types.float64[::1],  # the base's parameters (its trigger set to an imposed one)
    types.int64,  # seed
    types.int64,  # game
    types.int64[::1],  # start: the snapshot to start from (rollout.SNAP_PHASE -1: from setup)
    types.int64[::1],  # script: the choices made since it
    types.float64[::1],  # config (CFG_*)
    types.int64[::1],  # out: the game's result row (layout.R_*)
    types.int64[::1],  # tally (TALLY_*)
    types.int64[:, ::1],  # log: a row per decision asked, while there is room (LOG_*)
    types.int64[::1],  # log_options: the options of the logged decisions, flat
    types.float64[::1],  # log_scores: their scores (nan: not looked at), flat
    types.int64[:, ::1],  # log_obs: the observation of each logged decision (0 rows: none)
)


@compiled(nogil=True)  # the kernel of play.for_policy(.., LOOKAHEAD_ARGS, base)
def play_lookahead(rules, decide, scripted, params, seed, game, start, start_script, config,
                   out, tally, log, log_options, log_scores, log_obs):
    """Lookahead game `game` of `seed` from `start` and the choices since (start_script)
    into out; the decisions it asked from there into the logs as far as they hold them."""
    if start_script.shape[0] >= layout.MAX_SCRIPT:
        raise ValueError("a script longer than layout.MAX_SCRIPT")
    owner = new_vector(rules, 0, scripted)
    st = unmanaged(owner)
    here = start.copy()
    there = np.zeros(SNAP_SIZE, dtype=np.int64)
    script = np.zeros(layout.MAX_SCRIPT, dtype=np.int64)  # the choices since `here`
    n = start_script.shape[0]
    script[:n] = start_script
    row = np.zeros(layout.N_RESULTS, dtype=np.int64)
    kinds = np.int64(config[CFG_KINDS])
    tally[:] = 0
    logged = 0
    while True:
        to_end = n + 1 >= layout.MAX_SCRIPT  # no room to replay more: the base plays on
        pause(st, decide, params, seed, game, here, script, n, there, to_end)
        if st[layout.POINT_CHOICE] < 0 or to_end:
            break
        since = there[SNAP_AT] - here[SNAP_AT]  # choices made before the point's phase
        script[: n - since] = script[since:n]
        n -= since
        here[:] = there
        kind, m, base = st[layout.POINT_KIND], st[layout.POINT_N], st[layout.POINT_CHOICE]
        options = st[layout.POINT_OPTS : layout.POINT_OPTS + m].copy()
        turn = st[layout.POINT_OBS + observation.TURN]
        allowed = allowed_options(kind, options, st[layout.POINT_OBS + observation.FIRED],
                                  st[layout.POINT_OBS + observation.ROE], turn, config)
        values = np.zeros((m, max(1, 2 * np.int64(config[CFG_ROLLOUTS]))))
        spent = np.zeros(m, dtype=np.int64)
        choice = base
        if allowed.shape[0] == 1:
            choice = allowed[0]
        elif (kinds >> kind) & 1:
            choice = halving(st, decide, params, seed, game, here, script, n, allowed, base,
                             config, row, values, spent)
            tally[TALLY_LOOKED] += 1
            tally[TALLY_ROLLOUTS] += spent.sum()
        elif not is_in(allowed, base):
            raise ValueError("the base policy broke the imposed first Fire order")
        tally[TALLY_DECISIONS] += 1
        if logged < log.shape[0] and log[logged, LOG_AT] + m <= log_options.shape[0]:
            at = log[logged, LOG_AT]
            log[logged, LOG_KIND] = kind
            log[logged, LOG_N] = m
            log[logged, LOG_BASE] = base
            log[logged, LOG_CHOICE] = choice
            log[logged, LOG_TURN] = turn
            log[logged, LOG_ROLLOUTS] = spent.sum()
            log_options[at : at + m] = options
            if logged < log_obs.shape[0]:
                log_obs[logged] = st[layout.POINT_OBS : layout.POINT_OBS + observation.SIZE]
            for i in range(m):
                log_scores[at + i] = values[i, : spent[i]].mean() if spent[i] else np.nan
            logged += 1
            if logged < log.shape[0]:
                log[logged, LOG_AT] = at + m
        script[n] = choice
        n += 1
    write_result(st, st[layout.CHANCE + 1], out)
    owner[0] = 0  # a last use of owner, so it outlives its unmanaged view st


@compiled
def is_in(indices, i):
    for j in indices:
        if j == i:
            return True
    return False


@compiled
def allowed_options(kind, options, fired, roe, turn, config):
    """The indices of the options the player may take: all of them, but for an imposed
    first Fire order (module docstring) at an order decision before the first Fire order."""
    m = options.shape[0]
    imposed = config[CFG_FIRE_ROE] > 0 or config[CFG_FIRE_TURN] > 0
    if not imposed or fired or (kind != decisions.ISSUE_ORDER and kind != decisions.EXTRA_ORDER):
        return np.arange(m)
    fire = np.zeros(m, dtype=np.bool_)
    for i in range(m):
        fire[i] = options[i] != decisions.PASS and decisions.order_kind(options[i]) == codes.FIRE
    if not fire.any():
        return np.arange(m)
    met = roe >= config[CFG_FIRE_ROE] and turn >= config[CFG_FIRE_TURN]
    return np.nonzero(fire if met else ~fire)[0]


@compiled
def halving(st, decide, params, seed, game, start, script, n, allowed, base, config, row,
            values, spent):
    """Successive halving over the allowed options of the decision after script[:n]
    (module docstring); values[i, r] gets the objective's value of rollout r of option i,
    spent[i] how many it had. Returns the index chosen."""
    most = np.int64(config[CFG_ROLLOUTS])
    screen = min(np.int64(config[CFG_SCREEN]), most)
    if screen > 0 and is_in(allowed, base):
        rollouts(st, decide, params, seed, game, start, script, n, base, 0, screen, config,
                 row, values, spent)
        if (values[base, :screen] == values[base, 0]).all():
            return base  # the outcome looks settled whatever is chosen now
    alive = allowed.copy()
    r = min(max(1, np.int64(config[CFG_FIRST])), most)
    while True:
        for i in alive:
            rollouts(st, decide, params, seed, game, start, script, n, i, spent[i], r, config,
                     row, values, spent)
        if alive.shape[0] <= 2 or r >= most:
            break
        if is_in(allowed, base) and not any_above(values, spent, alive, base, r):
            return base  # no option scores above the base's choice: none is worth more rollouts
        sums = np.array([values[i, :r].sum() for i in alive])
        kept = max(2, (alive.shape[0] + KEEP - 1) // KEEP)
        keep = alive[np.argsort(-sums, kind="mergesort")[:kept]]
        if is_in(allowed, base) and not is_in(keep, base):  # the base's choice stays to the end
            keep = np.append(keep, base)
        alive = keep
        r = min(2 * r, most)
    best = -1
    for i in alive:
        if i != base and (best < 0 or values[i, :r].sum() > values[best, :r].sum()):
            best = i
    if not is_in(allowed, base):  # the base's choice is not allowed: the best allowed
        return best
    if values[best, :r].sum() <= values[base, :r].sum():
        return base
    # The best was picked on these rollouts, which flatter it (the winner's curse): it is
    # tried against the base's choice again on `most` rollouts of their own.
    rollouts(st, decide, params, seed, game, start, script, n, best, most, 2 * most, config,
             row, values, spent)
    rollouts(st, decide, params, seed, game, start, script, n, base, most, 2 * most, config,
             row, values, spent)
    d = values[best, most : 2 * most] - values[base, most : 2 * most]
    return choose(d, best, base, config[CFG_CONFIDENCE])


@compiled
def any_above(values, spent, alive, base, r):
    """Whether an alive option other than the base's choice scores above it: its mean
    over its r rollouts against the base's over all of its own (the screen's included)."""
    bar = values[base, : spent[base]].mean() * r
    for i in alive:
        if i != base and values[i, :r].sum() > bar:
            return True
    return False


@compiled
def rollouts(st, decide, params, seed, game, start, script, n, option, first, last, config,
             row, values, spent):
    """Rollouts first .. last - 1 of `option` into values[option] (spent: how far it got)."""
    weights = config[CFG_WEIGHTS : CFG_WEIGHTS + N_OUTCOMES]
    for j in range(first, last):
        rollout(st, decide, params, seed, game, start, script, n, option, j, row)
        values[option, j] = (row[:N_OUTCOMES] * weights).sum()
    spent[option] = max(spent[option], last)


@compiled
def choose(d, best, base, confidence):
    """best if its paired differences d over base's choice (the same rollouts) add up to
    more than `confidence` standard errors, else base. The best of many noisy scores is
    flattered by its luck (the winner's curse): without the margin, the player leaves
    good play for options that only drew well."""
    return best if d.sum() > confidence * np.sqrt((d * d).sum()) else base
