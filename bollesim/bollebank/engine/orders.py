"""§5 Orders phase (reference: reference/orders.py): pairs, Order Matrix, orders."""

from bollesim.bits import lowest, popcount
from bollesim.bollebank import codes, decisions, events, luck, observation
from bollesim.bollebank.decisions import order_dest, order_kind, order_mask, pack_order
from bollesim.bollebank.engine import draws, layout, tables
from bollesim.bollebank.engine.core import (
    ability_at,
    ability_ready,
    count_in_pool,
    d6_table,
    distance,
    has,
    in_saraci,
    in_town,
    log,
    matrix_fire,
    matrix_move,
    matrix_platoon,
    pick_in,
    pos,
    release_tow,
    spend_ability,
    spread,
    track_changed,
    vx,
)
from bollesim.bollebank.engine.player import (
    airstrike_score,
    ask,
    ask_yes_no,
    family_plays,
    fire_score,
    options,
    order_score,
    tows,
    wishes,
)
from bollesim.bollebank.engine.radio import received
from bollesim.bollebank.scripted.tactics import place_of
from bollesim.jit import compiled

KIND_BITS_ALL = (1 << codes.MOVE) | (1 << codes.FIRE) | (1 << codes.TOW) | (1 << codes.AIRSTRIKE)


@compiled
def orders_phase(st, decide):
    """§4 step 1, §5.3: draw pairs until the player stops, doubles, or I-POOL."""
    st[observation.PAIRS_THIS_TURN] = 0
    choose_vl2_destination(st, decide)
    while st[layout.X_OVER] == 0:
        left = st[observation.POOL_WEAPONS]
        if left < st[tables.S_POOL_MIN]:
            log(st, events.POOL_EXHAUSTED, left, 0, 0, 0)
            break
        first, second = draw_pair(st)
        if first < 0:  # the civilian car
            continue
        a, b = st[tables.CHIT_TYPE + first], st[tables.CHIT_TYPE + second]
        st[observation.PAIRS_THIS_TURN] += 1
        st[observation.PAIR_FIRST] = a
        st[observation.PAIR_SECOND] = b
        log(
            st,
            events.PAIR,
            first,
            second,
            matrix_fire(st, a, b),
            matrix_move(st, a, b) + 2 * matrix_platoon(st, a, b),
        )
        offer_order(st, decide, a, b)
        place_on_track(st, first)
        place_on_track(st, second)
        st[observation.PAIR_FIRST] = -1
        st[observation.PAIR_SECOND] = -1
        if a == b:
            refresh_ability(st, decide)
            break
        if not ask_yes_no(st, decide, decisions.DRAW_AGAIN, 0):
            break


@compiled
def draw_chit(st):
    """One chit from the pool; the last chit fills the hole."""
    n = st[layout.X_N_POOL]
    i = pick_in(st, layout.POOL, n, luck.CHIT, draws.CHITS)
    chit = st[layout.POOL + i]
    st[layout.POOL + i] = st[layout.POOL + n - 1]
    st[layout.X_N_POOL] = n - 1
    count_in_pool(st, chit, -1)
    st[layout.X_CHITS_DRAWN] += 1
    log(st, events.DRAW, chit, 0, 0, 0)
    return chit


@compiled
def draw_pair(st):
    """Two weapon chits, or (-1, -1) after the civilian car (§5.3, §7.2.1)."""
    first = second = -1
    while second < 0:
        chit = draw_chit(st)
        if st[tables.CHIT_TYPE + chit] == codes.RU:
            light_damage(st, st[tables.CHIT_VEHICLE + chit])
            st[layout.ASIDE + st[layout.X_N_ASIDE]] = chit
            st[layout.X_N_ASIDE] += 1
        elif first < 0:
            first = chit
        else:
            second = chit
    if st[tables.CHIT_TYPE + first] != codes.CAR and st[tables.CHIT_TYPE + second] != codes.CAR:
        return first, second
    car, other = (first, second) if st[tables.CHIT_TYPE + first] == codes.CAR else (second, first)
    log(st, events.CIVILIAN_CAR, car, other, 0, 0)
    st[layout.X_RETIRED] = car
    place_on_track(st, other)
    return -1, -1


