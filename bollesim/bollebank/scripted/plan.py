"""The scripted player of the family `plan` (policies/bollebank/plan.py): every decision is taken
from the family's parameters (bollesim/bollebank/scripted/space.py; `params[space.NAME]`) and from the ruleset
it is handed (the map, the places of the abilities), so it plays whatever ruleset the
engines play.

`play` takes a decision from its list of options (the general protocol, policy.py). Orders
are scored (`order_plan`, `order_score`) and the best is given, the first on ties; the
fast engine finds that same order without listing the options (engine/orders.py,
`scripted_order`), from the same scores.
"""

import numpy as np

from bollesim.bits import lowest, popcount
from bollesim.bollebank import codes, decisions, observation
from bollesim.bollebank.rules import access, packed
from bollesim.bollebank.scripted import space
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
    [codes.ATGM, codes.TANK, codes.HMG, codes.ART],
    [codes.TANK, codes.ATGM, codes.HMG, codes.ART],
    [codes.HMG, codes.ATGM, codes.TANK, codes.ART],
    [codes.ART, codes.ATGM, codes.TANK, codes.HMG],
], dtype=np.int64)
DEPOT_ORDER = (codes.ATGM, codes.ART, codes.TANK, codes.HMG)
# The vehicles that may be sent to Tango 2, in the order t2_tanks takes them (§2.2.1).
TANKS_BY_PRIORITY = (codes.QL1, codes.AQ, codes.EA, codes.FA, codes.BQ, codes.FB, codes.GB)

# Order weights: a Move scores 10 per vehicle sent on its way (_tactics.move_score).
FIRE_FIRST = 100  # per tank: a Fire order beats any Move
FIRE_LAST = 3  # per tank: a Fire order only when no useful Move is on offer
AIRSTRIKE_WEIGHTS = (-1, 1, 1000)  # by the airstrike parameter: never, last, first
TOW_WEIGHT = 50  # minus the rescuer's distance to the damaged tank


# ------------------------------------------------------------------ where vehicles go


@compiled
def post_position(rules, post, rank):
    """The position of a post (space.POST_NAMES) for the rank-th vehicle posted there; -1 for
    space.STAY."""
    if post == space.SARACI:
        return access.saraci(rules)
    if post == space.OP_N:
        return access.op_n(rules)
    if post == space.KALESIJA:
        return access.kalesija(rules)
    if post == space.TANGO2:
        return access.tango2(rules)
    if post == space.SARACI_OWS or post == space.KALESIJA_OWS:
        town = codes.TOWN_S if post == space.SARACI_OWS else codes.TOWN_K
        ow = access.spread(rules, town, rank)
        if ow >= 0:
            return ow
        return access.saraci(rules) if town == codes.TOWN_S else access.kalesija(rules)
    return -1


@compiled
def goals(rules, params):
    """Every vehicle's final goal (_tactics.pack_places): the first t2_tanks tanks of
    TANKS_BY_PRIORITY to Tango 2, the others to reserve_post, the APCs to their posts."""
    places = 0
    sent = 0
    on_s_ows = on_k_ows = 0  # vehicles posted on the Saraci, Kalesija overwatches so far
    for v in range(codes.N_VEHICLES):
        if v == codes.VL2:
            post = params[space.VL2_POST]
        elif v == codes.QL3:
            post = params[space.QL3_POST]
        elif sent < params[space.T2_TANKS]:
            sent += 1
            places = pack_places(places, v, access.tango2(rules))
            continue
        else:
            post = params[space.RESERVE_POST]
        rank = on_s_ows if post == space.SARACI_OWS else on_k_ows
        places = pack_places(places, v, post_position(rules, post, rank))
        on_s_ows += post == space.SARACI_OWS
        on_k_ows += post == space.KALESIJA_OWS
    return places


@compiled
def nearest_contact_point(rules, here):
    """§2.1.1: the contact point fewest road steps away, Tango 2 first on ties."""
    best, steps = -1, 1 << 30
    for cp in (access.tango2(rules), access.kalesija(rules), access.op_n(rules), access.saraci(rules)):
        if access.distance(rules, here, cp) < steps:
            best, steps = cp, access.distance(rules, here, cp)
    return best


@compiled(inline=True)
def withdrawing(obs, params, v):
    """Vehicle v has the `withdraw` heavy damage markers that take it out of the fighting."""
    withdraw = params[space.WITHDRAW]
    return withdraw >= 1 and popcount(observation.vehicle(obs, v, observation.V_HEAVY)) >= withdraw


