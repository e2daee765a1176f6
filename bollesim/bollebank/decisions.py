"""The decisions a policy takes, and how their options are packed into integers.

Every player choice is a call `decide(kind, obs, rules, options, n_options, params, prng)`
(policy.py): `kind` is one of the constants below, `options[:n_options]` the legal
options, and the policy returns the index of its choice. Both engines offer the same
options in the same order.
"""

from bollesim.jit import compiled

# Decision kinds. The comment says what one option is.
VL2_DESTINATION = 0  # Orders phase start (§5): a packed MOVE for VL2, or 0 = keep going
DRAW_AGAIN = 1  # §5.3: 0 = stop drawing, 1 = draw another pair
ISSUE_ORDER = 2  # §5.3-5.4: a packed order, or 0 = issue nothing
EXTRA_ORDER = 3  # §5.5 Extra order: a packed order of the same kind, or 0 = do not use it
REFRESH_ABILITY = 4  # §5.3/5.5 doubles: 0 = none, else 1 + 2 * ability + side
ABILITY_SIDE = 5  # §5.5 RoE reached the level: the side (0 or 1) of obs[CONTEXT_A] ability
STACK_PRIORITY = 6  # §6.2 stacking: the vehicle that keeps its move into obs[CONTEXT_B]
TOW_DESTINATION = 7  # §5.4.3 hooked up: the contact point to tow to
FIRE_TARGET = 8  # §6.3: the track (codes.TANK..ART) vehicle obs[CONTEXT_A] fires at
DEPOT_TRACK = 9  # §6.3 ammunition depot: the track to empty
USE_ABILITY = 10  # §5.5: 0/1, use ability side obs[CONTEXT_A] now
EXTRA_MOVE = 11  # §5.5 Extra move: -1 = none, else the vehicle that moves again
EXTRA_FIRE = 12  # §5.5 Extra fire: -1 = none, else the tank that fires again
STOP_ON_VICTORY = 13  # §8, I-END: 0 = play on, 1 = stop and claim the victory
FIRE_ORDER = 14  # §6.3, §11 "in any order desired": the tank whose Fire order is carried
#                  out next (options: the tanks able to fire that have not fired yet)
EXTRA_MOVE_BEFORE = 15  # §5.5 "after or before any Move order": -1 = not now, else the
#                         vehicle that makes the Extra move before the Move step
N_KINDS = 16

KIND_NAMES = (
    "vl2_destination",
    "draw_again",
    "issue_order",
    "extra_order",
    "refresh_ability",
    "ability_side",
    "stack_priority",
    "tow_destination",
    "fire_target",
    "depot_track",
    "use_ability",
    "extra_move",
    "extra_fire",
    "stop_on_victory",
    "fire_order",
    "extra_move_before",
)

PASS = 0  # the "do nothing" option of the order decisions
SPREAD = 100  # MOVE destination SPREAD + town: a platoon to its town's overwatches (I-OW-SPREAD)
MAX_OPTIONS = 1024


@compiled
def pack_order(kind, mask, dest):
    """One order as an integer: kind (codes.MOVE...), vehicle bit mask, destination.

    dest is a position for MOVE (or SPREAD + town), the towed tank for TOW, -1 otherwise.
    """
    return kind + 8 * (dest + 1) + 2048 * mask


@compiled
def order_kind(code):
    return code & 7


@compiled
def order_dest(code):
    return ((code >> 3) & 255) - 1


@compiled
def order_mask(code):
    return code >> 11
