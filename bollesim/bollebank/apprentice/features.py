"""What the apprentice sees of one option of an order decision (§5.3-5.4): one float64
row, the same in training and in play.

    [0 .. O.SIZE)        the observation (observation.py), as the engines give it
    OPTION + f           the option: ORDER_FIELDS below, then its first vehicle's fields
    BASE + f             the same of the base policy's choice
    RELATION + r         option and base's choice compared (RELATIONS)
    DECISION + d         the decision as a whole (DECISION_FIELDS)

The base policy (scripted/plan.py) scores every option (order_score), and the apprentice
sees those scores: it learns where the expert departs from its base, so it sees what the
base thinks of each option, how close the base's call was, and where the option ranks.
"""

import numpy as np

from bollesim.bits import lowest, popcount
from bollesim.bollebank import decisions
from bollesim.bollebank import observation as O
from bollesim.bollebank.scripted import plan as F
from bollesim.jit import compiled

ORDER_FIELDS = ("pass", "kind", "destination", "vehicles", "first_vehicle", "plan_score")
VEHICLE_FIELDS = 13  # observation.V_POS .. V_SKIP of the order's first vehicle
BLOCK = len(ORDER_FIELDS) + VEHICLE_FIELDS
OPTION = O.SIZE
BASE = OPTION + BLOCK
RELATION = BASE + BLOCK
RELATIONS = ("same_order", "same_kind", "same_vehicles", "same_destination", "score_gap",
             "rank")
DECISION = RELATION + len(RELATIONS)
DECISION_FIELDS = ("n_options", "runner_up_gap", "ties")
SIZE = DECISION + len(DECISION_FIELDS)


def names() -> list[str]:
    """A name for every feature, in order (for the model's record and for reading it)."""
    block = [*ORDER_FIELDS, *(f"vehicle_field_{f}" for f in range(VEHICLE_FIELDS))]
    return ([f"obs_{i}" for i in range(O.SIZE)] + [f"option_{b}" for b in block]
            + [f"base_{b}" for b in block] + list(RELATIONS) + list(DECISION_FIELDS))


@compiled
def order_block(code, obs, score, out, at):
    """ORDER_FIELDS and the first vehicle's fields of one packed order into out[at:]."""
    mask = decisions.order_mask(code)
    first = lowest(mask) if mask else -1
    out[at] = code == decisions.PASS
    out[at + 1] = decisions.order_kind(code) if code != decisions.PASS else -1
    out[at + 2] = decisions.order_dest(code) if code != decisions.PASS else -2
    out[at + 3] = popcount(mask)
    out[at + 4] = first
    out[at + 5] = score
    for f in range(VEHICLE_FIELDS):
        out[at + len(ORDER_FIELDS) + f] = O.vehicle(obs, first, f) if first >= 0 else -9


@compiled
def plan_scores(obs, rules, plan, options, n_options, scores):
    """The base policy's choice, the first best-scored option (as scripted/plan.py
    best_under), its score of each option into scores."""
    base = 0
    for i in range(n_options):
        scores[i] = F.order_score(options[i], obs, rules, plan)
        if scores[i] > scores[base]:
            base = i
    return base


# The generic apprentice's prepare and fill (bollesim/strong/apprentice.py, of fixed
# signatures): the kind is always the order to give, the one kind learned.


@compiled
def prepare(kind, obs, rules, params, options, n_options, scores, out):
    """The base's choice among the options (the plan family at params: the first
    best-scored order, plan_scores), its score of each option into scores, and the
    features every option shares into out (SIZE): the observation, the base's choice, the
    decision's fields."""
    base = plan_scores(obs, rules, F.order_plan(obs, rules, params), options, n_options, scores)
    for i in range(O.SIZE):
        out[i] = obs[i]
    order_block(options[base], obs, scores[base], out, BASE)
    runner_up = -np.inf
    ties = 0
    for i in range(n_options):
        if i != base:
            runner_up = max(runner_up, scores[i])
            ties += scores[i] == scores[base]
    out[DECISION] = n_options
    out[DECISION + 1] = scores[base] - runner_up if n_options > 1 else 0.0
    out[DECISION + 2] = ties
    return base


@compiled
def fill(kind, obs, rules, params, options, n_options, scores, base, option, out):
    """The features of options[option] into out, whose shared part prepare wrote;
    scores: the base's, as prepare gave them."""
    code, base_code = options[option], options[base]
    order_block(code, obs, scores[option], out, OPTION)
    out[RELATION] = code == base_code
    out[RELATION + 1] = decisions.order_kind(code) == decisions.order_kind(base_code)
    out[RELATION + 2] = decisions.order_mask(code) == decisions.order_mask(base_code)
    out[RELATION + 3] = decisions.order_dest(code) == decisions.order_dest(base_code)
    out[RELATION + 4] = scores[option] - scores[base]
    rank = 0
    for i in range(n_options):
        rank += scores[i] > scores[option]
    out[RELATION + 5] = rank
