"""The attacker's scripted family, `assault` (policies/assault.py), compiled into both
engines: where each group of stands advances to, and when to close assault after a won
firefight (the close-assault trigger family: at once, or once the defender has lost
some figures, or once enough stands are close).

params: ADVANCE_TO (troops' halt, in steps of 0.125 km from the defender's line),
GUNS_TO (artillery's halt), LOSSES (the defender's figures lost before the first close
assault; 0: at once; NEVER: never), MIN_STANDS (stands able to assault).
"""

from bollesim.jit import compiled

ADVANCE_TO, GUNS_TO, LOSSES, MIN_STANDS = range(4)
NEVER = 48  # LOSSES of a player who never close assaults
ARTILLERY = 2  # ruleset.ARTILLERY: the weapon code of artillery
ON = 0  # a stand's status: on the field


@compiled
def advance(dist, weapon, status, params):
    """(the stand whose group moves next, the distance it moves to), or (-1, 0) to stop
    moving: the farthest stand short of its halt (the first such in stand order)."""
    best, best_dist, goal = -1, -1, 0
    for i in range(dist.shape[0]):
        if status[i] != ON:
            continue
        halt = int(params[GUNS_TO] if weapon[i] == ARTILLERY else params[ADVANCE_TO])
        if dist[i] > halt and dist[i] > best_dist:
            best, best_dist, goal = i, dist[i], halt
    return best, goal


@compiled
def assault(candidates, defender_figures_lost, params):
    """Close assault now (after a won firefight), with `candidates` stands able to."""
    return (candidates >= params[MIN_STANDS] and params[LOSSES] < NEVER
            and defender_figures_lost >= params[LOSSES])
