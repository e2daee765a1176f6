"""Replayed games: the primitives of Operation Bøllebank's decision points (positions.py,
bollesim/game/positions.py), which every strong-play tool plays through.

The fast engine cannot stop a game in the middle of a phase and copy it, but between two
phases the whole game is in st. So a replay starts from a copy of st at the start of a
phase (a snapshot), replays the choices made since (the script) in the order they were
asked, on the game's own chance stream, and then either:

- PAUSE: records the next decision (its kind, options and the observation it is taken
  on), the choice of the policy handed to the kernel, and the snapshot of the phase it
  is taken in; or
- ROLLOUT: switches the chance and policy streams to keys of the rollout's own the
  moment the script runs out, so nothing drawn after the decision (the game's future
  chits and dice) is the game's, and the policy plays the game out;
- STEP: switches to the rollout's streams as ROLLOUT does, and records the next decision
  as PAUSE does: a sample of the chance between one decision and the next, drawn off the
  game's own (the penalised clairvoyant's expectations, strong/penalised.py);
- DRAWS: records the draws of the segment after the script, up to the next decision
  (draws.py; bollesim/game/chance.py);
- FORCED: takes the segment's draws from the game's own streams up to one, gives it an
  outcome, and then plays rollout r's streams (rng.draw_key) out under decide.

PAUSE, ROLLOUT, STEP, DRAWS and FORCED are each called by one primitive of
engine/primitives.py and inlined there, so that numba optimises the engine below them
once for the primitive rather than once for each (bollesim/jit.py).

The decisions counted are those put to the player: a lone option is taken without
asking (player.ask), so it is not in the script. The scripted family's kernel finds its
orders without listing them (orders.scripted_order); while a script is on, it lists them
and asks, as the general protocol does, so both count the same decisions.
"""

import numpy as np

from bollesim import rng
from bollesim.bollebank import observation
from bollesim.bollebank.decisions import MAX_OPTIONS
from bollesim.bollebank.engine import layout
from bollesim.bollebank.engine.core import new_game
from bollesim.bollebank.engine.play import ORDERS, play_phase, write_result
from bollesim.bollebank.engine.script import DRAWS, FORCED, PAUSE, ROLLOUT, STEP, draws_begin
from bollesim.jit import compiled
from bollesim.rng import draw_key, rollout_key

# A snapshot: st[:OPTS] (the state, the streams, the parameters) and the kernels' scratch
# (a turn's overwatch dice outlive a phase), then the phase and the script's position.
_SCRATCH = layout.OPTS + MAX_OPTIONS
SNAP_PHASE = layout.OPTS + (layout.RULES - _SCRATCH)
SNAP_AT = SNAP_PHASE + 1
SNAP_SIZE = SNAP_AT + 1


@compiled
def replay(st, params, seed, game, start, script, n, mode):
    """Set st to the snapshot `start` with the player's parameters, ready to replay
    script[:n] in `mode`; returns the phase to play. Who plays and with which parameters
    are st's and params', not the snapshot's: a snapshot another player took (the game
    analysed, bollesim/strong/analysis.py) is played on by this one."""
    scripted = st[layout.SCRIPTED]
    phase = restore(st, start, seed, game)
    st[layout.PARAMS : layout.PARAMS + params.shape[0]] = params.view(np.int64)
    st[layout.SCRIPTED] = scripted
    st[layout.PLAN_GOALS] = -1  # the scripted family's goals of its parameters (player.py)
    st[layout.SCRIPT : layout.SCRIPT + n] = script[:n]
    st[layout.SCRIPT_MODE] = mode
    st[layout.SCRIPT_N] = n
    st[layout.SCRIPT_AT] = 0
    st[layout.POINT_CHOICE] = -1
    st[layout.SCRIPT_ON] = 1
    st[layout.DRAW_MODE] = 0
    st[layout.DRAW_AT] = 0
    if n == 0 and mode >= DRAWS:  # the segment starts at the snapshot
        draws_begin(st)
    return phase


@compiled(inline=True)
def pause(st, decide, params, seed, game, start, script, n, snapshot, to_end):
    """PAUSE: replay script[:n] from `start` and record the decision after it (keep_point
    reads it) and the snapshot of the phase it is in. to_end: then play the game out
    under decide, on the game's own streams; else stop at the end of that phase (the
    state is then of no use but for the point)."""
    phase = replay(st, params, seed, game, start, script, n, PAUSE)
    while not st[layout.X_OVER]:
        if st[layout.SCRIPT_ON]:
            take_snapshot(st, phase, start[SNAP_AT], snapshot)
        elif not to_end:
            break
        phase = play_phase(st, decide, phase)
    st[layout.SCRIPT_ON] = 0


@compiled(inline=True)
def rollout(st, decide, params, seed, game, start, script, n, option, r, row):
    """ROLLOUT: replay script[:n] from `start`, take `option` (an index) at the decision
    after it, and from that moment play rollout r's own streams (rollout_key) out under
    decide; the result row goes to row (layout.R_*)."""
    phase = replay(st, params, seed, game, start, script, n, ROLLOUT)
    st[layout.SCRIPT + n] = option
    st[layout.SCRIPT_N] = n + 1
    decision = start[SNAP_AT] + n  # the decisions asked in the game before it
    st[layout.SCRIPT_KEYS] = rollout_key(seed, game, decision, r, rng.CHANCE)
    st[layout.SCRIPT_KEYS + 1] = rollout_key(seed, game, decision, r, rng.POLICY)
    while not st[layout.X_OVER]:
        phase = play_phase(st, decide, phase)
    st[layout.SCRIPT_ON] = 0
    write_result(st, st[layout.CHANCE + 1], row)