@compiled
def gathered(obs, rules, params, goal):
    """t2_together: every vehicle bound for Tango 2 (goal: goals()) that can still get there
    (not immobilised, not in tow, not withdrawing) is in Kalesija or beyond it. The one
    road to Tango 2 starts in Kalesija (§5.4.1), so beyond it is nearer Tango 2."""
    t2, kalesija = access.tango2(rules), access.kalesija(rules)
    far = access.distance(rules, kalesija, t2)
    for v in range(codes.N_VEHICLES):
        if (
            place_of(goal, v) == t2
            and (observation.vehicle(obs, v, observation.V_HEAVY) >> codes.TRACKS) & 1 == 0
            and observation.vehicle(obs, v, observation.V_TOWED_BY) < 0
            and not withdrawing(obs, params, v)
            and access.distance(rules, observation.vehicle(obs, v, observation.V_POS), t2) > far
        ):
            return False
    return True


@compiled(inline=True)
def goal_now(obs, rules, params, goal, wait, v):
    """Where vehicle v is going this turn: its goal, but Kalesija for a tank bound for
    Tango 2 before push_turn or while `wait` (t2_together, gathered()), and a place out of
    the fighting once it is withdrawing (Saraci, or the nearest contact point)."""
    here = observation.vehicle(obs, v, observation.V_POS)
    g = goal
    if g == access.tango2(rules) and (wait or obs[observation.TURN] < params[space.PUSH_TURN]):
        g = access.kalesija(rules)
    if withdrawing(obs, params, v):
        if params[space.WITHDRAW_TO] >= 1:
            return here if rules[packed.POS_KIND + here] == codes.CP else nearest_contact_point(rules, here)
        if not in_saraci(rules, g):
            return here if in_saraci(rules, here) else access.saraci(rules)
    return g


@compiled(inline=True)
def dangerous(obs, params):
    """The enemy is too strong to set out through exposed positions (advance_hot,
    advance_chits)."""
    if params[space.ADVANCE_HOT] < 1 and obs[observation.TANK_HOT] == 1:
        return True
    return direct_chits(obs) > params[space.ADVANCE_CHITS]


@compiled(inline=True)
def direct_chits(obs):
    """Chits on the three direct-fire tracks (§7.1)."""
    return (obs[observation.TRACK_LEN + codes.TANK] + obs[observation.TRACK_LEN + codes.ATGM]
            + obs[observation.TRACK_LEN + codes.HMG])


@compiled(inline=True)
def route(obs, rules, params, goal, danger, wait, v):
    """Where a Move order should send vehicle v now (-1: no wish): the next destination on
    its way to goal_now (§5.4.1, the ruleset's waypoints); its own position while `danger`
    keeps it from setting out on an exposed road; a rescuer under a Tow order keeps its
    course."""
    if observation.vehicle(obs, v, observation.V_ORDER) == codes.TOW:
        return observation.vehicle(obs, v, observation.V_DEST)
    here = observation.vehicle(obs, v, observation.V_POS)
    g = goal_now(obs, rules, params, goal, wait, v)
    if g < 0 or g == here:
        return g
    step = access.waypoint(rules, here, g)
    if (
        danger
        and step >= 0
        and observation.vehicle(obs, v, observation.V_DEST) != step
        and exposed_road(rules, here, step)
    ):
        return here
    return step


@compiled(inline=True)
def routes(obs, rules, params, goal, vehicles):
    """route() of each vehicle of the bit mask `vehicles` towards its goal (`goal`: the
    goals() of params), the others without a wish (_tactics.pack_places)."""
    danger = dangerous(obs, params)
    wait = params[space.T2_TOGETHER] >= 1 and not gathered(obs, rules, params, goal)
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
    if obs[observation.FIRED] == 1:
        return True
    if params[space.FIRE_WHEN_HOT] >= 1 and obs[observation.TANK_HOT] == 1:
        return True
    return (
        obs[observation.ROE] >= params[space.FIRE_ROE]
        and obs[observation.TURN] >= params[space.FIRE_TURN]
        and (params[space.FIRE_UNRESTRICTED] < 1 or obs[observation.ROE] >= rules[packed.S_UNRESTRICTED])
    )


@compiled(inline=True)
def fire_score(obs, rules, params):
    """The score of a Fire order per tank (negative: not now)."""
    if not fire_now(obs, rules, params):
        return -1
    return FIRE_FIRST if params[space.FIRE_FIRST] >= 1 else FIRE_LAST


@compiled(inline=True)
def airstrike_score(obs, params):
    """The score of the airstrike (negative: not now)."""
    if direct_chits(obs) < params[space.AIRSTRIKE_CHITS]:
        return -1
    return AIRSTRIKE_WEIGHTS[int(params[space.AIRSTRIKE])]


@compiled(inline=True)
def tows(params):
    """Whether Tow orders are given (tow_immobile)."""
    return params[space.TOW_IMMOBILE] >= 1


@compiled
def order_plan(obs, rules, params):
    """What an order decision is scored with: (wishes (routes of every vehicle), the score
    of a Fire order per tank, the score of the airstrike, whether to tow)."""
    wishes = routes(obs, rules, params, goals(rules, params), (1 << codes.N_VEHICLES) - 1)
    return wishes, fire_score(obs, rules, params), airstrike_score(obs, params), tows(params)


