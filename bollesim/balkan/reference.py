"""The reference engine: one Balkan Wars engagement at a time in plain Python, reading
like the battle rules (each step names its section). It is the fast engine's oracle
(engine.py plays the same games, die for die) and the model docs/balkan-wars.md tells.
reference_state.py holds the state, the table's geometry, the dice and casualties;
reference_move.py the Move Sequence's moves; reference_fire.py the firefights and close
assaults; this module the bound and the game.

The engagement (I-FRONT): the attacker's stands stand at distances from the defender's
line (in steps of 0.125 km), the defender's on it or behind it, each in a lane one stand
wide when the table has lanes. Each bound the attacker's generals throw their move dice
and move groups of stands; both sides fire (the attacker's firefight); the attacker may
close assault after a won firefight; then the defender's bound: its generals throw, it
holds or rallies (I-DEFENDER), both fire again (the defender's firefight) and a defender
that counter-attacks may close assault. An army whose stands destroyed or gone pass the
break percent of its pre-battle strength has lost (Winning a Battle).
"""

from __future__ import annotations

import numpy as np

from bollesim.balkan import reference_fire as fire
from bollesim.balkan import reference_move as moves
from bollesim.balkan import ruleset, tactics
from bollesim.balkan.reference_state import (  # noqa: F401 (the engine's names, as narrate.py reads them)
    ATTACKER,
    DEFENDER,
    DESTROYED,
    LEFT,
    ON,
    Battle,
    General,
    Stand,
    broken,
    lost,
    new_battle,
)
from bollesim.rng import POLICY, new_stream

# ------------------------------------------------------------------ a game

def play(rules: ruleset.Ruleset, params: np.ndarray, seed: int, game: int, b: Battle | None = None,
         decide=None) -> dict:
    """One engagement under the attacker's scripted family at `params`; its result row
    (b: the battle to play, new_battle's, given when its events are to be kept). decide:
    what answers the attacker's declared decisions (bollesim/game/policy.py
    DECIDE_SIGNATURE; default: the family's own, tactics.family_decide)."""
    b = b or new_battle(rules, seed, game)
    ask = asker(b, tactics.family_decide if decide is None else decide, params,
                new_stream(seed, game, POLICY))
    for bound in range(1, rules.p("bounds") + 1):
        b.bound = bound
        reason = play_bound(b, params, ask)
        if reason:
            b.note("end", reason)
            return result_row(b, reason)
    b.note("end", "day ended")
    return result_row(b, "day ended")


def asker(b: Battle, decide, params: np.ndarray, prng: np.ndarray):
    """ask(kind, n_options, seen, codes) -> the option index decide takes at the attacker's
    declared decision of `kind` (tactics.py: its options' codes are `codes`, by default 0
    .. n_options - 1), on what the attacker sees (tactics.OBSERVATION_SIZE:
    engine_ask.observe's, with the kind's own slots in `seen`)."""

    def ask(kind: int, n_options: int, seen: dict[int, int], codes=None) -> int:
        obs = np.zeros(tactics.OBSERVATION_SIZE, dtype=np.int64)
        obs[tactics.O_BOUND], obs[tactics.O_CAS_A], obs[tactics.O_CAS_D] = b.bound, *b.casualties
        obs[tactics.O_LOST_A], obs[tactics.O_LOST_D] = lost(b.attacker), lost(b.defender)
        for slot, value in seen.items():
            obs[slot] = value
        options = np.zeros(tactics.N_OPTIONS, dtype=np.int64)
        options[:n_options] = np.arange(n_options) if codes is None else codes
        return int(decide(kind, obs, b.rules.scalars, options, n_options, params, prng))

    return ask


def play_bound(b: Battle, params: np.ndarray, ask) -> str | None:
    """The attacker's bound, then the defender's (Move Sequence 1-6 each); how the battle
    ended, if it did."""
    moves.move_phase(b, ATTACKER, params, ask)
    fights = fire.firefights(b, ATTACKER)
    if not end_reason(b):
        fire.assaults(b, fights, ask)
    if end_reason(b):
        return end_reason(b)
    moves.move_phase(b, DEFENDER, params, ask)
    fights = fire.firefights(b, DEFENDER)
    if b.p("counter") and not end_reason(b):
        fire.counters(b, fights)
    return end_reason(b)


def end_reason(b: Battle) -> str | None:
    a, d = broken(b, "attacker"), broken(b, "defender")
    return "both broke" if a and d else "attacker broke" if a else "defender broke" if d else None


def result_row(b: Battle, reason: str) -> dict:
    lost_a, lost_d = lost(b.attacker), lost(b.defender)
    return {"won": reason == "defender broke", "light": lost_a <= 1,
            "lost": reason in ("attacker broke", "both broke"), "end_bound": b.bound,
            "end_reason": reason, "first_assault_bound": b.first_assault or None,
            "assaults": b.assaults, "attacker_stands_lost": lost_a,
            "defender_stands_lost": lost_d, "attacker_casualties": b.casualties[0],
            "defender_casualties": b.casualties[1]}
