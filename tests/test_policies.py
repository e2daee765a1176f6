"""The policy library (policies/): every policy loads and plays, and each family does what
its name says.

Games are played with the reference engine (run seed SEED, game indices 0..n-1) through a
recorder that passes every decision to the compiled policy and keeps what was offered and
what was chosen; the trace of each game is kept too. Runs are cached, so the smoke test
and the behavioural tests share them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from types import SimpleNamespace

import numpy as np
import pytest

from bollesim.batch.runner import default_chunk, play_chunk
from bollesim.bollebank import codes, events, observation
from bollesim.bollebank import decisions as D
from bollesim.bollebank.engine.player import DECIDE, FAMILY
from bollesim.bollebank.reference.play import play_game
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.bollebank.scripted import plan as _plan
from bollesim.bollebank.scripted import space
from bollesim.game.params import Parameter
from bollesim.game.policy import (
    DecidePolicy,
    GamePlayer,
    Preset,
    available_policies,
    from_module,
    load_policy,
)

SEED = 1
N_GAMES = 200
FAMILIES = {"hold_fire", "fire_at_roe", "fire_at_turn", "historical", "rush", "cautious", "random"}
ORDER_KINDS = (D.ISSUE_ORDER, D.EXTRA_ORDER)


@dataclass(frozen=True)
class Decision:
    kind: int
    turn: int
    roe: int
    fired: bool
    tanks: int  # tank chits on their track
    options: tuple[int, ...]
    choice: int  # the option chosen (not its index)


@dataclass(frozen=True)
class Played:
    row: dict
    trace: list
    decisions: list[Decision]


@cache
def rules():
    return load_ruleset()


def games(name: str, n: int = N_GAMES, **params: float) -> tuple[Played, ...]:
    """n games of a policy (parameters: defaults overridden by params), recorded."""
    return _games(name, n, tuple(sorted(params.items())))


@cache
def _games(name: str, n: int, params: tuple) -> tuple[Played, ...]:
    policy = load_policy(name)
    vector = policy.param_vector(dict(params))
    out = []
    for g in range(n):
        decisions: list[Decision] = []

        def decide(kind, obs, rules, options, n_options, p, prng, decisions=decisions):
            i = policy.decide(kind, obs, rules, options, n_options, p, prng)
            decisions.append(Decision(
                int(kind), int(obs[observation.TURN]), int(obs[observation.ROE]), bool(obs[observation.FIRED]),
                int(obs[observation.TRACK_LEN + codes.TANK]), tuple(int(x) for x in options[:n_options]),
                int(options[i]),
            ))
            return i

        recorder = replace(policy, decide=decide)
        trace: list = []
        row = play_game(rules(), recorder, vector, SEED, g, trace=trace)
        out.append(Played(row, trace, decisions))
    return tuple(out)


def rows(name: str, n: int = N_GAMES, **params: float) -> list[dict]:
    return [p.row for p in games(name, n, **params)]


def offers(d: Decision, order_kind: int) -> bool:
    return d.kind in ORDER_KINDS and any(
        D.order_kind(o) == order_kind for o in d.options if o != D.PASS)


def chose(d: Decision, order_kind: int) -> bool:
    return d.kind in ORDER_KINDS and d.choice != D.PASS and D.order_kind(d.choice) == order_kind


def rate(rs: list[dict], test) -> float:
    return sum(1 for r in rs if test(r)) / len(rs)


# ------------------------------------------------------------------ the library


def test_every_family_is_there():
    assert FAMILIES <= set(available_policies())


@pytest.mark.parametrize("name", available_policies())
def test_policy_loads_with_parameters_in_range(name):
    policy = load_policy(name)
    assert policy.doc, f"{name} has no docstring"
    names = [p.name for p in policy.parameters]
    assert len(names) == len(set(names)), f"{name} declares a parameter twice"
    for p in policy.parameters:
        assert p.low <= p.default <= p.high, f"{name}.{p.name} default outside its range"
        assert p.low < p.high and p.doc
    assert policy.param_vector().shape == (len(policy.parameters),)


def test_each_module_shape_makes_its_kind():
    """decide: a DecidePolicy (the scripted family one the fast engine compiles in);
    PRESET: a Preset playing with the family's decide; play_games: a GamePlayer, which
    the what-if page and the deciding list leave out."""
    plan, random = load_policy("plan"), load_policy("random")
    assert type(plan) is DecidePolicy and plan.compiled_in == FAMILY
    assert type(random) is DecidePolicy and random.compiled_in == DECIDE
    preset = load_policy("fire_at_roe")
    assert type(preset) is Preset and preset.decide is plan.decide and preset.compiled_in == FAMILY
    own = preset.param_vector({"k": 15})
    assert preset.kernel_params(own)[space.FIRE_ROE] == 15
    assert np.array_equal(preset.kernel_params(np.tile(own, (3, 1))),
                          np.tile(preset.kernel_params(own), (3, 1)))
    assert type(load_policy("lookahead")) is GamePlayer
    assert set(available_policies(deciding=True)) == {
        n for n in available_policies() if n != "lookahead"}


def test_a_player_of_whole_games_plays_its_own_chunks():
    calls = []

    def play_games(rules, params, seed, first_game, engine):
        calls.append((seed, first_game, engine, params.shape))
        return np.full((len(params), 2), first_game, dtype=np.int64)

    module = SimpleNamespace(__doc__="Plays whole games.", __name__="notebook",
                             PARAMETERS=(Parameter("x", 1, 0, 2, "a parameter"),),
                             play_games=play_games, CHUNK=7, narrated_game=None)
    player = from_module(module)
    assert isinstance(player, GamePlayer) and player.doc == "Plays whole games."
    assert default_chunk(player, "fast") == 7
    rows = play_chunk(rules(), player, np.ones((4, 1)), 3, 10, "reference")
    assert calls == [(3, 10, "reference", (4, 1))]
    assert rows.shape == (4, 2) and (rows == 10).all()


def test_shared_knobs_are_declared_once():
    """A knob means the same (range, meaning) in every policy that has it."""
    shared = {p.name: p for p in space.knobs()}
    for name in available_policies():
        for p in load_policy(name).parameters:
            if p.name in shared:
                k = shared[p.name]
                assert (p.low, p.high, p.doc) == (k.low, k.high, k.doc), f"{name}.{p.name}"


@pytest.mark.parametrize("name", available_policies(deciding=True))
def test_policy_plays_200_games(name):
    played = games(name)
    assert len(played) == N_GAMES
    for p in played:
        assert p.row["end_turn"] <= 20
        assert p.trace[-1][1] == events.GAME_END


# ------------------------------------------------------------------ fire triggers


def test_hold_fire_never_fires():
    played = games("hold_fire")
    assert all(p.row["first_fire_turn"] is None for p in played)
    decisions = [d for p in played for d in p.decisions]
    assert any(offers(d, codes.FIRE) for d in decisions), "Fire was never offered: the test is vacuous"
    assert not any(chose(d, codes.FIRE) for d in decisions)


def first_fire_checks(name: str, trigger, n: int = N_GAMES, **params: float) -> int:
    """Before the first Fire order no Fire is chosen unless trigger(decision); the first
    decision offering Fire with trigger true takes it (or the airstrike, which cautious
    ranks higher). Returns the games that fired."""
    fired = 0
    for p in games(name, n, **params):
        for d in p.decisions:
            if d.kind not in ORDER_KINDS or d.fired:
                continue
            if chose(d, codes.FIRE):
                assert trigger(d), f"{name} fired early: turn {d.turn}, RoE {d.roe}"
                break
            assert not (offers(d, codes.FIRE) and trigger(d) and not chose(d, codes.AIRSTRIKE)), (
                f"{name} let a Fire order pass at turn {d.turn}, RoE {d.roe}")
        fire_events = [ev for ev in p.trace if ev[1] == events.FIRE_STATUS]
        if p.row["first_fire_turn"] is not None:
            fired += 1
            assert fire_events[0][2] == p.row["first_fire_roe"]
    return fired


def test_fire_at_roe_fires_first_at_k():
    k = load_policy("fire_at_roe").param_vector()[0]
    assert k == 12
    fired = first_fire_checks("fire_at_roe", lambda d: d.roe >= k)
    assert fired >= N_GAMES // 4
    roes = [r["first_fire_roe"] for r in rows("fire_at_roe")]
    assert all(roe >= k for roe in roes if roe is not None)


def test_fire_at_roe_25_is_hold_fire():
    assert rows("fire_at_roe", 100, k=25) == rows("hold_fire")[:100]


def test_fire_at_turn_fires_first_at_t():
    t = 6
    fired = first_fire_checks("fire_at_turn", lambda d: d.turn >= t, 100, t=t)
    assert fired >= 25
    turns = [r["first_fire_turn"] for r in rows("fire_at_turn", 100, t=t)]
    assert all(turn >= t for turn in turns if turn is not None)


def test_fire_at_turn_1_is_historical():
    """The RoE gates the first Fire anyway, so firing from turn 1 is the historical plan."""
    assert rows("fire_at_turn") == rows("historical")


def test_historical_fires_as_soon_as_allowed():
    assert first_fire_checks("historical", lambda d: True) >= N_GAMES // 2


def test_cautious_waits_for_unrestricted_and_calls_the_airstrike():
    assert first_fire_checks("cautious", lambda d: d.roe >= 18) >= N_GAMES // 4
    airstrikes = [d for p in games("cautious") for d in p.decisions if offers(d, codes.AIRSTRIKE)]
    assert airstrikes and all(chose(d, codes.AIRSTRIKE) for d in airstrikes)


# ------------------------------------------------------------------ movement


def tanks_at_t2(name: str) -> float:
    return rate(rows(name), lambda r: r["tanks_at_t2"] >= 2)


def test_rush_sends_tanks_only_toward_tango_2():
    """Tanks are only sent to Kalesija or Tango 2, the APCs (apcs=0) only to OP N."""
    apcs = 1 << codes.VL2 | 1 << codes.QL3
    for p in games("rush"):
        for d in p.decisions:
            if chose(d, codes.MOVE) or (d.kind == D.VL2_DESTINATION and d.choice != D.PASS):
                wanted = (codes.OPN,) if D.order_mask(d.choice) & apcs else (codes.KAL, codes.T2)
                assert D.order_dest(d.choice) in wanted
    assert tanks_at_t2("rush") > tanks_at_t2("hold_fire") + 0.05


def test_historical_plan_destinations():
    """Platoon 1 and QL1 only to Kalesija or Tango 2, platoon 2 only to the Saraci
    overwatches; no tank once at Tango 2 is ordered back."""
    saraci_ows = (codes.S1, codes.S2, codes.S3, D.SPREAD + codes.TOWN_S)
    goals = {codes.QL1: (codes.KAL, codes.T2), codes.AQ: (codes.KAL, codes.T2), codes.EA: (codes.KAL, codes.T2),
             codes.FA: (codes.KAL, codes.T2),
             codes.BQ: saraci_ows, codes.FB: saraci_ows, codes.GB: saraci_ows}
    for p in games("historical"):
        at = {}
        for ev in p.trace:
            if ev[1] == events.MOVE:
                at[ev[2]] = ev[4]
            if ev[1] == events.ORDER and D.order_kind(ev[2]) == codes.MOVE:
                for v in range(codes.N_VEHICLES):
                    if D.order_mask(ev[2]) >> v & 1:
                        assert D.order_dest(ev[2]) in goals[v], (codes.VEHICLES[v], D.order_dest(ev[2]))
                        assert at.get(v) != codes.T2, f"{codes.VEHICLES[v]} ordered away from Tango 2"


def test_tow_knob():
    """tow=0 never tows; cautious (tow=1) tows, out of fire, never from Kalesija."""
    assert not any(chose(d, codes.TOW) for p in games("historical") for d in p.decisions)
    tows = 0
    for p in games("cautious"):
        at = {}
        for ev in p.trace:
            if ev[1] == events.MOVE:
                at[ev[2]] = ev[4]
            if ev[1] == events.ORDER and D.order_kind(ev[2]) == codes.TOW:
                tows += 1
                assert at.get(D.order_dest(ev[2]), codes.SAR) not in (codes.KAL, codes.T2)
    assert tows >= 10


# ------------------------------------------------------------------ the other knobs


def pairs_per_turn(p: Played) -> list[int]:
    counts: dict[int, int] = {}
    for ev in p.trace:
        if ev[1] == events.PAIR:
            counts[ev[0]] = counts.get(ev[0], 0) + 1
    return list(counts.values())


def test_drawing_knobs():
    """max_pairs caps the pairs of a turn; stop_at_tanks=0 draws one pair a turn; the
    default draws again while fewer than 3 tank chits are on their track."""
    assert max(n for p in games("historical", 50, max_pairs=2) for n in pairs_per_turn(p)) == 2
    assert all(n == 1 for p in games("historical", 50, stop_at_tanks=0) for n in pairs_per_turn(p))
    draws = [d for p in games("historical") for d in p.decisions if d.kind == D.DRAW_AGAIN]
    assert {d.choice for d in draws} == {0, 1}
    assert all(d.choice == (d.tanks < 3) for d in draws)


def test_target_knob():
    """The chosen fire target is the first of the knob's preference that is on offer."""
    for name, n, params in (("historical", N_GAMES, {}), ("historical", 50, {"target": 3})):
        order = list(_plan.TARGET_ORDERS[int(params.get("target", 0))])
        targets = [d for p in games(name, n, **params) for d in p.decisions
                   if d.kind == D.FIRE_TARGET]
        assert targets
        for d in targets:
            assert d.choice == next(t for t in order if t in d.options)


def test_play_on_knob():
    """play_on=0 stops at the first victory; play_on=1 plays on for the missing type."""
    def stops(**params):
        return [ev[4] for p in games("historical", 50, stop_at_tanks=0, **params)
                for ev in p.trace if ev[1] == events.VICTORY]
    assert stops() and all(stops())
    assert 0 in stops(play_on=1)
