"""The draws of a segment declared one by one (bollesim/game/chance.py): every chance draw
of the fast engine goes through core.py's d6, two_d6 and pick, which call `declared` while
st[layout.DRAW_MODE] is set (a replay in mode DRAWS or FORCED once its script ran out,
script.py), in no other game.

A draw's outcomes, by how it is told (HOW):
- DIE: a d6's six faces; DICE: the sum of 2d6, eleven outcomes weighted 1, 2, .., 6, .., 1
  (every 2d6 of the rules is read by its sum only: §7.1.2 attacks, §7.2 artillery);
- INDEX: one of n, as drawn (the k-th of the tied targets, §7.1; a marker's side, §6.2);
- CHITS: a chit of a cup, by its id; chits of the cup alike in every rule (type, letter,
  double target, artillery target, vehicle) are one outcome weighted by their count, told
  by the lowest id among them, for either leaves the same game to come (§5, §7.2);
- MARKERS: an enemy-action marker of a pool, by its id (§6.2);
- DIE_CUTS, DICE_CUTS: a die or a sum of which the rules read only where it falls against
  two cuts (below lo, from lo, from hi: a to-hit number, §7.1.2), and DIE_TABLE: a die
  read only through a table (st[at + face - 1]: a hit location, §7.1.3). The values of
  one class leave the same game to come (the value itself is only told), so a class is
  one outcome, weighted by its faces (its 2d6 throws), told by the tape's own value in
  the tape's class and by the lowest value of each other: the same rollouts serve every
  value of a class.
"""

from bollesim.bollebank import observation
from bollesim.bollebank.engine import layout, tables
from bollesim.bollebank.engine.script import DRAWS
from bollesim.jit import compiled

DIE, DICE, INDEX, CHITS, MARKERS, DIE_CUTS, DICE_CUTS, DIE_TABLE = range(8)
DICE_SUMS = 11  # 2 .. 12
NO_CUT = 99  # a cut no value reaches


@compiled
def declared(st, purpose, how, value, n, at, lo, hi):
    """The draw just made for `purpose` (luck.py), `value` its index among n (a face - 1,
    a sum - 2, an index into st[at : at + n]; lo, hi: the cuts of DIE_CUTS and
    DICE_CUTS, in values): DRAWS records it; FORCED gives the draw numbered DRAW_FORCED
    its outcome (-1: the tape's) and then switches to the rollout's streams. Returns the
    value to play on with."""
    k = st[layout.DRAW_AT]
    st[layout.DRAW_AT] = k + 1
    if st[layout.DRAW_MODE] == DRAWS:
        record(st, purpose, how, value, n, at, lo, hi, k)
        return value
    if k < st[layout.DRAW_FORCED]:
        return value
    outcome = st[layout.DRAW_FORCED + 1]
    if outcome >= 0:
        value = index_of(st, how, value, n, at, lo, hi, outcome)
    st[layout.DRAW_MODE] = 0
    if st[layout.DRAW_KEYS]:
        st[layout.CHANCE] = st[layout.DRAW_KEYS + 1]
        st[layout.CHANCE + 1] = 0
        st[layout.PRNG] = st[layout.DRAW_KEYS + 2]
        st[layout.PRNG + 1] = 0
    return value


@compiled
def alike(st, a, b):
    """Two chits the rules tell apart by nothing (rules/packed.py's chit tables)."""
    if a == b:
        return True
    if a == st[tables.S_SETUP_CHIT] or b == st[tables.S_SETUP_CHIT]:
        return False
    return (st[tables.CHIT_TYPE + a] == st[tables.CHIT_TYPE + b]
            and st[tables.CHIT_LETTER + a] == st[tables.CHIT_LETTER + b]
            and st[tables.CHIT_DOUBLE + a] == st[tables.CHIT_DOUBLE + b]
            and st[tables.CHIT_ART_TARGET + a] == st[tables.CHIT_ART_TARGET + b]
            and st[tables.CHIT_VEHICLE + a] == st[tables.CHIT_VEHICLE + b])


@compiled
def told(st, at, n, chit):
    """The outcome a chit of the cup st[at : at + n] is told by: the lowest id alike."""
    low = chit
    for i in range(n):
        if st[at + i] < low and alike(st, st[at + i], chit):
            low = st[at + i]
    return low


@compiled
def class_of(st, how, value, at, lo, hi):
    """The class of a die's or a sum's value (DIE_CUTS, DICE_CUTS, DIE_TABLE)."""
    if how == DIE_TABLE:
        return st[at + value]
    return (value >= lo) + (value >= hi)


@compiled
def outcome_of(st, how, value, n, at, lo, hi, own):
    """The outcome `value` is told by; `own`: the tape's value (classes)."""
    if how == CHITS:
        return told(st, at, n, st[at + value])
    if how == MARKERS:
        return st[at + value]
    if how >= DIE_CUTS:
        c = class_of(st, how, value, at, lo, hi)
        if class_of(st, how, own, at, lo, hi) == c:
            return own
        for v in range(n):
            if class_of(st, how, v, at, lo, hi) == c:
                return v
    return value


@compiled
def index_of(st, how, value, n, at, lo, hi, outcome):
    """The value that gives `outcome` (one alike the tape's own, or of its class: the
    tape's own)."""
    if how >= DIE_CUTS:
        same = class_of(st, how, value, at, lo, hi) == class_of(st, how, outcome, at, lo, hi)
        return value if same else outcome
    if how == CHITS:
        if alike(st, st[at + value], outcome):
            return value
        for i in range(n):
            if alike(st, st[at + i], outcome):
                return i
        raise ValueError("a chit forced that is not in the cup")
    if how == MARKERS:
        for i in range(n):
            if st[at + i] == outcome:
                return i
        raise ValueError("a marker forced that is not in the pool")
    return outcome


@compiled
def record(st, purpose, how, value, n, at, lo, hi, k):
    """Draw k into the record (bollesim/game/chance.py's layout), while it has room."""
    if k >= layout.MAX_DRAWS:
        return
    r = layout.DRAW_RECORD + k * layout.DRAW_WIDTH
    w = r + 3
    st[r : r + layout.DRAW_WIDTH] = 0
    st[r] = purpose
    st[r + 1] = outcome_of(st, how, value, n, at, lo, hi, value)
    dice = how == DICE or how == DICE_CUTS
    if how == CHITS or how == MARKERS:
        st[r + 2] = layout.MAX_OUTCOMES
        for i in range(n):
            st[w + outcome_of(st, how, i, n, at, lo, hi, value)] += 1
    else:
        st[r + 2] = n
        for v in range(n):
            st[w + outcome_of(st, how, v, n, at, lo, hi, value)] += 6 - abs(v - 5) if dice else 1
    c = w + layout.MAX_OUTCOMES
    st[c] = st[observation.TURN]
    used = 2 if dice else 1  # rng.keyed_two_d6 draws two numbers
    st[c + 1] = st[layout.CHANCE + 2 + 2 * purpose + 1] - used
