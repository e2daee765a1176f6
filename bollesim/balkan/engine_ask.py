"""The fast engine's declared decisions (tactics.py CLOSE_ASSAULT .. DIGIT): where the attacker
would call its scripted choice, the engine asks `decide` (bollesim/game/policy.py
DECIDE_SIGNATURE), after the choices a script says. The control vector `ctl` holds the
script, what to do past it (take an option, switch to a rollout's own streams, stop at the
next decision or note it) and the point of the decision noted (bollesim/game/positions.py's
layout). play_games plays with an empty script and the `assault` family's decide
(tactics.family_decide), so its rows are the family's.
"""

import numpy as np

from bollesim import rng
from bollesim.balkan import tactics
from bollesim.balkan.engine_state import ATT, DEF, lost, unmanaged
from bollesim.jit import compiled

GO, STOP, NOTE = 0, 1, 2  # C_STOP: play out; stop at the next decision past the script; note it
C_N, C_TAKEN, C_OPTION, C_STOP, C_KEY, C_SEED, C_GAME, C_STOPPED = range(8)
C_POINT = 8
POINT_WIDTH = 3 + tactics.OBSERVATION_SIZE + tactics.N_OPTIONS
C_OBS = C_POINT + POINT_WIDTH
C_OPTIONS = C_OBS + tactics.OBSERVATION_SIZE
C_PRNG = C_OPTIONS + tactics.N_OPTIONS
C_SCRIPT = C_PRNG + 2
MAX_SCRIPT = 512
"""The longest script: more than the decisions of any engagement (an order for each arm,
a group for each move digit and a close assault for each won firefight, a bound)."""
CTL_SIZE = C_SCRIPT + MAX_SCRIPT


@compiled
def new_control(seed, game, script, n, option, stop, key):
    """A control vector: take script[:n], then option (-1: none); stop (GO, STOP, NOTE);
    past the option, draw from rollout `key`'s streams (-1: the game's own)."""
    ctl = np.zeros(CTL_SIZE, dtype=np.int64)
    reset_control(ctl, seed, game, n, option, stop, key)
    ctl[C_SCRIPT : C_SCRIPT + n] = script[:n]
    return ctl


@compiled(_nrt=False)
def reset_control(ctl, seed, game, n, option, stop, key):
    """For a new game: nothing asked yet; the policy's stream is the game's own."""
    ctl[C_N], ctl[C_TAKEN], ctl[C_OPTION], ctl[C_STOP] = n, 0, option, stop
    ctl[C_KEY], ctl[C_SEED], ctl[C_GAME], ctl[C_STOPPED] = key, seed, game, 0
    ctl[C_POINT] = -1
    ctl[C_PRNG] = np.int64(rng.stream_key(seed, game, rng.POLICY))
    ctl[C_PRNG + 1] = 0


@unmanaged
def observe(ctl, bound, st, ns, cas):
    """The observation's common slots (tactics.OBSERVATION_SIZE) into ctl from C_OBS, the
    kinds' own slots 0 (the caller sets them: ctl[C_OBS + slot])."""
    for i in range(tactics.OBSERVATION_SIZE):
        ctl[C_OBS + i] = 0
    ctl[C_OBS + tactics.O_BOUND] = bound
    ctl[C_OBS + tactics.O_CAS_A], ctl[C_OBS + tactics.O_CAS_D] = cas[ATT], cas[DEF]
    ctl[C_OBS + tactics.O_LOST_A] = lost(st, ATT, ns[ATT])
    ctl[C_OBS + tactics.O_LOST_D] = lost(st, DEF, ns[DEF])


@unmanaged
def ask_assault(ctl, decide, stream, sc, params, bound, ca, cd, fresh, st, ns, cas):
    """The attacker's close-assault decision after a won firefight, ca stands able to
    assault cd of the defender's, `fresh` of them with no figure lost (ask): tactics.HOLD,
    ASSAULT_NOW or, offered when 0 < fresh < ca, FRESH."""
    observe(ctl, bound, st, ns, cas)
    ctl[C_OBS + tactics.O_CANDIDATES], ctl[C_OBS + tactics.O_DEFENDING] = ca, cd
    ctl[C_OBS + tactics.O_FRESH] = fresh
    return ask(ctl, decide, stream, sc, params, tactics.CLOSE_ASSAULT, 3 if 0 < fresh < ca else 2)


