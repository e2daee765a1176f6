"""The scripted player of the family `plan` (policies/plan.py): every decision is taken
from the family's parameters (bollesim/bollebank/scripted/space.py; `params[S.NAME]`) and from the ruleset
it is handed (the map, the places of the abilities), so it plays whatever ruleset the
engines play.

`play` takes a decision from its list of options (the general protocol, policy.py). Orders
are scored (`order_plan`, `order_score`) and the best is given, the first on ties; the
fast engine finds that same order without listing the options (engine/orders.py,
`scripted_order`), from the same scores.
"""

import numpy as np

from bollesim.bits import lowest, popcount
from bollesim.bollebank import codes as C
from bollesim.bollebank import decisions as D
from bollesim.bollebank import observation as O
from bollesim.bollebank.rules import access as A
from bollesim.bollebank.rules import packed as P
from bollesim.bollebank.scripted import space as S
from bollesim.bollebank.scripted.tactics import (
    exposed_road,
    find,
    in_saraci,
    move_score,
    pack_places,
    place_of,
    prefer,
)
from bollesim.jit import compiled

# Fire target preferences, one row per value of the `target` parameter (codes.TANK...).
TARGET_ORDERS = np.array([
    [C.ATGM, C.TANK, C.HMG, C.ART],
    [C.TANK, C.ATGM, C.HMG, C.ART],
    [C.HMG, C.ATGM, C.TANK, C.ART],
    [C.ART, C.ATGM, C.TANK, C.HMG],
], dtype=np.int64)
DEPOT_ORDER = (C.ATGM, C.ART, C.TANK, C.HMG)
# The vehicles that may be sent to Tango 2, in the order t2_tanks takes them (§2.2.1).
TANKS_BY_PRIORITY = (C.QL1, C.AQ, C.EA, C.FA, C.BQ, C.FB, C.GB)

# Order weights: a Move scores 10 per vehicle sent on its way (_tactics.move_score).
FIRE_FIRST = 100  # per tank: a Fire order beats any Move
FIRE_LAST = 3  # per tank: a Fire order only when no useful Move is on offer
AIRSTRIKE_WEIGHTS = (-1, 1, 1000)  # by the airstrike parameter: never, last, first
TOW_WEIGHT = 50  # minus the rescuer's distance to the damaged tank


# ------------------------------------------------------------------ where vehicles go


@compiled
def post_position(rules, post, rank):
    """The position of a post (S.POST_NAMES) for the rank-th vehicle posted there; -1 for
    S.STAY."""
    if post == S.SARACI:
        return A.saraci(rules)
    if post == S.OP_N:
        return A.op_n(rules)
    if post == S.KALESIJA:
        return A.kalesija(rules)
    if post == S.TANGO2:
        return A.tango2(rules)
    if post == S.SARACI_OWS or post == S.KALESIJA_OWS:
        town = C.TOWN_S if post == S.SARACI_OWS else C.TOWN_K
        ow = A.spread(rules, town, rank)
        if ow >= 0:
            return ow
        return A.saraci(rules) if town == C.TOWN_S else A.kalesija(rules)
    return -1


@compiled
def goals(rules, params):
    """Every vehicle's final goal (_tactics.pack_places): the first t2_tanks tanks of
    TANKS_BY_PRIORITY to Tango 2, the others to reserve_post, the APCs to their posts."""
    places = 0
    sent = 0
    on_s_ows = on_k_ows = 0  # vehicles posted on the Saraci, Kalesija overwatches so far
    for v in range(C.N_VEHICLES):
        if v == C.VL2:
            post = params[S.VL2_POST]
        elif v == C.QL3:
            post = params[S.QL3_POST]
        elif sent < params[S.T2_TANKS]:
            sent += 1
            places = pack_places(places, v, A.tango2(rules))
            continue
        else:
            post = params[S.RESERVE_POST]
        rank = on_s_ows if post == S.SARACI_OWS else on_k_ows
        places = pack_places(places, v, post_position(rules, post, rank))
        on_s_ows += post == S.SARACI_OWS
        on_k_ows += post == S.KALESIJA_OWS
    return places


