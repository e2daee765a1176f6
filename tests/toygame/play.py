"""Games of Pig race played into result rows. Each turn the player rolls a die until it
banks the turn's points or rolls a bust face, which loses them; the game ends when the
banked points reach the target, the player has busted `busts_to_lose` turns, or the
turns run out. Game g is seeded from (seed, g) alone; both engines are this one."""

import numpy as np

from toygame.result import RESULT


def play_game(rules, decide, params, rng) -> dict:
    total = busts = first_bank = 0
    for turn in range(1, rules.turns + 1):
        points = 0
        while True:
            roll = int(rng.integers(1, 7))
            if roll <= rules.bust_faces:
                busts += 1
                break
            points += roll
            if total + points >= rules.target or decide(points, turn, params):
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
        rng = np.random.default_rng([seed, first_game + g])
        out[g] = RESULT.ints(play_game(rules, decide, params[g], rng))
    return out
