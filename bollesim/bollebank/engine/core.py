"""Kernels shared by the fast engine's phases: state access, luck, decisions, the event
record, RoE and HQ abilities, damage and game over (the reference engine's state.py,
table.py and effects.py).

Every kernel takes `st` (layout.py: state, streams, parameters, options, rules and trace
in one int64 vector) and, where a player choice may come up, `decide` (player.py).
"""

from bollesim import rng
from bollesim.bollebank import codes, decisions, events, observation
from bollesim.bollebank.engine import draws, layout, tables
from bollesim.bollebank.engine.player import ask_yes_no
from bollesim.bollebank.rules import access
from bollesim.jit import compiled, unlikely


@compiled(inline=True)
def vx(v, field):
    """Index of a vehicle field in the state."""
    return observation.VEH + observation.V_FIELDS * v + field


@compiled(inline=True)
def has(st, v, field, bit):
    return (st[vx(v, field)] >> bit) & 1


@compiled(inline=True)
def pos(st, v):
    return st[vx(v, observation.V_POS)]


@compiled
def log(st, kind, a, b, c, d):
    """Record an event while the trace region has room (rows: turn, kind, a, b, c, d)."""
    capacity = (st.shape[0] - layout.TRACE) // layout.TRACE_WIDTH
    if capacity == 0:
        return
    n = st[layout.X_N_EVENTS]
    if n < capacity:
        row = layout.TRACE + layout.TRACE_WIDTH * n
        st[row] = st[observation.TURN]
        st[row + 1] = kind
        st[row + 2] = a
        st[row + 3] = b
        st[row + 4] = c
        st[row + 5] = d
    st[layout.X_N_EVENTS] = n + 1


# ------------------------------------------------------------------ regions and luck


@compiled(inline=True)
def fill(st, at, n, value):
    """st[at : at + n] = value, without making an array view."""
    for i in range(at, at + n):
        st[i] = value


# Every chance draw: a replay that declares its draws (draws.py) sets st[layout.DRAW_MODE].
# Inlined by numba (bollesim/jit.py): compiled apart, the hook made each draw a call that
# LLVM no longer inlined, some 2% of the games' time; the hook is tested with `unlikely`,
# as no batch game ever takes it.


@compiled(inline=True)
def d6(st, purpose):
    """One die of `purpose` (luck.py) this turn, every face read."""
    face = rng.keyed_d6(st, st[observation.TURN], purpose, layout.CHANCE)
    if unlikely(st[layout.DRAW_MODE]):
        face = draws.declared(st, purpose, draws.DIE, face - 1, 6, 0, 0, 0) + 1
    return face


@compiled(inline=True)
def d6_cuts(st, purpose, lo, hi):
    """One die of `purpose` of which the rules read only whether it reaches lo and hi."""
    face = rng.keyed_d6(st, st[observation.TURN], purpose, layout.CHANCE)
    if unlikely(st[layout.DRAW_MODE]):
        face = draws.declared(st, purpose, draws.DIE_CUTS, face - 1, 6, 0, lo - 1, hi - 1) + 1
    return face


@compiled(inline=True)
def d6_table(st, purpose, at):
    """One die of `purpose` of which the rules read only st[at + face - 1]."""
    face = rng.keyed_d6(st, st[observation.TURN], purpose, layout.CHANCE)
    if unlikely(st[layout.DRAW_MODE]):
        face = draws.declared(st, purpose, draws.DIE_TABLE, face - 1, 6, at, 0, 0) + 1
    return face


@compiled(inline=True)
def two_d6_cuts(st, purpose, lo, hi):
    """Two dice of `purpose` added, of which the rules read only whether the sum reaches
    lo and hi."""
    roll = rng.keyed_two_d6(st, st[observation.TURN], purpose, layout.CHANCE)
    if unlikely(st[layout.DRAW_MODE]):
        roll = draws.declared(st, purpose, draws.DICE_CUTS, roll - 2, draws.DICE_SUMS, 0, lo - 2,
                              hi - 2) + 2
    return roll


@compiled(inline=True)
def pick(st, n, purpose):
    """One of n, drawn for `purpose` this turn."""
    i = rng.keyed_below(st, n, st[observation.TURN], purpose, layout.CHANCE)
    if unlikely(st[layout.DRAW_MODE]):
        i = draws.declared(st, purpose, draws.INDEX, i, n, 0, 0, 0)
    return i


