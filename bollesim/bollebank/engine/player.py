"""§4 How the fast engine puts a decision to the player (reference: reference/table.py).

Every kernel that may meet a player choice takes `decide`, a policy's compiled decide
function as a function pointer, and st[L.SCRIPTED] says who plays (a policy's
compiled_in, game/policy.py):

- DECIDE, the general protocol (policy.py): the kernel lists the legal options in st's
  option region and calls decide (random, a notebook's policy, a lookahead player's base);
- FAMILY, the scripted family (policies/bollebank/plan.py), compiled into the kernel. Its calls are
  direct, so the compiler inlines and specialises them, and its orders are found without
  listing every legal option (orders.scripted_order). The parameters in st are then the
  family's;
- APPRENTICE (policies/bollebank/apprentice.py): the scripted family at every decision but the
  order to give (§5.3-5.4), where the kernel lists the options and asks the apprentice
  directly (bollesim/strong/apprentice.py decide, with this game's apprentice module,
  apprentice/declaration.py). It plays as its decide does, without a call through a
  pointer at each of a game's eighty decisions.

A game being replayed (engine/rollout.py) takes its recorded choices instead. One compile
of a kernel serves every policy (play.for_policy).
"""

import numpy as np

from bollesim.bollebank import decisions
from bollesim.bollebank import observation as O
from bollesim.bollebank.apprentice import declaration
from bollesim.bollebank.decisions import MAX_OPTIONS
from bollesim.bollebank.engine import layout as L
from bollesim.bollebank.engine.script import record_point, replayed
from bollesim.bollebank.scripted import plan as F
from bollesim.jit import compiled
from bollesim.strong import apprentice

DECIDE, FAMILY, APPRENTICE = 0, 1, 2  # who plays: st[L.SCRIPTED]


@compiled(inline=True)
def options(st):
    """The option region: a decision's legal options, options(st)[:n]."""
    return st[L.OPTS : L.OPTS + MAX_OPTIONS]


@compiled(inline=True)
def params(st):
    """The policy's parameters (float64)."""
    return st[L.PARAMS : L.PARAMS + L.MAX_PARAMS].view(np.float64)


@compiled(inline=True)
def observation(st):
    """What the player sees (observation.py): the front of the state."""
    return st[: O.SIZE]


@compiled(inline=True)
def ruleset(st):
    """The packed ruleset being played (rules/packed.py)."""
    return st[L.RULES : L.RULES + L.RULES_SIZE]


@compiled(inline=True)
def family_plays(st, kind):
    """Whether the scripted family, compiled in, makes this kind of decision."""
    who = st[L.SCRIPTED]
    return who == FAMILY or (who == APPRENTICE and kind != decisions.ISSUE_ORDER)


@compiled
def ask(st, decide, kind, n, context_a, context_b):
    """The player's choice among options(st)[:n] (the option itself). A lone option is
    taken without asking, as in the reference engine's Table.ask."""
    if n == 1:
        return st[L.OPTS]
    st[O.CONTEXT_A] = context_a
    st[O.CONTEXT_B] = context_b
    index = replayed(st, n) if st[L.SCRIPT_ON] else -1
    if index >= 0:
        return st[L.OPTS + index]
    if family_plays(st, kind):
        index = F.play(kind, observation(st), ruleset(st), options(st), n, params(st))
    elif st[L.SCRIPTED] == APPRENTICE:
        index = apprentice.decide(kind, observation(st), ruleset(st), options(st), n, params(st),
                                  declaration)
    else:
        prng = st[L.PRNG : L.PRNG + 2]
        index = decide(kind, observation(st), ruleset(st), options(st), n, params(st), prng)
    if st[L.SCRIPT_ON]:
        record_point(st, kind, n, index)
    if index < 0 or index >= n:
        raise ValueError("policy chose an option outside its options")
    return st[L.OPTS + index]


@compiled
def ask_yes_no(st, decide, kind, context_a):
    st[L.OPTS] = 0
    st[L.OPTS + 1] = 1
    return ask(st, decide, kind, 2, context_a, 0)


# ------------------------------------------------------------------ the scripted family


@compiled(inline=True)
def goals(st):
    """The family's goal of every vehicle (_plan.goals): they depend on the ruleset and the
    parameters only, so they are worked out once a game."""
    if st[L.PLAN_GOALS] < 0:
        st[L.PLAN_GOALS] = F.goals(ruleset(st), params(st))
    return st[L.PLAN_GOALS]


@compiled
def wishes(st, vehicles):
    """Where the family would send each vehicle of the bit mask `vehicles` now
    (_plan.routes)."""
    return F.routes(observation(st), ruleset(st), params(st), goals(st), vehicles)


@compiled(inline=True)
def fire_score(st):
    """The family's score of a Fire order per tank (_plan.fire_score)."""
    return F.fire_score(observation(st), ruleset(st), params(st))


@compiled(inline=True)
def airstrike_score(st):
    """The family's score of the airstrike (_plan.airstrike_score)."""
    return F.airstrike_score(observation(st), params(st))


@compiled(inline=True)
def tows(st):
    """Whether the family gives Tow orders."""
    return F.tows(params(st))


@compiled(inline=True)
def order_score(st, plan, code):
    """The scripted family's score of one order (_plan.order_score) under plan, the tuple
    of _plan.order_plan (wishes, fire score, airstrike score, tows): it gives the
    best-scored order on offer, the first on ties; one scored 0 or less never beats
    passing."""
    return F.order_score(code, observation(st), ruleset(st), plan)
