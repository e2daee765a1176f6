"""The player-aid charts: the Order Matrix (PAS1, R-MATRIX) and the damage tables (PAS4,
R-HIT, §7.2.1)."""

from __future__ import annotations

import numpy as np

from bollesim.bollebank import codes
from bollesim.bollebank.rules import schema
from bollesim.game.reader import Reader

HIT_KEYS = ("tank_hit", "atgm_hit", "hmg_hit", "artillery_hit")  # by weapon: codes.TANK..ART


def build_charts(r: Reader) -> dict:
    out = order_matrix(r)
    out.update(damage_tables(r))
    return out


def order_matrix(r: Reader) -> dict:
    """[first chit type, second chit type]: may the pair give a Fire order, a Move order,
    and to a platoon (or any one vehicle) rather than one vehicle only."""
    if r.value("order_matrix.types") != list(schema.TRACKS4):
        r.fail("order_matrix.types", f"must be {list(schema.TRACKS4)}")
    orders = np.array(r.value("order_matrix.orders"), dtype=bool)  # [a, b, (fire, move)]
    scope = np.array(r.value("order_matrix.scope"), dtype=np.int64)
    return {
        "matrix_fire": orders[:, :, 0],
        "matrix_move": orders[:, :, 1],
        "matrix_platoon": scope == 1,
    }


def damage_tables(r: Reader) -> dict:
    """R-HIT: hit location by d6 face per weapon; §7.2.1: light damage by d6 face."""
    light = r.value("damage.light")
    missing = [codes.LIGHT_NAMES[k] for k in range(len(codes.LIGHT_NAMES)) if k not in light]
    if missing:
        r.fail("damage.light", f"never gives {', '.join(missing)}: §7.2.1 re-rolls a damage "
               "already sustained, so each kind must appear")
    return {
        "hit_table": np.array([r.value(f"damage.{k}") for k in HIT_KEYS], dtype=np.int64),
        "light_table": np.array(light, dtype=np.int64),
    }
