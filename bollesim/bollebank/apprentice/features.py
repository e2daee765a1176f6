"""What the apprentice sees of one option of an order decision (§5.3-5.4): one float64
row, the same in training and in play.

    [0 .. O.SIZE)        the observation (observation.py), as the engines give it
    OPTION + f           the option: ORDER_FIELDS below, then its first vehicle's fields
    BASE + f             the same of the base policy's choice
    RELATION + r         option and base's choice compared: the same order, kind, vehicles,
                         destination
    N_OPTIONS            how many options the decision has

The base policy's score of an order (scripted/plan.py order_score) is one of its fields:
the apprentice learns where the expert departs from its base, so it sees what the base
thinks of each option.
"""

import numpy as np

from bollesim.bollebank import decisions as D
from bollesim.bollebank import observation as O
from bollesim.bollebank.scripted import plan as F
from bollesim.jit import compiled

ORDER_FIELDS = ("pass", "kind", "destination", "vehicles", "first_vehicle", "plan_score")
VEHICLE_FIELDS = 13  # observation.V_POS .. V_SKIP of the order's first vehicle
BLOCK = len(ORDER_FIELDS) + VEHICLE_FIELDS
OPTION = O.SIZE
BASE = OPTION + BLOCK
RELATION = BASE + BLOCK
RELATIONS = ("same_order", "same_kind", "same_vehicles", "same_destination")
N_OPTIONS = RELATION + len(RELATIONS)
SIZE = N_OPTIONS + 1


def names() -> list[str]:
    """A name for every feature, in order (for the model's record and for reading it)."""
    block = [*ORDER_FIELDS, *(f"vehicle_field_{f}" for f in range(VEHICLE_FIELDS))]
    return ([f"obs_{i}" for i in range(O.SIZE)] + [f"option_{b}" for b in block]
            + [f"base_{b}" for b in block] + list(RELATIONS) + ["n_options"])


@compiled
def popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@compiled
def order_block(code, obs, score, out, at):
    """ORDER_FIELDS and the first vehicle's fields of one packed order into out[at:]."""
    mask = D.order_mask(code)
    first = -1
    if mask:
        first = 0
        while not (mask >> first) & 1:
            first += 1
    out[at] = code == D.PASS
    out[at + 1] = D.order_kind(code) if code != D.PASS else -1
    out[at + 2] = D.order_dest(code) if code != D.PASS else -2
    out[at + 3] = popcount(mask)
    out[at + 4] = first
    out[at + 5] = score
    for f in range(VEHICLE_FIELDS):
        out[at + len(ORDER_FIELDS) + f] = O.vehicle(obs, first, f) if first >= 0 else -9


@compiled
def fill(obs, rules, params, plan, options, n_options, base, option, out):
    """The features of options[option] of an order decision whose base choice is
    options[base] into out (SIZE); plan: scripted/plan.py order_plan for params."""
    for i in range(O.SIZE):
        out[i] = obs[i]
    code, base_code = options[option], options[base]
    order_block(code, obs, F.order_score(code, obs, rules, plan), out, OPTION)
    order_block(base_code, obs, F.order_score(base_code, obs, rules, plan), out, BASE)
    out[RELATION] = code == base_code
    out[RELATION + 1] = D.order_kind(code) == D.order_kind(base_code)
    out[RELATION + 2] = D.order_mask(code) == D.order_mask(base_code)
    out[RELATION + 3] = D.order_dest(code) == D.order_dest(base_code)
    out[N_OPTIONS] = n_options


@compiled
def table(obs, rules, params, options, n_options, base):
    """(n_options, SIZE): the features of every option of an order decision."""
    plan = F.order_plan(obs, rules, params)
    out = np.empty((n_options, SIZE))
    for i in range(n_options):
        fill(obs, rules, params, plan, options, n_options, base, i, out[i])
    return out
