"""Kernels shared by the fast engine's phases: state access, luck, decisions, the event
record, RoE and HQ abilities, damage and game over (the reference engine's state.py,
table.py and effects.py).

Every kernel takes (st, R, ctx, decide): the game state (layout.py), the rule arrays
(tables.py), the context tuple (chance stream, policy stream, policy parameters, options
buffer, trace buffer) and the policy's compiled decide function.
"""

import numpy as np
from numba import njit

from bollesim import codes as C
from bollesim import decisions as D
from bollesim import events as E
from bollesim import observation as O
from bollesim import rng
from bollesim.engine import layout as L
from bollesim.engine import tables as T


@njit(cache=True, inline="always")
def vx(v, field):
    """Index of a vehicle field in the state."""
    return O.VEH + O.V_FIELDS * v + field


@njit(cache=True, inline="always")
def has(st, v, field, bit):
    return (st[vx(v, field)] >> bit) & 1


@njit(cache=True, inline="always")
def pos(st, v):
    return st[vx(v, O.V_POS)]


@njit(cache=True)
def log(st, ctx, kind, a, b, c, d):
    """Record an event when the trace buffer has room (its rows: turn, kind, a, b, c, d)."""
    trace = ctx[4]
    if trace.shape[0] == 0:
        return
    n = st[L.X_N_EVENTS]
    if n < trace.shape[0]:
        trace[n, 0] = st[O.TURN]
        trace[n, 1] = kind
        trace[n, 2] = a
        trace[n, 3] = b
        trace[n, 4] = c
        trace[n, 5] = d
    st[L.X_N_EVENTS] = n + 1


# ------------------------------------------------------------------ luck


@njit(cache=True, inline="always")
def d6(ctx):
    return rng.d6(ctx[0])


@njit(cache=True, inline="always")
def two_d6(ctx):
    return rng.two_d6(ctx[0])


@njit(cache=True, inline="always")
def pick(ctx, n):
    return rng.below(ctx[0], n)


# ------------------------------------------------------------------ tracks and pool


@njit(cache=True, inline="always")
def track_len(st, t):
    return st[O.TRACK_LEN + t]


@njit(cache=True, inline="always")
def last_chit(st, t):
    return st[L.TRACKS + L.TRACK_CAP * t + st[O.TRACK_LEN + t] - 1]


@njit(cache=True)
def pool_append(st, chit):
    st[L.POOL + st[L.X_N_POOL]] = chit
    st[L.X_N_POOL] += 1


@njit(cache=True)
def artillery_silent(st, R):
    """§8: the lowest artillery marker is a "No Artillery" one."""
    last = last_chit(st, C.ART)
    if last == R.s[T.S_SETUP_CHIT]:
        return st[L.X_SETUP_FLIPPED] == 1
    return R.chit_art_target[last] == C.NO_ART


@njit(cache=True)
def in_town(R, position, town):
    """At a town's contact point or one of its overwatches (§5.4.1)."""
    cp = R.s[T.S_SARACI] if town == C.TOWN_S else R.s[T.S_KALESIJA]
    return position == cp or (R.pos_kind[position] == C.OW and R.pos_town[position] == town)


@njit(cache=True)
def in_saraci(R, position):
    """I-TACV, I-TOW-SARACI."""
    return position == R.s[T.S_SARACI] or R.pos_town[position] == C.TOWN_S


# ------------------------------------------------------------------ decisions


@njit(cache=True)
def refresh(st, R):
    """Bring the observation's derived slots up to date before a policy reads it."""
    st[O.FIRED] = st[O.FIRE_ROE] > 0
    for t in range(C.N_TRACKS):
        st[O.TRACK_LETTER + t] = R.chit_letter[last_chit(st, t)] if track_len(st, t) else 0
    silent = artillery_silent(st, R)
    st[O.ART_SILENT] = silent
    st[O.ART_TARGET] = C.NO_ART if silent else R.chit_art_target[last_chit(st, C.ART)]
    weapons = 0
    tanks = 0
    for i in range(st[L.X_N_POOL]):
        kind = R.chit_type[st[L.POOL + i]]
        weapons += kind != C.RU
        tanks += kind == C.TANK
    st[O.POOL_WEAPONS] = weapons
    st[O.POOL_TANKS] = tanks


