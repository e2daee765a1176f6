"""The attacker's choices, the scripted family `assault` (policies/assault.py), compiled
into both engines and called by both the same way: which group moves next and how far,
when a column deploys into line, how many digits the commander passes down, where a
general goes, which enemy stand a stand fires at (I-FIREFIGHT=per-target), and when to
close assault after a won firefight (the close-assault trigger family: at once, once the
defender has lost some figures, or once enough stands are close).

Every player choice of the attacker is one function here, so that each can become a
declared decision; four are declared (below): each arm's order a bound, the group each
move digit moves and the close assault, the family's answers in family_decide. The engines hand the functions plain
arrays over the side's stands: `gap` the range to the nearest enemy ahead in the stand's
arc (from the defender's line when none), `able` 1 for a stand that may take this choice
now.

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
def advance(gap, stop, able):
    """(the stand whose group moves next, the steps it wants to close), or (-1, 0) to stop
    moving: of the able stands short of where they stop (`stop`: tactics.stop of each),
    the farthest from the enemy (the first such in stand order). The family's rule; the
    engines find its stand as leaders' farthest, with the digit's other options'."""
    best, best_gap, want = -1, -1, 0
    for i in range(gap.shape[0]):
        if able[i] and gap[i] > stop[i] and gap[i] > best_gap:
            best, best_gap, want = i, gap[i], gap[i] - stop[i]
    return best, want


@compiled(_nrt=False)
def wanting(gap, stop, able):
    """How many able stands are short of where they stop: the digits a general could use."""
    return short_of(gap, stop, able)[0]


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

CLOSE_ASSAULT, TROOPS_ADVANCE, GUNS_ADVANCE, DIGIT = 0, 1, 2, 3
"""The kinds of the attacker's declared decisions (bollesim/balkan/positions.py).

CLOSE_ASSAULT, after a won firefight in which it has troops in reach (Move Sequence 5:
'Any stands that have won a firefight and are entering into a Close Assault may do so';
Close Assault Rules): HOLD (0), ASSAULT_NOW (1: every close stand goes in) or, when some
but not all of them have lost figures, FRESH (2: only the stands that have lost none go
in, against as many of the defender's healthiest stands in their reach).

TROOPS_ADVANCE and GUNS_ADVANCE, each bound after the move dice are thrown (Move Sequence
1-2, Generals and Orders: 'Those stands that are being moved may move'), once for each arm
(the troops, the guns) with a stand that may be moved and is short of the nearest place
an order could send it (its own halt or its weapon's effective range, `closest_stop`;
else every option is one): the arm's order for the bound,
HALT (0: none of its stands is moved; they fire from where they stand, Move Sequence 3),
PART (1: each of its groups is moved once, half its move over the ground at most), FULL
(2: its groups advance toward the player's own halt as the digits allow, the family's
moves), TO_MAXIMUM (3: the same, toward each stand's weapon's maximum range) or
TO_EFFECTIVE (4: the same, toward its effective range, the guns' short range; Weapon
Ranges). How far to advance is the order itself, whatever the player's own halt.

DIGIT, for each move digit a general spends on moving a group (Generals and Orders: 'A
General may move single stands or group of stands for every digit'; Movement Rules: 'One
digit ... is expended to move: a stand or a group of stands', 'A General may add 0.25km
(5cm) for every unused digit'), asked where the groups its options would move differ (two
or more distinct): which group the digit moves, FARTHEST (0: the farthest from the enemy
first, the family's, tactics.advance), NEAREST (1: the nearest short of where it stops),
TROOPS_FIRST (2: the troops' farthest), GUNS_FIRST (3: the guns' farthest), or SPARE (4:
this and the general's remaining digits stay unused, I-SPARE). Only the distinct options
are offered (digit_options: codes in that order, FARTHEST first, SPARE last).

Readings of the rules' silences (docs/balkan-wars.md, "Declared decisions"): an order is
given to an arm for the bound, and each digit then names its group by one of four rules
(farthest, nearest, the troops', the guns') or is kept unused (the alternative, any group
for each digit, has as many options as the general has groups, too many to look ahead
at); a digit is asked only where its options' groups differ, keeping it unused offered
there only (asked at every digit, most of the digits would ask only
whether to move the one group there is), and a column's deployment (reform)
comes before it, the family's; a stand that moves also
fires, the rules' Move Sequence moving before firing, so "fire or move" is where to halt
before the fire (the alternative, that a stand that moved may not fire, is not the rules'
sequence); where to halt is one of the player's own halt and the weapon's two ranges of
the rules' table (Weapon Ranges: past the maximum a stand does not fire, inside the
effective range it fires without the -1 and may close assault), not any distance (as
many options as steps); an order never moves a stand back (the family's moves only close
in); the digits left unused by a halted or part move lengthen no move (Movement
Rules: a General 'may add' 0.25 km a digit: with HALT or PART he does not), where a full
move (FULL, TO_MAXIMUM, TO_EFFECTIVE) lengthens toward its own halt (I-SPARE); a column of
a halted arm does not deploy (its digit would be an order to it); which stands go in is
one of two sets, all the close troops or the fresh ones (the alternative, any subset, has
as many options as subsets)."""
HOLD, ASSAULT_NOW, FRESH = 0, 1, 2
HALT, PART, FULL, TO_MAXIMUM, TO_EFFECTIVE = range(5)
N_ORDERS = 5  # an arm's order's options
FARTHEST, NEAREST, TROOPS_FIRST, GUNS_FIRST, SPARE = range(5)  # a digit's options' codes
N_OPTIONS = 5  # the most options of one decision
(O_BOUND, O_CANDIDATES, O_DEFENDING, O_CAS_A, O_CAS_D, O_LOST_A, O_LOST_D, O_DIGITS,
 O_MOVABLE, O_NEAREST, O_FARTHEST, O_FRESH) = range(12)
