"""How a replayed game takes its decisions (engine/rollout.py): player.ask calls these
while st[layout.SCRIPT_ON] is set, which it is in no other game."""

from bollesim.bollebank import observation
from bollesim.bollebank.engine import layout
from bollesim.jit import compiled

ROLLOUT, PAUSE, STEP, DRAWS, FORCED = range(5)
"""layout.SCRIPT_MODE. STEP: rollout streams, then PAUSE; DRAWS, FORCED: the segment's draws
recorded or forced (draws.py), from the game's own streams."""


@compiled
def replayed(st, n):
    """The index to replay at this decision (n options), or -1 once the script ran out
    (mode PAUSE: the decision after it is then recorded by record_point)."""
    at = st[layout.SCRIPT_AT]
    if at == st[layout.SCRIPT_N]:
        return -1
    index = st[layout.SCRIPT + at]
    if index < 0 or index >= n:
        raise ValueError("a replayed choice is outside its decision's options")
    st[layout.SCRIPT_AT] = at + 1
    if at + 1 == st[layout.SCRIPT_N] and st[layout.SCRIPT_MODE] >= DRAWS:
        draws_begin(st)
    elif at + 1 == st[layout.SCRIPT_N] and st[layout.SCRIPT_MODE] != PAUSE:
        st[layout.CHANCE] = st[layout.SCRIPT_KEYS]  # the rollout's chance stream, from its first draw
        st[layout.CHANCE + 1] = 0
        st[layout.PRNG] = st[layout.SCRIPT_KEYS + 1]
        st[layout.PRNG + 1] = 0
        if st[layout.SCRIPT_MODE] == ROLLOUT:
            st[layout.SCRIPT_ON] = 0
        else:  # STEP: the next decision is recorded, as after a PAUSE script
            st[layout.SCRIPT_MODE] = PAUSE
    return index


@compiled
def draws_begin(st):
    """DRAWS, FORCED: the script ran out, and the segment's draws are counted from here
    (draws.py). DRAWS records them up to the next decision, which ends the segment as
    after a PAUSE script; FORCED plays on under decide."""
    st[layout.DRAW_MODE] = st[layout.SCRIPT_MODE]
    st[layout.DRAW_AT] = 0
    if st[layout.SCRIPT_MODE] == DRAWS:
        st[layout.SCRIPT_MODE] = PAUSE
    else:
        st[layout.SCRIPT_ON] = 0


@compiled
def record_point(st, kind, n, choice):
    """PAUSE: keep the first decision after the script and the policy's choice there."""
    st[layout.POINT_KIND] = kind
    st[layout.POINT_N] = n
    st[layout.POINT_CHOICE] = choice
    st[layout.POINT_OBS : layout.POINT_OBS + observation.SIZE] = st[: observation.SIZE]
    st[layout.POINT_OPTS : layout.POINT_OPTS + n] = st[layout.OPTS : layout.OPTS + n]
    st[layout.SCRIPT_ON] = 0
    st[layout.DRAW_MODE] = 0  # DRAWS: the segment ends here
