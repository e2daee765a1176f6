"""The UN task force (§2.2.1, §5.1, §5.5): vehicles, platoons and the recipient groups a
platoon order may go to, the radio relays, and the battalion HQ ability markers."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from bollesim.bollebank import codes
from bollesim.bollebank.decisions import MAX_OPTIONS
from bollesim.bollebank.rules import schema
from bollesim.game.reader import Reader

NV = codes.N_VEHICLES


def build_forces(r: Reader) -> dict:
    out = vehicles(r)
    out["platoon_groups"] = platoon_groups(r, out["platoon"])
    out.update(abilities(r))
    return out


def vehicles(r: Reader) -> dict:
    """§2.2.1: the rulebook's nine vehicles, in this order; their kind, platoon, HQ role."""
    ids = tuple(r.value("vehicles.ids"))
    if ids != codes.VEHICLES:
        r.fail("vehicles.ids", f"must be the rulebook's vehicles in this order: {list(codes.VEHICLES)}")
    kind, platoon, hq = (r.value(f"vehicles.{k}") for k in ("kind", "platoon", "hq"))
    for key, values in (("kind", kind), ("platoon", platoon), ("hq", hq)):
        r.list_length(f"vehicles.{key}", values, NV, "vehicle")
    is_tank = np.array([k == 1 for k in kind])
    return {
        "vehicle_ids": ids,
        "is_tank": is_tank,
        "platoon": np.array(platoon, dtype=np.int64),
        "is_hq": np.array(hq, dtype=bool),
        "commander": r.value("vehicles.commander"),
        "relays": np.array(r.value("vehicles.relays"), dtype=np.int64),
    }


def platoon_groups(r: Reader, platoon: np.ndarray) -> np.ndarray:
    """Every group of two or more vehicles of one platoon, as vehicle bit masks: platoon
    by platoon, then by size, then in the order of their members (§5.4.1: a platoon order
    goes to all or part of the platoon). An order offers the groups whose members can all
    take it, in this order."""
    groups = []
    for number in sorted({int(p) for p in platoon if p > 0}):
        members = [v for v in range(NV) if platoon[v] == number]
        for size in range(2, len(members) + 1):
            groups += [sum(1 << v for v in combo) for combo in combinations(members, size)]
    if len(groups) > schema.MAX_GROUPS:
        r.fail("vehicles.platoon", f"the platoons make {len(groups)} groups of two or more "
               f"vehicles to order, the engines hold {schema.MAX_GROUPS} (at most seven in a platoon)")
    return np.array(groups, dtype=np.int64)


def abilities(r: Reader) -> dict:
    """§5.5: one two-sided marker per command vehicle."""
    rows = r.rows("abilities")
    if len(rows) != schema.N_ABILITIES:
        r.fail("abilities", f"needs the {schema.N_ABILITIES} command vehicles' markers, got {len(rows)}")
    lo, hi = r.value("roe.min"), r.value("roe.max")
    for row in rows:
        if not lo <= row["level"] <= hi:
            r.fail(f"{row['_key']}.level",
                   f"must be an RoE level within roe.min..roe.max ({lo}..{hi}), got {row['level']}")
    return {
        "ability_vehicle": np.array([row["vehicle"] for row in rows], dtype=np.int64),
        "ability_level": np.array([row["level"] for row in rows], dtype=np.int64),
        "ability_sides": np.array([row["sides"] for row in rows], dtype=np.int64),
    }


def check_options(r: Reader, fields: dict) -> None:
    """Refuse a ruleset whose orders could overflow the engines' option buffer (an upper
    bound on one ISSUE_ORDER decision: moves, group moves, fire, tows, airstrike)."""
    dests = int(fields["dest_allowed"].sum(axis=1).max())
    groups = len(fields["platoon_groups"])
    n_cp = int((fields["pos_kind"] == codes.CP).sum())
    tanks = int(fields["is_tank"].sum())
    bound = 2 + NV * dests + groups * (n_cp + 2) + NV + groups + tanks * tanks
    if bound > MAX_OPTIONS:
        r.fail("vehicles.platoon", f"an order could offer {bound} options, the engines hold "
               f"{MAX_OPTIONS}: use smaller platoons")