OBSERVATION_SIZE = 12
"""What the attacker sees at a decision: the bound, the figures and the stands each side
has lost; at a close assault its stands able to assault, the defender's stands they would
meet and how many of its stands have lost no figure; at an arm's order its digits this
bound (every general's), the arm's stands that may be moved, and the nearest and the
farthest of them from the enemy ahead (`gap`); at a digit the general's digits left (this
one too), his stands that may be moved and are short of where they stop, and the nearest
and the farthest of them. A slot of another kind is 0."""


@compiled(_nrt=False)
def family_decide(kind, obs, rules, options, n_options, params, prng):
    """The `assault` family's answer at a declared decision (bollesim/game/policy.py
    DECIDE_SIGNATURE): close assault as tactics.assault says; every arm advances the full
    move, toward its halt, each digit the farthest group first (tactics.advance: the
    first option offered)."""
    if kind == DIGIT:
        return 0
    if kind != CLOSE_ASSAULT:
        return FULL
    return ASSAULT_NOW if assault(obs[O_CANDIDATES], obs[O_CAS_D], params) else HOLD


@compiled(_nrt=False)
def arm_of(weapon):
    """The kind of an arm's order: GUNS_ADVANCE for artillery, TROOPS_ADVANCE for the rest."""
    return GUNS_ADVANCE if weapon == ARTILLERY else TROOPS_ADVANCE


@compiled(_nrt=False)
def ordered(order, moved):
    """Whether a stand under this order may be moved now (a HALT arm's never; a PART arm's
    once a bound; a full move's, toward whichever halt, as the digits allow)."""
    return order >= FULL or (order == PART and not moved)


@compiled(_nrt=False)
def lengthened(order):
    """Whether the unused digits lengthen a move under this order (a full one's)."""
    return order >= FULL


@compiled(_nrt=False)
def part_of(want, order, move):
    """The steps a group wants under its arm's order: PART, half its move at most."""
    return min(want, max(1, move // 2)) if order == PART else want


@compiled(_nrt=False)
def stop(weapon, order, effective, maximum, params):
    """The range from the nearest enemy ahead a stand advances to under its arm's order:
    its weapon's maximum or effective range (the guns' short range), else the player's own
    halt (tactics.halt)."""
    if order == TO_MAXIMUM:
        return int(maximum)
    if order == TO_EFFECTIVE:
        return int(effective)
    return halt(weapon, params)


@compiled(_nrt=False)
def closest_stop(weapon, effective, params):
    """The nearest an order could send a stand: its arm is asked while a stand is short
    of it."""
    return min(halt(weapon, params), int(effective))


@compiled(_nrt=False)
def leaders(gap, stop, able, weapon):
    """(the farthest, the nearest, the troops' farthest, the guns' farthest) of the able
    stands short of where they stop, each the first such in stand order, -1 where there is
    none (the farthest is tactics.advance's stand), in one pass: the stands whose groups a
    digit's options move."""
    far = near = troops = guns = -1
    for i in range(gap.shape[0]):
        if not (able[i] and gap[i] > stop[i]):
            continue
        if far < 0 or gap[i] > gap[far]:
            far = i
        if near < 0 or gap[i] < gap[near]:
            near = i
        if weapon[i] == ARTILLERY:
            if guns < 0 or gap[i] > gap[guns]:
                guns = i
        elif troops < 0 or gap[i] > gap[troops]:
            troops = i
    return far, near, troops, guns


@compiled(_nrt=False)
def pick(option, far, near, troops, guns):
    """The stand whose group a digit moves under `option` (leaders'), -1 for SPARE."""
    if option == FARTHEST:
        return far
    if option == NEAREST:
        return near
    if option == TROOPS_FIRST:
        return troops
    return guns if option == GUNS_FIRST else -1


@compiled(_nrt=False)
def digit_options(far, near, troops, guns, codes):
    """The codes of a digit's options whose stands differ (leaders'; FARTHEST first, then
    each later one that moves another stand's group, SPARE last) into codes; how many,
    0 when fewer than two differ (the digit is not asked: FARTHEST)."""
    n, first, second, third = 0, -1, -1, -1
    for option in range(SPARE):
        j = pick(option, far, near, troops, guns)
        if j < 0 or j == first or j == second or j == third:
            continue
        codes[n] = option
        if n == 0:
            first = j
        elif n == 1:
            second = j
        else:
            third = j
        n += 1
    if n < 2:
        return 0
    codes[n] = SPARE
    return n + 1


@compiled(_nrt=False)
def short_of(gap, stop, able):
    """(how many able stands are short of where they stop, the nearest's gap, the
    farthest's): what the attacker sees at a digit."""
    n, low, high = 0, 0, 0
    for i in range(gap.shape[0]):
        if able[i] and gap[i] > stop[i]:
            low = gap[i] if n == 0 else min(low, gap[i])
            high = max(high, gap[i])
            n += 1
    return n, low, high
