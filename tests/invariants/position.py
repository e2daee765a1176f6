"""Invariants of any position, whatever the phase (chits, markers, ability levels, tow
links, hit counts, references in range, the observation), and the rules restated that
the phases' checks share: what the rulebook says, written from its tables, not taken from
the engine's helpers."""

from __future__ import annotations

from bollesim.bits import popcount
from bollesim.bollebank import codes, events, observation
from bollesim.bollebank.engine import layout, tables
from bollesim.bollebank.engine.core import has, last_chit, pos, track_len, vx
from bollesim.jit import compiled
from invariants.violations import (
    ABILITY_VS_ROE,
    CHIT_MISPLACED,
    CHIT_WRONG_PLACE,
    DAMAGE_COUNTS,
    MARKER_MISPLACED,
    OBSERVATION_STALE,
    OK,
    OUT_OF_RANGE,
    TOW_BROKEN,
)

MPOOL_CAP = 4  # layout.py: marker pool k is st[MPOOLS + 4*k : + 4]
HULL_OR_TURRET = (1 << codes.HULL) | (1 << codes.TURRET)


@compiled(inline=True)
def silent(st):
    """§8 "artillery on Vis is silent": the last marker of the artillery track shows "No
    Artillery": a regular No Artillery chit, or the Saraci setup marker once fire flipped
    it (§6.3)."""
    last = st[layout.TRACKS + layout.TRACK_CAP * codes.ART + st[observation.TRACK_LEN + codes.ART] - 1]
    if last == st[tables.S_SETUP_CHIT]:
        return st[layout.X_SETUP_FLIPPED] == 1
    return st[tables.CHIT_ART_TARGET + last] == codes.NO_ART


@compiled(inline=True)
def in_saraci(st, p):
    """I-TACV, I-TOW-SARACI: "in Saraci" is the Saraci contact point or one of the
    overwatches of the town S (§2.1.1)."""
    return p == st[tables.S_SARACI] or (
        st[tables.POS_KIND + p] == codes.OW and st[tables.POS_TOWN + p] == codes.TOWN_S
    )