@njit(cache=True)
def ask(st, R, ctx, decide, kind, n, context_a, context_b):
    """The policy's choice among ctx's options[:n] (the option itself). A lone option is
    taken without asking, as in the reference engine's Table.ask."""
    opts = ctx[3]
    if n == 1:
        return opts[0]
    st[O.CONTEXT_A] = context_a
    st[O.CONTEXT_B] = context_b
    refresh(st, R)
    index = decide(kind, st, opts, n, ctx[2], ctx[1])
    if index < 0 or index >= n:
        raise ValueError("policy chose an option outside its options")
    return opts[index]


@njit(cache=True)
def ask_yes_no(st, R, ctx, decide, kind, context_a):
    opts = ctx[3]
    opts[0] = 0
    opts[1] = 1
    return ask(st, R, ctx, decide, kind, 2, context_a, 0)


# ------------------------------------------------------------------ effects


@njit(cache=True)
def end_game(st, ctx, reason):
    if st[L.X_OVER] == 0:
        st[L.X_OVER] = 1
        st[L.X_END_REASON] = reason
        log(st, ctx, E.GAME_END, reason, 0, 0, 0)


@njit(cache=True)
def change_roe(st, R, ctx, decide, delta, cause):
    """Move the RoE marker, clamped to the track (I-ROE0), then check abilities (§5.5)."""
    new = min(max(st[O.ROE] + delta, R.s[T.S_ROE_MIN]), R.s[T.S_ROE_MAX])
    if new != st[O.ROE]:
        st[O.ROE] = new
        log(st, ctx, E.ROE, new, delta, cause, 0)
    update_abilities(st, R, ctx, decide)


@njit(cache=True)
def update_abilities(st, R, ctx, decide):
    """§5.5 availability at the ability's RoE level; back to the track below it (I-SPENT)."""
    for a in range(3):
        state = O.ABIL + 2 * a
        level = R.ability_level[a]
        if st[state] == C.ON_TRACK and st[O.ROE] >= level:
            st[state + 1] = ask_yes_no(st, R, ctx, decide, D.ABILITY_SIDE, a)
            st[state] = C.AVAILABLE
            log(st, ctx, E.ABILITY, a, E.ABILITY_AVAILABLE, st[state + 1], 0)
        elif st[O.ROE] < level and (
            st[state] == C.AVAILABLE or (st[state] == C.SPENT and R.s[T.S_SPENT_RETURNS])
        ):
            st[state] = C.ON_TRACK
            log(st, ctx, E.ABILITY, a, E.ABILITY_RETURNED, st[state + 1], 0)


@njit(cache=True)
def ability_ready(st, R, ability):
    """The marker showing `ability` in its box with its commander alive, else -1."""
    for a in range(3):
        if (
            st[O.ABIL + 2 * a] == C.AVAILABLE
            and R.ability_sides[a, st[O.ABIL + 2 * a + 1]] == ability
            and st[vx(R.ability_vehicle[a], O.V_KIA)] == 0
        ):
            return a
    return -1


@njit(cache=True)
def spend_ability(st, ctx, a):
    st[O.ABIL + 2 * a] = C.SPENT
    log(st, ctx, E.ABILITY, a, E.ABILITY_USED, st[O.ABIL + 2 * a + 1], 0)


@njit(cache=True)
def release_tow(st, v):
    """Unhook a tow that v pulls."""
    towed = st[vx(v, O.V_TOWING)]
    if towed >= 0:
        st[vx(towed, O.V_TOWED_BY)] = -1
        st[vx(v, O.V_TOWING)] = -1
        st[vx(v, O.V_ORDER)] = C.NO_ORDER
        st[vx(v, O.V_DEST)] = -1


