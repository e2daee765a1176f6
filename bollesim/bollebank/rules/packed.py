"""The ruleset as one int64 vector, the same array in both engines and the one every
policy is handed (the fast engine keeps it at st[layout.RULES:]).

The layout is derived, never typed by hand: first a slot per scalar key of the
declaration (schema.py), in declaration order, under the key's slot name (S_FIRE_ALLOWED
for roe.fire_allowed); then the ARRAYS below, each row-major at its capacity. This
module exports every slot name as its offset, and `<NAME>_S<i>` as the stride of
dimension i of a multi-dimensional array; rules/access.py reads them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import prod

import numpy as np

from bollesim.bollebank import codes
from bollesim.bollebank.rules import schema
from bollesim.bollebank.rules.board import N_TOWNS

NP, NV = codes.N_POSITIONS, codes.N_VEHICLES
MAX_MARKERS = 2 * schema.MARKERS_PER_POOL
MAX_CHITS = schema.MAX_POOL_CHITS + NV + 1  # the pool's chits, a random-unit chit per vehicle,
#                                        the setup marker


@dataclass(frozen=True)
class Array:
    name: str
    source: str | Callable[[dict], object]  # a Ruleset field, or a function of the fields
    shape: tuple[int, ...] = ()  # () for one value


def _bits(rows: np.ndarray) -> list[int]:
    """Each row of a bool matrix as a bit mask over its columns."""
    return [sum(1 << int(i) for i in np.flatnonzero(row)) for row in np.atleast_2d(rows)]


ARRAYS = (
    # values derived from several keys
    Array("S_TURN_LIMIT", "turn_limit"),  # §4/§8: turn_limit, or the extended one
    Array("S_N_POOL_CHITS", "n_pool_chits"),
    Array("S_SETUP_CHIT", "setup_chit"),
    Array("S_N_MARKERS", lambda f: len(f["marker_ids"])),
    Array("S_N_GROUPS", lambda f: len(f["platoon_groups"])),
    # the vehicles
    Array("IS_TANK", "is_tank", (NV,)),
    Array("PLATOON", "platoon", (NV,)),
    Array("IS_HQ", "is_hq", (NV,)),
    Array("RELAYS", "relays", (schema.N_RELAYS,)),
    Array("GROUPS", "platoon_groups", (schema.MAX_GROUPS,)),  # vehicle masks, forces.py
    Array("ABILITY_VEHICLE", "ability_vehicle", (schema.N_ABILITIES,)),
    Array("ABILITY_LEVEL", "ability_level", (schema.N_ABILITIES,)),
    Array("ABILITY_SIDES", "ability_sides", (schema.N_ABILITIES, 2)),
    # the map
    Array("POS_KIND", "pos_kind", (NP,)),
    Array("POS_STACK", "pos_stack", (NP,)),
    Array("POS_TOWN", "pos_town", (NP,)),
    Array("POS_LETTER", "pos_letter", (NP,)),
    Array("POS_ART", "pos_art", (NP,)),
    Array("POS_KT2", "pos_kt2_road", (NP,)),
    Array("POS_FP", "pos_fp", (NP,)),
    Array("POS_INDIRECT", "pos_indirect", (NP,)),
    Array("POS_EAM_POOL", "pos_eam_pool", (NP,)),
    Array("POS_BSA", "pos_bsa", (NP, 3)),
    Array("POS_UN", "pos_un", (NP, codes.N_TRACKS)),
    Array("DTF_POSITIONS", "draw_their_fire_positions", (NP,)),
    Array("APC_SECOND_FROM", "apc_second_move_from", (NP,)),
    Array("TOWN_OF", "town_of", (NP,)),
    Array("ADJACENT", "adjacent", (NP, NP)),
    Array("DISTANCE", "distance", (NP, NP)),
    Array("NEXT_STEP", "next_step", (NP, NP)),
    Array("WAYPOINT", "waypoint", (NP, NP)),
    Array("DEST_MASK", lambda f: _bits(f["dest_allowed"]), (NP,)),  # [here]: bit d if allowed
    Array("CP_MASK", lambda f: _bits(f["pos_kind"] == codes.CP)),
    Array("SPREAD", "spread", (N_TOWNS, NP)),
    # the enemy
    Array("MARKER_POOL", "marker_pool", (MAX_MARKERS,)),
    Array("MARKER_FP", "marker_fp", (MAX_MARKERS,)),
    Array("MARKER_BSA", "marker_bsa", (MAX_MARKERS, 2, 3)),
    Array("MARKER_UN", "marker_un", (MAX_MARKERS, 2, codes.N_TRACKS)),
    Array("CHIT_TYPE", "chit_type", (MAX_CHITS,)),
    Array("CHIT_LETTER", "chit_letter", (MAX_CHITS,)),
    Array("CHIT_DOUBLE", "chit_double", (MAX_CHITS,)),
    Array("CHIT_ART_TARGET", "chit_art_target", (MAX_CHITS,)),
    Array("CHIT_VEHICLE", "chit_vehicle", (MAX_CHITS,)),
    Array("TANK_HOT_MIN", "tank_hot_min", (schema.MAX_TRACK,)),
    Array("ATGM_TO_HIT", "atgm_to_hit", (schema.MAX_TRACK,)),
    Array("HMG_TO_HIT", "hmg_to_hit", (schema.MAX_TRACK,)),
    # the charts
    Array("MATRIX_FIRE", "matrix_fire", (4, 4)),
    Array("MATRIX_MOVE", "matrix_move", (4, 4)),
    Array("MATRIX_PLATOON", "matrix_platoon", (4, 4)),
    Array("HIT_TABLE", "hit_table", (codes.N_TRACKS, 6)),
    Array("LIGHT_TABLE", "light_table", (6,)),
)


def _layout() -> tuple[dict[str, int], dict[str, int], int]:
    """(slot name -> offset, stride name -> stride, size)."""
    names = [schema.slot_name(key) for _, key in schema.scalar_keys()]
    names += [a.name for a in ARRAYS]
    if len(set(names)) != len(names):
        raise AssertionError("two slots share a name")
    slots = {name: i for i, name in enumerate(names[: -len(ARRAYS)])}
    strides = {}
    at = len(slots)
    for array in ARRAYS:
        slots[array.name] = at
        at += prod(array.shape)
        for i in range(len(array.shape) - 1):
            strides[f"{array.name}_S{i}"] = prod(array.shape[i + 1 :])
    return slots, strides, at


SLOTS, STRIDES, SIZE = _layout()
globals().update(SLOTS)
globals().update(STRIDES)


def pack(fields: dict) -> np.ndarray:
    """The vector of a Ruleset's fields (loader.build calls it once per ruleset)."""
    out = np.zeros(SIZE, dtype=np.int64)
    params = fields["params"]
    for path, key in schema.scalar_keys():
        table, name = path.split(".")
        out[SLOTS[schema.slot_name(key)]] = int(params[table][name])
    for array in ARRAYS:
        value = array.source(fields) if callable(array.source) else fields[array.source]
        flat = np.asarray(value, dtype=np.int64).ravel()
        if flat.size > prod(array.shape):
            raise ValueError(f"{array.name}: {flat.size} values, room for {prod(array.shape)}")
        at = SLOTS[array.name]
        out[at : at + flat.size] = flat
    return out