@compiled
def nearest_contact_point(rules, here):
    """§2.1.1: the contact point fewest road steps away, Tango 2 first on ties."""
    best, steps = -1, 1 << 30
    for cp in (A.tango2(rules), A.kalesija(rules), A.op_n(rules), A.saraci(rules)):
        if A.distance(rules, here, cp) < steps:
            best, steps = cp, A.distance(rules, here, cp)
    return best


@compiled(inline=True)
def withdrawing(obs, params, v):
    """Vehicle v has the `withdraw` heavy damage markers that take it out of the fighting."""
    withdraw = params[S.WITHDRAW]
    return withdraw >= 1 and popcount(O.vehicle(obs, v, O.V_HEAVY)) >= withdraw


@compiled
def gathered(obs, rules, params, goal):
    """t2_together: every vehicle bound for Tango 2 (goal: goals()) that can still get there
    (not immobilised, not in tow, not withdrawing) is in Kalesija or beyond it. The one
    road to Tango 2 starts in Kalesija (§5.4.1), so beyond it is nearer Tango 2."""
    t2, kalesija = A.tango2(rules), A.kalesija(rules)
    far = A.distance(rules, kalesija, t2)
    for v in range(C.N_VEHICLES):
        if (
            place_of(goal, v) == t2
            and (O.vehicle(obs, v, O.V_HEAVY) >> C.TRACKS) & 1 == 0
            and O.vehicle(obs, v, O.V_TOWED_BY) < 0
            and not withdrawing(obs, params, v)
            and A.distance(rules, O.vehicle(obs, v, O.V_POS), t2) > far
        ):
            return False
    return True


@compiled(inline=True)
def goal_now(obs, rules, params, goal, wait, v):
    """Where vehicle v is going this turn: its goal, but Kalesija for a tank bound for
    Tango 2 before push_turn or while `wait` (t2_together, gathered()), and a place out of
    the fighting once it is withdrawing (Saraci, or the nearest contact point)."""
    here = O.vehicle(obs, v, O.V_POS)
    g = goal
    if g == A.tango2(rules) and (wait or obs[O.TURN] < params[S.PUSH_TURN]):
        g = A.kalesija(rules)
    if withdrawing(obs, params, v):
        if params[S.WITHDRAW_TO] >= 1:
            return here if rules[P.POS_KIND + here] == C.CP else nearest_contact_point(rules, here)
        if not in_saraci(rules, g):
            return here if in_saraci(rules, here) else A.saraci(rules)
    return g


@compiled(inline=True)
def dangerous(obs, params):
    """The enemy is too strong to set out through exposed positions (advance_hot,
    advance_chits)."""
    if params[S.ADVANCE_HOT] < 1 and obs[O.TANK_HOT] == 1:
        return True
    return direct_chits(obs) > params[S.ADVANCE_CHITS]


@compiled(inline=True)
def direct_chits(obs):
    """Chits on the three direct-fire tracks (§7.1)."""
    return obs[O.TRACK_LEN + C.TANK] + obs[O.TRACK_LEN + C.ATGM] + obs[O.TRACK_LEN + C.HMG]


@compiled(inline=True)
def route(obs, rules, params, goal, danger, wait, v):
    """Where a Move order should send vehicle v now (-1: no wish): the next destination on
    its way to goal_now (§5.4.1, the ruleset's waypoints); its own position while `danger`
    keeps it from setting out on an exposed road; a rescuer under a Tow order keeps its
    course."""
    if O.vehicle(obs, v, O.V_ORDER) == C.TOW:
        return O.vehicle(obs, v, O.V_DEST)
    here = O.vehicle(obs, v, O.V_POS)
    g = goal_now(obs, rules, params, goal, wait, v)
    if g < 0 or g == here:
        return g
    step = A.waypoint(rules, here, g)
    if (
        danger
        and step >= 0
        and O.vehicle(obs, v, O.V_DEST) != step
        and exposed_road(rules, here, step)
    ):
        return here
    return step


