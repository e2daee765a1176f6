"""The ruleset as the fast engine reads it: flattened into st[RULES : RULES + RULES_SIZE].

Each constant below is the absolute index in `st` where a table (or a scalar rule)
starts; multi-dimensional tables are row-major and read through core.py's accessors.
Sizes are fixed capacities (the rulebook fixes vehicles and positions; chits, markers
and track lengths may grow up to the capacities), so the offsets are compile-time
constants.
"""

from __future__ import annotations

import numpy as np

from bollesim import codes as C
from bollesim.engine import layout as L
from bollesim.reference.orders import destination_allowed
from bollesim.reference.state import turn_limit
from bollesim.rules.loader import Ruleset, RulesetError

NP, NV = C.N_POSITIONS, C.N_VEHICLES
MAX_CHITS, MAX_MARKERS = 64, 8
_next = L.RULES


def _alloc(size: int) -> int:
    global _next
    offset, _next = _next, _next + size
    return offset


# Scalar rules: (table, key) in the ruleset; their index constants follow in this order.
_SCALARS = (
    ("game", "turn_limit"),
    ("game", "extend_to_40"),
    ("game", "deadline_start"),
    ("game", "deadline_max"),
    ("game", "tanks_needed_at_t2"),
    ("roe", "start"),
    ("roe", "min"),
    ("roe", "max"),
    ("roe", "fire_allowed"),
    ("roe", "unrestricted"),
    ("roe", "hold_fire_attack"),
    ("roe", "heavy_damage_hold"),
    ("roe", "heavy_damage_fire"),
    ("roe", "commander_killed_hold"),
    ("roe", "commander_killed_fire"),
    ("tracks", "tank_to_hit"),
    ("tracks", "atgm_overwatch_drm"),
    ("damage", "hmg_kills_commander_on"),
    ("damage", "commander_killed_acts_max"),
    ("artillery", "only_effects_roll"),
    ("artillery", "heavy_damage_roll"),
    ("artillery", "roe_on_s_or_k"),
    ("artillery", "deadline_on_t2"),
    ("artillery", "roe_on_no_art"),
    ("fire", "indirect_hit_max"),
    ("fire", "sights_hit_max"),
    ("fire", "depot_rolls"),
    ("movement", "night_vision_fail_min"),
    ("movement", "night_vision_adjacent_drm"),
    ("movement", "tow_range"),
    ("movement", "apc_double_move"),
    ("radio", "one_damaged_max"),
    ("radio", "same_position_drm"),
    ("radio", "ql3_at_opn_drm"),
    ("radio", "two_damaged_max"),
    ("abilities", "draw_their_fire_drm"),
    ("abilities", "ql1_range"),
    ("interpretations", "target_priority"),
    ("interpretations", "airstrikes_per_game"),
    ("interpretations", "artillery_effects_always"),
    ("interpretations", "radio_check_per_vehicle"),
    ("interpretations", "pool_min_chits"),
    ("interpretations", "spent_returns_to_track"),
    ("interpretations", "fire_status_on_issue"),
    ("interpretations", "diplomatic_needs_military"),
    ("interpretations", "victories_sticky"),
)
(
    S_BASE_TURN_LIMIT,
    S_EXTEND,
    S_DEADLINE_START,
    S_DEADLINE_MAX,
    S_TANKS_NEEDED,
    S_ROE_START,
    S_ROE_MIN,
    S_ROE_MAX,
    S_FIRE_ALLOWED,
    S_UNRESTRICTED,
    S_HOLD_ATTACK,
    S_HEAVY_HOLD,
    S_HEAVY_FIRE,
    S_KIA_HOLD,
    S_KIA_FIRE,
    S_TANK_TO_HIT,
    S_ATGM_OW_DRM,
    S_HMG_KILL_ON,
    S_KIA_ACTS_MAX,
    S_ART_ONLY_EFFECTS,
    S_ART_HEAVY,
    S_ART_ROE_SK,
    S_ART_DEADLINE_T2,
    S_ART_ROE_NO_ART,
    S_INDIRECT_MAX,
    S_SIGHTS_MAX,
    S_DEPOT_ROLLS,
    S_NV_FAIL_MIN,
    S_NV_ADJ_DRM,
    S_TOW_RANGE,
    S_APC_DOUBLE,
    S_RADIO_ONE_MAX,
    S_RADIO_SAME_DRM,
    S_RADIO_QL3_DRM,
    S_RADIO_TWO_MAX,
    S_DTF_DRM,
    S_QL1_RANGE,
    S_TARGET_RULE,
    S_AIRSTRIKES,
    S_ART_ALWAYS,
    S_RADIO_PER_VEHICLE,
    S_POOL_MIN,
    S_SPENT_RETURNS,
    S_FIRE_ON_ISSUE,
    S_DIPLO_MILITARY,
    S_STICKY,
) = range(_alloc(len(_SCALARS)), _next)
# Scalars derived from the ruleset rather than read from one key.
(
    S_TURN_LIMIT,
    S_COMMANDER,
    S_SARACI,
    S_KALESIJA,
    S_TANGO2,
    S_OPN,
    S_START,
    S_N_POOL_CHITS,
    S_SETUP_CHIT,
    S_DTF_AT,
    S_EXTRA_ORDER_AT,
    S_DIRECT_FIRE_AT,
    S_EXTRA_TURN_AT,
    S_N_MARKERS,
) = range(_alloc(14), _next)
S_N_VEHICLES, S_N_POSITIONS = NV, NP  # fixed by the rulebook (codes.py)