@compiled(inline=True)
def step(st, decide, params, seed, game, start, script, n, option, r):
    """STEP: replay script[:n] from `start`, take `option` at the decision after it, and
    from that moment draw from rollout r's own streams (r < 0: the game's own, for a
    check against PAUSE) up to the next decision, recorded (keep_point), or the game's
    end. The state is then of no use but for the point and the result."""
    phase = replay(st, params, seed, game, start, script, n, STEP)
    st[layout.SCRIPT + n] = option
    st[layout.SCRIPT_N] = n + 1
    decision = start[SNAP_AT] + n
    if r < 0:
        st[layout.SCRIPT_KEYS] = np.int64(rng.stream_key(seed, game, rng.CHANCE))
        st[layout.SCRIPT_KEYS + 1] = np.int64(rng.stream_key(seed, game, rng.POLICY))
    else:
        st[layout.SCRIPT_KEYS] = rollout_key(seed, game, decision, r, rng.CHANCE)
        st[layout.SCRIPT_KEYS + 1] = rollout_key(seed, game, decision, r, rng.POLICY)
    while not st[layout.X_OVER] and st[layout.SCRIPT_ON]:
        phase = play_phase(st, decide, phase)
    st[layout.SCRIPT_ON] = 0


@compiled(inline=True)
def draws(st, decide, params, seed, game, start, script, n):
    """DRAWS: replay script[:n] from `start` and record the segment's draws after it
    (layout.DRAW_RECORD, DRAW_AT of them) up to the next decision or the game's end. The
    state is then of no use but for the record."""
    phase = replay(st, params, seed, game, start, script, n, DRAWS)
    while not st[layout.X_OVER] and st[layout.SCRIPT_ON]:
        phase = play_phase(st, decide, phase)
    st[layout.SCRIPT_ON] = 0
    st[layout.DRAW_MODE] = 0


@compiled(inline=True)
def forced(st, decide, params, seed, game, start, script, n, draw, outcome, r, row):
    """FORCED: replay script[:n] from `start`, take the segment's draws from the game's own
    streams up to the one numbered `draw`, which gives `outcome` (-1: its own), and from
    then on play rollout r's streams (r < 0: the game's own) out under decide; the result
    row goes to row. Every outcome of one draw shares rollout r's streams."""
    phase = replay(st, params, seed, game, start, script, n, FORCED)
    st[layout.DRAW_FORCED] = draw
    st[layout.DRAW_FORCED + 1] = outcome
    st[layout.DRAW_KEYS] = r >= 0
    decision = start[SNAP_AT] + n  # the decisions asked in the game before the segment
    st[layout.DRAW_KEYS + 1] = draw_key(seed, game, decision, draw, max(r, 0), rng.CHANCE)
    st[layout.DRAW_KEYS + 2] = draw_key(seed, game, decision, draw, max(r, 0), rng.POLICY)
    while not st[layout.X_OVER]:
        phase = play_phase(st, decide, phase)
    st[layout.SCRIPT_ON] = 0
    st[layout.DRAW_MODE] = 0
    write_result(st, st[layout.CHANCE + 1], row)


@compiled
def restore(st, start, seed, game):
    """Set st to the snapshot `start` (or to setup) and return the phase to play."""
    if start[SNAP_PHASE] < 0:
        new_game(st, seed, game)
        return ORDERS
    st[: layout.OPTS] = start[: layout.OPTS]
    st[_SCRATCH : layout.RULES] = start[layout.OPTS : SNAP_PHASE]
    return start[SNAP_PHASE]


@compiled
def take_snapshot(st, phase, asked_before_start, snapshot):
    """The snapshot of st at the start of `phase`; SNAP_AT: the decisions asked in the
    game before it."""
    snapshot[: layout.OPTS] = st[: layout.OPTS]
    snapshot[layout.OPTS : SNAP_PHASE] = st[_SCRATCH : layout.RULES]
    snapshot[SNAP_PHASE] = phase
    snapshot[SNAP_AT] = asked_before_start + st[layout.SCRIPT_AT]


@compiled
def keep_point(st, row):
    """PAUSE: (the policy's choice, kind, n, observation..., options...) of the decision
    after the script; choice -1 when the game ended first."""
    row[0] = st[layout.POINT_CHOICE]
    row[1] = st[layout.POINT_KIND]
    row[2] = st[layout.POINT_N]
    row[3 : 3 + observation.SIZE] = st[layout.POINT_OBS : layout.POINT_OBS + observation.SIZE]
    n = st[layout.POINT_N] if st[layout.POINT_CHOICE] >= 0 else 0
    row[3 + observation.SIZE : 3 + observation.SIZE + n] = st[layout.POINT_OPTS : layout.POINT_OPTS + n]
