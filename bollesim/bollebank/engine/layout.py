"""The fast engine's game: one int64 vector `st` holds everything a kernel needs, so a
kernel call passes one array (numba reference-counts every array argument of a call;
a tuple of forty rule arrays cost ~80 ns a call). Regions, documented here once:

    st[0 : STATE_SIZE]         the game state, reset by new_game (below)
    st[CHANCE : + CHANCE_SIZE] the game's luck, a keyed stream (rng.py; bollebank/luck.py)
    st[PRNG : PRNG + 2]        the policy's own stream (rng.py)
    st[PARAMS : + MAX_PARAMS]  the policy's parameters, float64 bits (params() views them)
    st[SCRIPTED]               who plays: decide, or a player compiled in (player.py)
    st[OPTS : + MAX_OPTIONS]   the options of the decision being asked
    st[SCRATCH_* ...]          work arrays of the kernels (no allocation per call)
    st[RULES : + RULES_SIZE]   the packed ruleset (rules/packed.py), as every policy gets it
    st[SCRIPT_* ...]           decisions replayed for a lookahead player (engine/rollout.py)
    st[DRAW_* ...]             a segment's draws recorded or forced (engine/draws.py)
    st[TRACE :]                the event trace, TRACE_WIDTH per event (empty in batches)

The game state:

    st[0 : observation.SIZE]   the policy's observation (observation.py): turn, RoE,
                               fire status, track lengths, every vehicle's position,
                               orders and damage, ability markers, enemy-action markers.
                               The engine keeps these live (derived slots such as the
                               pool counts and track letters as the state changes), so a
                               policy is handed a view of them, with no copy.
    st[X_* ]                   bookkeeping that policies do not need (below).
    st[POOL : + POOL_CAP]      the enemy weapon pool, chit ids, st[X_N_POOL] of them; a
                               draw moves the last chit into the hole (as in the
                               reference engine's list), a returned chit is appended.
    st[TRACKS + TRACK_CAP*t + i]  track t (codes.TANK, ATGM, HMG, ART), i-th chit from the
                               first placed; its length is st[observation.TRACK_LEN + t].
    st[ASIDE : + ASIDE_CAP]    random-unit chits set aside (§7.2), st[X_N_ASIDE] of them.
    st[MPOOLS + MPOOL_CAP*k + i]  enemy-action marker pool k (0: FP 1-2-3, 1: FP 7-8-9),
                               st[X_N_MPOOL + k] markers.

Vehicle fields are bit masks where the reference engine has sets: V_LIGHT bit
codes.RADIO/NIGHT_VISION/SIGHTS, V_HEAVY bit codes.TRACKS/HULL/TURRET.

Chits are numbered as in the ruleset: the pool's weapon chits and the car first, then one
random-unit chit per vehicle (n_pool_chits + vehicle), then the setup artillery marker.
"""

from bollesim import rng
from bollesim.bollebank import codes, luck
from bollesim.bollebank.decisions import MAX_OPTIONS
from bollesim.bollebank.observation import SIZE
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules import packed, schema


class _Region:
    """Hands out consecutive slots of st: each name below is declared once, with its
    size, and its offset follows from the ones before it."""

    def __init__(self, start: int):
        self.end = start

    def take(self, size: int) -> int:
        at, self.end = self.end, self.end + size
        return at


POOL_CAP = packed.MAX_CHITS  # every chit but the setup marker fits in the pool
TRACK_CAP = schema.MAX_TRACK
ASIDE_CAP = codes.N_VEHICLES  # one random-unit chit per vehicle
MPOOL_CAP = schema.MARKERS_PER_POOL
MAX_PARAMS = 32

_st = _Region(SIZE)
X_FIRE_TURN = _st.take(1)  # turn of the first Fire order, 0 = none
X_AIRSTRIKE_TURN = _st.take(1)
X_SETUP_FLIPPED = _st.take(1)  # 1 when the Saraci setup marker shows "No Artillery"
X_OVER = _st.take(1)
X_END_REASON = _st.take(1)  # events.END_*
X_TANKS_AT_T2 = _st.take(1)  # most tanks seen at T2 at an end phase
X_CHITS_DRAWN = _st.take(1)
X_HEAVY_HITS = _st.take(1)
X_LIGHT_HITS = _st.take(1)
X_N_POOL = _st.take(1)
X_N_ASIDE = _st.take(1)
X_N_MPOOL = _st.take(2)  # + pool k
X_RETIRED = _st.take(1)  # the civilian car once retired, -1 before
X_N_EVENTS = _st.take(1)  # events written to the trace buffer
X_SHARED_DIE = _st.take(1)  # the one die of an order's radio checks when not per vehicle
X_TANK_REACHED_KAL = _st.take(1)  # a tank has reached Kalesija (§6.2 optional APC rule)
X_FIRST_LOSS_TURN = _st.take(1)  # turn of the first heavy damage or killed commander, 0 = none
X_LOSS_VEHICLE = _st.take(1)  # the vehicle lost that ended the game (§8), + 1; 0 = none
X_LOSS_CAUSE = _st.take(1)  # the weapon (codes.TANK..ART) that did it, + 1; 0 = none
X_LOSS_PLACE = _st.take(1)  # where the vehicle stood (codes.POSITIONS), + 1; 0 = none
POOL = _st.take(POOL_CAP)
TRACKS = _st.take(codes.N_TRACKS * TRACK_CAP)
ASIDE = _st.take(ASIDE_CAP)
MPOOLS = _st.take(2 * MPOOL_CAP)
STATE_SIZE = _st.end