@compiled(inline=True)
def pick_in(st, at, n, purpose, how):
    """The index of one of the n items at st[at:] (chits or markers: draws.HOW), drawn
    for `purpose` this turn."""
    i = rng.keyed_below(st, n, st[observation.TURN], purpose, layout.CHANCE)
    if unlikely(st[layout.DRAW_MODE]):
        i = draws.declared(st, purpose, how, i, n, at, 0, 0)
    return i


# ------------------------------------------------------------------ multi-dimensional rules
# The packed ruleset's tables, read with rules/access.py at st[L.RULES:].


@compiled(inline=True)
def distance(st, a, b):
    return access.distance(st, a, b, layout.RULES)


@compiled(inline=True)
def next_step(st, a, b):
    return access.next_step(st, a, b, layout.RULES)


@compiled(inline=True)
def adjacent(st, a, b):
    return access.adjacent(st, a, b, layout.RULES)


@compiled(inline=True)
def pos_bsa(st, p, weapon):
    return access.pos_bsa(st, p, weapon, layout.RULES)


@compiled(inline=True)
def pos_un(st, p, track):
    return access.pos_un(st, p, track, layout.RULES)


@compiled(inline=True)
def marker_bsa(st, m, side, weapon):
    return access.marker_bsa(st, m, side, weapon, layout.RULES)


@compiled(inline=True)
def marker_un(st, m, side, track):
    return access.marker_un(st, m, side, track, layout.RULES)


@compiled(inline=True)
def spread(st, town, k):
    return access.spread(st, town, k, layout.RULES)


@compiled(inline=True)
def matrix_fire(st, a, b):
    return access.matrix_fire(st, a, b, layout.RULES)


@compiled(inline=True)
def matrix_move(st, a, b):
    return access.matrix_move(st, a, b, layout.RULES)


@compiled(inline=True)
def matrix_platoon(st, a, b):
    return access.matrix_platoon(st, a, b, layout.RULES)


@compiled(inline=True)
def hit_table(st, weapon, face):
    return access.hit_table(st, weapon, face, layout.RULES)


@compiled(inline=True)
def ability_sides(st, a, side):
    return access.ability_sides(st, a, side, layout.RULES)


# ------------------------------------------------------------------ tracks and pool


@compiled(inline=True)
def track_len(st, t):
    return st[observation.TRACK_LEN + t]


@compiled(inline=True)
def last_chit(st, t):
    return st[layout.TRACKS + layout.TRACK_CAP * t + st[observation.TRACK_LEN + t] - 1]


@compiled(inline=True)
def count_in_pool(st, chit, delta):
    """Keep the observation's pool counts live as chit enters (+1) or leaves (-1)."""
    kind = st[tables.CHIT_TYPE + chit]
    st[observation.POOL_WEAPONS] += delta * (kind != codes.RU)
    st[observation.POOL_TANKS] += delta * (kind == codes.TANK)


@compiled(inline=True)
def pool_append(st, chit):
    st[layout.POOL + st[layout.X_N_POOL]] = chit
    st[layout.X_N_POOL] += 1
    count_in_pool(st, chit, 1)


@compiled
def artillery_silent(st):
    """§8: the lowest artillery marker is a "No Artillery" one."""
    last = last_chit(st, codes.ART)
    if last == st[tables.S_SETUP_CHIT]:
        return st[layout.X_SETUP_FLIPPED] == 1
    return st[tables.CHIT_ART_TARGET + last] == codes.NO_ART


@compiled(inline=True)
def in_town(st, position, town):
    """At a town's contact point or one of its overwatches (§5.4.1)."""
    return access.town_of(st, position, layout.RULES) == town


@compiled(inline=True)
def in_saraci(st, position):
    """I-TACV, I-TOW-SARACI."""
    return access.in_saraci(st, position, layout.RULES)


# ------------------------------------------------------------------ decisions


@compiled
def track_changed(st, t):
    """Keep the observation's view of track t live: its last chit's letter, and for the
    artillery track whether it is silent (§8) and its target (§7.2)."""
    st[observation.TRACK_LETTER + t] = st[tables.CHIT_LETTER + last_chit(st, t)] if track_len(st, t) else 0
    if t == codes.ART:
        silent = artillery_silent(st)
        st[observation.ART_SILENT] = silent
        st[observation.ART_TARGET] = codes.NO_ART if silent else st[tables.CHIT_ART_TARGET + last_chit(st, codes.ART)]


