"""Operation Bøllebank's decision points, as every strong-play tool reads them
(bollesim/game/positions.py): the fast engine replays a phase from its snapshot with the
choices made since (engine/rollout.py), so a position is that snapshot and those choices.

The primitives are engine/primitives.py's (engine/rollout.py behind the signatures every
game shares); the restriction is an imposed first Fire order (expert.FirstFire: from an RoE, from a turn).

Its draws are declared one by one (bollesim/game/chance.py): a kind per purpose of luck.py,
each die, 2d6 sum, chit, marker and side as engine/draws.py tells its outcomes, and the
context (turn, the draw's number among its purpose's that turn) is its place on the keyed
tape (rng.py).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from bollesim.bollebank import decisions, events, luck, observation
from bollesim.bollebank.engine import draws, layout
from bollesim.bollebank.engine import rollout as R
from bollesim.bollebank.engine.play import compiled_for, new_vector
from bollesim.bollebank.engine.primitives import (
    bollebank_allowed,
    bollebank_draws,
    bollebank_forced,
    bollebank_pause,
    bollebank_rollout,
    bollebank_step,
)
from bollesim.game.chance import DRAWS_SIGNATURE, FORCED_SIGNATURE
from bollesim.game.positions import (
    ALLOWED_SIGNATURE,
    PAUSE_SIGNATURE,
    ROLLOUT_SIGNATURE,
    STEP_SIGNATURE,
)

KINDS = decisions.KIND_NAMES
LOOKED_AT = (decisions.ISSUE_ORDER,)
"""The kinds of decision a lookahead player looks ahead at: the order to give. It leaves the
others to its base: looking at drawing, VL2's destination, Extra orders and stopping on a
victory too cost 40% more rollouts for no measured gain (docs/lookahead.md)."""
OBSERVATION_SIZE = observation.SIZE
TURN_SLOT = observation.TURN
MAX_OPTIONS = decisions.MAX_OPTIONS
MAX_SCRIPT = layout.MAX_SCRIPT
SNAPSHOT_SIZE = R.SNAP_SIZE
SETUP = np.zeros(SNAPSHOT_SIZE, dtype=np.int64)
SETUP[R.SNAP_PHASE] = -1  # rollout.restore: from setup
RESTRICTION_SIZE = 2  # an imposed first Fire order: (from RoE, from turn); 0: not imposed
APPRENTICE = "bollesim.bollebank.apprentice.declaration"  # its apprentice (strong/apprentice.py)
DRAWS = luck.NAMES  # a kind of draw per purpose: "chit", "radio", .., "tank attack", ..
MAX_OUTCOMES = layout.MAX_OUTCOMES
DRAW_CONTEXT = layout.DRAW_CONTEXT
DRAW_TURN_SLOT = 0
MAX_DRAWS = layout.MAX_DRAWS + 1  # the record says one more when it overflowed
TOLD = {luck.CHIT: draws.CHITS, luck.RU: draws.CHITS, luck.MARKER: draws.MARKERS,
        luck.TARGET: draws.INDEX, luck.MARKER_SIDE: draws.INDEX,
        **{luck.ATTACK + w: draws.DICE for w in range(3)}, luck.ARTILLERY: draws.DICE}
"""How each kind's outcomes are told (engine/draws.py HOW); every other kind is a d6."""


@cache
def primitives():
    """(pause, rollout, step, allowed), compiled for their signatures on first use (the
    engine's first compile on a machine holds a lock named by the function:
    engine/play.py compiled_for)."""
    return tuple(compiled_for(f, s) for f, s in (
        (bollebank_pause, PAUSE_SIGNATURE), (bollebank_rollout, ROLLOUT_SIGNATURE),
        (bollebank_step, STEP_SIGNATURE), (bollebank_allowed, ALLOWED_SIGNATURE)))


@cache
def chance_primitives():
    """(draws, forced), compiled for their signatures on first use."""
    return tuple(compiled_for(f, s) for f, s in (
        (bollebank_draws, DRAWS_SIGNATURE), (bollebank_forced, FORCED_SIGNATURE)))