@compiled
def light_damage(st, v):
    """§7.2.1: roll the light damage, re-rolling damage already sustained."""
    if popcount(st[vx(v, observation.V_LIGHT)]) >= 3:
        log(st, events.LIGHT_DAMAGE, v, -1, 0, 0)
        return
    while True:
        die = d6_table(st, luck.LIGHT_DAMAGE, tables.LIGHT_TABLE)
        kind = st[tables.LIGHT_TABLE + (die - 1)]
        if not has(st, v, observation.V_LIGHT, kind):
            break
    st[vx(v, observation.V_LIGHT)] |= 1 << kind
    st[layout.X_LIGHT_HITS] += 1
    log(st, events.LIGHT_DAMAGE, v, kind, die, 0)


@compiled(inline=True)
def place_on_track(st, chit):
    t = st[tables.CHIT_TYPE + chit]
    n = st[observation.TRACK_LEN + t]
    st[layout.TRACKS + layout.TRACK_CAP * t + n] = chit
    st[observation.TRACK_LEN + t] = n + 1
    track_changed(st, t)
    log(st, events.PLACE, chit, t, n + 1, 0)


# ------------------------------------------------------------------ orders on offer


@compiled
def choose_vl2_destination(st, decide):
    """§5: VL2 is the player; its destination is a free choice."""
    vl2 = st[tables.S_COMMANDER]
    allowed = destinations(st, vl2)
    if family_plays(st, decisions.VL2_DESTINATION) and not st[layout.SCRIPT_ON]:  # its wish: one Move
        plan = (wishes(st, 1 << vl2), -1, -1, False)  # (order_score) only Moves are on offer
        wish = place_of(plan[0], vl2)
        code = pack_order(codes.MOVE, 1 << vl2, wish)
        worth = wish >= 0 and (allowed >> wish) & 1 and order_score(st, plan, code) > 0
        choice = code if worth else decisions.PASS
    else:
        opts = options(st)
        opts[0] = decisions.PASS
        n = 1
        for d in range(tables.NP):
            if (allowed >> d) & 1:
                opts[n] = pack_order(codes.MOVE, 1 << vl2, d)
                n += 1
        choice = ask(st, decide, decisions.VL2_DESTINATION, n, 0, 0)
    if choice != decisions.PASS:
        st[vx(vl2, observation.V_DEST)] = order_dest(choice)
        log(st, events.VL2_DESTINATION, order_dest(choice), 0, 0, 0)


@compiled(inline=True)
def destinations(st, v):
    """Bit mask of v's valid Move destinations (§5.4.1, rules/board.py), less the one it
    already heads for."""
    mask = st[tables.DEST_MASK + pos(st, v)]
    dest = st[vx(v, observation.V_DEST)]
    if dest >= 0:
        mask &= ~(1 << dest)
    return mask


@compiled(inline=True)
def can_take_move(st, v):
    """Not the player's own vehicle, not immobilised, not in tow (a rescuer towing a
    tank may: the new order supersedes the tow, §5.4)."""
    return (
        v != st[tables.S_COMMANDER]
        and not has(st, v, observation.V_HEAVY, codes.TRACKS)
        and st[vx(v, observation.V_TOWED_BY)] < 0
    )


@compiled(inline=True)
def eligible(st, v, kind):
    if kind == codes.MOVE:
        return can_take_move(st, v)
    return st[tables.IS_TANK + v] == 1 and st[vx(v, observation.V_FIRE)] == 0


@compiled(inline=True)
def eligible_mask(st, kind):
    """The vehicles that may receive an order of this kind, as a bit mask."""
    mask = 0
    for v in range(tables.NV):
        if eligible(st, v, kind):
            mask |= 1 << v
    return mask


@compiled(inline=True)
def add_moves(opts, n, mask, allowed):
    """A MOVE of mask's vehicles to each member of `allowed`, in position order."""
    while allowed:
        opts[n] = pack_order(codes.MOVE, mask, lowest(allowed))
        n += 1
        allowed &= allowed - 1
    return n


@compiled(inline=True)
def may_spread(st, mask, town):
    """I-OW-SPREAD: every vehicle of mask is in the town, the town has an overwatch for
    each, and none is on its overwatch already."""
    rank = 0
    members = mask
    while members:
        here = pos(st, lowest(members))
        target = spread(st, town, rank)
        if target < 0 or target == here or not in_town(st, here, town):
            return False
        rank += 1
        members &= members - 1
    return True


