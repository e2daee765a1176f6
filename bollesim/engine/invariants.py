"""The game's invariants judged from the fast engine's state vector, after every phase.

check_phase(before, st, phase) compares st after one phase with `before`, a copy of
st[:STATE_SIZE] taken just before it, and returns 0 if st is a legal position of
Operation Bøllebank, else the code of the first broken invariant (MESSAGES[code] says
which). check_result does the same for a game's result row. play_checked_games plays
games exactly as play.play_games does, checking every phase; check_games wraps it.

The rules are restated here from the rulebook and the ruleset's tables (section "rules
restated" below), not borrowed from the engine's own helpers, so that a bug in one of
those cannot hide behind the check that uses it; from engine/core.py come only the
accessors of the state vector's layout. A checked game keeps the events of the phase
being played (TRACE_EVENTS of room), from which target_priority and victory_offer read
what the phase did.

tests/test_invariants.py checks the reference engine with its event trace; the checks
here need only the state and the phase's events, so they run on hundreds of thousands
of games.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from bollesim import codes as C
from bollesim import events as E
from bollesim import observation as O
from bollesim.bits import popcount
from bollesim.engine import layout as L
from bollesim.engine import tables as T
from bollesim.engine.blocks import in_blocks
from bollesim.engine.core import distance, has, last_chit, new_game, pos, track_len, vx
from bollesim.engine.play import (
    BATCH_ARGS,
    END,
    EXECUTION,
    ORDERS,
    REACTION,
    for_policy,
    new_vector,
    play_phase,
    unmanaged,
    write_result,
)
from bollesim.engine.tables import pack_rules
from bollesim.jit import compiled
from bollesim.policy import Policy
from bollesim.rules.loader import Ruleset

# Error codes: 0 is a legal position, the others name the broken invariant.
OK = 0
OUT_OF_RANGE = 1  # layout.py capacities, R-MAP positions, vehicle indices
CHIT_MISPLACED = 2  # §3 step 1, §5.3, §6.3, §7.2: every chit in exactly one place
CHIT_WRONG_PLACE = 3  # §2.1.2 a track holds its own type; §7.2 RU chits aside; §5.3 the car
SETUP_MARKER = 4  # §3 step 6, §6.3: the setup marker first on the artillery track, flips once
TRACK_CHANGE = 5  # §5.3 d chits join in Orders; §6.1, §6.3, I-AIR they leave in Execution
MARKER_MISPLACED = 6  # §6.2, R-EAM: each enemy-action marker in its pool or on one position
MARKER_CHANGE = 7  # §6.2: drawn on first entry in the Execution phase, never moved again
ROE_ILLEGAL = 8  # I-ROE0 the RoE on its track; §7 it moves only in the Enemy reaction
ABILITY_VS_ROE = 9  # §5.5, I-SPENT: ability markers where the RoE puts them
ABILITY_MOVE = 10  # §5.3, §5.5: spent from its box; back from Spent only by a refresh
FIRE_STATUS = 11  # §5.2, §5.4.2: fire status placed once, in Orders, at a RoE allowing fire
FIRE_SIDE = 12  # §5.4.2: only tanks flip to Fire, by a Fire order, after the fire status
OVERSTACKED = 13  # §2.1.1, §6.2 stacking limits after the moves (§5.4.3 tows excepted)
MOVED_OUT_OF_PHASE = 14  # §4, §6: vehicles move only in the Execution phase
MOVED_TOO_FAR = 15  # §6.2 one road step; optional APC rule; §5.5 Extra move
MOVED_UNABLE = 16  # §6 stunned, §7.1.3 immobilised, §6.2 hull marker red: no move
TOW_BROKEN = 17  # §5.4.3: rescuer and towed tank linked both ways, together
ORDERS_INCONSISTENT = 18  # §5, §5.4.1, §6.2: standing orders that the rules allow
DAMAGE_HEALED = 19  # §7: no rule repairs damage or revives a commander
DAMAGE_OUT_OF_PHASE = 20  # §7.2.1 light damage in Orders; §7.1.3, §7.2 heavy, KIA in reaction
DAMAGE_INVALID = 21  # §7.1.3: a hit APC or VL2's killed commander ends the game instead
DAMAGE_COUNTS = 22  # the light/heavy hit counters agree with the damage marked
STUN_OR_SKIP = 23  # §7.1.3 stun with each hull/turret hit, §6 d gone after Execution
TURN_ORDER = 24  # §4: one turn at a time, advanced in the End phase, up to the limit
GAME_END = 25  # §4, §7.1.2, §7.1.3, §8: the game ends only for the rules' reasons
DEADLINE = 26  # §3 step 9, §5.5 Extra turn (End phase), §7.2 artillery on T2 (reaction)
AIRSTRIKE = 27  # §5.4.4, §6.1, I-AIR: when an airstrike may be called and strikes
ROW_STATE = 28  # docs/architecture.md §5: the result row copies the final state
ROW_DEFEAT = 29  # §8: defeat for the defeat reasons, and then no victory
ROW_VICTORY = 30  # §8, I-OPV, I-DIPLO: victories only on their conditions
OBSERVATION_STALE = 31  # observation.py: the derived slots a policy sees agree with the state
HULL_MARKER = 32  # §7.1.3 green on a hull hit; §4 step 4b, §6.2 flips in each End phase
FIRED_UNABLE = 33  # §6 stun, §5.4.3 tow, §6.3, §7.1.3, §7.2.1: one attack per able tank
OPERATIONAL_VICTORY = 34  # §8, I-OPV: two tanks at T2 by the deadline, Vis silent
TACTICAL_VICTORY = 35  # §8, I-TACV: tracks empty, Vis silent, heavy damage in Saraci, turn 20
TARGET_PRIORITY = 36  # §7.1, I-TARGET: each direct-fire attack at a vehicle of first priority
TOW_ORDER = 37  # §5.4.3, I-TOW-SARACI: a Tow order for a stranded tank outside Saraci
VICTORY_OFFER = 38  # §8, I-END: a victory met is offered, and declared only when met
UNCHECKED = 39  # the phase's events overflowed the checker's trace

MESSAGES = (
    "no violation",
    "a count of chits or markers, a position or a vehicle reference is out of its range",
    "a chit is lost, or in two places",
    "a track holds a chit of another type, or a chit aside or retired is of the wrong kind",
    "the setup artillery marker is not first on its track, or was flipped back or out of phase",
    "a track changed out of phase, other than at its end, or kept over half in an airstrike",
    "an enemy-action marker is in no place, in two, or on a position of another pool",
    "an enemy-action marker moved, appeared out of phase, or is missing where a vehicle stands",
    "the RoE is off its track, or moved outside the Enemy reaction phase",
    "an ability marker is available below its RoE level, or on the track at or above it",
    "an ability marker went from the track to Spent, or left Spent other than by a refresh",
    "the fire status marker was placed out of phase, below fire-allowed RoE, or moved",
    "a vehicle is on its Fire side under Hold Fire, is an APC, or flipped back",
    "a position is over its stacking limit after the moves",
    "a vehicle moved outside the Execution phase",
    "a vehicle moved more road steps than the rules allow in one Execution phase",
    "a stunned, immobilised or red-hull vehicle moved",
    "a tow link is one-sided, splits its tanks, or joins the wrong vehicles",
    "an immobilised tank or VL2 under orders, a Move without destination, or one not cleared",
    "a damage marker or a killed commander disappeared",
    "damage appeared in a phase that cannot cause it",
    "an APC carries heavy damage, VL2's commander is marked killed, or a mask is malformed",
    "the light or heavy hit counter disagrees with the damage marked",
    "a stun marker missing after a hull or turret hit, or there without one, or left set",
    "the turn moved other than by one in the End phase, or is outside 1..turn limit",
    "the game ended in a phase or for a reason the rules do not allow",
    "the T2 deadline is off the turn track or moved in a phase that cannot move it",
    "an airstrike was called illegally, too often, or is pending after its Execution phase",
    "the result row disagrees with the final state",
    "the result row's defeat disagrees with the end reason, or a defeat comes with a victory",
    "the result row claims a victory whose conditions do not hold",
    "the observation's pool counts, track letters, artillery or fire status are stale",
    "a hull marker is not green after a hull hit, did not flip in the End phase, or turned",
    "more chits left the tracks than the airstrike, Extra fire and the tanks able to fire remove",
    "T2 reached, most tanks at T2 or the operational victory flag disagree with §8, I-OPV",
    "the tactical victory flag disagrees with §8's conditions (I-TACV)",
    "a direct-fire attack went to a vehicle other than a first-priority target, or was skipped",
    "a Tow order sends a vehicle other than a tank, or to a tank not stranded outside Saraci",
    "a victory was met and not offered, offered with other victories, or declared when not met",
    "the phase had more events than the checker's trace holds",
)

TRACE_EVENTS = 256  # a phase's events kept by a checked game (an Enemy reaction has < 60)
NO_EXCLUSION = -1

# errors[g, 2] of a violation found in the result row rather than after a phase.
RESULT_ROW = 4
PHASE_NAMES = ("Orders", "Execution", "Enemy reaction", "End", "result row")

MPOOL_CAP = 4  # layout.py: marker pool k is st[MPOOLS + 4*k : + 4]
HULL_OR_TURRET = (1 << C.HULL) | (1 << C.TURRET)
# Result columns that copy one slot of the final state (play.write_result).
ROW_COPIES = (
    (L.R_END_TURN, O.TURN),
    (L.R_END_REASON, L.X_END_REASON),
    (L.R_FIRST_FIRE_TURN, L.X_FIRE_TURN),
    (L.R_FIRST_FIRE_ROE, O.FIRE_ROE),
    (L.R_FINAL_ROE, O.ROE),
    (L.R_DEADLINE, O.DEADLINE),
    (L.R_TANKS_AT_T2, L.X_TANKS_AT_T2),
    (L.R_AIRSTRIKE_TURN, L.X_AIRSTRIKE_TURN),
    (L.R_HEAVY, L.X_HEAVY_HITS),
    (L.R_LIGHT, L.X_LIGHT_HITS),
    (L.R_CHITS_DRAWN, L.X_CHITS_DRAWN),
)


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


# ------------------------------------------------------------------ rules restated


@compiled(inline=True)
def silent(st):
    """§8 "artillery on Vis is silent": the last marker of the artillery track shows "No
    Artillery": a regular No Artillery chit, or the Saraci setup marker once fire flipped
    it (§6.3)."""
    last = st[L.TRACKS + L.TRACK_CAP * C.ART + st[O.TRACK_LEN + C.ART] - 1]
    if last == st[T.S_SETUP_CHIT]:
        return st[L.X_SETUP_FLIPPED] == 1
    return st[T.CHIT_ART_TARGET + last] == C.NO_ART


@compiled(inline=True)
def in_saraci(st, p):
    """I-TACV, I-TOW-SARACI: "in Saraci" is the Saraci contact point or one of the
    overwatches of the town S (§2.1.1)."""
    return p == st[T.S_SARACI] or (
        st[T.POS_KIND + p] == C.OW and st[T.POS_TOWN + p] == C.TOWN_S
    )


@compiled(inline=True)
def fire_icon(st, p, track):
    """§6.3, R-FOF: p shows a blue fire icon for `track`: the icons of the enemy-action
    marker on p if one was drawn there (§6.2, its side up), else the position's own."""
    marker = st[O.MARKER + p]
    if marker >= 0:
        return st[T.MARKER_UN + 8 * (marker // 2) + 4 * (marker % 2) + track] == 1
    return st[T.POS_UN + 4 * p + track] == 1


@compiled(inline=True)
def exposed(st, p, weapon):
    """§7.1, R-FOF, R-EAM: (the BSA `weapon` can fire at p, p's firing priority), from the
    enemy-action marker on p if one was drawn there, else from the position."""
    marker = st[O.MARKER + p]
    if marker >= 0:
        m, side = marker // 2, marker % 2
        return st[T.MARKER_BSA + 6 * m + 3 * side + weapon] == 1, st[T.MARKER_FP + m]
    return st[T.POS_BSA + 3 * p + weapon] == 1, st[T.POS_FP + p]


@compiled(inline=True)
def shows(st, a, ability):
    """§5.5: ability marker a, the side up that it shows now, is `ability`."""
    return st[T.ABILITY_SIDES + 2 * a + st[O.ABIL + 2 * a + 1]] == ability


@compiled(inline=True)
def traced(st):
    """st has a trace region, so the phase's events can be read."""
    return st.shape[0] > L.TRACE


@compiled(inline=True)
def event(st, i, arg):
    """Argument `arg` (0..3) of the i-th event of the phase (events.py: turn, kind, a..d)."""
    return st[L.TRACE + L.TRACE_WIDTH * i + 2 + arg]


@compiled(inline=True)
def event_kind(st, i):
    return st[L.TRACE + L.TRACE_WIDTH * i + 1]


# ------------------------------------------------------------------ chits and markers


@compiled
def in_range(st):
    """Counts within their regions (layout.py), positions on the map (R-MAP), vehicle
    references -1 or a vehicle."""
    if not (0 <= st[L.X_N_POOL] <= L.POOL_CAP and 0 <= st[L.X_N_ASIDE] <= L.ASIDE_CAP):
        return OUT_OF_RANGE
    for t in range(C.N_TRACKS):
        if not 0 <= st[O.TRACK_LEN + t] <= L.TRACK_CAP:
            return OUT_OF_RANGE
    for k in range(2):
        if not 0 <= st[L.X_N_MPOOL + k] <= MPOOL_CAP:
            return OUT_OF_RANGE
    for v in range(T.NV):
        if not 0 <= pos(st, v) < T.NP:
            return OUT_OF_RANGE
        for field in (O.V_TOWING, O.V_TOWED_BY, O.V_TOW_TARGET):
            if not -1 <= st[vx(v, field)] < T.NV:
                return OUT_OF_RANGE
    return OK


@compiled(inline=True)
def chit_bits(st, start, count, n):
    """A bit for each chit c < n among st[start : start + count]."""
    bits = 0
    for i in range(start, start + count):
        if 0 <= st[i] < n:
            bits |= 1 << st[i]
    return bits


@compiled
def chit_places(st):
    """§3 step 1, §5.3, §6.3, §7.2: every chit in exactly one place: the pool, a track,
    aside (random-unit chits) or retired (the car). As many places as chits, and every
    chit in one of them, leaves no room for a chit in two."""
    n = st[T.S_SETUP_CHIT] + 1  # chits: the pool's, one random unit per vehicle, the marker
    total = st[L.X_N_POOL] + st[L.X_N_ASIDE]
    bits = chit_bits(st, L.POOL, st[L.X_N_POOL], n) | chit_bits(st, L.ASIDE, st[L.X_N_ASIDE], n)
    for t in range(C.N_TRACKS):
        total += st[O.TRACK_LEN + t]
        bits |= chit_bits(st, L.TRACKS + L.TRACK_CAP * t, st[O.TRACK_LEN + t], n)
    if st[L.X_RETIRED] >= 0:
        total += 1
        bits |= chit_bits(st, L.X_RETIRED, 1, n)
    everyone = -1 if n == 64 else (1 << n) - 1
    return OK if total == n and bits == everyone else CHIT_MISPLACED


@compiled
def chit_kinds(st):
    """§2.1.2: a track holds chits of its own type; §7.2: only random-unit chits are set
    aside; §5.3: only the civilian car retires."""
    for t in range(C.N_TRACKS):
        for i in range(st[O.TRACK_LEN + t]):
            if st[T.CHIT_TYPE + st[L.TRACKS + L.TRACK_CAP * t + i]] != t:
                return CHIT_WRONG_PLACE
    for i in range(st[L.X_N_ASIDE]):
        if st[T.CHIT_TYPE + st[L.ASIDE + i]] != C.RU:
            return CHIT_WRONG_PLACE
    retired = st[L.X_RETIRED]
    if retired >= 0 and st[T.CHIT_TYPE + retired] != C.CAR:
        return CHIT_WRONG_PLACE
    return OK


@compiled
def observation_live(st):
    """The engine keeps the observation's derived slots live (core.count_in_pool,
    core.track_changed, orders.open_fire): they must match a fresh count of the state."""
    weapons, tanks = 0, 0
    for i in range(st[L.X_N_POOL]):
        kind = st[T.CHIT_TYPE + st[L.POOL + i]]
        weapons += kind != C.RU
        tanks += kind == C.TANK
    if st[O.POOL_WEAPONS] != weapons or st[O.POOL_TANKS] != tanks:
        return OBSERVATION_STALE
    for t in range(C.N_TRACKS):
        letter = st[T.CHIT_LETTER + last_chit(st, t)] if track_len(st, t) else 0
        if st[O.TRACK_LETTER + t] != letter:
            return OBSERVATION_STALE
    quiet = silent(st)
    target = C.NO_ART if quiet else st[T.CHIT_ART_TARGET + last_chit(st, C.ART)]
    if st[O.ART_SILENT] != quiet or st[O.ART_TARGET] != target:
        return OBSERVATION_STALE
    return OK if st[O.FIRED] == (st[O.FIRE_ROE] > 0) else OBSERVATION_STALE


@compiled
def setup_marker(before, st, phase):
    """§3 step 6: the setup marker is the artillery track's first chit; §6.3: fire flips
    it to "No Artillery" in the Execution phase, for the rest of the game."""
    first = L.TRACKS + L.TRACK_CAP * C.ART
    if st[O.TRACK_LEN + C.ART] < 1 or st[first] != st[T.S_SETUP_CHIT]:
        return SETUP_MARKER
    was, now = before[L.X_SETUP_FLIPPED], st[L.X_SETUP_FLIPPED]
    if now != was and (now != 1 or phase != EXECUTION):
        return SETUP_MARKER
    return OK


@compiled
def track_changes(before, st, phase):
    """§5.3 d: chits join the end of a track in the Orders phase; §6.1, §6.3: they leave
    from its end in the Execution phase, and an airstrike leaves at most half of each
    track's regular chits (I-AIR); the other phases leave the tracks alone."""
    for t in range(C.N_TRACKS):
        was, now = before[O.TRACK_LEN + t], st[O.TRACK_LEN + t]
        start = L.TRACKS + L.TRACK_CAP * t
        for i in range(min(was, now)):
            if st[start + i] != before[start + i]:
                return TRACK_CHANGE
        if (now > was and phase != ORDERS) or (now < was and phase != EXECUTION):
            return TRACK_CHANGE
        setup = t == C.ART
        if phase == EXECUTION and before[O.AIRSTRIKE_PENDING] and now - setup > (was - setup) // 2:
            return TRACK_CHANGE
    return OK


@compiled
def marker_places(st):
    """§6.2, R-EAM: each enemy-action marker is in its pool or on one position that draws
    from that pool; only a 7-8-9 marker may show its second side."""
    n = st[T.S_N_MARKERS]
    total = 0
    bits = 0
    for k in range(2):
        for i in range(st[L.X_N_MPOOL + k]):
            m = st[L.MPOOLS + MPOOL_CAP * k + i]
            if not 0 <= m < n or st[T.MARKER_POOL + m] != k + 1:
                return MARKER_MISPLACED
            total += 1
            bits |= 1 << m
    for p in range(T.NP):
        code = st[O.MARKER + p]
        if code == -1:
            continue
        m, side = code // 2, code % 2
        if not 0 <= m < n or st[T.MARKER_POOL + m] != st[T.POS_EAM_POOL + p]:
            return MARKER_MISPLACED
        if side and st[T.MARKER_POOL + m] != C.POOL_789:
            return MARKER_MISPLACED
        total += 1
        bits |= 1 << m
    return OK if total == n and bits == (1 << n) - 1 else MARKER_MISPLACED


@compiled
def marker_changes(before, st, phase):
    """§6.2: a marker is drawn in the Execution phase when a vehicle first enters its
    position, and stays there; so a vehicle never stands on a marker position without
    one (the towed tank enters with its rescuer)."""
    for p in range(T.NP):
        was, now = before[O.MARKER + p], st[O.MARKER + p]
        if now != was and (was != -1 or phase != EXECUTION):
            return MARKER_CHANGE
    for v in range(T.NV):
        p = pos(st, v)
        if st[T.POS_EAM_POOL + p] != C.NO_POOL and st[O.MARKER + p] == -1:
            return MARKER_CHANGE
    return OK


# ------------------------------------------------------------------ RoE and fire status


@compiled
def roe(before, st, phase):
    """I-ROE0: the RoE stays on its track; every RoE effect is an attack, damage or
    artillery (§7.1.2, §7.1.3, §7.2), so it moves only in the Enemy reaction phase."""
    level = st[O.ROE]
    if not st[T.S_ROE_MIN] <= level <= st[T.S_ROE_MAX]:
        return ROE_ILLEGAL
    if level != before[O.ROE] and phase != REACTION:
        return ROE_ILLEGAL
    return OK


@compiled
def ability_levels(st):
    """§5.5: a marker is in its box (available) at or above its RoE level and back on the
    track below it; under I-SPENT's other reading a spent one returns below it too."""
    for a in range(3):
        state, side = st[O.ABIL + 2 * a], st[O.ABIL + 2 * a + 1]
        above = st[O.ROE] >= st[T.ABILITY_LEVEL + a]
        if not (0 <= state <= C.SPENT and 0 <= side <= 1):
            return ABILITY_VS_ROE
        if (state == C.AVAILABLE and not above) or (state == C.ON_TRACK and above):
            return ABILITY_VS_ROE
        if state == C.SPENT and st[T.S_SPENT_RETURNS] and not above:
            return ABILITY_VS_ROE
    return OK


@compiled
def ability_moves(before, st, phase):
    """§5.5: an ability is spent from its box, never from the track (the RoE does not
    move in the phases that use abilities before it could rise); a spent one comes back
    only by the refresh after doubles in the Orders phase (§5.3), or under I-SPENT's other
    reading to the track when the RoE drops (and on up to its box when it rises again)."""
    returns = phase == REACTION and st[T.S_SPENT_RETURNS] != 0
    for a in range(3):
        was, now = before[O.ABIL + 2 * a], st[O.ABIL + 2 * a]
        if was == C.ON_TRACK and now == C.SPENT:
            return ABILITY_MOVE
        if was == C.SPENT and now != C.SPENT and not (phase == ORDERS or returns):
            return ABILITY_MOVE
    return OK


@compiled
def fire_status(before, st, phase):
    """§5.2, §5.4.2: the fire status marker is placed once, by the first Fire order (an
    Orders phase), at that moment's RoE, which must allow fire; then it never moves."""
    placed, turn = st[O.FIRE_ROE], st[L.X_FIRE_TURN]
    if before[O.FIRE_ROE] > 0:
        same = placed == before[O.FIRE_ROE] and turn == before[L.X_FIRE_TURN]
        return OK if same else FIRE_STATUS
    if placed == 0:
        return OK if turn == 0 else FIRE_STATUS
    if (
        phase != ORDERS
        or placed != st[O.ROE]
        or placed < st[T.S_FIRE_ALLOWED]
        or turn != st[O.TURN]
    ):
        return FIRE_STATUS
    return OK


@compiled
def fire_sides(before, st, phase):
    """§5.4.2: a Fire order flips a tank (never an APC) to its Fire side, in the Orders
    phase, once the fire status is set; nothing flips it back."""
    for v in range(T.NV):
        side = st[vx(v, O.V_FIRE)]
        if side != 0 and (side != 1 or not st[T.IS_TANK + v] or st[O.FIRE_ROE] == 0):
            return FIRE_SIDE
        if side != before[vx(v, O.V_FIRE)] and (side == 0 or phase != ORDERS):
            return FIRE_SIDE
    return OK


# ------------------------------------------------------------------ moves, tows, stacking


@compiled
def tow_links(before, st):
    """§5.4.3: a rescuer tank tows a tracks-damaged tank stacked with it under its Tow
    order, both sides of the link agree, and a tank in tow ends each phase with the
    rescuer it had at the start (they move together)."""
    for v in range(T.NV):
        towed = st[vx(v, O.V_TOWING)]
        if towed >= 0 and (
            st[vx(towed, O.V_TOWED_BY)] != v
            or pos(st, towed) != pos(st, v)
            or not st[T.IS_TANK + v]
            or not has(st, towed, O.V_HEAVY, C.TRACKS)
            or st[vx(v, O.V_ORDER)] != C.TOW
        ):
            return TOW_BROKEN
        rescuer = st[vx(v, O.V_TOWED_BY)]
        if rescuer >= 0 and st[vx(rescuer, O.V_TOWING)] != v:
            return TOW_BROKEN
        rescuer = before[vx(v, O.V_TOWED_BY)]
        if rescuer >= 0 and pos(st, v) != pos(st, rescuer):
            return TOW_BROKEN
    return OK


@compiled(inline=True)
def regular_steps(before, st, v):
    """Road steps v may take in an Execution phase without Extra move: none if stunned
    (§6), immobilised (§7.1.3) or its hull marker red (§6.2); one (§6.2); two for an APC
    under the optional rule (§6.2: a second step from an SK checkpoint)."""
    if before[vx(v, O.V_STUN)] or has(before, v, O.V_HEAVY, C.TRACKS):
        return 0
    if has(before, v, O.V_HEAVY, C.HULL) and not before[vx(v, O.V_HULL_GREEN)]:
        return 0
    return 1 + (st[T.S_APC_DOUBLE] != 0 and st[T.IS_TANK + v] == 0)


@compiled(inline=True)
def ability_spent(before, st, ability):
    """§5.5: the marker showing `ability` went from its box to Spent in this phase."""
    for a in range(3):
        if (
            before[O.ABIL + 2 * a] == C.AVAILABLE
            and st[O.ABIL + 2 * a] == C.SPENT
            and shows(st, a, ability)
        ):
            return True
    return False


@compiled
def movement(before, st, phase):
    """§4, §6: vehicles move only in the Execution phase, by road, each at most its
    regular steps, and one of them a step more when Extra move was spent (§5.5: not a
    stunned, immobilised or towing tank). A tank in tow goes with its rescuer
    (tow_links)."""
    if phase != EXECUTION:
        for v in range(T.NV):
            if pos(st, v) != pos(before, v):
                return MOVED_OUT_OF_PHASE
        return OK
    extra = ability_spent(before, st, C.EXTRA_MOVE)
    extra_used = 0
    for v in range(T.NV):
        if before[vx(v, O.V_TOWED_BY)] >= 0:
            continue
        steps = distance(st, pos(before, v), pos(st, v))
        regular = regular_steps(before, st, v)
        bonus = (
            extra
            and not before[vx(v, O.V_STUN)]
            and not has(before, v, O.V_HEAVY, C.TRACKS)
            and before[vx(v, O.V_TOWING)] < 0
        )
        if steps > regular + bonus:
            return MOVED_UNABLE if regular + bonus == 0 else MOVED_TOO_FAR
        extra_used += steps > regular
    return OK if extra_used <= 1 else MOVED_TOO_FAR


@compiled(inline=True)
def in_tow(x, v):
    """§5.4.3: v is a tank in tow, stacked with a rescuer that tows it or that has reached
    it under its Tow order ("put the rescuing tank on top of the damaged tank")."""
    for r in range(T.NV):
        if pos(x, r) == pos(x, v) and (
            x[vx(r, O.V_TOWING)] == v
            or (x[vx(r, O.V_ORDER)] == C.TOW and x[vx(r, O.V_TOW_TARGET)] == v)
        ):
            return True
    return False


@compiled(inline=True)
def stacked(x, p):
    """Vehicles counting for stacking at p in state x: all but tanks in tow (§5.4.3)."""
    n = 0
    for v in range(T.NV):
        n += pos(x, v) == p and not in_tow(x, v)
    return n


@compiled
def stacking(before, st, phase):
    """§2.1.1 stacking limits, judged at the end of the moves (§6.2). One overflow is not a
    move's doing: a rescuer hit on its tracks drops its tow and both tanks count where one
    fits (tests/test_invariants.py check_stacking); so a position may stay over its limit
    if no vehicle entered it and it holds no more than before."""
    if phase != EXECUTION:
        return OK
    for p in range(T.NP):
        now = stacked(st, p)
        if now <= st[T.POS_STACK + p]:
            continue
        for v in range(T.NV):
            if pos(st, v) == p and pos(before, v) != p:
                return OVERSTACKED
        if now > stacked(before, p):
            return OVERSTACKED
    return OK


@compiled(inline=True)
def may_fire(before, st, v):
    """§6.3: v is a tank on its Fire side where blue icons let it fire, not stunned (§6),
    hit in the turret (§7.1.3), towing or in tow (§5.4.3), nor with gunner sights damage
    at an indirect-fire position (§7.2.1). Fire comes after the moves (§6), so positions,
    markers and tows are those in st; a commander's skip (§7.1.3) is not in the state."""
    if not st[T.IS_TANK + v] or not st[vx(v, O.V_FIRE)] or before[vx(v, O.V_STUN)]:
        return False
    if has(st, v, O.V_HEAVY, C.TURRET):
        return False
    if st[vx(v, O.V_TOWING)] >= 0 or st[vx(v, O.V_TOWED_BY)] >= 0:
        return False
    p = pos(st, v)
    if st[T.POS_INDIRECT + p] and has(st, v, O.V_LIGHT, C.SIGHTS):
        return False
    for t in range(C.N_TRACKS):
        if fire_icon(st, p, t):
            return True
    return False


@compiled
def fire_count(before, st, phase):
    """§6.3: in the Execution phase each tank able to fire attacks once, Extra fire once
    more (§5.5), and an attack removes at most one chit (or flips the setup marker); the
    airstrike first halves the tracks (§6.1, I-AIR). The ammunition depot empties a track
    (§6.3), so there is no bound when enough Saraci overwatch fire could have hit it."""
    if phase != EXECUTION:
        return OK
    extra = ability_spent(before, st, C.EXTRA_FIRE)
    attacks, indirect = np.int64(extra), np.int64(extra)
    for v in range(T.NV):
        if may_fire(before, st, v):
            attacks += 1
            indirect += st[T.POS_INDIRECT + pos(st, v)] != 0
    if indirect >= st[T.S_DEPOT_ROLLS]:
        return OK
    removed = st[L.X_SETUP_FLIPPED] - before[L.X_SETUP_FLIPPED]
    for t in range(C.N_TRACKS):
        removed += before[O.TRACK_LEN + t] - st[O.TRACK_LEN + t]
        if before[O.AIRSTRIKE_PENDING]:
            regular = before[O.TRACK_LEN + t] - (t == C.ART)
            attacks += regular - regular // 2
    return OK if removed <= attacks else FIRED_UNABLE


@compiled
def standing_orders(st, phase):
    """§5.4.1: an immobilised tank holds no Move or Tow order and tows nothing; a Move
    order has a destination, a Tow order a tank to reach or in tow; VL2 needs no orders
    (§5); after the moves no vehicle stands at its destination with its Move marker or
    VL2's reminder still out (§6.2: it comes back on arrival)."""
    for v in range(T.NV):
        order, dest = st[vx(v, O.V_ORDER)], st[vx(v, O.V_DEST)]
        if not (order == C.NO_ORDER or order == C.MOVE or order == C.TOW):
            return ORDERS_INCONSISTENT
        if has(st, v, O.V_HEAVY, C.TRACKS) and (order != C.NO_ORDER or st[vx(v, O.V_TOWING)] >= 0):
            return ORDERS_INCONSISTENT
        if order == C.MOVE and dest < 0:
            return ORDERS_INCONSISTENT
        if order == C.TOW and st[vx(v, O.V_TOW_TARGET)] < 0 and st[vx(v, O.V_TOWING)] < 0:
            return ORDERS_INCONSISTENT
        if v == st[T.S_COMMANDER] and order != C.NO_ORDER:
            return ORDERS_INCONSISTENT
        if phase == EXECUTION and order != C.TOW and dest == pos(st, v):
            return ORDERS_INCONSISTENT
    return OK


# ------------------------------------------------------------------ damage


@compiled
def damage(before, st, phase):
    """§7: damage is never repaired; light damage comes from random-unit chits drawn in
    the Orders phase (§5.3, §7.2.1), heavy damage and killed commanders from the Enemy
    reaction (§7.1.2, §7.1.3, §7.2); a hit APC or VL2's killed commander ends the game
    instead of being marked (§7.1.2, §7.1.3)."""
    for v in range(T.NV):
        light, heavy, kia = st[vx(v, O.V_LIGHT)], st[vx(v, O.V_HEAVY)], st[vx(v, O.V_KIA)]
        was_light, was_heavy, was_kia = (
            before[vx(v, O.V_LIGHT)],
            before[vx(v, O.V_HEAVY)],
            before[vx(v, O.V_KIA)],
        )
        if was_light & ~light or was_heavy & ~heavy or was_kia & ~kia:
            return DAMAGE_HEALED
        if (light != was_light and phase != ORDERS) or (
            (heavy != was_heavy or kia != was_kia) and phase != REACTION
        ):
            return DAMAGE_OUT_OF_PHASE
        if not (0 <= light < 8 and 0 <= heavy < 8 and 0 <= kia <= 1):
            return DAMAGE_INVALID
        if (heavy and not st[T.IS_TANK + v]) or (kia and v == st[T.S_COMMANDER]):
            return DAMAGE_INVALID
    return OK


@compiled
def hit_counts(st):
    """Each light hit marks a new light damage (§7.2.1 re-rolls one already there); each
    heavy hit marks a new location, but the one that destroys a vehicle (§7.1.3)."""
    light = 0
    heavy = 0
    for v in range(T.NV):
        light += popcount(st[vx(v, O.V_LIGHT)])
        heavy += popcount(st[vx(v, O.V_HEAVY)])
    destroyed = st[L.X_OVER] == 1 and st[L.X_END_REASON] == E.END_DESTROYED
    if st[L.X_LIGHT_HITS] != light or st[L.X_HEAVY_HITS] != heavy + destroyed:
        return DAMAGE_COUNTS
    return OK


@compiled
def stun_and_skip(before, st, phase):
    """§7.1.3: a hull or turret hit brings a stun marker, and nothing else does; it goes
    at the end of the next Execution phase (§6 d). A commander's skip (§7.1.3) lasts only
    within the Execution phase."""
    for v in range(T.NV):
        if st[vx(v, O.V_SKIP)]:
            return STUN_OR_SKIP
        stunned = st[vx(v, O.V_STUN)]
        hit = st[vx(v, O.V_HEAVY)] & ~before[vx(v, O.V_HEAVY)] & HULL_OR_TURRET
        if hit and not stunned:
            return STUN_OR_SKIP
        if stunned and (phase == EXECUTION or not (before[vx(v, O.V_STUN)] or hit)):
            return STUN_OR_SKIP
    return OK


@compiled
def hull_marker(before, st, phase):
    """§7.1.3: a hull hit places the Hull marker green side up; the End phase flips it
    (§4 step 4b, §6.2: the tank moves every other turn) unless a declared victory ended
    the game first; nothing else turns it."""
    declared = st[L.X_OVER] == 1 and st[L.X_END_REASON] == E.END_VICTORY
    for v in range(T.NV):
        was, now = before[vx(v, O.V_HULL_GREEN)], st[vx(v, O.V_HULL_GREEN)]
        hull = has(st, v, O.V_HEAVY, C.HULL)
        if hull and not has(before, v, O.V_HEAVY, C.HULL):
            want = 1
        elif hull and phase == END and not declared:
            want = 1 - was
        else:
            want = was
        if now != want:
            return HULL_MARKER
    return OK


# ------------------------------------------------------------------ turns and the end


@compiled
def turn_advance(before, st, phase):
    """§4: the End phase advances the turn by one unless the game ended in it; no other
    phase touches it, and it never passes the turn limit (20, or 40 with §8's option)."""
    advanced = phase == END and not st[L.X_OVER]
    if st[O.TURN] != before[O.TURN] + advanced or not 1 <= st[O.TURN] <= st[T.S_TURN_LIMIT]:
        return TURN_ORDER
    return OK


@compiled
def game_end(st, phase):
    """The game ends in the Enemy reaction phase when a vehicle is destroyed or VL2's
    commander killed (§7.1.2, §7.1.3), in the End phase on a declared victory (§8) or at
    the turn limit (§4), a defeat at turn 40 only with §8's option and no victory."""
    over = st[L.X_OVER]
    if over == 0:
        return OK
    reason = st[L.X_END_REASON]
    at_limit = st[O.TURN] == st[T.S_TURN_LIMIT]
    won = st[O.OPERATIONAL] != 0 or st[O.TACTICAL] != 0
    extended = st[T.S_EXTEND] != 0
    if phase == REACTION:
        ok = reason == E.END_DESTROYED or reason == E.END_VL2_KILLED
    elif phase == END:
        ok = (
            (reason == E.END_VICTORY and won)
            or (reason == E.END_TURN_LIMIT and at_limit and (won or not extended))
            or (reason == E.END_TURN_40 and at_limit and not won and extended)
        )
    else:
        ok = False
    return OK if over == 1 and ok else GAME_END


@compiled
def deadline(before, st, phase):
    """§3 step 9: the T2 deadline is on the turn track, 0 .. deadline_max; artillery on T2
    moves it in the Enemy reaction phase (§7.2, once a turn), Extra turn one box up in the
    End phase (§5.5, I-ABILITY-PHASE); nothing else moves it."""
    was, now = before[O.DEADLINE], st[O.DEADLINE]
    if not 0 <= now <= st[T.S_DEADLINE_MAX]:
        return DEADLINE
    if phase == REACTION:
        ok = now == was or now == max(was + st[T.S_ART_DEADLINE_T2], 0)
    elif phase == END:
        ok = now == was or now == was + 1
    else:
        ok = now == was
    return OK if ok else DEADLINE


@compiled
def airstrike(before, st, phase):
    """§5.4.4, I-AIR: an airstrike is called in the Orders phase, at most
    airstrikes_per_game times, at Unrestricted RoE or once a tank has heavy damage; it is
    pending until it strikes in that turn's Execution phase (§6.1)."""
    used, was = st[O.AIRSTRIKES_USED], before[O.AIRSTRIKES_USED]
    called = phase == ORDERS and used == was + 1
    if used > st[T.S_AIRSTRIKES] or (used != was and not called):
        return AIRSTRIKE
    if st[O.AIRSTRIKE_PENDING] != called:
        return AIRSTRIKE
    if called and st[O.ROE] < st[T.S_UNRESTRICTED]:
        for v in range(T.NV):
            if st[vx(v, O.V_HEAVY)]:
                return OK
        return AIRSTRIKE
    return OK


@compiled
def t2_reached(before, st):
    """I-OPV: T2 is reached, for good, at the end of a turn no later than the deadline
    (Extra turn moved it first, I-ABILITY-PHASE) with tanks_needed_at_t2 tanks at T2."""
    at_t2 = 0
    for v in range(T.NV):
        at_t2 += st[T.IS_TANK + v] == 1 and pos(st, v) == st[T.S_TANGO2]
    in_time = before[O.TURN] <= st[O.DEADLINE] and at_t2 >= st[T.S_TANKS_NEEDED]
    return before[O.T2_REACHED] == 1 or in_time, at_t2


@compiled
def tactical_met(before, st):
    """§8, I-TACV at the assessment of turn before[O.TURN]: by the end of turn 20 (even
    with §8's turn-40 option), the three direct-fire tracks empty, Vis silent and every
    heavily damaged vehicle in Saraci."""
    met = silent(st) and before[O.TURN] <= st[T.S_BASE_TURN_LIMIT]
    for t in (C.TANK, C.ATGM, C.HMG):
        met = met and st[O.TRACK_LEN + t] == 0
    for v in range(T.NV):
        met = met and (st[vx(v, O.V_HEAVY)] == 0 or in_saraci(st, pos(st, v)))
    return met


@compiled
def operational_victory(before, st, phase):
    """§8, I-OPV: an End phase notes T2 reached (t2_reached) and the most tanks seen at
    T2; the operational flag is T2 reached with Vis silent, kept once met if victories are
    sticky (I-STICKY), and set exactly then. Other phases keep them."""
    if phase != END:
        for at in (O.T2_REACHED, O.OPERATIONAL, L.X_TANKS_AT_T2):
            if st[at] != before[at]:
                return OPERATIONAL_VICTORY
        return OK
    reached, at_t2 = t2_reached(before, st)
    kept = st[T.S_STICKY] != 0 and before[O.OPERATIONAL] == 1
    if (
        st[O.T2_REACHED] != reached
        or st[O.OPERATIONAL] != ((reached and silent(st)) or kept)
        or st[L.X_TANKS_AT_T2] != max(before[L.X_TANKS_AT_T2], at_t2)
    ):
        return OPERATIONAL_VICTORY
    return OK


@compiled
def tactical_victory(before, st, phase):
    """§8, I-TACV: an End phase sets the tactical flag exactly when tactical_met, or keeps
    it once met if victories are sticky (I-STICKY). Other phases keep it."""
    if phase != END:
        return OK if st[O.TACTICAL] == before[O.TACTICAL] else TACTICAL_VICTORY
    kept = st[T.S_STICKY] != 0 and before[O.TACTICAL] == 1
    return OK if st[O.TACTICAL] == (tactical_met(before, st) or kept) else TACTICAL_VICTORY


@compiled
def victory_offer(before, st, phase):
    """§8, I-END: at the victory assessment of an End phase where an operational or a
    tactical victory is met now (not merely kept), the player is asked whether to stop and
    declare it (one VICTORY event naming the victories met), and the game ends by victory
    exactly when the player stops; no victory is offered or declared otherwise."""
    if phase != END or not traced(st):
        return OK
    n = st[L.X_N_EVENTS]
    if n > TRACE_EVENTS:
        return UNCHECKED
    operational = t2_reached(before, st)[0] and silent(st)
    tactical = tactical_met(before, st)
    offers = 0
    stopped = False
    for i in range(n):
        if event_kind(st, i) == E.VICTORY:
            offers += 1
            stopped = event(st, i, 2) == 1
            if event(st, i, 0) != operational or event(st, i, 1) != tactical:
                return VICTORY_OFFER
    declared = st[L.X_OVER] == 1 and st[L.X_END_REASON] == E.END_VICTORY
    if offers != (operational or tactical) or declared != stopped:
        return VICTORY_OFFER
    return OK


@compiled
def first_priority(st, weapon, target, exclude, damaged):
    """§7.1, I-TARGET: target is a vehicle `weapon` can fire at (not `exclude`, the first
    target of a double-target chit) among the first in priority: the heavily damaged ones
    (bit mask `damaged`) if any, under the literal reading only if exactly one, else all;
    of those, the lowest firing priority (ties are drawn at random)."""
    n_damaged = 0
    low_damaged = low_all = 1 << 30
    for v in range(T.NV):
        can, fp = exposed(st, pos(st, v), weapon)
        if can and v != exclude:
            low_all = min(low_all, fp)
            if (damaged >> v) & 1:
                n_damaged += 1
                low_damaged = min(low_damaged, fp)
    if target < 0:  # the attack was skipped: no vehicle to fire at
        return low_all == 1 << 30
    can, fp = exposed(st, pos(st, target), weapon)
    if not can or target == exclude:
        return False
    if st[T.S_TARGET_RULE] == C.TARGET_DAMAGED_FIRST:
        damaged_first = n_damaged > 0
    else:
        damaged_first = n_damaged == 1
    if damaged_first:
        return (damaged >> target) & 1 == 1 and fp == low_damaged
    return fp == low_all


@compiled
def target_priority(before, st, phase):
    """§7.1, I-TARGET after every direct-fire attack of the Enemy reaction phase (its
    ATTACK and ATTACK_SKIPPED events, in order): each goes to a first-priority target,
    given the heavy damage of the attacks before it; the second attack of a
    double-target chit goes to another vehicle. Positions and markers stay put in this
    phase, so st shows where every vehicle stood."""
    if phase != REACTION or not traced(st):
        return OK
    n = st[L.X_N_EVENTS]
    if n > TRACE_EVENTS:
        return UNCHECKED
    damaged = 0
    for v in range(T.NV):
        if before[vx(v, O.V_HEAVY)]:
            damaged |= 1 << v
    weapon, first = -1, NO_EXCLUSION
    for i in range(n):
        kind = event_kind(st, i)
        if kind == E.HEAVY_DAMAGE:
            damaged |= 1 << event(st, i, 0)
        elif kind == E.ATTACK or kind == E.ATTACK_SKIPPED:
            target = event(st, i, 1) if kind == E.ATTACK else -1
            second = event(st, i, 0) == weapon
            weapon = event(st, i, 0)
            exclude = first if second else NO_EXCLUSION
            if not first_priority(st, weapon, target, exclude, damaged):
                return TARGET_PRIORITY
            first = target
    return OK


@compiled
def check_result(st, row):
    """0 if the result row (play.write_result) of the finished game in st agrees with its
    final state and with §8, else ROW_STATE, ROW_DEFEAT or ROW_VICTORY. Each victory of
    the row is derived here from the final state, so the row claims a victory exactly when
    its conditions hold: operational and tactical by the flags every End phase checks,
    strategic by the fire status at the first Fire order, political by the fire status
    against the final RoE, both only alongside a military victory under I-DIPLO."""
    if st[L.X_OVER] != 1 or not 0 <= row[L.R_END_REASON] < len(E.END_REASONS):
        return ROW_STATE
    for column, at in ROW_COPIES:
        if row[column] != st[at]:
            return ROW_STATE
    reason = row[L.R_END_REASON]
    defeat = reason == E.END_DESTROYED or reason == E.END_VL2_KILLED or reason == E.END_TURN_40
    if row[L.R_DEFEAT] != defeat:
        return ROW_DEFEAT
    if defeat:
        for column in (L.R_OPERATIONAL, L.R_TACTICAL, L.R_STRATEGIC, L.R_POLITICAL):
            if row[column]:
                return ROW_DEFEAT
        return OK
    operational = st[O.OPERATIONAL] == 1 and st[O.T2_REACHED] == 1
    tactical = st[O.TACTICAL] == 1
    fire_roe = st[O.FIRE_ROE]  # 0: the fire status still shows Hold Fire (§5.2)
    diplomatic = operational or tactical or st[T.S_DIPLO_MILITARY] == 0
    strategic = diplomatic and (fire_roe == 0 or fire_roe >= st[T.S_UNRESTRICTED])
    political = diplomatic and (fire_roe == 0 or fire_roe <= st[O.ROE])
    if (
        row[L.R_OPERATIONAL] != operational
        or row[L.R_TACTICAL] != tactical
        or row[L.R_STRATEGIC] != strategic
        or row[L.R_POLITICAL] != political
        or (operational and row[L.R_TANKS_AT_T2] < st[T.S_TANKS_NEEDED])  # I-OPV
        or (reason == E.END_VICTORY and not (operational or tactical))  # §8: declared
    ):
        return ROW_VICTORY
    return OK


@compiled
def tow_orders(before, st, phase):
    """§5.4.3, I-TOW-SARACI: a Tow order, given in the Orders phase, sends a tank to
    another tank with tracks damage that is not in tow and not already in Saraci."""
    for v in range(T.NV):
        target = st[vx(v, O.V_TOW_TARGET)]
        if target < 0 or target == before[vx(v, O.V_TOW_TARGET)]:
            continue
        if (
            phase != ORDERS
            or not st[T.IS_TANK + v]
            or target == v
            or not has(st, target, O.V_HEAVY, C.TRACKS)
            or st[vx(target, O.V_TOWED_BY)] >= 0
            or in_saraci(st, pos(st, target))
        ):
            return TOW_ORDER
    return OK


# ------------------------------------------------------------------ the checked games


@compiled
def play_checked_game(st, decide, seed, game, before, row, error):
    """play.play_game with the invariants checked after every phase and on the result row;
    error gets (code, turn, phase) of the first violation, where play stops, or zeros. The
    trace region of st keeps the events of the phase being played."""
    error[:] = 0
    new_game(st, seed, game)
    phase = ORDERS
    while not st[L.X_OVER]:
        st[L.X_N_EVENTS] = 0  # only core.log reads it: play is unchanged
        before[:] = st[: L.STATE_SIZE]
        played = phase
        phase = play_phase(st, decide, phase)
        code = check_phase(before, st, played)
        if code:
            error[0], error[1], error[2] = code, before[O.TURN], played
            return
    write_result(st, st[L.RS + 1], row)
    code = check_result(st, row)
    if code:
        error[0], error[1], error[2] = code, st[O.TURN], RESULT_ROW


@compiled(nogil=True)  # threads play blocks at once (blocks.py)
def play_checked_games(rules, decide, scripted, params, seed, first_game, errors, lo, hi):
    """Games first_game + lo .. first_game + hi - 1 as play.play_games plays them (params[g]
    are game first_game + g's parameters), with every invariant checked: errors[g] =
    (code, turn, phase) of the game's first violation, or zeros."""
    owner = new_vector(rules, TRACE_EVENTS, scripted)
    st = unmanaged(owner)
    before = np.empty(L.STATE_SIZE, dtype=np.int64)
    row = np.empty(L.N_RESULTS, dtype=np.int64)
    for g in range(lo, hi):
        st[L.PARAMS : L.PARAMS + params.shape[1]] = params[g].view(np.int64)
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
    play = partial(kernel, pack_rules(rules), decide, scripted, matrix, seed, 0, errors)
    in_blocks(play, n, numba.get_num_threads())
    return errors


def first_violation(errors: np.ndarray) -> str | None:
    """The first failing game of check_games' errors, in words, or None."""
    failed = np.flatnonzero(errors[:, 0])
    if failed.size == 0:
        return None
    g = int(failed[0])
    code, turn, phase = (int(x) for x in errors[g])
    return f"game {g}, turn {turn}, {PHASE_NAMES[phase]}: {MESSAGES[code]} (code {code})"