@compiled(inline=True)
def routes(obs, rules, params, goal, vehicles):
    """route() of each vehicle of the bit mask `vehicles` towards its goal (`goal`: the
    goals() of params), the others without a wish (_tactics.pack_places)."""
    danger = dangerous(obs, params)
    wait = params[S.T2_TOGETHER] >= 1 and not gathered(obs, rules, params, goal)
    wishes = 0
    while vehicles:
        v = lowest(vehicles)
        vehicles &= vehicles - 1
        wish = route(obs, rules, params, place_of(goal, v), danger, wait, v)
        wishes = pack_places(wishes, v, wish)
    return wishes


# ------------------------------------------------------------------ orders


@compiled(inline=True)
def fire_now(obs, rules, params):
    """Whether Fire orders may be given now: fire has started, or the triggers are met
    (fire_roe and fire_turn, and Unrestricted RoE with fire_unrestricted), or the enemy
    tanks are hot with fire_when_hot."""
    if obs[O.FIRED] == 1:
        return True
    if params[S.FIRE_WHEN_HOT] >= 1 and obs[O.TANK_HOT] == 1:
        return True
    return (
        obs[O.ROE] >= params[S.FIRE_ROE]
        and obs[O.TURN] >= params[S.FIRE_TURN]
        and (params[S.FIRE_UNRESTRICTED] < 1 or obs[O.ROE] >= rules[P.S_UNRESTRICTED])
    )


@compiled(inline=True)
def fire_score(obs, rules, params):
    """The score of a Fire order per tank (negative: not now)."""
    if not fire_now(obs, rules, params):
        return -1
    return FIRE_FIRST if params[S.FIRE_FIRST] >= 1 else FIRE_LAST


@compiled(inline=True)
def airstrike_score(obs, params):
    """The score of the airstrike (negative: not now)."""
    if direct_chits(obs) < params[S.AIRSTRIKE_CHITS]:
        return -1
    return AIRSTRIKE_WEIGHTS[int(params[S.AIRSTRIKE])]


@compiled(inline=True)
def tows(params):
    """Whether Tow orders are given (tow_immobile)."""
    return params[S.TOW_IMMOBILE] >= 1


@compiled
def order_plan(obs, rules, params):
    """What an order decision is scored with: (wishes (routes of every vehicle), the score
    of a Fire order per tank, the score of the airstrike, whether to tow)."""
    wishes = routes(obs, rules, params, goals(rules, params), (1 << C.N_VEHICLES) - 1)
    return wishes, fire_score(obs, rules, params), airstrike_score(obs, params), tows(params)


@compiled
def tow_score(code, obs, rules):
    """A Tow order worth giving: the damaged tank is not already someone's tow target and
    is out of a contact point (in fire) or at OP N (the tow then goes to Saraci). Nearer
    and undamaged rescuers first."""
    rescuer, damaged = 0, D.order_dest(code)
    mask = D.order_mask(code)
    while not (mask >> rescuer) & 1:
        rescuer += 1
    for v in range(C.N_VEHICLES):
        if O.vehicle(obs, v, O.V_TOW_TARGET) == damaged:
            return -1
    where = O.vehicle(obs, damaged, O.V_POS)
    if where == A.kalesija(rules) or where == A.tango2(rules):  # safe there: a tow leads away
        return -1
    score = TOW_WEIGHT - A.distance(rules, O.vehicle(obs, rescuer, O.V_POS), where)
    if O.vehicle(obs, rescuer, O.V_HEAVY) != 0:
        score -= 20
    return score


@compiled(inline=True)
def order_score(code, obs, rules, plan):
    """The score of one packed order under an order_plan (PASS scores 0; an order with a
    negative score is never given)."""
    if code == D.PASS:
        return 0
    wishes, fire, airstrike, tow = plan
    kind = D.order_kind(code)
    if kind == C.MOVE:
        return move_score(code, obs, rules, wishes)
    if kind == C.FIRE:
        return fire * popcount(D.order_mask(code))
    if kind == C.AIRSTRIKE:
        return airstrike
    if kind == C.TOW:
        return tow_score(code, obs, rules) if tow else -1
    return 0


@compiled
def best_order(options, n_options, obs, rules, params):
    """Index of the best-scored order on offer, the first on ties."""
    return best_under(order_plan(obs, rules, params), options, n_options, obs, rules)


