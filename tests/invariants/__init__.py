"""The test oracle: the game's invariants judged from the fast engine's state vector,
after every phase (one module per phase: orders, execution, reaction, end; position for
what holds in any phase; games plays the checked games).

check_phase(before, st, phase) compares st after one phase with `before`, a copy of
st[:STATE_SIZE] taken just before it, and returns 0 if st is a legal position of
Operation Bøllebank, else the code of the first broken invariant (MESSAGES[code] says
which). check_result does the same for a game's result row. play_checked_games plays
games exactly as play.play_games does, checking every phase; check_games wraps it.

The rules are restated here from the rulebook and the ruleset's tables (position.py and
the phases' modules), not borrowed from the engine's own helpers, so that a bug in one of
those cannot hide behind the check that uses it; from engine/core.py come only the
accessors of the state vector's layout. A checked game keeps the events of the phase
being played (TRACE_EVENTS of room), from which target_priority and victory_offer read
what the phase did.

tests/test_invariants.py checks the reference engine with its event trace; the checks
here need only the state and the phase's events, so they run on hundreds of thousands
of games.

The oracle is compiled like the engine but cached apart from it (jit_cache.cached_apart):
an edit of a check recompiles the oracle only, never the engine.
"""

from pathlib import Path

from bollesim import jit_cache

with jit_cache.cached_apart(Path(__file__).parent):
    from invariants.end import check_result
    from invariants.games import check_games, check_phase
    from invariants.violations import OK, first_violation

__all__ = ["OK", "check_games", "check_phase", "check_result", "first_violation"]
