"""What a game declares of its decision points, so that every strong-play tool is written
once against it (the anchors: OpenSpiel's `State`, pgx's `Env`): the lookahead player, the
apprentice's training, the clairvoyant and penalised bounds, the step API and the analysis
of luck and errors (bollesim/strong/).

A game's `positions` module (Game.positions) provides the names of POSITIONS. Its engine
plays a game from a *position*: a snapshot of the game's state (a whole game's state at
some moment, SNAPSHOT_SIZE int64 values, of the game's own making) and the choices made
since (a script of option indices). Three compiled primitives, each a numba function
compiled for the signature below so that the strong-play kernels take it as a first-class
function (one compile of those kernels for every game):

- pause(work, decide, params, seed, game, start, script, n, to_end, snapshot, point, row):
  replay script[:n] from the snapshot `start` on the game's own keyed tape and record the
  decision after it in `point` (the layout below) with the snapshot of where it is found
  (a snapshot the game can restore, taken at or before the decision, whose last value is
  the number of decisions the game asked before it). to_end: then play the game out under
  `decide`. When the game ends first, point[0] is -1; `row` gets the result row whenever
  the game is over.
- rollout(work, decide, params, seed, game, start, script, n, option, r, row): replay
  script[:n], take option index `option` at the decision after it, and from that moment
  draw from rollout r's own streams (bollesim.rng.rollout_key) while `decide` plays the
  game out; its result row into `row`. Every option of one decision shares rollout r's
  streams (common random numbers).
- step(work, decide, params, seed, game, start, script, n, option, r, point, row): as
  rollout, but stop at the next decision (recorded in `point`) or the end: one sample of
  the chance between two decisions (r < 0: the game's own tape).

`work` is the game's scratch (new_work(rules, policy): the ruleset and who plays, made once
per thread); `decide` the base policy's decide (bollesim/game/policy.py DECIDE_SIGNATURE),
`params` its kernel vector. Each primitive reads nothing but its arguments, so two threads
with works of their own play side by side.

A point: [the decide's choice there (-1: the game ended), kind, number of options,
observation (OBSERVATION_SIZE values), options (MAX_OPTIONS values)].
"""

from __future__ import annotations

from numba import types

from bollesim.game.policy import DECIDE_SIGNATURE

I64, F64 = types.int64, types.float64
DECIDE = types.FunctionType(DECIDE_SIGNATURE)

PAUSE_SIGNATURE = types.void(I64[::1], DECIDE, F64[::1], I64, I64, I64[::1], I64[::1], I64,
                             I64, I64[::1], I64[::1], I64[::1])
ROLLOUT_SIGNATURE = types.void(I64[::1], DECIDE, F64[::1], I64, I64, I64[::1], I64[::1], I64,
                               I64, I64, I64[::1])
STEP_SIGNATURE = types.void(I64[::1], DECIDE, F64[::1], I64, I64, I64[::1], I64[::1], I64,
                            I64, I64, I64[::1], I64[::1])
ALLOWED_SIGNATURE = I64[::1](I64, I64[::1], I64[::1], F64[::1])
"""allowed(kind, options, observation, restriction) -> the indices of the options a
restricted player may take (all of them when `restriction` imposes nothing): how a question
imposes its own choice on a player who chooses everything else (restricted play)."""

PAUSE, ROLLOUT, STEP, ALLOWED = (types.FunctionType(s) for s in (
    PAUSE_SIGNATURE, ROLLOUT_SIGNATURE, STEP_SIGNATURE, ALLOWED_SIGNATURE))

POINT_CHOICE, POINT_KIND, POINT_N, POINT_OBS = range(4)
"""A point's first slots (the module docstring); the options follow the observation."""

POSITIONS = (
    "KINDS",  # the kinds of decision, by name, in the order of their numbers
    "LOOKED_AT",  # the kinds a lookahead player looks ahead at by default
    "OBSERVATION_SIZE",  # the observation's length (a point's, a learner's)
    "TURN_SLOT",  # where the observation holds the turn (or bound) of the game
    "MAX_OPTIONS",  # the most options of one decision
    "MAX_SCRIPT",  # the longest script a position may hold
    "SNAPSHOT_SIZE",  # a snapshot's length; its last value: decisions asked before it
    "SETUP",  # the snapshot of a game not yet begun (its setup is played on first use)
    "RESTRICTION_SIZE",  # the length of allowed()'s restriction vector
    "pause", "rollout", "step", "allowed",  # the compiled primitives (module docstring)
    "new_work",  # (rules, policy) -> the scratch the primitives play in
    "option_name",  # (rules, kind, option) -> the option in words
    "reference_row",  # (rules, policy, params, seed, game, choices) -> the result row of
    #                   the game those choices play, in the game's reference engine
)
"""What a game's positions module (Game.positions) provides."""


def point_width(positions) -> int:
    """The length of a point of the game whose positions module this is."""
    return POINT_OBS + positions.OBSERVATION_SIZE + positions.MAX_OPTIONS
