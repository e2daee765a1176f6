"""How a replayed game takes its decisions (engine/rollout.py): player.ask calls these
while st[layout.SCRIPT_ON] is set, which it is in no other game."""

from bollesim.bollebank import observation as O
from bollesim.bollebank.engine import layout as L
from bollesim.jit import compiled

ROLLOUT, PAUSE, STEP = 0, 1, 2  # layout.SCRIPT_MODE (STEP: rollout streams, then PAUSE)


@compiled
def replayed(st, n):
    """The index to replay at this decision (n options), or -1 once the script ran out
    (mode PAUSE: the decision after it is then recorded by record_point)."""
    at = st[L.SCRIPT_AT]
    if at == st[L.SCRIPT_N]:
        return -1
    index = st[L.SCRIPT + at]
    if index < 0 or index >= n:
        raise ValueError("a replayed choice is outside its decision's options")
    st[L.SCRIPT_AT] = at + 1
    if at + 1 == st[L.SCRIPT_N] and st[L.SCRIPT_MODE] != PAUSE:
        st[L.CHANCE] = st[L.SCRIPT_KEYS]  # the rollout's chance stream, from its first draw
        st[L.CHANCE + 1] = 0
        st[L.PRNG] = st[L.SCRIPT_KEYS + 1]
        st[L.PRNG + 1] = 0
        if st[L.SCRIPT_MODE] == ROLLOUT:
            st[L.SCRIPT_ON] = 0
        else:  # STEP: the next decision is recorded, as after a PAUSE script
            st[L.SCRIPT_MODE] = PAUSE
    return index


@compiled
def record_point(st, kind, n, choice):
    """PAUSE: keep the first decision after the script and the policy's choice there."""
    st[L.POINT_KIND] = kind
    st[L.POINT_N] = n
    st[L.POINT_CHOICE] = choice
    st[L.POINT_OBS : L.POINT_OBS + O.SIZE] = st[: O.SIZE]
    st[L.POINT_OPTS : L.POINT_OPTS + n] = st[L.OPTS : L.OPTS + n]
    st[L.SCRIPT_ON] = 0