IS_TANK, PLATOON, IS_HQ = _alloc(NV), _alloc(NV), _alloc(NV)
RELAYS = _alloc(2)
POS_KIND, POS_STACK, POS_TOWN, POS_LETTER = _alloc(NP), _alloc(NP), _alloc(NP), _alloc(NP)
POS_ART, POS_KT2, POS_FP, POS_INDIRECT = _alloc(NP), _alloc(NP), _alloc(NP), _alloc(NP)
POS_EAM_POOL, DTF_POSITIONS = _alloc(NP), _alloc(NP)
POS_BSA, POS_UN = _alloc(NP * 3), _alloc(NP * 4)  # [p, weapon], [p, track]
ADJACENT, DISTANCE, NEXT_STEP = _alloc(NP * NP), _alloc(NP * NP), _alloc(NP * NP)
SPREAD = _alloc(9)  # [town, k]: the k-th overwatch of a town (I-OW-SPREAD)
MARKER_POOL, MARKER_FP = _alloc(MAX_MARKERS), _alloc(MAX_MARKERS)
MARKER_BSA, MARKER_UN = _alloc(MAX_MARKERS * 6), _alloc(MAX_MARKERS * 8)  # [m, side, w]
CHIT_TYPE, CHIT_LETTER, CHIT_DOUBLE = _alloc(MAX_CHITS), _alloc(MAX_CHITS), _alloc(MAX_CHITS)
CHIT_ART_TARGET, CHIT_VEHICLE = _alloc(MAX_CHITS), _alloc(MAX_CHITS)
TANK_HOT_MIN, ATGM_TO_HIT, HMG_TO_HIT = (_alloc(L.TRACK_CAP) for _ in range(3))
MATRIX_FIRE, MATRIX_MOVE, MATRIX_PLATOON = _alloc(16), _alloc(16), _alloc(16)  # [first, second]
HIT_TABLE, LIGHT_TABLE = _alloc(24), _alloc(6)  # [weapon, die - 1], [die - 1]
ABILITY_VEHICLE, ABILITY_LEVEL, ABILITY_SIDES = _alloc(3), _alloc(3), _alloc(6)  # [a, side]
DEST_MASK = _alloc(NP)  # [here]: bit d set if d is a valid Move destination (§5.4.1)
CP_MASK = _alloc(1)  # bit p set for each contact point
APC_SECOND_FROM = _alloc(NP)  # §6.2 optional rule: checkpoints that allow a second APC step
assert _next <= L.RULES + L.RULES_SIZE, "layout.RULES_SIZE is too small for the tables"


