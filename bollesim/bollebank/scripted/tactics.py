"""Building blocks for scripted policies (numba-compiled, shared by policy modules).

Map knowledge comes from the ruleset a policy is handed (rules/access.py): where a
vehicle may be sent next on its way to a goal (§5.4.1), road distances, the towns.
"""

from bollesim.bits import lowest
from bollesim.bollebank import decisions, observation
from bollesim.bollebank.rules import access
from bollesim.jit import compiled


@compiled
def find(options, n_options, value):
    """Index of value among the options, -1 if absent."""
    for i in range(n_options):
        if options[i] == value:
            return i
    return -1


@compiled
def prefer(options, n_options, order):
    """Index of the first option that appears in `order` (a preference list), else 0."""
    for want in order:
        i = find(options, n_options, want)
        if i >= 0:
            return i
    return 0


@compiled(inline=True)
def in_saraci(rules, position):
    """Saraci's contact point or one of its overwatches (I-TACV); -1 is nowhere."""
    return position >= 0 and access.in_saraci(rules, position)


@compiled
def exposed_road(rules, here, there):
    """A move from here to there passes through or ends on an exposed position (§2.1.1)."""
    p = here
    for _ in range(rules.shape[0]):  # a bound the road never reaches
        if p == there:
            return False
        p = access.next_step(rules, p, there)
        if access.exposed(rules, p):
            return True
    return False


@compiled(inline=True)
def pack_places(places, v, place):
    """places with vehicle v's place (a position, -1: none) set: 5 bits a vehicle, so a
    policy keeps one place per vehicle in an integer and allocates nothing per decision."""
    return places | ((place + 1) << (5 * v))


@compiled(inline=True)
def place_of(places, v):
    """Vehicle v's place in pack_places' integer (-1: none)."""
    return ((places >> (5 * v)) & 31) - 1


@compiled(inline=True)
def move_score(code, obs, rules, wishes):
    """+10 for each vehicle of the order sent to its wished position (place_of(wishes, v),
    -1: no wish) that is neither there nor already heading there; -10 for each vehicle
    with a wish that the order would send elsewhere."""
    mask, dest = decisions.order_mask(code), decisions.order_dest(code)
    score = 0
    rank = 0
    while mask:
        v = lowest(mask)
        mask &= mask - 1
        target = dest
        if dest >= decisions.SPREAD:  # I-OW-SPREAD: the k-th vehicle gets the town's k-th OW
            target = access.spread(rules, dest - decisions.SPREAD, rank)
        rank += 1
        wanted = place_of(wishes, v)
        if wanted < 0:
            continue
        if target != wanted:
            score -= 10
        elif (observation.vehicle(obs, v, observation.V_POS) != target
              and observation.vehicle(obs, v, observation.V_DEST) != target):
            score += 10
    return score