@njit(cache=True)
def heavy_damage(st, R, ctx, decide, v, location, die):
    """§7.1.3: destroyed (APC, or a location hit twice), else marked, stunned on hull or
    turret, immobilised on tracks; the RoE moves."""
    log(st, ctx, E.HEAVY_DAMAGE, v, location, die, 0)
    st[L.X_HEAVY_HITS] += 1
    if not R.is_tank[v] or has(st, v, O.V_HEAVY, location):
        log(st, ctx, E.DESTROYED, v, 0, 0, 0)
        end_game(st, ctx, E.END_DESTROYED)
        return
    st[vx(v, O.V_HEAVY)] |= 1 << location
    if location == C.HULL:
        st[vx(v, O.V_HULL_GREEN)] = 1
    if location == C.HULL or location == C.TURRET:
        st[vx(v, O.V_STUN)] = 1
    if location == C.TRACKS:
        release_tow(st, v)
        st[vx(v, O.V_ORDER)] = C.NO_ORDER
        st[vx(v, O.V_DEST)] = -1
        st[vx(v, O.V_TOW_TARGET)] = -1
    delta = R.s[T.S_HEAVY_FIRE] if st[O.FIRE_ROE] > 0 else R.s[T.S_HEAVY_HOLD]
    change_roe(st, R, ctx, decide, delta, E.ROE_HEAVY)


@njit(cache=True)
def kill_commander(st, R, ctx, decide, v):
    """§7.1.2-7.1.3: VL2's commander loses the game; others get one TC KIA marker."""
    if v == R.s[T.S_COMMANDER]:
        end_game(st, ctx, E.END_VL2_KILLED)
        return
    if st[vx(v, O.V_KIA)]:
        return
    st[vx(v, O.V_KIA)] = 1
    delta = R.s[T.S_KIA_FIRE] if st[O.FIRE_ROE] > 0 else R.s[T.S_KIA_HOLD]
    change_roe(st, R, ctx, decide, delta, E.ROE_KIA)


@njit(cache=True)
def new_game(st, R):
    """§3 Prepare for play, written into st."""
    st[:] = 0
    st[O.MARKER : O.MARKER + C.N_POSITIONS] = -1
    st[O.TURN] = 1
    st[O.TURN_LIMIT] = R.s[T.S_TURN_LIMIT]
    st[O.DEADLINE] = R.s[T.S_DEADLINE_START]
    st[O.ROE] = R.s[T.S_ROE_START]
    st[O.PAIR_FIRST] = -1
    st[O.PAIR_SECOND] = -1
    for v in range(R.s[T.S_N_VEHICLES]):
        st[vx(v, O.V_POS)] = R.s[T.S_START]
        st[vx(v, O.V_DEST)] = -1
        st[vx(v, O.V_HULL_GREEN)] = 1
        st[vx(v, O.V_TOWING)] = -1
        st[vx(v, O.V_TOWED_BY)] = -1
        st[vx(v, O.V_TOW_TARGET)] = -1
        st[L.ASIDE + v] = R.s[T.S_N_POOL_CHITS] + v
    st[L.X_N_ASIDE] = R.s[T.S_N_VEHICLES]
    for i in range(R.s[T.S_N_POOL_CHITS]):
        st[L.POOL + i] = i
    st[L.X_N_POOL] = R.s[T.S_N_POOL_CHITS]
    st[L.TRACKS + L.TRACK_CAP * C.ART] = R.s[T.S_SETUP_CHIT]
    st[O.TRACK_LEN + C.ART] = 1
    st[L.X_RETIRED] = -1
    for m in range(R.s[T.S_N_MARKERS]):
        k = R.marker_pool[m] - 1
        st[L.MPOOLS + 4 * k + st[L.X_N_MPOOL + k]] = m
        st[L.X_N_MPOOL + k] += 1


@njit(cache=True)
def popcount(x):
    n = 0
    while x:
        n += x & 1
        x >>= 1
    return n
