"""The lookahead player (bollesim/strong/, bollesim/bollebank/lookahead.py, engine/rollout.py): its rollouts replay the
game it is in exactly, draw nothing of the game's future, score what they claim, and the
player plays the same games whatever the engine or threads."""

from dataclasses import replace

import numpy as np
import pytest
from typer.testing import CliRunner

from bollesim import rng
from bollesim.batch.runner import simulate
from bollesim.bollebank import decisions as D
from bollesim.bollebank import lookahead as LA
from bollesim.bollebank.engine import layout
from bollesim.bollebank.reference.chance import Chance
from bollesim.bollebank.reference.play import play_game
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.cli.app import app
from bollesim.game.policy import load_policy
from bollesim.game.result import Objective
from bollesim.strong import kernel as K
from bollesim.strong import lookahead as generic

RULES = load_ruleset()
BASE = load_policy("historical")
SEED = 5
NOTHING = Objective("nothing", {})  # every option ties


@pytest.fixture(scope="module")
def player():
    """Looking at every decision of three kinds, unscreened: it leaves its base often."""
    return LA.new_lookahead(RULES, 3, BASE, LA.OBJECTIVES[0],
                        kinds=(D.VL2_DESTINATION, D.DRAW_AGAIN, D.ISSUE_ORDER), screen=0)


@pytest.fixture(scope="module")
def game(player):
    """A lookahead game: its result row and decisions."""
    return player.play(SEED, 2)


def points(player, decisions, game_index):
    """Every decision point of a game whose choices were `decisions`, in order."""
    at = generic.Position(LA.SETUP, [])
    for d in decisions:
        _, point = player.next_decision(SEED, game_index, at)
        yield point
        at = generic.Position(point.at.snapshot, [*point.at.script, d.choice])


def reference_rollout(decisions, k: int, option: int, rollout: int, game_index: int):
    """Oracle: the reference engine plays the game's first k choices on the game's own
    stream, then `option`, then switches to the rollout's streams (rng.rollout_key)
    and lets the base policy play the game out."""
    chance = Chance(SEED, game_index)
    asked = [0]

    def decide(kind, obs, rules, options, n_options, params, prng):
        i = asked[0]
        asked[0] += 1
        if i < k:
            return decisions[i].choice
        if i == k:
            chance.stream[:2] = [rng.rollout_key(SEED, game_index, k, rollout, rng.CHANCE), 0]
            prng[:] = [rng.rollout_key(SEED, game_index, k, rollout, rng.POLICY), 0]
            return option
        return BASE.decide(kind, obs, rules, options, n_options, params, prng)

    row = play_game(RULES, replace(BASE, decide=decide), BASE.param_vector(), SEED, game_index,
                    chance=chance)
    return RESULT.ints(row)


