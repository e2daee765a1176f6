"""The defender's scripted choices (I-DEFENDER: the game's, not a player's), compiled and
called by both engines the same way: which group rallies to its line next, which enemy a
stand fires at (I-FIREFIGHT=per-target) and where its general goes. Arrays are over the
defender's stands, as tactics.py's are over the attacker's."""

from bollesim.jit import compiled


@compiled(_nrt=False)
def rally(depth, able):
    """(the stand whose group moves back toward its line next, the steps to it), or
    (-1, 0): of the able stands behind the line, the farthest back (the first such in
    stand order). Only with battle.rally."""
    best = -1
    for i in range(depth.shape[0]):
        if able[i] and depth[i] > 0 and (best < 0 or depth[i] > depth[best]):
            best = i
    return (best, depth[best]) if best >= 0 else (-1, 0)


@compiled(_nrt=False)
def target(ranges, figures):
    """The attacker's stand a defending stand fires at, or -1: of those in its arc and
    range (ranges[j] >= 1), the nearest, then the fewest figures, then the first."""
    best = -1
    for j in range(ranges.shape[0]):
        if ranges[j] >= 1 and (best < 0 or (ranges[j], figures[j]) < (ranges[best], figures[best])):
            best = j
    return best


@compiled(_nrt=False)
def general_to(values):
    """Where the defender's general goes, along one axis (distances or lanes of his stands on the
    field): to the bulk of them, their lower median."""
    n = values.shape[0]
    for i in range(n):
        below = above = 0
        for j in range(n):
            below += values[j] < values[i]
            above += values[j] > values[i]
        if below <= (n - 1) // 2 and above <= n - 1 - (n - 1) // 2:
            return values[i]
    return values[0]
