"""The map (§2.1.1, R-MAP, R-FOF): positions, roads, and the tables derived from them
once for both engines and the policies: road distances and next steps, the destinations
a Move order may name (§5.4.1), the towns, the overwatch spread order (I-OW-SPREAD) and
the waypoint a player names on the way to a goal."""

from __future__ import annotations

from collections import deque

import numpy as np

from bollesim.bollebank import codes
from bollesim.game.reader import Reader

NP = codes.N_POSITIONS
UNLIMITED = 99  # the stacking limit of "0 = unlimited" (§2.1.1 contact points)
N_TOWNS = len(codes.TOWN_NAMES)


def build_board(r: Reader) -> dict:
    """Every map field of the Ruleset."""
    out = positions(r)
    out.update(roads(r, out["position_ids"]))
    for key in ("saraci", "kalesija", "tango2", "op_n"):
        p = r.value(f"map.{key}")
        if out["pos_kind"][p] != codes.CP:
            r.fail(f"map.{key}", f"must be a contact point, got {codes.POSITIONS[p]}")
        if p in [out.get(k) for k in ("saraci", "kalesija", "tango2", "op_n")]:
            r.fail(f"map.{key}", f"must differ from the other named places, got {codes.POSITIONS[p]}")
        out[key] = p
    out["start_position"] = r.value("vehicles.start")
    out["town_of"] = towns(out)
    out["spread"] = spread_order(out)
    out["dest_allowed"] = destinations(out)
    out["waypoint"] = waypoints(out["dest_allowed"], out["distance"])
    out["apc_second_move_from"] = position_mask(r, "movement.apc_second_move_from")
    return out


def position_mask(r: Reader, path: str) -> np.ndarray:
    mask = np.zeros(NP, dtype=bool)
    mask[r.value(path)] = True
    return mask


def positions(r: Reader) -> dict:
    """The positions table (§2.1.1, R-FOF): one row per position, in codes.POSITIONS order."""
    rows = r.rows("map.positions")
    ids = tuple(row["id"] for row in rows)
    if ids != codes.POSITIONS:
        r.fail("map.positions", f"must be the rulebook's positions in this order: {list(codes.POSITIONS)}")
    out = {
        "position_ids": ids,
        "position_names": tuple(row["name"] or row["id"] for row in rows),
        "pos_kind": np.array([row["kind"] for row in rows], dtype=np.int64),
        "pos_stack": np.array([row["stack"] or UNLIMITED for row in rows], dtype=np.int64),
        "pos_town": np.array([row["town"] for row in rows], dtype=np.int64),
        "pos_letter": np.array([row["letter"] for row in rows], dtype=np.int64),
        "pos_art": np.array([row["art"] for row in rows], dtype=np.int64),
        "pos_kt2_road": np.array([row["road"] == 1 for row in rows]),
        "pos_fp": np.array([row["fp"] for row in rows], dtype=np.int64),
        "pos_bsa": np.array([row["bsa"] for row in rows], dtype=bool).reshape(NP, 3),
        "pos_un": np.array([row["un"] for row in rows], dtype=bool).reshape(NP, 4),
        "pos_indirect": np.array([row["un_fire"] == 2 for row in rows]),
        "pos_eam_pool": np.array([row["eam_pool"] for row in rows], dtype=np.int64),
    }
    for row in rows:
        key = row["_key"]
        is_ow = row["kind"] == codes.OW
        if is_ow and (row["town"] == codes.NO_TOWN or row["letter"] == codes.NO_LETTER):
            r.fail(key, "an overwatch needs a town (S or K) and a letter (L, C or R)")
        if not is_ow and row["town"] != codes.NO_TOWN:
            r.fail(f"{key}.town", "only an overwatch belongs to a town (its contact point is "
                   "map.saraci or map.kalesija)")
        if any(row["bsa"]) and row["fp"] <= 0:
            r.fail(f"{key}.fp", "a fixed field of fire needs a firing priority of 1 or more")
        if row["eam_pool"] and (any(row["bsa"]) or any(row["un"])):
            r.fail(key, "a position with an enemy-action marker takes its fields from the marker")
    return out