def outcome_name(rules, kind: int, outcome: int) -> str:
    """A draw's outcome in the rulebook's words: "a 4", "9 on 2d6", a chit by its name
    ("Tank (C)"), an enemy-action marker by its id, a side, the k-th tied target."""
    from bollesim.bollebank.narrate import Narrator

    how = TOLD.get(kind, draws.DIE)
    if how == draws.DIE:
        return f"a {outcome + 1}"
    if how == draws.DICE:
        return f"{outcome + 2} on 2d6"
    if how == draws.CHITS:
        return Narrator(rules).chit(outcome)
    if how == draws.MARKERS:
        return f"marker {rules.marker_ids[outcome]}"
    if kind == luck.MARKER_SIDE:
        return f"side {'ab'[outcome]}"
    return f"tied target {outcome + 1} (in vehicle order)"


def new_work(rules, policy) -> np.ndarray:
    """A game vector with the ruleset and who plays (engine/player.py) in place."""
    return new_vector(rules.packed, 0, policy.compiled_in)


def option_name(rules, kind: int, option: int) -> str:
    """An option of a decision (decisions.py) in words, as the narration says it."""
    from bollesim.bollebank.narrate import Narrator

    return Narrator(rules).option(kind, option)


def reference_row(rules, policy, params, seed: int, game: int, choices) -> np.ndarray:
    """The reference engine's result row of the game whose decisions take `choices` (then
    policy at params plays on)."""
    from bollesim.bollebank.reference.play import play_game
    from bollesim.bollebank.result import RESULT
    from bollesim.game.policy import replaying

    row = play_game(rules, replaying(policy, choices), params, seed, game)
    return np.array(RESULT.ints(row), dtype=np.int64)


CHANCE_EVENTS = frozenset((
    events.DRAW, events.RADIO, events.LIGHT_DAMAGE, events.COMMANDER_CHECK, events.MARKER_DRAWN,
    events.FIRE, events.TANK_STATUS, events.ATTACK, events.HEAVY_DAMAGE, events.COMMANDER_ROLL,
    events.ARTILLERY, events.ARTILLERY_DRAW, events.NOT_MOVED))
"""The events of a trace that tell a draw (a chit, a die, a marker): luck.py's purposes."""


def drawn(kind: int, b: int, c: int) -> bool:
    """Whether an event of CHANCE_EVENTS drew: a radio check or a refusal to move only
    when a die was rolled."""
    if kind == events.RADIO:
        return b > 0
    return kind != events.NOT_MOVED or c >= 0


def chance_words(rules, policy, params, seed: int, game: int, choices) -> list[str]:
    """What was drawn between each two decisions of the game those choices play
    (bollesim/game/chance.py WORDS), as the narration says it; one more than the
    decisions, the last after the last decision."""
    from bollesim.bollebank.narrate import Narrator
    from bollesim.bollebank.reference.play import play_game
    from bollesim.game.policy import replaying

    trace: list[tuple] = []
    bounds: list[int] = []
    play_game(rules, replaying(policy, choices, lambda i: bounds.append(len(trace))), params,
              seed, game, trace)
    narrator = Narrator(rules)
    narrator.reset(1)
    words, lines = [], []
    for at, (_, kind, a, b, c, d) in enumerate(trace):
        while len(words) < len(bounds) and bounds[len(words)] == at:
            words.append(" ".join(lines))
            lines = []
        if kind == events.TURN_START:
            narrator.roe, narrator.fired = c, d > 0
        elif kind in CHANCE_EVENTS and drawn(kind, b, c):
            lines.append(narrator.line(kind, a, b, c, d).strip())
        narrator.follow(kind, a, b, c, d)
    while len(words) < len(bounds):  # decisions after the last event
        words.append(" ".join(lines))
        lines = []
    return [*words, " ".join(lines)]
