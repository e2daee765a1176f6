"""Operation Bøllebank's Ruleset and its build: check every key against the declaration
(schema.py) and build the tables. Loading (the TOML, a partial file, `KEY=VALUE`
settings, readings) is any game's (`BOOK`, a bollesim/game/rulebook.py Rulebook).

A bad file raises RulesetError naming the file, the key and the problem, so the command
line can print one line and exit 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from bollesim.bollebank import codes
from bollesim.bollebank.rules import schema
from bollesim.bollebank.rules.board import UNLIMITED, build_board
from bollesim.bollebank.rules.charts import build_charts
from bollesim.bollebank.rules.enemy import build_enemy
from bollesim.bollebank.rules.forces import build_forces, check_options
from bollesim.bollebank.rules.packed import pack
from bollesim.bollebank.rules.readings import READINGS
from bollesim.bollebank.rules.schema import DEFAULT_PATH
from bollesim.errors import RulesetError
from bollesim.game.declaration import ruleset_digest
from bollesim.game.reader import Reader, read_toml
from bollesim.game.rulebook import Rulebook

__all__ = [
    "BOOK", "DEFAULT_PATH", "UNLIMITED", "Ruleset", "RulesetError", "build", "load_ruleset",
    "locate", "read_toml", "set_value",
]

@dataclass(frozen=True)
class Ruleset:
    """Every table of the game as numpy arrays (docs/ruleset.md gives every key), the
    tables derived from them, and `packed`, the int64 vector of rules/packed.py."""

    name: str
    digest: str  # sha256 of the canonical ruleset data
    data: dict = field(repr=False)  # the merged TOML, for `rules show` and manifests
    # vehicles (forces.py)
    vehicle_ids: tuple[str, ...]
    is_tank: np.ndarray  # bool[V]
    platoon: np.ndarray  # int64[V], 0 = HQ
    is_hq: np.ndarray  # bool[V]
    commander: int
    relays: np.ndarray  # int64[2]
    platoon_groups: np.ndarray  # int64[G]: vehicle masks of 2+ of a platoon, in offer order
    ability_vehicle: np.ndarray  # int64[3]
    ability_level: np.ndarray  # int64[3]
    ability_sides: np.ndarray  # int64[3, 2], codes.DRAW_THEIR_FIRE...
    draw_their_fire_at: int
    draw_their_fire_positions: np.ndarray  # bool[P]
    extra_order_at: int
    direct_their_fire_at: int
    extra_turn_at: int
    # map (board.py)
    start_position: int
    position_ids: tuple[str, ...]
    position_names: tuple[str, ...]  # the rulebook's names ("SK-1 CKP"), for narration
    pos_kind: np.ndarray  # int64[P], codes.CP/CKP/OW
    pos_stack: np.ndarray  # int64[P], UNLIMITED for contact points
    pos_town: np.ndarray  # int64[P], codes.TOWN_* of an overwatch
    pos_letter: np.ndarray  # int64[P], codes.LETTER_*
    pos_art: np.ndarray  # int64[P], codes.TARGET_* (NO_ART: never targeted)
    pos_kt2_road: np.ndarray  # bool[P]
    pos_fp: np.ndarray  # int64[P], fixed firing priority, 0 = none
    pos_bsa: np.ndarray  # bool[P, 3], fixed BSA fields of fire by weapon
    pos_un: np.ndarray  # bool[P, 4], fixed UN fire icons by track
    pos_indirect: np.ndarray  # bool[P], UN fire from here is indirect
    pos_eam_pool: np.ndarray  # int64[P], codes.POOL_*
    adjacent: np.ndarray  # bool[P, P]
    distance: np.ndarray  # int64[P, P], road steps
    next_step: np.ndarray  # int64[P, P], next position from a toward b
    town_of: np.ndarray  # int64[P], the town of a contact point or overwatch
    spread: np.ndarray  # int64[3, P], [town, k]: the k-th overwatch of a town, -1 after
    dest_allowed: np.ndarray  # bool[P, P], [here, d]: a Move order may name d (§5.4.1)
    waypoint: np.ndarray  # int64[P, P], [here, goal]: the destination to name now
    apc_second_move_from: np.ndarray  # bool[P], §6.2 optional rule
    saraci: int
    kalesija: int
    tango2: int
    op_n: int
    # enemy action markers (enemy.py)
    marker_ids: tuple[str, ...]
    marker_pool: np.ndarray  # int64[M]
    marker_fp: np.ndarray  # int64[M]
    marker_bsa: np.ndarray  # bool[M, 2, 3]
    marker_un: np.ndarray  # bool[M, 2, 4]
    # chits: weapon pool chits, then one random-unit chit per vehicle, then the setup marker
    chit_type: np.ndarray  # int64[K]
    chit_letter: np.ndarray  # int64[K]
    chit_double: np.ndarray  # bool[K]
    chit_art_target: np.ndarray  # int64[K]
    chit_vehicle: np.ndarray  # int64[K], the vehicle of a random-unit chit, else -1
    n_pool_chits: int  # chits 0..n-1 start in the enemy weapon pool (§3)
    setup_chit: int  # the special Saraci artillery marker (§3 step 6)
    # tracks
    tank_hot_min: np.ndarray
    tank_to_hit: int
    atgm_to_hit: np.ndarray
    hmg_to_hit: np.ndarray
    atgm_overwatch_drm: int
    # order matrix [first type, second type] and damage tables by d6 face - 1 (charts.py)
    matrix_fire: np.ndarray  # bool[4, 4]
    matrix_move: np.ndarray  # bool[4, 4]
    matrix_platoon: np.ndarray  # bool[4, 4]
    hit_table: np.ndarray  # int64[4, 6]: by weapon (tank, atgm, hmg, art)
    light_table: np.ndarray  # int64[6]
    turn_limit: int  # §4/§8: the last turn, extended or not
    # every scalar key, by table: params["roe"]["max"] (a choice as its index)
    params: dict = field(repr=False)
    packed: np.ndarray = field(repr=False)  # int64[packed.SIZE]

    def p(self, table: str, key: str):
        """One scalar rule, e.g. rules.p("roe", "fire_allowed")."""
        return self.params[table][key]

    def vehicle(self, name: str) -> int:
        return self.vehicle_ids.index(name)

    def position(self, name: str) -> int:
        return self.position_ids.index(name)

    @cached_property
    def readings(self) -> dict[str, str]:
        """The variant of every reading that this ruleset's values match (readings.py),
        "custom" when they match none."""
        return BOOK.active_variants(self.data)


# --------------------------------------------------------------------------- building


def build(data: dict, source: str = "ruleset") -> Ruleset:
    """Validate merged ruleset data and build the Ruleset (each table by its module)."""
    r = Reader(data, source, schema.SCHEMA)
    unknown = schema.unknown_keys(data)
    if unknown:
        r.fail(*unknown)
    name = data.get("name", "ruleset")
    if not isinstance(name, str):
        r.fail("name", f"must be text in quotes, got {name!r}")
    params = scalar_rules(r)
    fields: dict = {"name": name, "params": params}
    fields.update(build_forces(r))
    fields.update(build_board(r))
    fields.update(build_enemy(r, fields["pos_eam_pool"]))
    fields.update(build_charts(r))
    fields.update(ability_places(r))
    tanks = int(fields["is_tank"].sum())
    if params["game"]["tanks_needed_at_t2"] > tanks:
        r.fail("game.tanks_needed_at_t2", f"must be at most the number of tanks ({tanks})")
    check_options(r, fields)
    game = params["game"]
    fields["turn_limit"] = game["extended_turn_limit"] if game["extend_to_40"] else game["turn_limit"]
    fields["packed"] = pack(fields)
    return Ruleset(digest=ruleset_digest(data), data=data, **fields)


BOOK = Rulebook(schema.SCHEMA, DEFAULT_PATH, READINGS, build)
load_ruleset, set_value, locate = BOOK.load_ruleset, BOOK.set_value, BOOK.locate


def scalar_rules(r: Reader) -> dict:
    """Every scalar key by table, read by its declaration; then the rules that tie
    several keys together (the RoE levels lie on the track, the extended game is longer)."""
    params: dict = {}
    for path, _ in schema.scalar_keys():
        table, name = path.split(".")
        params.setdefault(table, {})[name] = r.value(path)
    roe = params["roe"]
    if not roe["min"] <= roe["max"]:
        r.fail("roe.max", f"must not be below roe.min ({roe['min']})")
    for k in ("start", "fire_allowed", "unrestricted"):
        if not roe["min"] <= roe[k] <= roe["max"]:
            r.fail(f"roe.{k}", f"must lie within roe.min..roe.max ({roe['min']}..{roe['max']})")
    game = params["game"]
    if game["extended_turn_limit"] < game["turn_limit"]:
        r.fail("game.extended_turn_limit", "must not be below game.turn_limit")
    return params


def ability_places(r: Reader) -> dict:
    """§5.5: where each ability's vehicle must stand, and whom Draw their fire covers."""
    mask = np.zeros(codes.N_POSITIONS, dtype=bool)
    mask[r.value("ability_rules.draw_their_fire_positions")] = True
    out = {"draw_their_fire_positions": mask}
    for key in ("draw_their_fire_at", "extra_order_at", "direct_their_fire_at", "extra_turn_at"):
        out[key] = r.value(f"ability_rules.{key}")
    return out