@compiled
def group_destinations(st, mask):
    """The contact points every vehicle of a group may go to (§5.4.1), as a bit mask."""
    allowed = st[tables.CP_MASK]
    members = mask
    while members:
        allowed &= destinations(st, lowest(members))
        members &= members - 1
    return allowed


@compiled
def group_moves(st, opts, n, mask):
    """A group goes to a contact point all of its vehicles may go to, or spreads over a
    town's overwatches (I-OW-SPREAD)."""
    n = add_moves(opts, n, mask, group_destinations(st, mask))
    for town in (codes.TOWN_S, codes.TOWN_K):
        if may_spread(st, mask, town):
            opts[n] = pack_order(codes.MOVE, mask, decisions.SPREAD + town)
            n += 1
    return n


@compiled
def order_options(st, a, b, kinds, exclude):
    """The orders pair (a, b) allows now, packed into options(st), PASS first. Recipients
    are single vehicles, then (platoon scope) the platoon groups whose members can all
    take the order (rules/forces.py), none of them in `exclude`."""
    opts = options(st)
    opts[0] = decisions.PASS
    n = 1
    n_groups = st[tables.S_N_GROUPS] if matrix_platoon(st, a, b) == 1 else 0
    if matrix_move(st, a, b) and (kinds >> codes.MOVE) & 1:
        able = eligible_mask(st, codes.MOVE) & ~exclude
        singles = able
        while singles:
            v = lowest(singles)
            singles &= singles - 1
            n = add_moves(opts, n, 1 << v, destinations(st, v))
        for g in range(n_groups):
            mask = st[tables.GROUPS + g]
            if mask & ~able == 0:
                n = group_moves(st, opts, n, mask)
    if matrix_fire(st, a, b) and fire_allowed(st) and (kinds >> codes.FIRE) & 1:
        able = eligible_mask(st, codes.FIRE) & ~exclude
        singles = able
        while singles:
            opts[n] = pack_order(codes.FIRE, singles & -singles, -1)
            n += 1
            singles &= singles - 1
        for g in range(n_groups):
            mask = st[tables.GROUPS + g]
            if mask & ~able == 0:
                opts[n] = pack_order(codes.FIRE, mask, -1)
                n += 1
    if (kinds >> codes.TOW) & 1:
        n = tow_options(st, opts, n)
    if matrix_fire(st, a, b) and (kinds >> codes.AIRSTRIKE) & 1 and airstrike_allowed(st):
        opts[n] = pack_order(codes.AIRSTRIKE, 0, -1)
        n += 1
    return n


@compiled
def scripted_order(st, a, b, kinds, exclude):
    """The order the scripted family gives among those order_options lists (player.py):
    the first of the best-scored, found without listing them all. Only an order scored
    above 0 beats passing, and only these can be: a single Move to its vehicle's wish, a
    group's Move to a member's wish or a spread, a Fire order when Fire scores, a Tow, the
    airstrike. They are scored here in order_options' order, so the choice is the one the
    family makes from the full list (tests/test_scripted.py plays both). The family's plan
    is only worked out as far as the orders on offer need it."""
    moving = (kinds >> codes.MOVE) & 1 != 0 and matrix_move(st, a, b) != 0
    able = eligible_mask(st, codes.MOVE) & ~exclude if moving else 0
    firing = (kinds >> codes.FIRE) & 1 != 0 and matrix_fire(st, a, b) != 0 and fire_allowed(st)
    fire = fire_score(st) if firing else -1
    calling = (kinds >> codes.AIRSTRIKE) & 1 != 0 and matrix_fire(st, a, b) != 0
    calling = calling and airstrike_allowed(st)
    towing = (kinds >> codes.TOW) & 1 != 0 and tows(st)
    if not (able or fire > 0 or calling or towing):
        return decisions.PASS
    plan = (wishes(st, able) if able else 0, fire, airstrike_score(st), towing)
    best, top = decisions.PASS, 0
    n_groups = st[tables.S_N_GROUPS] if matrix_platoon(st, a, b) == 1 else 0
    if able:
        singles = able
        while singles:
            v = lowest(singles)
            singles &= singles - 1
            wish = place_of(plan[0], v)
            if wish >= 0 and (destinations(st, v) >> wish) & 1:
                best, top = better(st, plan, pack_order(codes.MOVE, 1 << v, wish), best, top)
        for g in range(n_groups):
            mask = st[tables.GROUPS + g]
            if mask & ~able:
                continue
            wished = 0
            members = mask
            while members:
                wish = place_of(plan[0], lowest(members))
                wished |= (1 << wish) if wish >= 0 else 0
                members &= members - 1
            targets = group_destinations(st, mask) & wished
            while targets:
                code = pack_order(codes.MOVE, mask, lowest(targets))
                best, top = better(st, plan, code, best, top)
                targets &= targets - 1
            for town in (codes.TOWN_S, codes.TOWN_K):
                if may_spread(st, mask, town):
                    code = pack_order(codes.MOVE, mask, decisions.SPREAD + town)
                    best, top = better(st, plan, code, best, top)
    if fire > 0:
        able = eligible_mask(st, codes.FIRE) & ~exclude
        if able:  # the singles score alike: the first of them
            best, top = better(st, plan, pack_order(codes.FIRE, able & -able, -1), best, top)
        for g in range(n_groups):
            mask = st[tables.GROUPS + g]
            if mask & ~able == 0:
                best, top = better(st, plan, pack_order(codes.FIRE, mask, -1), best, top)
    if towing:
        opts = options(st)
        for i in range(tow_options(st, opts, 0)):
            best, top = better(st, plan, opts[i], best, top)
    if calling:
        best, top = better(st, plan, pack_order(codes.AIRSTRIKE, 0, -1), best, top)
    return best


