"""The scripted policies play the ruleset they are handed: move Tango 2 on the map or the
Unrestricted threshold on the RoE track, and the policies' orders follow (policy.py: a
policy reads `rules`, never a map or threshold of its own)."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from bollesim.bollebank import codes, decisions
from bollesim.bollebank.reference.play import play_game
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.game.policy import load_policy

GAMES = 40
# Tango 2 one step closer: the checkpoint T23 becomes the contact point of the mission.
NEAR_T2 = ("map.positions[T23].kind=cp", "map.positions[T23].stack=0", "map.tango2=T23")


@cache
def played(name: str, overrides: tuple[str, ...] = ()) -> tuple[list[dict], list[tuple]]:
    """Rows and every (kind, chosen option) of GAMES reference games."""
    policy = load_policy(name)
    rules = load_ruleset(overrides=list(overrides))
    choices: list[tuple] = []

    def decide(kind, obs, rules_vector, options, n, params, prng):
        i = policy.decide(kind, obs, rules_vector, options, n, params, prng)
        choices.append((int(kind), int(options[i])))
        return i

    recorder = replace(policy, decide=decide)
    rows = [play_game(rules, recorder, policy.param_vector(), 5, g) for g in range(GAMES)]
    return rows, choices


def move_destinations(choices) -> set[int]:
    return {
        decisions.order_dest(code)
        for kind, code in choices
        if kind in (decisions.ISSUE_ORDER, decisions.EXTRA_ORDER)
        and code != decisions.PASS
        and decisions.order_kind(code) == codes.MOVE
    }


def test_historical_heads_for_tango2_wherever_the_map_puts_it():
    _, default = played("historical")
    assert codes.T2 in move_destinations(default) and codes.T23 not in move_destinations(default)
    rows, moved = played("historical", NEAR_T2)
    assert codes.T23 in move_destinations(moved) and codes.T2 not in move_destinations(moved)
    assert any(r["tanks_at_t2"] >= 2 for r in rows)  # they get there: T23 counts


def test_cautious_waits_for_the_rulesets_unrestricted_level():
    default, _ = played("cautious")
    assert all(r["first_fire_roe"] is None or r["first_fire_roe"] >= 18 for r in default)
    rows, _ = played("cautious", ("roe.unrestricted=12",))
    fired = [r["first_fire_roe"] for r in rows if r["first_fire_roe"] is not None]
    assert fired and min(fired) >= 12 and min(fired) < 18
