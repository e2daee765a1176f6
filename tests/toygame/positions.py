"""Pig race's decision points and draws (bollesim/game/positions.py, game/chance.py), as
every strong-play tool reads them. A snapshot is the whole game: a few integers and its
keyed dice stream; the i-th die of turn t is fixed whatever was played (bollesim/rng.py),
as optimum.py's tape is, so the game's exact value is the dynamic programme's.

One kind of decision, after every roll that neither busts nor reaches the target: roll on
(option 0) or bank (option 1), seen as (turn, banked, busted turns, the turn's points).
One kind of draw, the die, whose context is that same view.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from bollesim import rng
from bollesim.game.chance import DRAWS_SIGNATURE, FORCED_SIGNATURE
from bollesim.game.positions import (
    ALLOWED_SIGNATURE,
    PAUSE_SIGNATURE,
    ROLLOUT_SIGNATURE,
    STEP_SIGNATURE,
)
from bollesim.jit import compiled
from toygame.rules import KEYS

KINDS = ("roll or bank",)
OPTIONS = ("roll on", "bank")
LOOKED_AT = (0,)
OBSERVATION_SIZE = 4  # turn, banked, busted turns, the turn's points
TURN_SLOT = 0
MAX_OPTIONS = 2
MAX_SCRIPT = 1024  # a turn asks at most target / 2 times; ten turns of a 100 target
RESTRICTION_SIZE = 1  # nothing is imposed
DRAWS = ("die",)
MAX_OUTCOMES = 6
DRAW_CONTEXT = OBSERVATION_SIZE
DRAW_TURN_SLOT = TURN_SLOT
MAX_DRAWS = 600  # ten turns of a hundred points' rolls

# The state, a snapshot: the view, the first turn banked, the end (END_REASONS index + 1),
# what comes next, the chance and policy streams, the decisions asked before it.
TURN, TOTAL, BUSTS, POINTS, FIRST_BANK, OVER, NEXT = range(7)
CHANCE = 7
PRNG = CHANCE + rng.keyed_size(1)
AT = PRNG + 2
SNAPSHOT_SIZE = AT + 1
ROLL, DECIDE = 0, 1  # NEXT
RULES = SNAPSHOT_SIZE  # work: the state, then the rules (rules.KEYS)
TARGET, TURNS, BUSTS_TO_LOSE, BUST_FACES = range(RULES, RULES + len(KEYS))
SETUP = np.zeros(SNAPSHOT_SIZE, dtype=np.int64)  # turn 0: not begun
REACHED, BUSTED_OUT, OUT_OF_TURNS = 1, 2, 3  # OVER: result.END_REASONS, from 1


@compiled
def view(w):
    return w[TURN : TURN + OBSERVATION_SIZE].copy()


@compiled
def end_turn(w):
    if w[BUSTS] >= w[BUSTS_TO_LOSE]:
        w[OVER] = BUSTED_OUT
    elif w[TURN] >= w[TURNS]:
        w[OVER] = OUT_OF_TURNS
    else:
        w[TURN] += 1
        w[POINTS] = 0
        w[NEXT] = ROLL


@compiled
def bank(w):
    w[TOTAL] += w[POINTS]
    if w[FIRST_BANK] == 0:
        w[FIRST_BANK] = w[TURN]


@compiled
def rolled(w, face):
    """The die's face: a bust loses the turn's points; else they grow, and reach the
    target or ask the player."""
    if face <= w[BUST_FACES]:
        w[BUSTS] += 1
        end_turn(w)
        return
    w[POINTS] += face
    if w[TOTAL] + w[POINTS] >= w[TARGET]:
        bank(w)
        w[OVER] = REACHED
    else:
        w[NEXT] = DECIDE


@compiled
def chose(w, option):
    if option == 1:
        bank(w)
        end_turn(w)
    else:
        w[NEXT] = ROLL


@compiled
def switch(w, chance_key, policy_key):
    """Draw from here on from streams of these keys."""
    w[CHANCE:AT] = 0
    w[CHANCE] = chance_key
    w[PRNG] = policy_key


@compiled
def restore(w, start, seed, game):
    if start[TURN] == 0:
        w[:SNAPSHOT_SIZE] = 0
        rng.init_stream(w[CHANCE:PRNG], seed, game, rng.CHANCE)
        rng.init_stream(w[PRNG:AT], seed, game, rng.POLICY)
        w[TURN] = 1
    else:
        w[:SNAPSHOT_SIZE] = start


@compiled
def write_row(w, row):
    """result.RESULT's columns."""
    row[0] = w[OVER] == REACHED
    row[1] = w[BUSTS] == 0
    row[2] = w[OVER] == BUSTED_OUT
    row[3] = w[TURN]
    row[4] = w[OVER] - 1
    row[5] = w[FIRST_BANK]
    row[6] = w[BUSTS]
    row[7] = w[TOTAL]


GO, STOP, NOTE = 0, 1, 2  # play's `stop`: play out; stop at the next decision; note it, play out