@compiled
def tow_score(code, obs, rules):
    """A Tow order worth giving: the damaged tank is not already someone's tow target and
    is out of a contact point (in fire) or at OP N (the tow then goes to Saraci). Nearer
    and undamaged rescuers first."""
    rescuer, damaged = 0, decisions.order_dest(code)
    mask = decisions.order_mask(code)
    while not (mask >> rescuer) & 1:
        rescuer += 1
    for v in range(codes.N_VEHICLES):
        if observation.vehicle(obs, v, observation.V_TOW_TARGET) == damaged:
            return -1
    where = observation.vehicle(obs, damaged, observation.V_POS)
    if where == access.kalesija(rules) or where == access.tango2(rules):  # safe there: a tow leads away
        return -1
    score = TOW_WEIGHT - access.distance(rules, observation.vehicle(obs, rescuer, observation.V_POS), where)
    if observation.vehicle(obs, rescuer, observation.V_HEAVY) != 0:
        score -= 20
    return score


@compiled(inline=True)
def order_score(code, obs, rules, plan):
    """The score of one packed order under an order_plan (PASS scores 0; an order with a
    negative score is never given)."""
    if code == decisions.PASS:
        return 0
    wishes, fire, airstrike, tow = plan
    kind = decisions.order_kind(code)
    if kind == codes.MOVE:
        return move_score(code, obs, rules, wishes)
    if kind == codes.FIRE:
        return fire * popcount(decisions.order_mask(code))
    if kind == codes.AIRSTRIKE:
        return airstrike
    if kind == codes.TOW:
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
    short = obs[observation.TRACK_LEN + codes.TANK] < params[space.STOP_AT_TANKS]
    return 1 if short and obs[observation.PAIRS_THIS_TURN] < params[space.MAX_PAIRS] else 0


@compiled
def ability_side(rules, params, marker):
    """§5.5: the side whose ability works where the marker's vehicle is going (VL2's
    Extra order at OP N, QL3's Extra turn at Kalesija...), else its first side."""
    goal = place_of(goals(rules, params), rules[packed.ABILITY_VEHICLE + marker])
    for side in range(2):
        place = access.ability_place(rules, access.ability_sides(rules, marker, side))
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
    if params[space.PLAY_ON] < 1 or obs[observation.TURN] >= obs[observation.TURN_LIMIT]:
        return 1
    if not obs[observation.OPERATIONAL] and (obs[observation.T2_REACHED]
                                             or obs[observation.TURN] < obs[observation.DEADLINE]):
        return 0
    return 0 if not obs[observation.TACTICAL] else 1


@compiled
def tow_to(options, n_options, rules, params):
    """§5.4.3: among the contact points on offer, back (Saraci, OP N, Kalesija, Tango 2) or
    forward (the other way round), by tow_to."""
    if params[space.TOW_TO] == space.TOW_FORWARD:
        forward = (access.tango2(rules), access.kalesija(rules), access.op_n(rules), access.saraci(rules))
        return prefer(options, n_options, forward)
    back = (access.saraci(rules), access.op_n(rules), access.kalesija(rules), access.tango2(rules))
    return prefer(options, n_options, back)


@compiled
def play(kind, obs, rules, options, n_options, params):
    """Every decision of the scripted player (the policy protocol of policy.py, without
    its own random stream: the family uses none)."""
    if kind == decisions.DRAW_AGAIN:
        return draw_again(obs, params)
    if kind == decisions.ISSUE_ORDER or kind == decisions.EXTRA_ORDER or kind == decisions.VL2_DESTINATION:
        return best_order(options, n_options, obs, rules, params)
    if kind == decisions.ABILITY_SIDE:
        return ability_side(rules, params, obs[observation.CONTEXT_A])
    if kind == decisions.REFRESH_ABILITY:
        return refresh(options, n_options, rules, params)
    if kind == decisions.FIRE_TARGET:
        return prefer(options, n_options, TARGET_ORDERS[int(params[space.TARGET])])
    if kind == decisions.DEPOT_TRACK:
        return prefer(options, n_options, DEPOT_ORDER)
    if kind == decisions.TOW_DESTINATION:
        return tow_to(options, n_options, rules, params)
    if kind == decisions.STOP_ON_VICTORY:
        return stop_on_victory(obs, params)
    if kind == decisions.USE_ABILITY or kind == decisions.EXTRA_MOVE or kind == decisions.EXTRA_FIRE:
        return 1  # use it (Extra move/fire: the first vehicle on offer)
    return 0  # STACK_PRIORITY, FIRE_ORDER: the first vehicle on offer; EXTRA_MOVE_BEFORE: not now
