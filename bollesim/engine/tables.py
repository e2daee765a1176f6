"""The ruleset as the fast engine reads it: a NamedTuple of int64 arrays (numba-friendly),
with every scalar rule in one vector `s` indexed by the S_* constants below."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bollesim import codes as C
from bollesim.reference.state import turn_limit
from bollesim.rules.loader import Ruleset

# Scalar rules: (index name, table, key) - the order is the layout of `s`.
_SCALARS = (
    ("S_BASE_TURN_LIMIT", "game", "turn_limit"),
    ("S_EXTEND", "game", "extend_to_40"),
    ("S_DEADLINE_START", "game", "deadline_start"),
    ("S_DEADLINE_MAX", "game", "deadline_max"),
    ("S_TANKS_NEEDED", "game", "tanks_needed_at_t2"),
    ("S_ROE_START", "roe", "start"),
    ("S_ROE_MIN", "roe", "min"),
    ("S_ROE_MAX", "roe", "max"),
    ("S_FIRE_ALLOWED", "roe", "fire_allowed"),
    ("S_UNRESTRICTED", "roe", "unrestricted"),
    ("S_HOLD_ATTACK", "roe", "hold_fire_attack"),
    ("S_HEAVY_HOLD", "roe", "heavy_damage_hold"),
    ("S_HEAVY_FIRE", "roe", "heavy_damage_fire"),
    ("S_KIA_HOLD", "roe", "commander_killed_hold"),
    ("S_KIA_FIRE", "roe", "commander_killed_fire"),
    ("S_TANK_TO_HIT", "tracks", "tank_to_hit"),
    ("S_ATGM_OW_DRM", "tracks", "atgm_overwatch_drm"),
    ("S_HMG_KILL_ON", "damage", "hmg_kills_commander_on"),
    ("S_KIA_ACTS_MAX", "damage", "commander_killed_acts_max"),
    ("S_ART_ONLY_EFFECTS", "artillery", "only_effects_roll"),
    ("S_ART_HEAVY", "artillery", "heavy_damage_roll"),
    ("S_ART_ROE_SK", "artillery", "roe_on_s_or_k"),
    ("S_ART_DEADLINE_T2", "artillery", "deadline_on_t2"),
    ("S_ART_ROE_NO_ART", "artillery", "roe_on_no_art"),
    ("S_INDIRECT_MAX", "fire", "indirect_hit_max"),
    ("S_SIGHTS_MAX", "fire", "sights_hit_max"),
    ("S_DEPOT_ROLLS", "fire", "depot_rolls"),
    ("S_NV_FAIL_MIN", "movement", "night_vision_fail_min"),
    ("S_NV_ADJ_DRM", "movement", "night_vision_adjacent_drm"),
    ("S_TOW_RANGE", "movement", "tow_range"),
    ("S_APC_DOUBLE", "movement", "apc_double_move"),
    ("S_RADIO_ONE_MAX", "radio", "one_damaged_max"),
    ("S_RADIO_SAME_DRM", "radio", "same_position_drm"),
    ("S_RADIO_QL3_DRM", "radio", "ql3_at_opn_drm"),
    ("S_RADIO_TWO_MAX", "radio", "two_damaged_max"),
    ("S_DTF_DRM", "abilities", "draw_their_fire_drm"),
    ("S_QL1_RANGE", "abilities", "ql1_range"),
    ("S_TARGET_RULE", "interpretations", "target_priority"),
    ("S_AIRSTRIKES", "interpretations", "airstrikes_per_game"),
    ("S_ART_ALWAYS", "interpretations", "artillery_effects_always"),
    ("S_RADIO_PER_VEHICLE", "interpretations", "radio_check_per_vehicle"),
    ("S_POOL_MIN", "interpretations", "pool_min_chits"),
    ("S_SPENT_RETURNS", "interpretations", "spent_returns_to_track"),
    ("S_FIRE_ON_ISSUE", "interpretations", "fire_status_on_issue"),
    ("S_DIPLO_MILITARY", "interpretations", "diplomatic_needs_military"),
    ("S_STICKY", "interpretations", "victories_sticky"),
)
# Indices into RuleArrays.s: the ruleset values above, in order, then derived ones.
S_BASE_TURN_LIMIT = 0
S_EXTEND = 1
S_DEADLINE_START = 2
S_DEADLINE_MAX = 3
S_TANKS_NEEDED = 4
S_ROE_START = 5
S_ROE_MIN = 6
S_ROE_MAX = 7
S_FIRE_ALLOWED = 8
S_UNRESTRICTED = 9
S_HOLD_ATTACK = 10
S_HEAVY_HOLD = 11
S_HEAVY_FIRE = 12
S_KIA_HOLD = 13
S_KIA_FIRE = 14
S_TANK_TO_HIT = 15
S_ATGM_OW_DRM = 16
S_HMG_KILL_ON = 17
S_KIA_ACTS_MAX = 18
S_ART_ONLY_EFFECTS = 19
S_ART_HEAVY = 20
S_ART_ROE_SK = 21
S_ART_DEADLINE_T2 = 22
S_ART_ROE_NO_ART = 23
S_INDIRECT_MAX = 24
S_SIGHTS_MAX = 25
S_DEPOT_ROLLS = 26
S_NV_FAIL_MIN = 27
S_NV_ADJ_DRM = 28
S_TOW_RANGE = 29
S_APC_DOUBLE = 30
S_RADIO_ONE_MAX = 31
S_RADIO_SAME_DRM = 32
S_RADIO_QL3_DRM = 33
S_RADIO_TWO_MAX = 34
S_DTF_DRM = 35
S_QL1_RANGE = 36
S_TARGET_RULE = 37
S_AIRSTRIKES = 38
S_ART_ALWAYS = 39
S_RADIO_PER_VEHICLE = 40
S_POOL_MIN = 41
S_SPENT_RETURNS = 42
S_FIRE_ON_ISSUE = 43
S_DIPLO_MILITARY = 44
S_STICKY = 45
S_TURN_LIMIT = 46
S_COMMANDER = 47
S_SARACI = 48
S_KALESIJA = 49
S_TANGO2 = 50
S_OPN = 51
S_START = 52
S_N_POOL_CHITS = 53
S_SETUP_CHIT = 54
S_DTF_AT = 55
S_EXTRA_ORDER_AT = 56
S_DIRECT_FIRE_AT = 57
S_EXTRA_TURN_AT = 58
S_N_VEHICLES = 59
S_N_POSITIONS = 60
S_N_MARKERS = 61
N_SCALARS = 62


_DERIVED_INDEX = {
    name: i
    for i, name in enumerate(
        (
            "S_TURN_LIMIT",
            "S_COMMANDER",
            "S_SARACI",
            "S_KALESIJA",
            "S_TANGO2",
            "S_OPN",
            "S_START",
            "S_N_POOL_CHITS",
            "S_SETUP_CHIT",
            "S_DTF_AT",
            "S_EXTRA_ORDER_AT",
            "S_DIRECT_FIRE_AT",
            "S_EXTRA_TURN_AT",
            "S_N_VEHICLES",
            "S_N_POSITIONS",
            "S_N_MARKERS",
        ),
        start=len(_SCALARS),
    )
}
assert len(_SCALARS) + len(_DERIVED_INDEX) == N_SCALARS


class RuleArrays(NamedTuple):
    s: np.ndarray  # scalar rules, S_* indices
    is_tank: np.ndarray
    platoon: np.ndarray
    is_hq: np.ndarray
    relays: np.ndarray
    pos_kind: np.ndarray
    pos_stack: np.ndarray
    pos_town: np.ndarray
    pos_letter: np.ndarray
    pos_art: np.ndarray
    pos_kt2: np.ndarray
    pos_fp: np.ndarray
    pos_bsa: np.ndarray  # [P, 3]
    pos_un: np.ndarray  # [P, 4]
    pos_indirect: np.ndarray
    pos_eam_pool: np.ndarray
    adjacent: np.ndarray  # [P, P]
    distance: np.ndarray  # [P, P]
    next_step: np.ndarray  # [P, P]
    spread: np.ndarray  # [town, k]: the k-th overwatch of a town (I-OW-SPREAD)
    marker_pool: np.ndarray
    marker_fp: np.ndarray
    marker_bsa: np.ndarray  # [M, 2, 3]
    marker_un: np.ndarray  # [M, 2, 4]
    chit_type: np.ndarray
    chit_letter: np.ndarray
    chit_double: np.ndarray
    chit_art_target: np.ndarray
    chit_vehicle: np.ndarray
    tank_hot_min: np.ndarray
    atgm_to_hit: np.ndarray
    hmg_to_hit: np.ndarray
    matrix_fire: np.ndarray  # [4, 4]
    matrix_move: np.ndarray
    matrix_platoon: np.ndarray
    hit_table: np.ndarray  # [4, 6]
    light_table: np.ndarray  # [6]
    ability_vehicle: np.ndarray
    ability_level: np.ndarray
    ability_sides: np.ndarray  # [3, 2]
    dtf_positions: np.ndarray


def _i64(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a).astype(np.int64))


def rule_arrays(rules: Ruleset) -> RuleArrays:
    """Pack a loaded ruleset for the kernels."""
    s = np.zeros(N_SCALARS, dtype=np.int64)
    for i, (_, table, key) in enumerate(_SCALARS):
        s[i] = int(rules.p(table, key))
    derived = {  # name -> value
        "S_TURN_LIMIT": turn_limit(rules),
        "S_COMMANDER": rules.commander,
        "S_SARACI": rules.saraci,
        "S_KALESIJA": rules.kalesija,
        "S_TANGO2": rules.tango2,
        "S_OPN": rules.op_n,
        "S_START": rules.start_position,
        "S_N_POOL_CHITS": rules.n_pool_chits,
        "S_SETUP_CHIT": rules.setup_chit,
        "S_DTF_AT": rules.draw_their_fire_at,
        "S_EXTRA_ORDER_AT": rules.extra_order_at,
        "S_DIRECT_FIRE_AT": rules.direct_their_fire_at,
        "S_EXTRA_TURN_AT": rules.extra_turn_at,
        "S_N_VEHICLES": len(rules.vehicle_ids),
        "S_N_POSITIONS": len(rules.position_ids),
        "S_N_MARKERS": len(rules.marker_ids),
    }
    for name, value in derived.items():
        s[_DERIVED_INDEX[name]] = value
    spread = np.full((3, 3), -1, dtype=np.int64)
    for town in (C.TOWN_S, C.TOWN_K):
        ows = [
            p
            for p in range(len(rules.position_ids))
            if rules.pos_kind[p] == C.OW and rules.pos_town[p] == town
        ]
        spread[town, : len(ows)] = ows
    return RuleArrays(
        s=s,
        is_tank=_i64(rules.is_tank),
        platoon=_i64(rules.platoon),
        is_hq=_i64(rules.is_hq),
        relays=_i64(rules.relays),
        pos_kind=_i64(rules.pos_kind),
        pos_stack=_i64(rules.pos_stack),
        pos_town=_i64(rules.pos_town),
        pos_letter=_i64(rules.pos_letter),
        pos_art=_i64(rules.pos_art),
        pos_kt2=_i64(rules.pos_kt2_road),
        pos_fp=_i64(rules.pos_fp),
        pos_bsa=_i64(rules.pos_bsa),
        pos_un=_i64(rules.pos_un),
        pos_indirect=_i64(rules.pos_indirect),
        pos_eam_pool=_i64(rules.pos_eam_pool),
        adjacent=_i64(rules.adjacent),
        distance=_i64(rules.distance),
        next_step=_i64(rules.next_step),
        spread=spread,
        marker_pool=_i64(rules.marker_pool),
        marker_fp=_i64(rules.marker_fp),
        marker_bsa=_i64(rules.marker_bsa),
        marker_un=_i64(rules.marker_un),
        chit_type=_i64(rules.chit_type),
        chit_letter=_i64(rules.chit_letter),
        chit_double=_i64(rules.chit_double),
        chit_art_target=_i64(rules.chit_art_target),
        chit_vehicle=_i64(rules.chit_vehicle),
        tank_hot_min=_i64(rules.tank_hot_min),
        atgm_to_hit=_i64(rules.atgm_to_hit),
        hmg_to_hit=_i64(rules.hmg_to_hit),
        matrix_fire=_i64(rules.matrix_fire),
        matrix_move=_i64(rules.matrix_move),
        matrix_platoon=_i64(rules.matrix_platoon),
        hit_table=_i64(rules.hit_table),
        light_table=_i64(rules.light_table),
        ability_vehicle=_i64(rules.ability_vehicle),
        ability_level=_i64(rules.ability_level),
        ability_sides=_i64(rules.ability_sides),
        dtf_positions=_i64(rules.draw_their_fire_positions),
    )
