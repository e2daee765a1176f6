"""The lookahead player's game in one kernel call, for any game (strong/lookahead.py plays
it), and jobs of replayed games (a decision's options rolled out, the next decision found;
a game's decisions walked, rollouts at many positions: the analysis of a game), all written
against a game's compiled primitives (bollesim/game/positions.py), which they take as
first-class functions: one compile serves every game.

At each decision put to the player the kernel finds the point by replaying the game from
its last snapshot (pause), and, for the kinds of decision it looks at, scores the options
by rollouts (rollout: the option, then streams of the rollout's own, so nothing drawn
after the decision is the game's). The rollouts are spent by successive halving: every
option gets `first` rollouts, the best quarter (KEEP) goes on with twice as many (the same
rollout numbers for every option: common random numbers), until two are left or the
options have `rollouts` each; a round after which no option scores above the base policy's
choice ends the search there (any_above). The best of them, if it scores above the base's
choice, is tried against it again on `rollouts` fresh rollouts each (the first were the
ones it was picked on, which flatter it), and taken when it beats it there by `confidence`
standard errors of their paired difference (choose). A decision whose base choice gives the
same outcome in all of its first `screen` rollouts looks settled, and is left to the base,
as are the other kinds. Keeping a quarter, not a half, and ending a round that finds
nothing spend about 30% fewer rollouts, with no significant loss of strength
(docs/lookahead.md).

Restricted play: the game's `allowed` primitive gives the options the player may take
(the restriction vector in the configuration says what is imposed, e.g. Bøllebank's first
Fire order); the caller sets the base policy's own trigger to the same, so the rollouts
obey it too.
"""

from functools import cache

import numpy as np
from numba import types

from bollesim.game.positions import ALLOWED, DECIDE, PAUSE, POINT_OBS, ROLLOUT, STEP
from bollesim.jit import compiled

I64, F64 = types.int64, types.float64

# The player's configuration (float64), one slot each, then the objective's weight of each
# outcome flag (the first result columns) and the restriction vector:
(CFG_ROLLOUTS, CFG_FIRST, CFG_CONFIDENCE, CFG_KINDS, CFG_SCREEN, CFG_OBS, CFG_TURN,
 CFG_OPTIONS, CFG_MAX_SCRIPT, CFG_WEIGHTS_N, CFG_RESTRICTION_N) = range(11)
CFG_HEAD = 11
KEEP = 4  # successive halving keeps the best 1/KEEP of the options a round (at least two)

# A row of the decision log: what was asked and what was taken.
LOG_KIND, LOG_N, LOG_BASE, LOG_CHOICE, LOG_TURN, LOG_ROLLOUTS, LOG_AT = range(7)
LOG_WIDTH = 7  # LOG_ROLLOUTS: rollouts spent on it; LOG_AT: its options' offset in the flat logs
TALLY_DECISIONS, TALLY_LOOKED, TALLY_ROLLOUTS = range(3)

ROLLOUT_JOBS, PAUSE_JOBS, STEP_JOBS = range(3)  # the modes of play_jobs

LOOKAHEAD_SIGNATURE = types.void(
    PAUSE, ROLLOUT, ALLOWED,  # the game's primitives
    I64[::1],  # work: the game's scratch (positions.new_work)
    DECIDE,  # the base policy
    F64[::1],  # the base's kernel vector (its trigger set to an imposed one)
    I64,  # seed
    I64,  # game
    I64[::1],  # start: the snapshot to start from (the game's SETUP: from setup)
    I64[::1],  # start_script: the choices made since it
    F64[::1],  # config (CFG_*)
    I64[::1],  # out: the game's result row
    I64[::1],  # tally (TALLY_*)
    I64[:, ::1],  # log: a row per decision asked, while there is room (LOG_*)
    I64[::1],  # log_options: the options of the logged decisions, flat
    F64[::1],  # log_scores: their scores (nan: not looked at), flat
    I64[:, ::1],  # log_obs: the observation of each logged decision (0 rows: none)
)

