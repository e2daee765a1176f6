"""Games of Pig race played into result rows. Each turn the player rolls a die until it
banks the turn's points or rolls a bust face, which loses them; the game ends when the
banked points reach the target, the player has busted `busts_to_lose` turns, or the
turns run out. The dice are keyed (bollesim/rng.py): the i-th die of turn t of game g is
fixed by (seed, g, t, i) whatever was played, as positions.py draws them. Both engines
are this one."""

import numpy as np

from bollesim import rng
from toygame.result import RESULT

ROLL_OR_BANK = 0  # the kind of the one decision; options: 0 roll on, 1 bank
OPTIONS = np.arange(2)


def play_game(rules, decide, params, seed: int, game: int) -> dict:
    """decide(kind, obs, rules, options, n_options, params, prng) -> 1 to bank (the
    general protocol, bollesim/game/policy.py; obs: turn, banked, busted turns, points)."""
    dice = rng.new_stream(seed, game, rng.CHANCE, purposes=1)
    prng = rng.new_stream(seed, game, rng.POLICY)
    packed = np.array([rules.target, rules.turns, rules.busts_to_lose, rules.bust_faces])
    total = busts = first_bank = 0
    for turn in range(1, rules.turns + 1):
        points = 0
        while True:
            roll = int(rng.keyed_d6(dice, turn, 0))
            if roll <= rules.bust_faces:
                busts += 1
                break
            points += roll
            seen = np.array([turn, total, busts, points])
            if total + points >= rules.target or decide(
                    ROLL_OR_BANK, seen, packed, OPTIONS, 2, params, prng) == 1:
                total += points
                first_bank = first_bank or turn
                break
        reason = ("target reached" if total >= rules.target
                  else "busted out" if busts >= rules.busts_to_lose else None)
        if reason:
            break
    else:
        reason = "out of turns"
    return {"reached": total >= rules.target, "steady": busts == 0,
            "busted_out": reason == "busted out", "end_turn": turn, "end_reason": reason,
            "first_bank_turn": first_bank or None, "busts": busts, "score": total}


def play_chunk(rules, policy, params, seed, first_game, engine):
    decide = policy.decide.py_func
    out = np.zeros((params.shape[0], len(RESULT.columns)), dtype=np.int64)
    for g in range(params.shape[0]):
        out[g] = RESULT.ints(play_game(rules, decide, params[g], seed, first_game + g))
    return out
