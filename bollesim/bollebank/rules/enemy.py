"""The Bosnian Serb side (§2.1.2, §3, §6.2, §7): the chits of the enemy weapon pool, the
weapon tracks read by chit count, and the enemy-action markers."""

from __future__ import annotations

import numpy as np

from bollesim.bollebank import codes
from bollesim.bollebank.rules import schema
from bollesim.game.reader import Reader

NV = codes.N_VEHICLES
TRACK_KEYS = {codes.TANK: "tank_hot_min", codes.ATGM: "atgm_to_hit", codes.HMG: "hmg_to_hit"}


def build_enemy(r: Reader, pos_eam_pool: np.ndarray) -> dict:
    out = chits(r)
    out.update(tracks(r, out["chit_type"][: out["n_pool_chits"]]))
    out.update(markers(r, pos_eam_pool))
    return out


def chits(r: Reader) -> dict:
    """§3: the pool's chits group by group, then one random-unit chit per vehicle
    (chit n_pool_chits + vehicle, §7.2), then the Saraci setup marker (§3 step 6)."""
    kind, letter, double, target = [], [], [], []
    for row in r.rows("chits.groups"):
        if row["type"] == codes.ART and "art_target" not in row["_raw"]:
            r.fail(f"{row['_key']}.art_target", "an artillery chit needs a target: S, K, T2 or none")
        for _ in range(row["count"]):
            kind.append(row["type"])
            letter.append(row["letter"])
            double.append(row["double"])
            target.append(row["art_target"])
    n_pool = len(kind)
    if n_pool > schema.MAX_POOL_CHITS:
        r.fail("chits.groups", f"holds {n_pool} chits, the engines hold {schema.MAX_POOL_CHITS}")
    if kind.count(codes.CAR) > 1:
        r.fail("chits.groups", "holds more than one civilian car (§3: one)")
    for t in range(codes.N_TRACKS):
        room = schema.MAX_TRACK - (t == codes.ART)  # the setup marker shares the artillery track
        if kind.count(t) > room:
            r.fail("chits.groups", f"holds {kind.count(t)} {codes.WEAPON_NAMES[t]} chits, "
                   f"its track holds {room}")
    vehicle = [-1] * n_pool + list(range(NV)) + [-1]
    kind += [codes.RU] * NV + [codes.ART]
    letter += [codes.NO_LETTER] * (NV + 1)
    double += [False] * (NV + 1)
    target += [codes.NO_ART] * NV + [r.value("chits.setup_artillery_target")]
    return {
        "chit_type": np.array(kind, dtype=np.int64),
        "chit_letter": np.array(letter, dtype=np.int64),
        "chit_double": np.array(double, dtype=bool),
        "chit_art_target": np.array(target, dtype=np.int64),
        "chit_vehicle": np.array(vehicle, dtype=np.int64),
        "n_pool_chits": n_pool,
        "setup_chit": len(kind) - 1,
    }


def tracks(r: Reader, pool_types: np.ndarray) -> dict:
    """R-TRACK: one value per chit of the track's type (index 0: one chit on the track)."""
    out = {}
    for t, key in TRACK_KEYS.items():
        values = r.value(f"tracks.{key}")
        r.list_length(f"tracks.{key}", values, int((pool_types == t).sum()),
                      f"{codes.WEAPON_NAMES[t]} chit")
        out[key] = np.array(values, dtype=np.int64)
    out["tank_to_hit"] = r.value("tracks.tank_to_hit")
    out["atgm_overwatch_drm"] = r.value("tracks.atgm_overwatch_drm")
    return out


def markers(r: Reader, pos_eam_pool: np.ndarray) -> dict:
    """§6.2, R-EAM: each marker's pool, firing priority and two sides."""
    rows = r.rows("enemy_action_markers")
    pool = np.array([row["pool"] + 1 for row in rows], dtype=np.int64)
    for k in (codes.POOL_123, codes.POOL_789):
        held, needed = int((pool == k).sum()), int((pos_eam_pool == k).sum())
        if held > schema.MARKERS_PER_POOL:
            r.fail("enemy_action_markers", f"pool {codes.POOL_NAMES[k]} holds {held} markers, "
                   f"the engines hold {schema.MARKERS_PER_POOL}")
        if held < needed:
            r.fail("enemy_action_markers", f"pool {codes.POOL_NAMES[k]} has fewer markers ({held}) "
                   f"than positions drawing from it ({needed})")
    return {
        "marker_ids": tuple(row["id"] for row in rows),
        "marker_pool": pool,
        "marker_fp": np.array([row["fp"] for row in rows], dtype=np.int64),
        "marker_bsa": np.array(
            [[side["bsa"] for side in row["sides"]] for row in rows], dtype=bool
        ).reshape(len(rows), 2, 3),
        "marker_un": np.array(
            [[side["un"] for side in row["sides"]] for row in rows], dtype=bool
        ).reshape(len(rows), 2, 4),
    }
