"""The reference engine's game state: plain dataclasses, one game at a time (§3 setup)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bollesim.bollebank import codes, observation
from bollesim.bollebank.rules.loader import Ruleset


@dataclass
class Vehicle:
    index: int
    name: str
    is_tank: bool
    platoon: int
    position: int
    destination: int = -1  # where its Move/Tow marker is (VL2: where the player heads)
    order: int = codes.NO_ORDER  # MOVE or TOW while a marker is out
    tow_target: int = -1  # Tow order: the damaged tank to reach (§5.4.3)
    fire: bool = False  # flipped to its Fire side (§5.4.2)
    light: set[int] = field(default_factory=set)  # codes.RADIO, NIGHT_VISION, SIGHTS
    heavy: set[int] = field(default_factory=set)  # codes.TRACKS, HULL, TURRET
    hull_green: bool = True
    stunned: bool = False
    commander_killed: bool = False
    skip: bool = False  # skips this Execution phase (§7.1.3 roll)
    towing: int = -1  # the tank it tows, stacked with it
    towed_by: int = -1

    @property
    def damaged(self) -> bool:
        return bool(self.light or self.heavy)


@dataclass
class AbilityMarker:
    """A battalion HQ special ability marker (§5.5)."""

    state: int = codes.ON_TRACK  # ON_TRACK, AVAILABLE or SPENT
    side: int = 0  # 0 or 1: which of the ruleset's two sides is up


@dataclass
class Game:
    rules: Ruleset
    vehicles: list[Vehicle]
    pool: list[int]  # the enemy weapon pool; a draw swaps the last chit into the hole
    tracks: list[list[int]]  # tank, ATGM, HMG, artillery; the last chit is the active one
    aside: list[int]  # random-unit chits set aside for artillery (§7.2)
    marker_pools: dict[int, list[int]]  # enemy-action marker pools (codes.POOL_123/789)
    markers: dict[int, tuple[int, int]]  # position -> (marker, side) drawn on first entry
    abilities: list[AbilityMarker]
    retired: list[int] = field(default_factory=list)  # chits retired from play: the car (§5.3)
    turn: int = 1
    deadline: int = 18
    roe: int = 1
    fire_roe: int = 0  # RoE when the first Fire order was given; 0 = Hold Fire
    fire_turn: int = 0
    setup_flipped: bool = False  # the Saraci setup marker shows "No Artillery"
    tank_reached_kalesija: bool = False  # §6.2 optional APC rule
    tank_hot: bool = False
    airstrikes_used: int = 0
    airstrike_pending: bool = False
    airstrike_turn: int = 0
    pairs_this_turn: int = 0
    pair: tuple[int, int] = (-1, -1)  # weapon types of the current pair
    context: tuple[int, int] = (0, 0)  # decision context, see observation.CONTEXT_A/B
    t2_reached: bool = False
    operational: bool = False
    tactical: bool = False
    over: bool = False
    end_reason: int = -1
    tanks_at_t2: int = 0
    chits_drawn: int = 0
    heavy_hits: int = 0
    light_hits: int = 0
    first_loss_turn: int = 0  # turn of the first heavy damage or killed commander
    loss: tuple[int, int, int] | None = None  # the loss that ended the game: vehicle, weapon, place

    @property
    def fired(self) -> bool:
        return self.fire_roe > 0

    def at(self, position: int) -> list[Vehicle]:
        return [v for v in self.vehicles if v.position == position]


def new_game(rules: Ruleset) -> Game:
    """The position after §3 Prepare for play."""
    vehicles = [
        Vehicle(i, name, bool(rules.is_tank[i]), int(rules.platoon[i]), rules.start_position)
        for i, name in enumerate(rules.vehicle_ids)
    ]
    marker_pools = {
        pool: [m for m in range(len(rules.marker_ids)) if rules.marker_pool[m] == pool]
        for pool in (codes.POOL_123, codes.POOL_789)
    }
    return Game(
        rules=rules,
        vehicles=vehicles,
        pool=list(range(rules.n_pool_chits)),  # §3 step 1
        tracks=[[], [], [], [rules.setup_chit]],  # §3 step 6
        aside=[rules.n_pool_chits + v for v in range(len(vehicles))],  # §3 step 4
        marker_pools=marker_pools,
        markers={},
        abilities=[AbilityMarker() for _ in range(3)],  # §3 step 3
        deadline=rules.p("game", "deadline_start"),  # §3 step 9
        roe=rules.p("roe", "start"),  # §3 step 8, I-ROE0
    )


def artillery_silent(game: Game) -> bool:
    """§8: the lowest artillery marker is a "No Artillery" one."""
    last = game.tracks[codes.ART][-1]
    if last == game.rules.setup_chit:
        return game.setup_flipped
    return game.rules.chit_art_target[last] == codes.NO_ART


def observe(game: Game, out: np.ndarray) -> np.ndarray:
    """Write the policy's view of the game (observation.py layout) into out."""
    rules = game.rules
    out[:] = 0
    out[observation.TURN] = game.turn
    out[observation.TURN_LIMIT] = rules.turn_limit
    out[observation.DEADLINE] = game.deadline
    out[observation.ROE] = game.roe
    out[observation.FIRED] = game.fired
    out[observation.FIRE_ROE] = game.fire_roe
    out[observation.TANK_HOT] = game.tank_hot
    out[observation.AIRSTRIKES_USED] = game.airstrikes_used
    out[observation.AIRSTRIKE_PENDING] = game.airstrike_pending
    out[observation.PAIRS_THIS_TURN] = game.pairs_this_turn
    out[observation.PAIR_FIRST], out[observation.PAIR_SECOND] = game.pair
    out[observation.T2_REACHED] = game.t2_reached
    out[observation.OPERATIONAL] = game.operational
    out[observation.TACTICAL] = game.tactical
    out[observation.ART_SILENT] = artillery_silent(game)
    out[observation.CONTEXT_A], out[observation.CONTEXT_B] = game.context
    for t, track in enumerate(game.tracks):
        out[observation.TRACK_LEN + t] = len(track)
        out[observation.TRACK_LETTER + t] = rules.chit_letter[track[-1]] if track else codes.NO_LETTER
    silent = artillery_silent(game)
    out[observation.ART_TARGET] = codes.NO_ART if silent else rules.chit_art_target[game.tracks[codes.ART][-1]]
    types = rules.chit_type[game.pool] if game.pool else np.zeros(0, dtype=np.int64)
    out[observation.POOL_WEAPONS] = int((types != codes.RU).sum())
    out[observation.POOL_TANKS] = int((types == codes.TANK).sum())
    for v in game.vehicles:
        base = observation.VEH + observation.V_FIELDS * v.index
        out[base + observation.V_POS] = v.position
        out[base + observation.V_DEST] = v.destination
        out[base + observation.V_ORDER] = v.order
        out[base + observation.V_FIRE] = v.fire
        out[base + observation.V_LIGHT] = sum(1 << k for k in v.light)
        out[base + observation.V_HEAVY] = sum(1 << k for k in v.heavy)
        out[base + observation.V_HULL_GREEN] = v.hull_green
        out[base + observation.V_STUN] = v.stunned
        out[base + observation.V_KIA] = v.commander_killed
        out[base + observation.V_TOWING] = v.towing
        out[base + observation.V_TOWED_BY] = v.towed_by
        out[base + observation.V_TOW_TARGET] = v.tow_target
        out[base + observation.V_SKIP] = v.skip
    for a, marker in enumerate(game.abilities):
        out[observation.ABIL + 2 * a] = marker.state
        out[observation.ABIL + 2 * a + 1] = marker.side
    out[observation.MARKER : observation.MARKER + codes.N_POSITIONS] = -1
    for p, (m, side) in game.markers.items():
        out[observation.MARKER + p] = 2 * m + side
    return out