@compiled
def better(st, plan, code, best, top):
    """(code, its score) if it scores above top, else (best, top)."""
    score = order_score(st, plan, code)
    return (code, score) if score > top else (best, top)


@compiled(inline=True)
def fire_allowed(st):
    """§5.4.2: the RoE allows a Fire order (I-FIRST-FIRE: once fire has started, only
    under the "every" reading does a later one need it)."""
    if st[observation.FIRE_ROE] > 0 and st[tables.S_FIRE_ORDER_ROE] == codes.FIRE_ROE_FIRST:
        return True
    return st[observation.ROE] >= st[tables.S_FIRE_ALLOWED]


@compiled
def tow_options(st, opts, n):
    """§5.4.3: tanks that may be sent to tow a tracks-damaged tank outside Saraci."""
    nv = tables.NV
    stranded = 0  # tracks-damaged tanks outside Saraci, not yet in tow
    for v in range(nv):
        if (
            st[tables.IS_TANK + v]
            and has(st, v, observation.V_HEAVY, codes.TRACKS)
            and not in_saraci(st, pos(st, v))
            and st[vx(v, observation.V_TOWED_BY)] < 0
        ):
            stranded |= 1 << v
    if stranded == 0:
        return n
    reach = st[tables.S_TOW_RANGE]
    rescuers = 0  # tanks free to move within tow range of an HQ vehicle
    for r in range(nv):
        if st[tables.IS_TANK + r] and can_take_move(st, r):
            for h in range(nv):
                if st[tables.IS_HQ + h] and distance(st, pos(st, h), pos(st, r)) <= reach:
                    rescuers |= 1 << r
                    break
    while stranded:
        damaged = lowest(stranded)
        stranded &= stranded - 1
        for rescuer in range(nv):
            if (
                (rescuers >> rescuer) & 1
                and rescuer != damaged
                and st[vx(rescuer, observation.V_TOW_TARGET)] != damaged
            ):
                opts[n] = pack_order(codes.TOW, 1 << rescuer, damaged)
                n += 1
    return n


@compiled(inline=True)
def airstrike_allowed(st):
    """§5.4.4, I-AIR: one marker; Unrestricted RoE or a tank with heavy damage."""
    if st[observation.AIRSTRIKE_PENDING] or st[observation.AIRSTRIKES_USED] >= st[tables.S_AIRSTRIKES]:
        return False
    if st[observation.ROE] >= st[tables.S_UNRESTRICTED]:
        return True
    for v in range(tables.NV):
        if st[tables.IS_TANK + v] and st[vx(v, observation.V_HEAVY)]:
            return True
    return False


# ------------------------------------------------------------------ issuing