def pack_rules(rules: Ruleset) -> np.ndarray:
    """The ruleset flattened for st[RULES : RULES + RULES_SIZE]."""
    if (
        len(rules.chit_type) > MAX_CHITS
        or len(rules.marker_ids) > MAX_MARKERS
        or max(len(rules.tank_hot_min), len(rules.atgm_to_hit), len(rules.hmg_to_hit)) > L.TRACK_CAP
    ):
        raise RulesetError(
            rules.name,
            "chits",
            f"the fast engine holds at most {MAX_CHITS} chits, "
            f"{MAX_MARKERS} markers and {L.TRACK_CAP} chits per track",
        )
    flat = np.zeros(L.RULES_SIZE, dtype=np.int64)

    def put(offset: int, values) -> None:
        values = np.asarray(values).astype(np.int64).ravel()
        flat[offset - L.RULES : offset - L.RULES + len(values)] = values

    put(L.RULES, [int(rules.p(table, key)) for table, key in _SCALARS])
    put(
        DEST_MASK,
        [
            sum(1 << d for d in range(NP) if destination_allowed(rules, here, d))
            for here in range(NP)
        ],
    )
    put(CP_MASK, [sum(1 << p for p in range(NP) if rules.pos_kind[p] == C.CP)])
    put(
        S_TURN_LIMIT,
        [
            turn_limit(rules),
            rules.commander,
            rules.saraci,
            rules.kalesija,
            rules.tango2,
            rules.op_n,
            rules.start_position,
            rules.n_pool_chits,
            rules.setup_chit,
            rules.draw_their_fire_at,
            rules.extra_order_at,
            rules.direct_their_fire_at,
            rules.extra_turn_at,
            len(rules.marker_ids),
        ],
    )
    spread = np.full((3, 3), -1)
    for town in (C.TOWN_S, C.TOWN_K):
        ows = [p for p in range(NP) if rules.pos_kind[p] == C.OW and rules.pos_town[p] == town]
        spread[town, : len(ows)] = ows
    for offset, values in (
        (IS_TANK, rules.is_tank),
        (PLATOON, rules.platoon),
        (IS_HQ, rules.is_hq),
        (RELAYS, rules.relays),
        (POS_KIND, rules.pos_kind),
        (POS_STACK, rules.pos_stack),
        (POS_TOWN, rules.pos_town),
        (POS_LETTER, rules.pos_letter),
        (POS_ART, rules.pos_art),
        (POS_KT2, rules.pos_kt2_road),
        (POS_FP, rules.pos_fp),
        (POS_INDIRECT, rules.pos_indirect),
        (POS_EAM_POOL, rules.pos_eam_pool),
        (DTF_POSITIONS, rules.draw_their_fire_positions),
        (POS_BSA, rules.pos_bsa),
        (POS_UN, rules.pos_un),
        (ADJACENT, rules.adjacent),
        (DISTANCE, rules.distance),
        (NEXT_STEP, rules.next_step),
        (SPREAD, spread),
        (MARKER_POOL, rules.marker_pool),
        (MARKER_FP, rules.marker_fp),
        (MARKER_BSA, rules.marker_bsa),
        (MARKER_UN, rules.marker_un),
        (CHIT_TYPE, rules.chit_type),
        (CHIT_LETTER, rules.chit_letter),
        (CHIT_DOUBLE, rules.chit_double),
        (CHIT_ART_TARGET, rules.chit_art_target),
        (CHIT_VEHICLE, rules.chit_vehicle),
        (TANK_HOT_MIN, rules.tank_hot_min),
        (ATGM_TO_HIT, rules.atgm_to_hit),
        (HMG_TO_HIT, rules.hmg_to_hit),
        (MATRIX_FIRE, rules.matrix_fire),
        (MATRIX_MOVE, rules.matrix_move),
        (MATRIX_PLATOON, rules.matrix_platoon),
        (HIT_TABLE, rules.hit_table),
        (LIGHT_TABLE, rules.light_table),
        (ABILITY_VEHICLE, rules.ability_vehicle),
        (ABILITY_LEVEL, rules.ability_level),
        (ABILITY_SIDES, rules.ability_sides),
        (APC_SECOND_FROM, rules.apc_second_move_from),
    ):
        put(offset, values)
    return flat
