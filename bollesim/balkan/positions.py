"""Balkan Wars' decision points, as every strong-play tool reads them
(bollesim/game/positions.py). The attacker's declared decisions (tactics.py, with the rule
sections and readings): each bound, after the move dice, an order for each arm with a
stand that may be moved (TROOPS_ADVANCE, GUNS_ADVANCE: 0 halt and fire, 1 advance part of
a move, 2 advance the full move toward the player's own halt, 3 toward the weapons'
maximum range, 4 toward their effective range, the guns' short range), then for each move
digit, where the groups its options would move differ, DIGIT (0 the farthest group, 1 the
nearest, 2 the troops' farthest, 3 the guns' farthest, 4 keep the digits left unused; only
the distinct ones offered, by code), and after a won firefight CLOSE_ASSAULT (0 hold, 1
close assault now, 2 with the stands that have lost no figure only), asked where the
scripted family answered them, in both engines. An engagement is short, so a position is
the script of choices from the start: SETUP is the only snapshot, and the primitives
(primitives.py) replay the game from setup.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from bollesim.balkan import engine, tactics
from bollesim.balkan import primitives as compiled_primitives
from bollesim.balkan.engine_ask import MAX_SCRIPT  # noqa: F401 (a name of POSITIONS)
from bollesim.game.positions import (
    ALLOWED_SIGNATURE,
    PAUSE_SIGNATURE,
    ROLLOUT_SIGNATURE,
    STEP_SIGNATURE,
)

KINDS = ("close_assault", "troops_advance", "guns_advance", "digit")
ADVANCING = ("halt and fire", "advance part of a move", "advance the full move",
             "advance to maximum range")
OPTIONS = (("hold", "close assault now", "close assault with the fresh stands only"),
           (*ADVANCING, "advance to effective range"), (*ADVANCING, "advance to short range"),
           ("move the farthest group", "move the nearest group", "move the troops' farthest group",
            "move the guns' farthest group", "keep the digits left unused"))
"""Each kind's options in words, by code (an option's code is its index)."""
LOOKED_AT = (tactics.CLOSE_ASSAULT, tactics.TROOPS_ADVANCE, tactics.GUNS_ADVANCE, tactics.DIGIT)
OBSERVATION_SIZE = tactics.OBSERVATION_SIZE
TURN_SLOT = tactics.O_BOUND
MAX_OPTIONS = tactics.N_OPTIONS
SNAPSHOT_SIZE = 1  # its one value: the decisions asked before it (none: setup)
SETUP = np.zeros(SNAPSHOT_SIZE, dtype=np.int64)
RESTRICTION_SIZE = 1  # nothing is imposed
APPRENTICE = "bollesim.balkan.apprentice.declaration"  # its apprentice (strong/apprentice.py)


@cache
def primitives():
    """(pause, rollout, step, allowed), compiled for their signatures on first use."""
    return compiled_primitives.compile_primitives(
        (PAUSE_SIGNATURE, ROLLOUT_SIGNATURE, STEP_SIGNATURE, ALLOWED_SIGNATURE))


def new_work(rules, policy) -> np.ndarray:
    """The engine's tables, flat (primitives.py's layout)."""
    tab, gtab, ns = engine.tables(rules)
    return np.concatenate([tab.ravel(), gtab.ravel(), ns, rules.scalars]).astype(np.int64)


def option_name(rules, kind: int, option: int) -> str:
    """The option of code `option` at a decision of `kind`, in words."""
    return OPTIONS[kind][option]


def reference_row(rules, policy, params, seed: int, game: int, choices) -> np.ndarray:
    """The reference engine's result row of the game whose decisions take `choices` (then
    policy at params plays on)."""
    from bollesim.balkan import reference
    from bollesim.balkan.result import RESULT
    from bollesim.game.policy import replaying

    decide = replaying(policy, choices).decide
    vector = np.asarray(policy.kernel_params(np.asarray(params, dtype=np.float64)), dtype=np.float64)
    return np.array(RESULT.ints(reference.play(rules, vector, seed, game, decide=decide)),
                    dtype=np.int64)