@compiled
def offer_order(st, decide, a, b):
    """§5.3 step c, and VL2's Extra order at OP N (§5.5)."""
    choice = choose_order(st, decide, a, b, KIND_BITS_ALL, 0, decisions.ISSUE_ORDER, 0)
    if choice == decisions.PASS:
        return
    issue(st, choice, decisions.ISSUE_ORDER)
    kind = order_kind(choice)
    ab = ability_ready(st, codes.EXTRA_ORDER)
    if ab < 0 or (kind != codes.MOVE and kind != codes.FIRE) or not ability_at(st, ab, tables.S_EXTRA_ORDER_AT):
        return
    extra = choose_order(st, decide, a, b, 1 << kind, order_mask(choice), decisions.EXTRA_ORDER, ab)
    if extra != decisions.PASS:
        spend_ability(st, ab)
        issue(st, extra, decisions.EXTRA_ORDER)


@compiled
def choose_order(st, decide, a, b, kinds, exclude, decision, context):
    """The player's order for pair (a, b): one of order_options(st, a, b, kinds, exclude),
    or PASS. A replayed game (engine/rollout.py) lists them even for the scripted family:
    its script counts the decisions put to the player."""
    if family_plays(st, decision) and not st[layout.SCRIPT_ON]:
        return scripted_order(st, a, b, kinds, exclude)
    n = order_options(st, a, b, kinds, exclude)
    return ask(st, decide, decision, n, context, 0)


@compiled
def issue(st, code, decision):
    """Carry out an issued order; each receiver checks its radio link (§5.1)."""
    kind, mask, dest = order_kind(code), order_mask(code), order_dest(code)
    log(st, events.ORDER, code, decision, 0, 0)
    if kind == codes.AIRSTRIKE:
        st[observation.AIRSTRIKE_PENDING] = 1
        st[observation.AIRSTRIKES_USED] += 1
        return
    if kind == codes.FIRE and st[observation.FIRE_ROE] == 0 and st[tables.S_FIRE_ON_ISSUE]:
        open_fire(st)
    st[layout.X_SHARED_DIE] = 0
    k = -1
    for v in range(tables.NV):
        if not (mask >> v) & 1:
            continue
        k += 1
        if not received(st, v):
            continue
        if (kind == codes.MOVE or kind == codes.TOW) and st[vx(v, observation.V_TOWING)] >= 0:  # §5.4
            log(st, events.TOW_DROPPED, v, st[vx(v, observation.V_TOWING)], 0, 0)
            release_tow(st, v)
        if kind == codes.MOVE:
            st[vx(v, observation.V_ORDER)] = codes.MOVE
            st[vx(v, observation.V_TOW_TARGET)] = -1
            st[vx(v, observation.V_DEST)] = spread(st, dest - decisions.SPREAD, k) if dest >= decisions.SPREAD else dest
        elif kind == codes.FIRE:
            if st[observation.FIRE_ROE] == 0:
                open_fire(st)
            st[vx(v, observation.V_FIRE)] = 1
        elif kind == codes.TOW:
            st[vx(v, observation.V_ORDER)] = codes.TOW
            st[vx(v, observation.V_TOW_TARGET)] = dest
            st[vx(v, observation.V_DEST)] = pos(st, dest)


@compiled(inline=True)
def open_fire(st):
    """§5.2: the fire status marker goes to the RoE of the first Fire order."""
    st[observation.FIRE_ROE] = st[observation.ROE]
    st[observation.FIRED] = 1
    st[layout.X_FIRE_TURN] = st[observation.TURN]
    log(st, events.FIRE_STATUS, st[observation.ROE], 0, 0, 0)


@compiled
def refresh_ability(st, decide):
    """§5.3/§5.5: after doubles a spent ability may come back, either side up."""
    opts = options(st)
    opts[0] = decisions.PASS
    n = 1
    for a in range(3):
        if st[observation.ABIL + 2 * a] == codes.SPENT:
            opts[n] = 1 + 2 * a
            opts[n + 1] = 2 + 2 * a
            n += 2
    choice = ask(st, decide, decisions.REFRESH_ABILITY, n, 0, 0)
    if choice == decisions.PASS:
        return
    a, side = (choice - 1) // 2, (choice - 1) % 2
    st[observation.ABIL + 2 * a + 1] = side
    st[observation.ABIL + 2 * a] = (codes.AVAILABLE if st[observation.ROE] >= st[tables.ABILITY_LEVEL + a]
                                    else codes.ON_TRACK)
    log(st, events.ABILITY, a, events.ABILITY_REFRESHED, side, 0)
