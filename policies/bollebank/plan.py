"""The scripted family: every choice of the scripted player is a parameter, from where the
tanks and APCs go and when they push on to Tango 2, through the handling of damaged
tanks, drawing, the first Fire order and its targets, to the airstrike and playing on
after a victory. Its defaults are the historical plan; the other scripted policies are
points of it (bollesim/bollebank/scripted/space.py declares each parameter).

The fast engine compiles this family into its kernel (docs/architecture.md §4)."""

from bollesim.bollebank.engine.player import FAMILY
from bollesim.bollebank.scripted import plan, space

PARAMETERS = space.PARAMETERS
COMPILED_IN = FAMILY  # the fast engine's kernel calls it directly (engine/player.py)


def decide(kind, obs, rules, options, n_options, params, prng):
    return plan.play(kind, obs, rules, options, n_options, params)