def test_rollouts_are_the_games_the_oracle_plays(player, game):
    """Every rollout of three decisions (early, middle, late) is the game the reference
    engine plays from setup with the same choices, switching to the rollout's own streams
    at the decision: the snapshots, the replay and the switch are exact."""
    _, decisions = game
    assert len(decisions) > 10
    chosen = {1, len(decisions) // 2, len(decisions) - 1}
    for k, point in enumerate(points(player, decisions, 2)):
        if k not in chosen:
            continue
        n = len(point.options)
        options = np.repeat(np.arange(n), 2)
        rollouts = np.tile(np.arange(2), n)
        out, _, _ = player._jobs(point.at.snapshot, point.at.script, options, rollouts,
                                 K.ROLLOUT_JOBS, SEED, 2)
        for j in range(len(out)):
            want = reference_rollout(decisions, k, options[j], rollouts[j], 2)
            assert list(out[j]) == want, f"decision {k}, option {options[j]}"


def test_rollouts_never_draw_from_the_games_future(player):
    """At the first decision of a turn (VL2's destination, before any draw of its phase)
    the rollouts replay nothing, so they must not depend on the game's streams at all:
    replacing the snapshot's chance and policy keys (the game's future) changes no row."""
    at = generic.Position(LA.SETUP, [])
    _, point = player.next_decision(SEED, 0, at)
    while point.at.script:  # on to a decision that opens its phase
        at = generic.Position(point.at.snapshot, [*point.at.script, point.base_choice])
        _, point = player.next_decision(SEED, 0, at)
    n = len(point.options)
    jobs = np.repeat(np.arange(n), 3), np.tile(np.arange(3), n)
    rows, _, _ = player._jobs(point.at.snapshot, [], *jobs, K.ROLLOUT_JOBS, SEED, 0)
    other = point.at.snapshot.copy()
    other[layout.CHANCE] ^= 0x5DEECE66D  # another future for the game
    other[layout.PRNG] ^= 0x5DEECE66D
    again, _, _ = player._jobs(other, [], *jobs, K.ROLLOUT_JOBS, SEED, 0)
    assert (rows == again).all()
    assert len({tuple(r) for r in rows}) > 1  # the rollouts differ from one another


def test_scores_are_the_objectives_mean_over_rollouts(player, game):
    _, decisions = game
    point = next(p for p in points(player, decisions, 2) if len(p.options) > 3)
    n, r = len(point.options), player.rollouts
    out, _, _ = player._jobs(point.at.snapshot, point.at.script, np.repeat(np.arange(n), r),
                             np.tile(np.arange(r), n), K.ROLLOUT_JOBS, SEED, 2)
    by_hand = [
        np.mean([out[o * r + i, layout.R_OPERATIONAL] - out[o * r + i, layout.R_DEFEAT] for i in range(r)])
        for o in range(n)
    ]
    assert player.scores(SEED, 2, point) == pytest.approx(by_hand)


def test_with_every_option_tied_it_plays_as_its_base():
    """No evidence, no change: the choices are the base policy's, and so are the games,
    with the base at parameters of its own."""
    params = {"t2_tanks": 2, "fire_roe": 12, "tow_immobile": 1}
    tied = LA.new_lookahead(RULES, 1, load_policy("plan"), NOTHING, params, screen=0)
    base = simulate("plan", 3, seed=SEED, params=params)
    for g in range(3):
        row, decisions = tied.play(SEED, g)
        assert all(d.choice == d.base_choice for d in decisions)
        assert row[layout.R_END_TURN] == base["end_turn"][g]
        assert bool(row[layout.R_DEFEAT]) == base["defeat"][g]
        assert row[layout.R_CHITS_DRAWN] == base["chits_drawn"][g]


def test_the_final_comparison_keeps_the_base_choice_on_a_tie():
    """choose: paired differences that add up to nothing are no evidence, even when no
    margin is asked (confidence 0): the base's choice stays; any evidence at all moves it."""
    d = np.zeros(8)
    assert K.choose(d, 3, 1, 0.0) == 1
    assert K.choose(d, 3, 1, 1.25) == 1
    d[0] = 1.0
    assert K.choose(d, 3, 1, 0.0) == 3


def test_a_round_that_finds_nothing_above_the_base_ends_the_search():
    """With every option tied, none scores above the base's choice after the first round:
    the search ends there, one rollout an option, and the base's choice is taken."""
    tied = LA.new_lookahead(RULES, 8, BASE, NOTHING, screen=0)
    _, decisions = tied.play(SEED, 2)
    looked = [d for d in decisions if d.rollouts and len(d.options) > 2]
    assert looked
    for d in looked:
        assert d.rollouts == len(d.options) and d.choice == d.base_choice


def test_the_game_the_player_chose_is_the_one_the_engines_play(player, game):
    row, decisions = game
    assert any(d.choice != d.base_choice for d in decisions)  # it does look ahead
    assert list(player.reference_row(SEED, 2, decisions)) == list(row)


def test_same_rows_whatever_the_engine_or_threads():
    params = {"rollouts": 2}
    two = simulate("lookahead", 4, seed=SEED, params=params, threads=2)
    assert two.equals(simulate("lookahead", 4, seed=SEED, params=params, threads=1))
    assert two.equals(simulate("lookahead", 4, seed=SEED, params=params, engine="reference"))


def test_play_narrates_the_scores():
    params = {"rollouts": 3, "confidence": 0}
    result = CliRunner().invoke(app, ["play", "-P", "lookahead", "--seed", str(SEED), "--index",
                                      "2", "-p", "rollouts=3", "-p", "confidence=0"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    expert = LA.player(RULES, load_policy("lookahead").param_vector(params))
    _, decisions = expert.play(SEED, 2)
    shown = [line for line in lines if line.startswith("  > lookahead")]
    assert len(shown) == len(decisions)
    k, first = next((k, d) for k, d in enumerate(decisions) if d.rollouts)
    assert f"({len(first.options)} options, {first.rollouts} rollouts)" in shown[k]
    assert f"{first.scores[first.choice]:+.2f}" in shown[k]
    assert any(line.endswith("(not looked at)") for line in shown)
    assert lines[-1].startswith("Outcome:")


def test_it_leaves_the_base_only_on_evidence():
    """The best option is taken over the base's choice when it beats it on the same
    rollouts by `confidence` standard errors of the paired difference."""
    values = np.zeros((3, 8))
    values[2, 0] = 1  # option 2 better on one rollout of eight
    sure = LA.new_lookahead(RULES, 8, BASE, LA.OBJECTIVES[0], confidence=2)
    eager = LA.new_lookahead(RULES, 8, BASE, LA.OBJECTIVES[0], confidence=0)
    assert sure.choose(values, 1) == 1 and eager.choose(values, 1) == 2
    values[2, :] = 1  # better on every rollout: 8 > 2 * sqrt(8)
    assert sure.choose(values, 1) == 2
    values[1, :4] = 1  # the base as good on half of them: 4 < 2 * sqrt(4)
    assert sure.choose(values, 1) == 1


@pytest.mark.slow
def test_a_base_through_the_general_protocol_plays_the_same_games():
    """base = random: the rollouts run the general kernel (a decide function pointer)."""
    params = {"rollouts": 2, "base": LA.BASES.index("random")}
    fast = simulate("lookahead", 3, seed=SEED, params=params)
    assert fast.equals(simulate("lookahead", 3, seed=SEED, params=params, engine="reference"))


def phase_openers(player, game_index, count, kinds):
    """The first `count` decisions of a base-played game that open their phase (nothing
    of the phase replayed before them) and are of `kinds`."""
    at = generic.Position(LA.SETUP, [])
    found = []
    while len(found) < count:
        _, point = player.next_decision(SEED, game_index, at)
        assert point is not None
        if not point.at.script and point.kind in kinds:
            found.append(point)
        at = generic.Position(point.at.snapshot, [*point.at.script, point.base_choice])
    return found


def test_the_players_choices_never_see_the_games_future():
    """The expert plays on from a decision that opens its phase twice: once on the game's
    own future, once on another (the snapshot's chance and policy keys replaced: other
    chits and dice after the decision). Its scores and choice at that decision are the
    same; the games after it are not. Rollouts that drew from the game's own stream
    would score the options on the game's real future and differ here."""
    opening = (D.VL2_DESTINATION, D.DRAW_AGAIN)  # the Orders phase opens with one of these
    expert = LA.new_lookahead(RULES, 4, load_policy("plan"), LA.OBJECTIVES[0], LA.expert_base(),
                          confidence=0, kinds=(*opening, D.ISSUE_ORDER), screen=0)
    changed = 0
    for point in phase_openers(expert, 0, 3, opening):
        row, decisions = expert.play(SEED, 0, at=generic.Position(point.at.snapshot, []))
        other = point.at.snapshot.copy()
        other[layout.CHANCE] ^= 0x5DEECE66D  # another future for the game
        other[layout.PRNG] ^= 0x5DEECE66D
        again, redrawn = expert.play(SEED, 0, at=generic.Position(other, []))
        assert decisions[0].rollouts > 0
        np.testing.assert_array_equal(decisions[0].scores, redrawn[0].scores)
        assert decisions[0].choice == redrawn[0].choice
        changed += list(row) != list(again) or len(decisions) != len(redrawn)
    assert changed  # the future did change


def first_fire_checked(rules, decisions, roe: int, turn: int):
    """A policy for the reference engine that replays `decisions` and checks each order
    decision before the first Fire order against the imposed trigger: no Fire order before
    it is met, a Fire order at the first decision offering one once it is."""
    from bollesim.bollebank import codes, observation

    taken = [0]

    def decide(kind, obs, rules, options, n_options, params, prng):
        d = decisions[taken[0]]
        taken[0] += 1
        fire = [o != D.PASS and D.order_kind(o) == codes.FIRE for o in options[:n_options]]
        if kind in (D.ISSUE_ORDER, D.EXTRA_ORDER) and not obs[observation.FIRED] and any(fire):
            met = obs[observation.ROE] >= roe and obs[observation.TURN] >= turn
            assert fire[d.choice] == met, (int(obs[observation.TURN]), int(obs[observation.ROE]), met)
        return d.choice

    return replace(load_policy("plan"), decide=decide)


@pytest.mark.parametrize("roe, turn", [(12, 0), (0, 6)])
def test_restricted_play_obeys_its_imposed_first_fire_order(roe, turn):
    """The first Fire order imposed (imposed_roe, imposed_turn): in every game the
    rows' first Fire order is at or after the trigger, the player gives none before it
    and gives it at the first chance once the trigger is met (the reference engine
    replays each game's choices and checks every order decision)."""
    params = {"rollouts": 2, "imposed_roe": roe, "imposed_turn": turn}
    expert = LA.player(RULES, load_policy("lookahead").param_vector(params))
    fired = 0
    for g in range(24):
        row, decisions = expert.play(SEED, g)
        if row[layout.R_FIRST_FIRE_TURN]:
            fired += 1
            assert row[layout.R_FIRST_FIRE_ROE] >= roe and row[layout.R_FIRST_FIRE_TURN] >= turn
        policy = first_fire_checked(RULES, decisions, roe, turn)
        again = play_game(RULES, policy, expert.base_vector, SEED, g)
        assert RESULT.ints(again) == list(row)
    assert fired > 12  # the trigger was reached in most games: the check had work to do


def test_a_kept_choice_says_why_it_was_kept():
    """The base policy's choice kept though another option scored higher: the line says
    by how much the best led and the confidence rule it fell short of."""

    def names(kind, value):
        return ["no order", "airstrike"][value]

    d = generic.Decision(turn=3, kind=D.ISSUE_ORDER, options=np.array([0, 1]),
                    scores=np.array([1.0, 0.67]), base_choice=1, choice=1, rollouts=24)
    line = generic.decision_line(names, D.KIND_NAMES, d, 2.0)
    assert "airstrike +0.67 (the base policy's, kept: the best scores 0.33 more, short of the 2 " \
           "standard errors the lookahead needs to leave it); others: no order +1.00" in line
    taken = generic.decision_line(names, D.KIND_NAMES, replace(d, choice=0), 2.0)
    assert "no order +1.00 (the base policy: airstrike)" in taken