JOBS_SIGNATURE = types.void(
    PAUSE, ROLLOUT, STEP,
    I64[::1],  # work
    DECIDE,  # the policy that plays what the script does not
    F64[::1],  # its kernel vector
    I64,  # seed
    I64,  # game
    I64[::1],  # start: the snapshot to start from
    I64[::1],  # script: the choices replayed from it
    I64[::1],  # options: per job, the index taken after the script (ROLLOUT, STEP)
    I64[::1],  # rollouts: per job, its rollout number (ROLLOUT, STEP)
    I64,  # mode: ROLLOUT_JOBS, PAUSE_JOBS or STEP_JOBS
    I64[:, ::1],  # out: per job, the result row
    I64[::1],  # point: per job (STEP: one after the other; PAUSE: one)
    I64[::1],  # snapshot: of the point's position (PAUSE, one job)
)

WALK_SIGNATURE = types.void(
    PAUSE,
    I64[::1], DECIDE, F64[::1],  # the player who plays the game: work, decide, kernel vector
    I64[::1], DECIDE, F64[::1],  # the player asked beside it at each of its decisions
    I64,  # seed
    I64,  # game
    I64[::1],  # start: the snapshot to start from
    I64[::1],  # start_script: the choices made since it
    I64[:, ::1],  # points: per decision, the player's point
    I64[:, ::1],  # asked: per decision, the point the other player is put at the same position
    I64[:, ::1],  # snapshots: per decision, the snapshot of its position
    I64[::1],  # since: per decision, the choices its snapshot is past the previous position's
    I64[::1],  # out: the game's result row (once it is over)
    I64[::1],  # walked: [the decisions recorded, 1 if the game is over]
)

SPREAD_SIGNATURE = types.void(
    ROLLOUT,
    I64[::1],  # work
    DECIDE,  # the policy that plays the rollouts out
    F64[::1],  # its kernel vector
    I64,  # seed
    I64,  # game
    I64[:, ::1],  # starts: per position, its snapshot
    I64[::1],  # scripts: the positions' scripts one after the other
    I64[::1],  # ends: position p's script is scripts[ends[p]:ends[p + 1]]
    I64[::1],  # at: per job, its position
    I64[::1],  # options: per job, the index taken at the decision after its position
    I64[::1],  # rollouts: per job, its rollout number
    I64[:, ::1],  # out: per job, the result row
)


def play_lookahead(pause, rollout, allowed, work, decide, params, seed, game, start,
                   start_script, config, out, tally, log, log_options, log_scores, log_obs):
    """Lookahead game `game` of `seed` from `start` and the choices since (start_script)
    into out; the decisions it asked from there into the logs as far as they hold them."""
    most_script = np.int64(config[CFG_MAX_SCRIPT])
    if start_script.shape[0] >= most_script:
        raise ValueError("a script longer than the game's MAX_SCRIPT")
    obs_n, turn_at = np.int64(config[CFG_OBS]), np.int64(config[CFG_TURN])
    point = np.zeros(POINT_OBS + obs_n + np.int64(config[CFG_OPTIONS]), dtype=np.int64)
    opts = POINT_OBS + obs_n
    restriction_at = CFG_HEAD + np.int64(config[CFG_WEIGHTS_N])
    restriction = config[restriction_at : restriction_at + np.int64(config[CFG_RESTRICTION_N])]
    here = start.copy()
    there = np.zeros(start.shape[0], dtype=np.int64)
    script = np.zeros(most_script, dtype=np.int64)  # the choices since `here`
    n = start_script.shape[0]
    script[:n] = start_script
    row = np.zeros(out.shape[0], dtype=np.int64)
    kinds = np.int64(config[CFG_KINDS])
    tally[:] = 0
    logged = 0
    last = start.shape[0] - 1  # a snapshot's last value: the decisions asked before it
    while True:
        to_end = n + 1 >= most_script  # no room to replay more: the base plays on
        pause(work, decide, params, seed, game, here, script, n, to_end, there, point, out)
        if point[0] < 0 or to_end:
            break
        since = there[last] - here[last]  # choices made before the point's snapshot
        script[: n - since] = script[since:n]
        n -= since
        here[:] = there
        kind, m, base = point[1], point[2], point[0]
        options = point[opts : opts + m].copy()
        turn = point[POINT_OBS + turn_at]
        free = allowed(kind, options, point[POINT_OBS:opts], restriction)
        values = np.zeros((m, max(1, 2 * np.int64(config[CFG_ROLLOUTS]))))
        spent = np.zeros(m, dtype=np.int64)
        choice = base
        if free.shape[0] == 1:
            choice = free[0]
        elif (kinds >> kind) & 1:
            choice = halving(rollout, work, decide, params, seed, game, here, script, n, free,
                             base, config, row, values, spent)
            tally[TALLY_LOOKED] += 1
            tally[TALLY_ROLLOUTS] += spent.sum()
        elif not is_in(free, base):
            raise ValueError("the base policy broke the imposed restriction")
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
                log_obs[logged] = point[POINT_OBS:opts]
            for i in range(m):
                log_scores[at + i] = values[i, : spent[i]].mean() if spent[i] else np.nan
            logged += 1
            if logged < log.shape[0]:
                log[logged, LOG_AT] = at + m
        script[n] = choice
        n += 1