@compiled(inline=True)
def fire_icon(st, p, track):
    """§6.3, R-FOF: p shows a blue fire icon for `track`: the icons of the enemy-action
    marker on p if one was drawn there (§6.2, its side up), else the position's own."""
    marker = st[observation.MARKER + p]
    if marker >= 0:
        return st[tables.MARKER_UN + 8 * (marker // 2) + 4 * (marker % 2) + track] == 1
    return st[tables.POS_UN + 4 * p + track] == 1


@compiled(inline=True)
def exposed(st, p, weapon):
    """§7.1, R-FOF, R-EAM: (the BSA `weapon` can fire at p, p's firing priority), from the
    enemy-action marker on p if one was drawn there, else from the position."""
    marker = st[observation.MARKER + p]
    if marker >= 0:
        m, side = marker // 2, marker % 2
        return st[tables.MARKER_BSA + 6 * m + 3 * side + weapon] == 1, st[tables.MARKER_FP + m]
    return st[tables.POS_BSA + 3 * p + weapon] == 1, st[tables.POS_FP + p]


@compiled(inline=True)
def shows(st, a, ability):
    """§5.5: ability marker a, the side up that it shows now, is `ability`."""
    return st[tables.ABILITY_SIDES + 2 * a + st[observation.ABIL + 2 * a + 1]] == ability


@compiled(inline=True)
def traced(st):
    """st has a trace region, so the phase's events can be read."""
    return st.shape[0] > layout.TRACE


@compiled(inline=True)
def event(st, i, arg):
    """Argument `arg` (0..3) of the i-th event of the phase (events.py: turn, kind, a..d)."""
    return st[layout.TRACE + layout.TRACE_WIDTH * i + 2 + arg]


@compiled(inline=True)
def event_kind(st, i):
    return st[layout.TRACE + layout.TRACE_WIDTH * i + 1]


@compiled
def in_range(st):
    """Counts within their regions (layout.py), positions on the map (R-MAP), vehicle
    references -1 or a vehicle."""
    if not (0 <= st[layout.X_N_POOL] <= layout.POOL_CAP and 0 <= st[layout.X_N_ASIDE] <= layout.ASIDE_CAP):
        return OUT_OF_RANGE
    for t in range(codes.N_TRACKS):
        if not 0 <= st[observation.TRACK_LEN + t] <= layout.TRACK_CAP:
            return OUT_OF_RANGE
    for k in range(2):
        if not 0 <= st[layout.X_N_MPOOL + k] <= MPOOL_CAP:
            return OUT_OF_RANGE
    for v in range(tables.NV):
        if not 0 <= pos(st, v) < tables.NP:
            return OUT_OF_RANGE
        for field in (observation.V_TOWING, observation.V_TOWED_BY, observation.V_TOW_TARGET):
            if not -1 <= st[vx(v, field)] < tables.NV:
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
    n = st[tables.S_SETUP_CHIT] + 1  # chits: the pool's, one random unit per vehicle, the marker
    total = st[layout.X_N_POOL] + st[layout.X_N_ASIDE]
    bits = chit_bits(st, layout.POOL, st[layout.X_N_POOL], n) | chit_bits(st, layout.ASIDE, st[layout.X_N_ASIDE], n)
    for t in range(codes.N_TRACKS):
        total += st[observation.TRACK_LEN + t]
        bits |= chit_bits(st, layout.TRACKS + layout.TRACK_CAP * t, st[observation.TRACK_LEN + t], n)
    if st[layout.X_RETIRED] >= 0:
        total += 1
        bits |= chit_bits(st, layout.X_RETIRED, 1, n)
    everyone = -1 if n == 64 else (1 << n) - 1
    return OK if total == n and bits == everyone else CHIT_MISPLACED


@compiled
def chit_kinds(st):
    """§2.1.2: a track holds chits of its own type; §7.2: only random-unit chits are set
    aside; §5.3: only the civilian car retires."""
    for t in range(codes.N_TRACKS):
        for i in range(st[observation.TRACK_LEN + t]):
            if st[tables.CHIT_TYPE + st[layout.TRACKS + layout.TRACK_CAP * t + i]] != t:
                return CHIT_WRONG_PLACE
    for i in range(st[layout.X_N_ASIDE]):
        if st[tables.CHIT_TYPE + st[layout.ASIDE + i]] != codes.RU:
            return CHIT_WRONG_PLACE
    retired = st[layout.X_RETIRED]
    if retired >= 0 and st[tables.CHIT_TYPE + retired] != codes.CAR:
        return CHIT_WRONG_PLACE
    return OK


@compiled
def observation_live(st):
    """The engine keeps the observation's derived slots live (core.count_in_pool,
    core.track_changed, orders.open_fire): they must match a fresh count of the state."""
    weapons, tanks = 0, 0
    for i in range(st[layout.X_N_POOL]):
        kind = st[tables.CHIT_TYPE + st[layout.POOL + i]]
        weapons += kind != codes.RU
        tanks += kind == codes.TANK
    if st[observation.POOL_WEAPONS] != weapons or st[observation.POOL_TANKS] != tanks:
        return OBSERVATION_STALE
    for t in range(codes.N_TRACKS):
        letter = st[tables.CHIT_LETTER + last_chit(st, t)] if track_len(st, t) else 0
        if st[observation.TRACK_LETTER + t] != letter:
            return OBSERVATION_STALE
    quiet = silent(st)
    target = codes.NO_ART if quiet else st[tables.CHIT_ART_TARGET + last_chit(st, codes.ART)]
    if st[observation.ART_SILENT] != quiet or st[observation.ART_TARGET] != target:
        return OBSERVATION_STALE
    return OK if st[observation.FIRED] == (st[observation.FIRE_ROE] > 0) else OBSERVATION_STALE


@compiled
def marker_places(st):
    """§6.2, R-EAM: each enemy-action marker is in its pool or on one position that draws
    from that pool; only a 7-8-9 marker may show its second side."""
    n = st[tables.S_N_MARKERS]
    total = 0
    bits = 0
    for k in range(2):
        for i in range(st[layout.X_N_MPOOL + k]):
            m = st[layout.MPOOLS + MPOOL_CAP * k + i]
            if not 0 <= m < n or st[tables.MARKER_POOL + m] != k + 1:
                return MARKER_MISPLACED
            total += 1
            bits |= 1 << m
    for p in range(tables.NP):
        code = st[observation.MARKER + p]
        if code == -1:
            continue
        m, side = code // 2, code % 2
        if not 0 <= m < n or st[tables.MARKER_POOL + m] != st[tables.POS_EAM_POOL + p]:
            return MARKER_MISPLACED
        if side and st[tables.MARKER_POOL + m] != codes.POOL_789:
            return MARKER_MISPLACED
        total += 1
        bits |= 1 << m
    return OK if total == n and bits == (1 << n) - 1 else MARKER_MISPLACED


@compiled
def ability_levels(st):
    """§5.5: a marker is in its box (available) at or above its RoE level and back on the
    track below it; under I-SPENT's other reading a spent one returns below it too."""
    for a in range(3):
        state, side = st[observation.ABIL + 2 * a], st[observation.ABIL + 2 * a + 1]
        above = st[observation.ROE] >= st[tables.ABILITY_LEVEL + a]
        if not (0 <= state <= codes.SPENT and 0 <= side <= 1):
            return ABILITY_VS_ROE
        if (state == codes.AVAILABLE and not above) or (state == codes.ON_TRACK and above):
            return ABILITY_VS_ROE
        if state == codes.SPENT and st[tables.S_SPENT_RETURNS] and not above:
            return ABILITY_VS_ROE
    return OK


@compiled
def tow_links(before, st):
    """§5.4.3: a rescuer tank tows a tracks-damaged tank stacked with it under its Tow
    order, both sides of the link agree, and a tank in tow ends each phase with the
    rescuer it had at the start (they move together)."""
    for v in range(tables.NV):
        towed = st[vx(v, observation.V_TOWING)]
        if towed >= 0 and (
            st[vx(towed, observation.V_TOWED_BY)] != v
            or pos(st, towed) != pos(st, v)
            or not st[tables.IS_TANK + v]
            or not has(st, towed, observation.V_HEAVY, codes.TRACKS)
            or st[vx(v, observation.V_ORDER)] != codes.TOW
        ):
            return TOW_BROKEN
        rescuer = st[vx(v, observation.V_TOWED_BY)]
        if rescuer >= 0 and st[vx(rescuer, observation.V_TOWING)] != v:
            return TOW_BROKEN
        rescuer = before[vx(v, observation.V_TOWED_BY)]
        if rescuer >= 0 and pos(st, v) != pos(st, rescuer):
            return TOW_BROKEN
    return OK


@compiled
def hit_counts(st):
    """Each light hit marks a new light damage (§7.2.1 re-rolls one already there); each
    heavy hit marks a new location, but the one that destroys a vehicle (§7.1.3)."""
    light = 0
    heavy = 0
    for v in range(tables.NV):
        light += popcount(st[vx(v, observation.V_LIGHT)])
        heavy += popcount(st[vx(v, observation.V_HEAVY)])
    destroyed = st[layout.X_OVER] == 1 and st[layout.X_END_REASON] == events.END_DESTROYED
    if st[layout.X_LIGHT_HITS] != light or st[layout.X_HEAVY_HITS] != heavy + destroyed:
        return DAMAGE_COUNTS
    return OK