_rest = _Region(STATE_SIZE)
CHANCE_SIZE = rng.keyed_size(luck.N_PURPOSES)
CHANCE = _rest.take(CHANCE_SIZE)  # the CHANCE stream; st[CHANCE + 1]: its draws so far
PRNG = _rest.take(2)  # the POLICY stream
PARAMS = _rest.take(MAX_PARAMS)
SCRIPTED = _rest.take(1)  # who plays: decide, or one compiled in (player.py)
OPTS = _rest.take(MAX_OPTIONS)
PLAN_GOALS = _rest.take(1)  # the scripted family's goals this game (player.py), -1: not yet
# Work arrays of the kernels (no allocation per call).
SCRATCH_TARGET = _rest.take(codes.N_VEHICLES)  # next position of each mover (move step)
SCRATCH_SECOND = _rest.take(codes.N_VEHICLES)  # the optional APC second step
SCRATCH_EXTRA = _rest.take(codes.N_VEHICLES)  # QL1's Extra move
SCRATCH_KEEP = _rest.take(codes.N_VEHICLES)  # movers kept into an overfull position
SCRATCH_MOVED = _rest.take(codes.N_VEHICLES)  # who moved
SCRATCH_TRACKS = _rest.take(codes.N_TRACKS)  # tracks a tank may fire at
ROLLS_CAP = 1 + 2 * codes.N_VEHICLES  # a count, then every Saraci overwatch die of a turn
SCRATCH_ROLLS = _rest.take(ROLLS_CAP)
SCRATCH_FP = _rest.take(codes.N_VEHICLES)  # firing priority of each exposed vehicle
SCRATCH_CHITS = _rest.take(ASIDE_CAP)  # random-unit chits in the artillery pool
SCRATCH_CHAIN = _rest.take(3)  # a radio link
SCRATCH_REMOVED = _rest.take(codes.N_TRACKS)  # chits an airstrike removed per track
RULES = _rest.take(packed.SIZE)  # the packed ruleset (rules/packed.py, engine/tables.py)
RULES_SIZE = packed.SIZE
# Replayed decisions (engine/rollout.py); SCRIPT_ON is 0 in every other game.
MAX_SCRIPT = 2048  # decisions a game's replay can hold
SCRIPT_ON = _rest.take(1)  # 1 while the script is replayed or the point after it awaited
SCRIPT_MODE = _rest.take(1)  # script.ROLLOUT, PAUSE, STEP, DRAWS or FORCED
SCRIPT_AT = _rest.take(1)  # decisions replayed so far
SCRIPT_N = _rest.take(1)  # decisions in the script
SCRIPT_KEYS = _rest.take(2)  # ROLLOUT: the chance and policy stream keys after the script
POINT_KIND = _rest.take(1)  # PAUSE: the decision after the script, its kind,
POINT_N = _rest.take(1)  # its number of options,
POINT_CHOICE = _rest.take(1)  # the index the policy chose (-1: no decision came),
POINT_OBS = _rest.take(SIZE)  # the observation it was taken on
POINT_OPTS = _rest.take(MAX_OPTIONS)  # and its options
SCRIPT = _rest.take(MAX_SCRIPT)  # the option indices to replay, in the order asked
# Declared draws (engine/draws.py, bollebank/positions.py); DRAW_MODE is 0 in every other game.
MAX_OUTCOMES = packed.MAX_CHITS  # a chit is an outcome by its id (the most of any draw)
DRAW_CONTEXT = 2  # the turn, and the draw's number among its purpose's this turn (rng.py)
DRAW_WIDTH = 3 + MAX_OUTCOMES + DRAW_CONTEXT  # bollesim/game/chance.py's layout of a draw
MAX_DRAWS = 64  # draws of one segment the record holds
DRAW_MODE = _rest.take(1)  # script.DRAWS or FORCED once the script ran out, else 0
DRAW_AT = _rest.take(1)  # draws of the segment so far
DRAW_FORCED = _rest.take(2)  # FORCED: the draw forced and its outcome (-1: the tape's)
DRAW_KEYS = _rest.take(3)  # FORCED: whether the streams switch after it, their two keys
DRAW_RECORD = _rest.take(MAX_DRAWS * DRAW_WIDTH)  # DRAWS: the segment's draws
TRACE = _rest.end

# Trace rows: (turn, kind, a, b, c, d), see events.py.
TRACE_WIDTH = 6

# Result slots of a game, as bollebank/result.py declares them.
R_OPERATIONAL, R_TACTICAL, R_STRATEGIC, R_POLITICAL, R_DEFEAT = (RESULT.slot(n) for n in RESULT.flags)
R_END_TURN = RESULT.slot("end_turn")
R_END_REASON = RESULT.slot("end_reason")
R_FIRST_FIRE_TURN = RESULT.slot("first_fire_turn")
R_FIRST_FIRE_ROE = RESULT.slot("first_fire_roe")
R_FINAL_ROE = RESULT.slot("final_roe")
R_DEADLINE = RESULT.slot("deadline")
R_TANKS_AT_T2 = RESULT.slot("tanks_at_t2")
R_AIRSTRIKE_TURN = RESULT.slot("airstrike_turn")
R_HEAVY = RESULT.slot("heavy_damage")
R_LIGHT = RESULT.slot("light_damage")
R_CHITS_DRAWN = RESULT.slot("chits_drawn")
R_RANDOM_DRAWS = RESULT.slot("random_draws")
R_FIRST_LOSS_TURN = RESULT.slot("first_loss_turn")
R_LOSS_VEHICLE = RESULT.slot("loss_vehicle")
R_LOSS_CAUSE = RESULT.slot("loss_cause")
R_LOSS_PLACE = RESULT.slot("loss_place")
N_RESULTS = len(RESULT.columns)