@compiled
def is_in(indices, i):
    for j in indices:
        if j == i:
            return True
    return False


@compiled
def halving(rollout, work, decide, params, seed, game, start, script, n, free, base, config,
            row, values, spent):
    """Successive halving over the free options of the decision after script[:n] (module
    docstring); values[i, r] gets the objective's value of rollout r of option i, spent[i]
    how many it had. Returns the index chosen."""
    most = np.int64(config[CFG_ROLLOUTS])
    screen = min(np.int64(config[CFG_SCREEN]), most)
    if screen > 0 and is_in(free, base):
        rollouts(rollout, work, decide, params, seed, game, start, script, n, base, 0, screen,
                 config, row, values, spent)
        if (values[base, :screen] == values[base, 0]).all():
            return base  # the outcome looks settled whatever is chosen now
    alive = free.copy()
    r = min(max(1, np.int64(config[CFG_FIRST])), most)
    while True:
        for i in alive:
            rollouts(rollout, work, decide, params, seed, game, start, script, n, i, spent[i], r,
                     config, row, values, spent)
        if alive.shape[0] <= 2 or r >= most:
            break
        if is_in(free, base) and not any_above(values, spent, alive, base, r):
            return base  # no option scores above the base's choice: none is worth more rollouts
        sums = np.array([values[i, :r].sum() for i in alive])
        kept = max(2, (alive.shape[0] + KEEP - 1) // KEEP)
        keep = alive[np.argsort(-sums, kind="mergesort")[:kept]]
        if is_in(free, base) and not is_in(keep, base):  # the base's choice stays to the end
            keep = np.append(keep, base)
        alive = keep
        r = min(2 * r, most)
    best = -1
    for i in alive:
        if i != base and (best < 0 or values[i, :r].sum() > values[best, :r].sum()):
            best = i
    if not is_in(free, base):  # the base's choice is not allowed: the best allowed
        return best
    if values[best, :r].sum() <= values[base, :r].sum():
        return base
    # The best was picked on these rollouts, which flatter it (the winner's curse): it is
    # tried against the base's choice again on `most` rollouts of their own.
    rollouts(rollout, work, decide, params, seed, game, start, script, n, best, most, 2 * most,
             config, row, values, spent)
    rollouts(rollout, work, decide, params, seed, game, start, script, n, base, most, 2 * most,
             config, row, values, spent)
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
def rollouts(rollout, work, decide, params, seed, game, start, script, n, option, first, last,
             config, row, values, spent):
    """Rollouts first .. last - 1 of `option` into values[option] (spent: how far it got)."""
    weights = config[CFG_HEAD : CFG_HEAD + np.int64(config[CFG_WEIGHTS_N])]
    k = weights.shape[0]
    for j in range(first, last):
        rollout(work, decide, params, seed, game, start, script, n, option, j, row)
        values[option, j] = (row[:k] * weights).sum()
    spent[option] = max(spent[option], last)


@compiled
def choose(d, best, base, confidence):
    """best if its paired differences d over base's choice (the same rollouts) add up to
    more than `confidence` standard errors, else base. The best of many noisy scores is
    flattered by its luck (the winner's curse): without the margin, the player leaves
    good play for options that only drew well."""
    return best if d.sum() > confidence * np.sqrt((d * d).sum()) else base


def play_jobs(pause, rollout, step, work, decide, params, seed, game, start, script, options,
              rollouts, mode, out, point, snapshot):
    """Jobs one after the other (a lookahead player runs its games in threads: waking a
    thread pool for every decision would cost more than its rollouts): game `game` of
    `seed` from `start`, replayed through `script`, then job j's option on rollout
    rollouts[j]'s streams, played out (ROLLOUT_JOBS) or to the next decision (STEP_JOBS);
    or (PAUSE_JOBS) the decision after the script, and the game played out by decide."""
    n = script.shape[0]
    width = point.shape[0] // out.shape[0] if mode == STEP_JOBS else point.shape[0]
    for j in range(out.shape[0]):
        if mode == ROLLOUT_JOBS:
            rollout(work, decide, params, seed, game, start, script, n, options[j], rollouts[j],
                    out[j])
        elif mode == STEP_JOBS:
            step(work, decide, params, seed, game, start, script, n, options[j], rollouts[j],
                 point[j * width : (j + 1) * width], out[j])
        else:
            pause(work, decide, params, seed, game, start, script, n, 1, snapshot, point, out[j])


def play_walk(pause, work, decide, params, other_work, other, other_params, seed, game, start,
              start_script, points, asked, snapshots, since, out, walked):
    """A game's decisions as `decide` plays it from `start` and the choices since, each
    one pause on from the last (as Replayer.next_decision finds them), with the point the
    `other` player is put at the same position, until the game ends or `points` is full
    (walked says which)."""
    script = np.zeros(start_script.shape[0] + points.shape[0] + 1, dtype=np.int64)
    n = start_script.shape[0]
    script[:n] = start_script
    here = start.copy()
    there = np.zeros(start.shape[0], dtype=np.int64)
    elsewhere = np.zeros(start.shape[0], dtype=np.int64)
    ignored = np.zeros(out.shape[0], dtype=np.int64)
    last = start.shape[0] - 1  # a snapshot's last value: the decisions asked before it
    walked[:] = 0
    for k in range(points.shape[0]):
        pause(work, decide, params, seed, game, here, script, n, 0, there, points[k], out)
        if points[k, 0] < 0:
            walked[1] = 1
            return
        pause(other_work, other, other_params, seed, game, here, script, n, 0, elsewhere,
              asked[k], ignored)
        gone = there[last] - here[last]
        script[: n - gone] = script[gone:n]
        n -= gone
        here[:] = there
        snapshots[k] = there
        since[k] = gone
        script[n] = points[k, 0]
        n += 1
        walked[0] = k + 1


def play_spread(rollout, work, decide, params, seed, game, starts, scripts, ends, at, options,
                rollouts, out):
    """Rollout jobs at many positions one after the other (the analysis of a game rolls
    out every decision's options in one call): job j takes options[j] at the decision
    after position at[j] and plays rollout rollouts[j]'s streams out under decide."""
    for j in range(out.shape[0]):
        p = at[j]
        script = scripts[ends[p] : ends[p + 1]]
        rollout(work, decide, params, seed, game, starts[p], script, script.shape[0], options[j],
                rollouts[j], out[j])


@cache
def kernel(function):
    """One of this module's kernels (play_lookahead, play_jobs, play_walk, play_spread),
    compiled for every game on first use (cached on disk) for its signature (SIGNATURES)."""
    return compiled(function, signature=SIGNATURES[function.__name__], nogil=True)


SIGNATURES = {"play_lookahead": LOOKAHEAD_SIGNATURE, "play_jobs": JOBS_SIGNATURE,
              "play_walk": WALK_SIGNATURE, "play_spread": SPREAD_SIGNATURE}