@compiled
def play(w, decide, params, seed, game, start, script, n, option, stop, after, key, outcome,
         record, snapshot, point, row):
    """From `start`: take script[:n] and then `option` (-1: none) at the decisions met,
    then play on under decide. The draws after that are numbered from 0: draw `after`
    gives `outcome` (-1: the die's own) and the streams switch to rollout `key`'s right
    after it (after = -1: at once; key < 0: never). stop (STOP, NOTE): the next decision
    into `point`, and the snapshot of it. record: the draws past the script
    (chance.py's layout), if it has room."""
    restore(w, start, seed, game)
    taken, drawn = 0, 0
    scripted = n + (option >= 0)
    if scripted == 0:
        keyed(w, seed, game, after, -1, key)
    while w[OVER] == 0:
        if w[NEXT] == ROLL:
            face = rng.keyed_d6(w, w[TURN], 0, CHANCE)
            if taken == scripted:
                if drawn == after and outcome >= 0:
                    face = outcome + 1
                keep_draw(w, face, record)
                keyed(w, seed, game, after, drawn, key)
                drawn += 1
            rolled(w, face)
        elif taken < scripted:
            w[AT] += 1
            chose(w, script[taken] if taken < n else option)
            taken += 1
            if taken == scripted:
                keyed(w, seed, game, after, -1, key)
        else:
            seen = view(w)
            options = np.arange(2)
            if stop != GO and snapshot.shape[0]:
                snapshot[:] = w[:SNAPSHOT_SIZE]
            choice = decide(0, seen, w[RULES:], options, 2, params, w[PRNG:AT])
            if stop != GO and point.shape[0]:
                point[0], point[1], point[2] = choice, 0, 2
                point[3 : 3 + OBSERVATION_SIZE] = seen
                point[3 + OBSERVATION_SIZE : 5 + OBSERVATION_SIZE] = options
            if stop == STOP:
                return
            stop = GO if stop == NOTE else stop
            w[AT] += 1
            chose(w, choice)
    if stop != GO and point.shape[0]:  # the game ended before a decision
        point[0] = -1
    if row.shape[0]:
        write_row(w, row)


@compiled
def keyed(w, seed, game, after, drawn, key):
    """Switch to rollout `key`'s streams when the draw just made is `after`."""
    if key >= 0 and drawn == after:
        if after < 0:
            switch(w, rng.rollout_key(seed, game, w[AT] - 1, key, rng.CHANCE),
                   rng.rollout_key(seed, game, w[AT] - 1, key, rng.POLICY))
        else:
            switch(w, rng.draw_key(seed, game, w[AT], after, key, rng.CHANCE),
                   rng.draw_key(seed, game, w[AT], after, key, rng.POLICY))


@compiled
def keep_draw(w, face, record):
    """The die in the record (chance.py's layout), where it has room."""
    width = 3 + MAX_OUTCOMES + DRAW_CONTEXT
    at = 1 + record[0] * width if record.shape[0] else 0
    if at + width > record.shape[0]:
        return
    record[at], record[at + 1], record[at + 2] = 0, face - 1, 6
    record[at + 3 : at + 3 + MAX_OUTCOMES] = 1
    record[at + 3 + MAX_OUTCOMES : at + width] = view(w)
    record[0] += 1


@compiled
def nothing():
    """No room: nothing is kept there."""
    return np.zeros(0, dtype=np.int64)


def pig_pause(work, decide, params, seed, game, start, script, n, to_end, snapshot, point, row):
    play(work, decide, params, seed, game, start, script, n, -1, NOTE if to_end else STOP, -1,
         -1, -1, nothing(), snapshot, point, row)


def pig_rollout(work, decide, params, seed, game, start, script, n, option, r, row):
    play(work, decide, params, seed, game, start, script, n, option, GO, -1, r, -1, nothing(), nothing(),
         nothing(), row)


def pig_step(work, decide, params, seed, game, start, script, n, option, r, point, row):
    play(work, decide, params, seed, game, start, script, n, option, STOP, -1, max(r, -1), -1,
         nothing(), nothing(), point, row)


def pig_allowed(kind, options, obs, restriction):
    return np.arange(options.shape[0])


def pig_draws(work, decide, params, seed, game, start, script, n, record):
    record[0] = 0
    play(work, decide, params, seed, game, start, script, n, -1, STOP, -1, -1, -1, record, nothing(),
         nothing(), nothing())


def pig_forced(work, decide, params, seed, game, start, script, n, draw, outcome, r, row):
    play(work, decide, params, seed, game, start, script, n, -1, GO, draw, r, outcome, nothing(), nothing(),
         nothing(), row)


@cache
def primitives():
    """(pause, rollout, step, allowed), compiled for their signatures on first use."""
    return tuple(compiled(f, signature=s, nogil=True) for f, s in (
        (pig_pause, PAUSE_SIGNATURE), (pig_rollout, ROLLOUT_SIGNATURE),
        (pig_step, STEP_SIGNATURE), (pig_allowed, ALLOWED_SIGNATURE)))


@cache
def chance_primitives():
    """(draws, forced), compiled for their signatures on first use."""
    return tuple(compiled(f, signature=s, nogil=True) for f, s in (
        (pig_draws, DRAWS_SIGNATURE), (pig_forced, FORCED_SIGNATURE)))


def new_work(rules, policy) -> np.ndarray:
    """The state's room, then the rules."""
    work = np.zeros(SNAPSHOT_SIZE + len(KEYS), dtype=np.int64)
    work[RULES:] = [getattr(rules, k) for k in KEYS]
    return work


def option_name(rules, kind: int, option: int) -> str:
    return OPTIONS[option]


def outcome_name(rules, kind: int, outcome: int) -> str:
    return f"a {outcome + 1}"


def reference_row(rules, policy, params, seed: int, game: int, choices) -> np.ndarray:
    """play.py's result row of the game whose decisions take `choices`."""
    from bollesim.game.policy import replaying
    from toygame.play import play_game
    from toygame.result import RESULT

    decide = replaying(policy, choices).decide
    return np.array(RESULT.ints(play_game(rules, decide, params, seed, game)), dtype=np.int64)