def roads(r: Reader, ids: tuple[str, ...]) -> dict:
    """Adjacency, road distances (breadth first) and next steps on a shortest road (the
    lowest position index on ties) (§2.1.1, §6.2)."""
    adjacent = np.zeros((NP, NP), dtype=bool)
    for a, b in r.value("map.roads"):
        if a == b:
            r.fail("map.roads", f"a road joins two positions, got {ids[a]} to itself")
        adjacent[a, b] = adjacent[b, a] = True
    distance = np.full((NP, NP), -1, dtype=np.int64)
    for s in range(NP):
        distance[s, s] = 0
        queue = deque([s])
        while queue:
            a = queue.popleft()
            for b in np.flatnonzero(adjacent[a]):
                if distance[s, b] < 0:
                    distance[s, b] = distance[s, a] + 1
                    queue.append(b)
    if (distance < 0).any():
        a, b = np.argwhere(distance < 0)[0]
        r.fail("map.roads", f"no road links {ids[a]} to {ids[b]}")
    next_step = np.empty((NP, NP), dtype=np.int64)
    for a in range(NP):
        for b in range(NP):
            closer = [c for c in np.flatnonzero(adjacent[a]) if distance[c, b] < distance[a, b]]
            next_step[a, b] = closer[0] if a != b else a
    return {"adjacent": adjacent, "distance": distance, "next_step": next_step}


def towns(m: dict) -> np.ndarray:
    """The town each position belongs to (codes.TOWN_*): a town's contact point and its
    overwatches (§5.4.1; I-TACV, I-TOW-SARACI: "in Saraci")."""
    town = np.where(m["pos_kind"] == codes.OW, m["pos_town"], codes.NO_TOWN)
    town[m["saraci"]] = codes.TOWN_S
    town[m["kalesija"]] = codes.TOWN_K
    return town.astype(np.int64)


def spread_order(m: dict) -> np.ndarray:
    """[town, k]: a town's k-th overwatch in position order, -1 past the last
    (I-OW-SPREAD: a platoon sent to a town's overwatches takes them in this order)."""
    out = np.full((N_TOWNS, NP), -1, dtype=np.int64)
    for town in (codes.TOWN_S, codes.TOWN_K):
        ows = [p for p in range(NP) if m["pos_kind"][p] == codes.OW and m["pos_town"][p] == town]
        out[town, : len(ows)] = ows
    return out


def destinations(m: dict) -> np.ndarray:
    """[here, d]: d is a valid Move destination from here (§5.4.1): a contact point or an
    overwatch, with three restrictions: Tango 2 only from Kalesija or its road; from that
    road or Tango 2 only Kalesija or Tango 2; an overwatch only from its town."""
    kind, kt2, town_of = m["pos_kind"], m["pos_kt2_road"], m["town_of"]
    t2, kal = m["tango2"], m["kalesija"]
    out = np.zeros((NP, NP), dtype=bool)
    for here in range(NP):
        for d in range(NP):
            if d == here or kind[d] == codes.CKP:
                continue
            if d == t2 and not (here == kal or kt2[here]):
                continue
            if (kt2[here] or here == t2) and d not in (kal, t2):
                continue
            if kind[d] == codes.OW and town_of[here] != m["pos_town"][d]:
                continue
            out[here, d] = True
    return out


def waypoints(allowed: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """[here, goal]: the destination a Move order names now on the way to goal: goal
    itself if allowed, else the first stop of the fewest Move orders that reach it (the
    nearer stop, then the lower index, on ties); -1 if no chain of orders reaches it."""
    hops = np.full((NP, NP), -1, dtype=np.int64)  # [d, goal]: orders from d to goal
    for goal in range(NP):
        hops[goal, goal] = 0
        queue = deque([goal])
        while queue:
            b = queue.popleft()
            for a in np.flatnonzero(allowed[:, b]):
                if hops[a, goal] < 0:
                    hops[a, goal] = hops[b, goal] + 1
                    queue.append(a)
    out = np.full((NP, NP), -1, dtype=np.int64)
    for here in range(NP):
        for goal in range(NP):
            if here == goal:
                out[here, goal] = goal
                continue
            stops = [d for d in np.flatnonzero(allowed[here]) if hops[d, goal] >= 0]
            if stops:
                out[here, goal] = min(stops, key=lambda d: (hops[d, goal], distance[here, d], d))
    return out