@compiled
def best_under(plan, options, n_options, obs, rules):
    """best_order under plan, the order_plan of the decision (given once for several
    uses: the apprentice scores the same options again)."""
    i_best = 0
    s_best = 0
    for i in range(n_options):
        score = order_score(options[i], obs, rules, plan)
        if i == 0 or score > s_best:
            i_best, s_best = i, score
    return i_best


# ------------------------------------------------------------------ the other decisions


@compiled
def draw_again(obs, params):
    """§5.3: another pair while the tank track is short of stop_at_tanks and fewer than
    max_pairs pairs were drawn this turn."""
    short = obs[O.TRACK_LEN + C.TANK] < params[S.STOP_AT_TANKS]
    return 1 if short and obs[O.PAIRS_THIS_TURN] < params[S.MAX_PAIRS] else 0


@compiled
def ability_side(rules, params, marker):
    """§5.5: the side whose ability works where the marker's vehicle is going (VL2's
    Extra order at OP N, QL3's Extra turn at Kalesija...), else its first side."""
    goal = place_of(goals(rules, params), rules[P.ABILITY_VEHICLE + marker])
    for side in range(2):
        place = A.ability_place(rules, A.ability_sides(rules, marker, side))
        if place >= 0 and place == goal:
            return side
    return 0


@compiled
def refresh(options, n_options, rules, params):
    """§5.3 doubles: bring back the first spent marker, on the side the plan uses."""
    for a in range(3):
        i = find(options, n_options, 1 + 2 * a + ability_side(rules, params, a))
        if i >= 0:
            return i
    return 1


@compiled
def stop_on_victory(obs, params):
    """§8, I-END: stop, unless play_on and the missing victory type can still come
    (operational: Tango 2 reached or the deadline not yet passed)."""
    if params[S.PLAY_ON] < 1 or obs[O.TURN] >= obs[O.TURN_LIMIT]:
        return 1
    if not obs[O.OPERATIONAL] and (obs[O.T2_REACHED] or obs[O.TURN] < obs[O.DEADLINE]):
        return 0
    return 0 if not obs[O.TACTICAL] else 1


@compiled
def tow_to(options, n_options, rules, params):
    """§5.4.3: among the contact points on offer, back (Saraci, OP N, Kalesija, Tango 2) or
    forward (the other way round), by tow_to."""
    if params[S.TOW_TO] == S.TOW_FORWARD:
        forward = (A.tango2(rules), A.kalesija(rules), A.op_n(rules), A.saraci(rules))
        return prefer(options, n_options, forward)
    back = (A.saraci(rules), A.op_n(rules), A.kalesija(rules), A.tango2(rules))
    return prefer(options, n_options, back)


@compiled
def play(kind, obs, rules, options, n_options, params):
    """Every decision of the scripted player (the policy protocol of policy.py, without
    its own random stream: the family uses none)."""
    if kind == D.DRAW_AGAIN:
        return draw_again(obs, params)
    if kind == D.ISSUE_ORDER or kind == D.EXTRA_ORDER or kind == D.VL2_DESTINATION:
        return best_order(options, n_options, obs, rules, params)
    if kind == D.ABILITY_SIDE:
        return ability_side(rules, params, obs[O.CONTEXT_A])
    if kind == D.REFRESH_ABILITY:
        return refresh(options, n_options, rules, params)
    if kind == D.FIRE_TARGET:
        return prefer(options, n_options, TARGET_ORDERS[int(params[S.TARGET])])
    if kind == D.DEPOT_TRACK:
        return prefer(options, n_options, DEPOT_ORDER)
    if kind == D.TOW_DESTINATION:
        return tow_to(options, n_options, rules, params)
    if kind == D.STOP_ON_VICTORY:
        return stop_on_victory(obs, params)
    if kind == D.USE_ABILITY or kind == D.EXTRA_MOVE or kind == D.EXTRA_FIRE:
        return 1  # use it (Extra move/fire: the first vehicle on offer)
    return 0  # STACK_PRIORITY, FIRE_ORDER: the first vehicle on offer; EXTRA_MOVE_BEFORE: not now