# ------------------------------------------------------------------ effects


@compiled
def end_game(st, reason):
    if st[layout.X_OVER] == 0:
        st[layout.X_OVER] = 1
        st[layout.X_END_REASON] = reason
        log(st, events.GAME_END, reason, 0, 0, 0)


@compiled
def change_roe(st, decide, delta, cause):
    """Move the RoE marker, clamped to the track (I-ROE0), then check abilities (§5.5)."""
    new = min(max(st[observation.ROE] + delta, st[tables.S_ROE_MIN]), st[tables.S_ROE_MAX])
    if new != st[observation.ROE]:
        st[observation.ROE] = new
        log(st, events.ROE, new, delta, cause, 0)
    update_abilities(st, decide)


@compiled
def update_abilities(st, decide):
    """§5.5 availability at the ability's RoE level; back to the track below it (I-SPENT)."""
    for a in range(3):
        state = observation.ABIL + 2 * a
        level = st[tables.ABILITY_LEVEL + a]
        if st[state] == codes.ON_TRACK and st[observation.ROE] >= level:
            st[state + 1] = ask_yes_no(st, decide, decisions.ABILITY_SIDE, a)
            st[state] = codes.AVAILABLE
            log(st, events.ABILITY, a, events.ABILITY_AVAILABLE, st[state + 1], 0)
        elif st[observation.ROE] < level and (
            st[state] == codes.AVAILABLE or (st[state] == codes.SPENT and st[tables.S_SPENT_RETURNS])
        ):
            st[state] = codes.ON_TRACK
            log(st, events.ABILITY, a, events.ABILITY_RETURNED, st[state + 1], 0)


@compiled
def ability_ready(st, ability):
    """The marker showing `ability` in its box with its commander alive, else -1."""
    for a in range(3):
        if (
            st[observation.ABIL + 2 * a] == codes.AVAILABLE
            and ability_sides(st, a, st[observation.ABIL + 2 * a + 1]) == ability
            and st[vx(st[tables.ABILITY_VEHICLE + a], observation.V_KIA)] == 0
        ):
            return a
    return -1


@compiled(inline=True)
def ability_at(st, a, place):
    """§5.5: marker a's command vehicle stands at st[place] (tables.S_EXTRA_ORDER_AT...)."""
    return pos(st, st[tables.ABILITY_VEHICLE + a]) == st[place]


@compiled(inline=True)
def within_reach(st, a, v):
    """§5.5 Extra move, Extra fire: v is marker a's vehicle or within reach of it."""
    return distance(st, pos(st, st[tables.ABILITY_VEHICLE + a]), pos(st, v)) <= st[tables.S_QL1_RANGE]


@compiled
def spend_ability(st, a):
    st[observation.ABIL + 2 * a] = codes.SPENT
    log(st, events.ABILITY, a, events.ABILITY_USED, st[observation.ABIL + 2 * a + 1], 0)


@compiled
def release_tow(st, v):
    """Unhook a tow that v pulls."""
    towed = st[vx(v, observation.V_TOWING)]
    if towed >= 0:
        st[vx(towed, observation.V_TOWED_BY)] = -1
        st[vx(v, observation.V_TOWING)] = -1
        st[vx(v, observation.V_ORDER)] = codes.NO_ORDER
        st[vx(v, observation.V_DEST)] = -1


@compiled
def note_loss(st, v, weapon, ends_game):
    """The loss columns (reference: effects.note_loss): the turn of the first loss, and
    for the loss that ends the game (§8 defeat) the vehicle, the weapon and its place."""
    if st[layout.X_FIRST_LOSS_TURN] == 0:
        st[layout.X_FIRST_LOSS_TURN] = st[observation.TURN]
    if ends_game:
        st[layout.X_LOSS_VEHICLE] = v + 1
        st[layout.X_LOSS_CAUSE] = weapon + 1
        st[layout.X_LOSS_PLACE] = pos(st, v) + 1


