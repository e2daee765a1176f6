"""Reading the packed ruleset (rules/packed.py): small compiled accessors for policies,
and for the fast engine, which keeps the vector inside its game vector and passes
`at = layout.RULES`.

A policy receives the vector as `rules` and reads a scalar by its slot,
`rules[packed.S_UNRESTRICTED]`, or a table through the functions below; it never imports
an engine.
"""

from bollesim.bollebank import codes
from bollesim.bollebank.rules import packed
from bollesim.jit import compiled

# ------------------------------------------------------------------ places


@compiled(inline=True)
def saraci(rules, at=0):
    return rules[at + packed.S_SARACI]


@compiled(inline=True)
def kalesija(rules, at=0):
    return rules[at + packed.S_KALESIJA]


@compiled(inline=True)
def tango2(rules, at=0):
    return rules[at + packed.S_TANGO2]


@compiled(inline=True)
def op_n(rules, at=0):
    return rules[at + packed.S_OPN]


@compiled(inline=True)
def town_of(rules, p, at=0):
    """codes.TOWN_S/K for a town's contact point and overwatches, else NO_TOWN."""
    return rules[at + packed.TOWN_OF + p]


@compiled(inline=True)
def in_saraci(rules, p, at=0):
    """I-TACV, I-TOW-SARACI: Saraci's contact point or one of its overwatches."""
    return rules[at + packed.TOWN_OF + p] == codes.TOWN_S


@compiled(inline=True)
def spread(rules, town, k, at=0):
    """The k-th overwatch of a town (I-OW-SPREAD), -1 past its last."""
    return rules[at + packed.SPREAD + packed.SPREAD_S0 * town + k]


# ------------------------------------------------------------------ roads


@compiled(inline=True)
def distance(rules, a, b, at=0):
    """Road steps from a to b."""
    return rules[at + packed.DISTANCE + packed.DISTANCE_S0 * a + b]


@compiled(inline=True)
def next_step(rules, a, b, at=0):
    """The position after a on a shortest road to b (§6.2)."""
    return rules[at + packed.NEXT_STEP + packed.NEXT_STEP_S0 * a + b]


@compiled(inline=True)
def adjacent(rules, a, b, at=0):
    return rules[at + packed.ADJACENT + packed.ADJACENT_S0 * a + b]


@compiled(inline=True)
def waypoint(rules, here, goal, at=0):
    """The destination a Move order names now from here on the way to goal (§5.4.1);
    goal itself when allowed, -1 when no chain of orders reaches it."""
    return rules[at + packed.WAYPOINT + packed.WAYPOINT_S0 * here + goal]


# ------------------------------------------------------------------ fields of fire


@compiled(inline=True)
def pos_bsa(rules, p, weapon, at=0):
    return rules[at + packed.POS_BSA + packed.POS_BSA_S0 * p + weapon]


@compiled(inline=True)
def pos_un(rules, p, track, at=0):
    return rules[at + packed.POS_UN + packed.POS_UN_S0 * p + track]


@compiled(inline=True)
def marker_bsa(rules, m, side, weapon, at=0):
    return rules[at + packed.MARKER_BSA + packed.MARKER_BSA_S0 * m + packed.MARKER_BSA_S1 * side + weapon]


@compiled(inline=True)
def marker_un(rules, m, side, track, at=0):
    return rules[at + packed.MARKER_UN + packed.MARKER_UN_S0 * m + packed.MARKER_UN_S1 * side + track]


@compiled
def exposed(rules, p, at=0):
    """§2.1.1: an exposed position, under a BSA field of fire printed on the map or one an
    enemy-action marker brings when the position is first entered (§6.2)."""
    if rules[at + packed.POS_EAM_POOL + p] != 0:
        return True
    for weapon in range(3):
        if pos_bsa(rules, p, weapon, at):
            return True
    return False


# ------------------------------------------------------------------ charts and markers


@compiled(inline=True)
def matrix_fire(rules, a, b, at=0):
    return rules[at + packed.MATRIX_FIRE + packed.MATRIX_FIRE_S0 * a + b]


@compiled(inline=True)
def matrix_move(rules, a, b, at=0):
    return rules[at + packed.MATRIX_MOVE + packed.MATRIX_MOVE_S0 * a + b]


@compiled(inline=True)
def matrix_platoon(rules, a, b, at=0):
    return rules[at + packed.MATRIX_PLATOON + packed.MATRIX_PLATOON_S0 * a + b]


@compiled(inline=True)
def hit_table(rules, weapon, face, at=0):
    """Heavy damage location of a hit by weapon, d6 face - 1 (R-HIT)."""
    return rules[at + packed.HIT_TABLE + packed.HIT_TABLE_S0 * weapon + face]


@compiled(inline=True)
def ability_sides(rules, a, side, at=0):
    return rules[at + packed.ABILITY_SIDES + packed.ABILITY_SIDES_S0 * a + side]


@compiled(inline=True)
def ability_place(rules, ability, at=0):
    """Where an ability's vehicle must stand to use it (§5.5), -1 for anywhere."""
    if ability == codes.DRAW_THEIR_FIRE:
        return rules[at + packed.S_DTF_AT]
    if ability == codes.EXTRA_ORDER:
        return rules[at + packed.S_EXTRA_ORDER_AT]
    if ability == codes.DIRECT_THEIR_FIRE:
        return rules[at + packed.S_DIRECT_FIRE_AT]
    if ability == codes.EXTRA_TURN:
        return rules[at + packed.S_EXTRA_TURN_AT]
    return -1