@unmanaged
def ask_digit(ctl, decide, stream, sc, params, bound, st, ns, cas, gap, stop, able, far, near, troops, guns,
              left):
    """The code of the group a digit of the attacker's moves (tactics.DIGIT; far .. guns:
    tactics.leaders'), asked when the options' stands differ (tactics.digit_options), else
    tactics.FARTHEST; `left` the general's digits left."""
    options = ctl[C_OPTIONS : C_OPTIONS + tactics.N_OPTIONS]
    n_options = tactics.digit_options(far, near, troops, guns, options)
    if n_options == 0:
        return tactics.FARTHEST
    observe(ctl, bound, st, ns, cas)
    count, low, high = tactics.short_of(gap, stop, able)
    ctl[C_OBS + tactics.O_DIGITS], ctl[C_OBS + tactics.O_MOVABLE] = left, count
    ctl[C_OBS + tactics.O_NEAREST], ctl[C_OBS + tactics.O_FARTHEST] = low, high
    return options[choose(ctl, decide, stream, sc, params, tactics.DIGIT, n_options)]


@unmanaged
def ask(ctl, decide, stream, sc, params, kind, n_options):
    """The attacker's decision of `kind` on the observation in ctl, options 0 .. n_options
    - 1 (their codes are their indices): choose's."""
    options = ctl[C_OPTIONS : C_OPTIONS + tactics.N_OPTIONS]
    for i in range(tactics.N_OPTIONS):
        options[i] = i if i < n_options else 0
    return choose(ctl, decide, stream, sc, params, kind, n_options)


@unmanaged
def choose(ctl, decide, stream, sc, params, kind, n_options):
    """The index of the option taken at the attacker's decision of `kind`, on the
    observation and the options' codes in ctl: the script's choice, the option after it,
    or decide's. A decision met where the control says stop leaves ctl[C_STOPPED] set (the
    game stops there)."""
    obs = ctl[C_OBS : C_OBS + tactics.OBSERVATION_SIZE]
    options = ctl[C_OPTIONS : C_OPTIONS + tactics.N_OPTIONS]
    for i in range(n_options, tactics.N_OPTIONS):
        options[i] = 0
    k, n = ctl[C_TAKEN], ctl[C_N]
    scripted = n + (ctl[C_OPTION] >= 0)
    ctl[C_TAKEN] = k + 1
    if k < scripted:
        choice = ctl[C_SCRIPT + k] if k < n else ctl[C_OPTION]
        if k + 1 == scripted and ctl[C_OPTION] >= 0 and ctl[C_KEY] >= 0:
            switch(ctl, stream, k)
        return choice
    choice = decide(kind, obs, sc, options, n_options, params, ctl[C_PRNG : C_PRNG + 2])
    if ctl[C_STOP] != GO:
        ctl[C_POINT], ctl[C_POINT + 1], ctl[C_POINT + 2] = choice, kind, n_options
        for i in range(tactics.OBSERVATION_SIZE):
            ctl[C_POINT + 3 + i] = obs[i]
        for i in range(tactics.N_OPTIONS):
            ctl[C_POINT + 3 + tactics.OBSERVATION_SIZE + i] = options[i]
        if ctl[C_STOP] == STOP:
            ctl[C_STOPPED] = 1
        ctl[C_STOP] = GO
    return choice


@compiled(_nrt=False)
def switch(ctl, stream, decision):
    """From here on, the chance and the policy's streams of rollout C_KEY after the
    decision numbered `decision` (bollesim.rng.rollout_key)."""
    seed, game, r = ctl[C_SEED], ctl[C_GAME], ctl[C_KEY]
    for i in range(stream.shape[0]):
        stream[i] = 0
    stream[0] = rng.rollout_key(seed, game, decision, r, rng.CHANCE)
    ctl[C_PRNG] = rng.rollout_key(seed, game, decision, r, rng.POLICY)
    ctl[C_PRNG + 1] = 0