@compiled
def heavy_damage(st, decide, v, location, die, apc_survives, weapon):
    """§7.1.3: destroyed (APC, or a location hit twice), else marked, stunned on hull or
    turret, immobilised on tracks; the RoE moves. With apc_survives (artillery under
    I-ART-APC "location") an APC is marked like a tank. weapon: the attack's (§7)."""
    log(st, events.HEAVY_DAMAGE, v, location, die, 0)
    st[layout.X_HEAVY_HITS] += 1
    destroyed = (not st[tables.IS_TANK + v] and not apc_survives) or has(st, v, observation.V_HEAVY, location)
    note_loss(st, v, weapon, destroyed)
    if destroyed:
        log(st, events.DESTROYED, v, 0, 0, 0)
        end_game(st, events.END_DESTROYED)
        return
    st[vx(v, observation.V_HEAVY)] |= 1 << location
    if location == codes.HULL:
        st[vx(v, observation.V_HULL_GREEN)] = 1
    if location == codes.HULL or location == codes.TURRET:
        st[vx(v, observation.V_STUN)] = 1
    if location == codes.TRACKS:
        release_tow(st, v)
        st[vx(v, observation.V_ORDER)] = codes.NO_ORDER
        st[vx(v, observation.V_DEST)] = -1
        st[vx(v, observation.V_TOW_TARGET)] = -1
    delta = st[tables.S_HEAVY_FIRE] if st[observation.FIRE_ROE] > 0 else st[tables.S_HEAVY_HOLD]
    change_roe(st, decide, delta, events.ROE_HEAVY)


@compiled
def kill_commander(st, decide, v):
    """§7.1.2-7.1.3: VL2's commander loses the game; others get one TC KIA marker. Only
    an HMG attack kills a commander (§7.1.2)."""
    if v == st[tables.S_COMMANDER]:
        note_loss(st, v, codes.HMG, True)
        end_game(st, events.END_VL2_KILLED)
        return
    if st[vx(v, observation.V_KIA)]:
        return
    note_loss(st, v, codes.HMG, False)
    st[vx(v, observation.V_KIA)] = 1
    delta = st[tables.S_KIA_FIRE] if st[observation.FIRE_ROE] > 0 else st[tables.S_KIA_HOLD]
    change_roe(st, decide, delta, events.ROE_KIA)


@compiled
def new_game(st, seed, game):
    """§3 Prepare for play: reset the state region of st (the rules, parameters and trace
    regions stay) and seed the game's two streams from (seed, game)."""
    st[: layout.STATE_SIZE] = 0
    st[layout.PLAN_GOALS] = -1
    rng.init_stream(st[layout.CHANCE : layout.CHANCE + layout.CHANCE_SIZE], seed, game, rng.CHANCE)
    rng.init_stream(st[layout.PRNG : layout.PRNG + 2], seed, game, rng.POLICY)
    st[observation.MARKER : observation.MARKER + codes.N_POSITIONS] = -1
    st[observation.TURN] = 1
    st[observation.TURN_LIMIT] = st[tables.S_TURN_LIMIT]
    st[observation.DEADLINE] = st[tables.S_DEADLINE_START]
    st[observation.ROE] = st[tables.S_ROE_START]
    st[observation.PAIR_FIRST] = -1
    st[observation.PAIR_SECOND] = -1
    for v in range(tables.NV):
        st[vx(v, observation.V_POS)] = st[tables.S_START]
        st[vx(v, observation.V_DEST)] = -1
        st[vx(v, observation.V_HULL_GREEN)] = 1
        st[vx(v, observation.V_TOWING)] = -1
        st[vx(v, observation.V_TOWED_BY)] = -1
        st[vx(v, observation.V_TOW_TARGET)] = -1
        st[layout.ASIDE + v] = st[tables.S_N_POOL_CHITS] + v
    st[layout.X_N_ASIDE] = tables.NV
    for i in range(st[tables.S_N_POOL_CHITS]):
        pool_append(st, i)
    st[layout.TRACKS + layout.TRACK_CAP * codes.ART] = st[tables.S_SETUP_CHIT]
    st[observation.TRACK_LEN + codes.ART] = 1
    track_changed(st, codes.ART)
    st[layout.X_RETIRED] = -1
    for m in range(st[tables.S_N_MARKERS]):
        k = st[tables.MARKER_POOL + m] - 1
        st[layout.MPOOLS + layout.MPOOL_CAP * k + st[layout.X_N_MPOOL + k]] = m
        st[layout.X_N_MPOOL + k] += 1
