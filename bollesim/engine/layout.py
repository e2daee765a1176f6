"""The fast engine's game: one int64 vector `st` holds everything a kernel needs, so a
kernel call passes one array (numba reference-counts every array argument of a call;
a tuple of forty rule arrays cost ~80 ns a call). Regions, documented here once:

    st[0 : STATE_SIZE]         the game state, reset by new_game (below)
    st[RS : RS + 4]            random streams (rng.py): CHANCE at RS, POLICY at RS + 2
    st[PARAMS : + MAX_PARAMS]  the policy's parameters, float64 bits (params() views them)
    st[OPTS : + MAX_OPTIONS]   the options of the decision being asked
    st[SCRATCH_* ...]          work arrays of the kernels (no allocation per call)
    st[RULES : + RULES_SIZE]   the ruleset, flattened (tables.py gives each table's offset)
    st[TRACE :]                the event trace, TRACE_WIDTH per event (empty in batches)

The game state:

    st[0 : observation.SIZE]   the policy's observation (observation.py): turn, RoE,
                               fire status, track lengths, every vehicle's position,
                               orders and damage, ability markers, enemy-action markers.
                               The engine keeps these live, so a policy reads the state
                               itself, with no copy (derived slots such as the pool counts
                               and track letters are kept live as the state changes).
    st[X_* ]                   bookkeeping that policies do not need (below).
    st[POOL : POOL + 64]       the enemy weapon pool, chit ids, st[X_N_POOL] of them; a
                               draw moves the last chit into the hole (as in the
                               reference engine's list), a returned chit is appended.
    st[TRACKS + 16*t + i]      track t (codes.TANK, ATGM, HMG, ART), i-th chit from the
                               first placed; its length is st[observation.TRACK_LEN + t].
    st[ASIDE : ASIDE + 16]     random-unit chits set aside (§7.2), st[X_N_ASIDE] of them.
    st[MPOOLS + 4*k + i]       enemy-action marker pool k (0: FP 1-2-3, 1: FP 7-8-9),
                               st[X_N_MPOOL + k] markers.

Vehicle fields are bit masks where the reference engine has sets: V_LIGHT bit
codes.RADIO/NIGHT_VISION/SIGHTS, V_HEAVY bit codes.TRACKS/HULL/TURRET.

Chits are numbered as in the ruleset: the pool's weapon chits and the car first, then one
random-unit chit per vehicle (n_pool_chits + vehicle), then the setup artillery marker.
"""

from bollesim.decisions import MAX_OPTIONS
from bollesim.observation import SIZE

X_FIRE_TURN = SIZE  # turn of the first Fire order, 0 = none
X_AIRSTRIKE_TURN = SIZE + 1
X_SETUP_FLIPPED = SIZE + 2  # 1 when the Saraci setup marker shows "No Artillery"
X_OVER = SIZE + 3
X_END_REASON = SIZE + 4  # events.END_*
X_TANKS_AT_T2 = SIZE + 5  # most tanks seen at T2 at an end phase
X_CHITS_DRAWN = SIZE + 6
X_HEAVY_HITS = SIZE + 7
X_LIGHT_HITS = SIZE + 8
X_N_POOL = SIZE + 9
X_N_ASIDE = SIZE + 10
X_N_MPOOL = SIZE + 11  # + pool k (2 slots)
X_RETIRED = SIZE + 13  # the civilian car once retired, -1 before
X_N_EVENTS = SIZE + 14  # events written to the trace buffer
X_SHARED_DIE = SIZE + 15  # the one die of an order's radio checks when not per vehicle
X_TANK_REACHED_KAL = SIZE + 16  # a tank has reached Kalesija (§6.2 optional APC rule)
POOL = SIZE + 20
POOL_CAP = 64
TRACKS = POOL + POOL_CAP
TRACK_CAP = 16
ASIDE = TRACKS + 4 * TRACK_CAP
ASIDE_CAP = 16
MPOOLS = ASIDE + ASIDE_CAP
STATE_SIZE = MPOOLS + 8
RS = STATE_SIZE
MAX_PARAMS = 16
PARAMS = RS + 4
OPTS = PARAMS + MAX_PARAMS
SCRATCH = OPTS + MAX_OPTIONS
SCRATCH_MASKS = SCRATCH  # 16: recipients of an order (orders.order_options)
SCRATCH_PAIR = SCRATCH + 20  # 2: the chits of a pair
SCRATCH_TARGET = SCRATCH + 22  # 9: next position of each mover (move step)
SCRATCH_SECOND = SCRATCH + 31  # 9: the optional APC second step
SCRATCH_EXTRA = SCRATCH + 40  # 9: QL1's Extra move
SCRATCH_KEEP = SCRATCH + 49  # 9: movers kept into an overfull position
SCRATCH_MOVED = SCRATCH + 58  # 9: who moved
SCRATCH_COUNTS = SCRATCH + 67  # 18: vehicles per position after the moves
SCRATCH_TRACKS = SCRATCH + 103  # 4: tracks a tank may fire at
SCRATCH_ROLLS = SCRATCH + 107  # 16: count, then the Saraci overwatch dice of a turn
SCRATCH_FP = SCRATCH + 123  # 9: firing priority of each exposed vehicle (choose_target)
SCRATCH_CHITS = SCRATCH + 132  # 16: random-unit chits in the artillery pool
SCRATCH_CHAIN = SCRATCH + 148  # 3: a radio link
SCRATCH_REMOVED = SCRATCH + 151  # 4: chits an airstrike removed per track
RULES = SCRATCH + 160
RULES_SIZE = 4096
TRACE = RULES + RULES_SIZE

# Trace rows: (turn, kind, a, b, c, d), see events.py.
TRACE_WIDTH = 6

# Result columns of a game (runner.py names them).
R_OPERATIONAL, R_TACTICAL, R_STRATEGIC, R_POLITICAL, R_DEFEAT = range(5)
R_END_TURN, R_END_REASON, R_FIRST_FIRE_TURN, R_FIRST_FIRE_ROE, R_FINAL_ROE = range(5, 10)
R_DEADLINE, R_TANKS_AT_T2, R_AIRSTRIKE_TURN, R_HEAVY, R_LIGHT = range(10, 15)
R_CHITS_DRAWN, R_RANDOM_DRAWS = 15, 16
N_RESULTS = 17
