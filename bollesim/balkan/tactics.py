"""The attacker's choices, the scripted family `assault` (policies/assault.py), compiled
into both engines and called by both the same way: which group moves next and how far,
when a column deploys into line, how many digits the commander passes down, where a
general goes, which enemy stand a stand fires at (I-FIREFIGHT=per-target), and when to
close assault after a won firefight (the close-assault trigger family: at once, once the
defender has lost some figures, or once enough stands are close).

Every player choice of the attacker is one function here, so that each can become a
declared decision. The engines hand them plain arrays over the side's stands: `gap` the
range to the nearest enemy ahead in the stand's arc (from the defender's line when none),
`able` 1 for a stand that may take this choice now.

params: ADVANCE_TO (troops' halt, in steps of 0.125 km from the nearest enemy ahead),
GUNS_TO (artillery's halt), LOSSES (the defender's figures lost before the first close
assault; 0: at once; NEVER: never), MIN_STANDS (stands able to assault).
"""

from bollesim.jit import compiled

ADVANCE_TO, GUNS_TO, LOSSES, MIN_STANDS = range(4)
NEVER = 48  # LOSSES of a player who never close assaults
ARTILLERY = 2  # ruleset.ARTILLERY: the weapon code of artillery
COLUMN = 1  # ruleset.COLUMN: a column's formation code
DEPLOY_AT = 16  # a column deploys into line within 2 km of the enemy ahead (machine-gun reach)


@compiled(_nrt=False)
def halt(weapon, params):
    """The range from the nearest enemy ahead a stand advances to: troops' or guns' halt."""
    return int(params[GUNS_TO] if weapon == ARTILLERY else params[ADVANCE_TO])


@compiled(_nrt=False)
def advance(gap, weapon, able, params):
    """(the stand whose group moves next, the steps it wants to close), or (-1, 0) to stop
    moving: of the able stands short of their halt, the farthest from the enemy (the
    first such in stand order)."""
    best, best_gap, want = -1, -1, 0
    for i in range(gap.shape[0]):
        if not able[i]:
            continue
        stop = halt(weapon[i], params)
        if gap[i] > stop and gap[i] > best_gap:
            best, best_gap, want = i, gap[i], gap[i] - stop
    return best, want


@compiled(_nrt=False)
def wanting(gap, weapon, able, params):
    """How many able stands are short of their halt: the digits a general could use."""
    n = 0
    for i in range(gap.shape[0]):
        n += able[i] and gap[i] > halt(weapon[i], params)
    return n


@compiled(_nrt=False)
def reform(gap, formation, able, across):
    """The stand whose column deploys into line now, or -1: the first able column within
    DEPLOY_AT of the enemy ahead and across any river before it (across[i] 1), so that it
    crosses in column (Movement Rules: a digit changes a group's formation)."""
    for i in range(gap.shape[0]):
        if able[i] and formation[i] == COLUMN and gap[i] <= DEPLOY_AT and across[i]:
            return i
    return -1


@compiled(_nrt=False)
def pass_down(spare, wanted):
    """Digits the commander passes down to a subordinate in his command area who could
    use `wanted` more, out of `spare` digits his own stands do not need: one for every two
    (Generals and Orders)."""
    return max(0, min(spare // 2, wanted))


@compiled(_nrt=False)
def general_to(values):
    """Where a general goes, along one axis (distances or lanes of his stands on the
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


@compiled(_nrt=False)
def target(ranges, figures):
    """The enemy stand a stand fires at (I-FIREFIGHT=per-target), or -1: of those it can
    (ranges[j] >= 1: in its arc and range), the nearest, then the fewest figures left,
    then the first in stand order."""
    best = -1
    for j in range(ranges.shape[0]):
        if ranges[j] < 1:
            continue
        if best < 0 or (ranges[j], figures[j]) < (ranges[best], figures[best]):
            best = j
    return best


@compiled(_nrt=False)
def assault(candidates, defender_figures_lost, params):
    """Close assault now (after a won firefight), with `candidates` stands able to."""
    return (candidates >= params[MIN_STANDS] and params[LOSSES] < NEVER
            and defender_figures_lost >= params[LOSSES])


# ------------------------------------------------------------------ declared decisions

CLOSE_ASSAULT = 0
"""The kind of the attacker's declared decision (bollesim/balkan/positions.py): close
assault now, after a won firefight? Options: HOLD (0), ASSAULT_NOW (1)."""
HOLD, ASSAULT_NOW = 0, 1
N_OPTIONS = 2
O_BOUND, O_CANDIDATES, O_DEFENDING, O_CAS_A, O_CAS_D, O_LOST_A, O_LOST_D = range(7)
OBSERVATION_SIZE = 7
"""What the attacker sees at a close-assault decision: the bound, its stands able to
assault, the defender's stands they would assault, the figures each side has lost, the
stands each side has lost."""


@compiled(_nrt=False)
def family_decide(kind, obs, rules, options, n_options, params, prng):
    """The `assault` family's answer at a declared decision (bollesim/game/policy.py
    DECIDE_SIGNATURE): close assault as tactics.assault says."""
    return ASSAULT_NOW if assault(obs[O_CANDIDATES], obs[O_CAS_D], params) else HOLD
