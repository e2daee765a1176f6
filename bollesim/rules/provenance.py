"""What each reconstructed value (R-..) and interpretation (I-..) id means, and where the
ruleset keeps the value chosen for it.

This is the one place that maps the ids of `shared/rules/RECONSTRUCTION.md` (and
bollesim's own I-.. ids, see the comments of default.toml) to ruleset keys.
`bollesim rules show --reconstructed` prints it next to the values of a given ruleset.

A key is a dotted path into the ruleset data. A part ending in `[]` walks a list of
tables and reports each row by its `id` (or `vehicle`): `map.positions[].fp` gives
`K1=6, K2=5, ...` for the rows that set `fp`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ID_PATTERN = re.compile(r"\b[RI]-[A-Z0-9]+(?:-[A-Z0-9]+)*\b")


@dataclass(frozen=True)
class Provenance:
    meaning: str  # one line
    keys: tuple[str, ...] = ()  # ruleset keys holding the chosen values; () = engine reading
    origin: str = "RECONSTRUCTION.md"  # or "bollesim" for bollesim's own readings


IDS: dict[str, Provenance] = {
    # Reconstructed values: tables the rulebook refers to but does not print.
    "R-MAP": Provenance(
        "map art: the roads (OP N branches at SK1) and the overwatches' line-of-sight letters",
        ("map.roads", "map.positions[].letter"),
    ),
    "R-FOF": Provenance(
        "fixed fields of fire: firing priority, BSA weapons and UN fire icons per position",
        (
            "map.positions[].fp",
            "map.positions[].bsa",
            "map.positions[].un",
            "map.positions[].un_fire",
        ),
    ),
    "R-EAM": Provenance(
        "enemy action markers FP1-3 / FP7-9: BSA weapons and UN targets on each side",
        ("enemy_action_markers[].sides",),
    ),
    "R-CHITS": Provenance(
        "letters of the 39 pool chits, the 4 double-fire HMGs, artillery targets (§3 counts)",
        ("chits.groups", "chits.setup_artillery_target"),
    ),
    "R-TRACK": Provenance(
        "track values by number of chits: tank hot roll, ATGM and HMG to-hit on 2d6",
        ("tracks.tank_hot_min", "tracks.atgm_to_hit", "tracks.hmg_to_hit"),
    ),
    "R-MATRIX": Provenance(
        "Order Matrix (PAS1): order and scope for each pair of first/second chit",
        ("order_matrix",),
    ),
    "R-HIT": Provenance(
        "damage tables (PAS4): hit location by d6 per weapon, light damage by d6",
        (
            "damage.tank_hit",
            "damage.atgm_hit",
            "damage.hmg_hit",
            "damage.artillery_hit",
            "damage.light",
        ),
    ),
    # Interpretations of ambiguous text (RECONSTRUCTION.md).
    "I-ROE0": Provenance(
        "the RoE marker starts at level 1 (§5.3 'RoE 0' read as the same), clamped to 1..24",
        ("roe.start", "roe.min", "roe.max"),
    ),
    "I-TARGET": Provenance(
        "BSA target choice: heavily damaged reachable vehicles first, then lowest FP",
        ("interpretations.target_priority",),
    ),
    "I-AIR": Provenance(
        "airstrike halves each direct-fire and artillery track, strikes the turn it is called",
        ("interpretations.airstrikes_per_game",),
    ),
    "I-POOL": Provenance(
        "with too few weapon chits left to draw a pair, the Orders phase ends",
        ("interpretations.pool_min_chits",),
    ),
    "I-OPV": Provenance(
        "operational victory: enough tanks in T2 at a turn end by the deadline, artillery silent",
        ("game.tanks_needed_at_t2",),
    ),
    "I-TACV": Provenance(
        "'in Saraci' for tactical victory means SAR or one of its overwatches",
        ("map.saraci",),
    ),
    "I-END": Provenance(
        "stopping on a victory or playing on is the policy's decision, like every other choice",
    ),
    "I-ROE-ART": Provenance(
        "artillery's RoE and deadline effects apply every time it fires, target occupied or not",
        ("interpretations.artillery_effects_always",),
    ),
    "I-DEADLINE": Provenance(
        "the T2 deadline marker starts on turn 18 (§11 'turn 6' read as 16)",
        ("game.deadline_start",),
    ),
    "I-RADIO": Provenance(
        "a platoon order checks the radio link once per receiving vehicle",
        ("interpretations.radio_check_per_vehicle",),
    ),
    # bollesim's own readings (comments of default.toml).
    "I-SPENT": Provenance(
        "a spent HQ ability stays spent when the RoE drops below its level",
        ("interpretations.spent_returns_to_track",),
        "bollesim",
    ),
    "I-FIRE-ISSUED": Provenance(
        "the fire-status marker moves when the first Fire order is issued, received or not",
        ("interpretations.fire_status_on_issue",),
        "bollesim",
    ),
    "I-DIPLO": Provenance(
        "strategic and political victories count only alongside an operational or tactical one",
        ("interpretations.diplomatic_needs_military",),
        "bollesim",
    ),
    "I-STICKY": Provenance(
        "an operational or tactical victory once met counts at game end unless the game is lost",
        ("interpretations.victories_sticky",),
        "bollesim",
    ),
    "I-ABILITY-PHASE": Provenance(
        "the Extra turn ability is used in the End phase, before victory assessment",
        (),
        "bollesim",
    ),
    "I-TOW-SARACI": Provenance(
        "'a tank already at Saraci' (tow, §5.4.3) is SAR or one of its overwatches",
        ("map.saraci",),
        "bollesim",
    ),
    "I-TOW-CP": Provenance(
        "a tow hooked up at a contact point may go to any other contact point (§5.4.3 'a tank "
        "in Kalesija can be towed to Saraci'); elsewhere to a nearest one",
        (),
        "bollesim",
    ),
    "I-OW-SPREAD": Provenance(
        "a platoon Move to a town's overwatches spreads over distinct OWs, 1 then 2 then 3",
        (),
        "bollesim",
    ),
}


# --------------------------------------------------------------------------- lookups


def cited_ids(data: dict) -> dict[str, list[str]]:
    """Every R-../I-.. id found in a `source` string of the ruleset data, with the
    dotted keys of the tables that cite it (in file order)."""
    found: dict[str, list[str]] = {}

    def walk(node, where: str) -> None:
        if isinstance(node, dict):
            source = node.get("source")
            if isinstance(source, str):
                for rid in ID_PATTERN.findall(source):
                    found.setdefault(rid, []).append(where or "(top level)")
            for key, value in node.items():
                if isinstance(value, dict | list):
                    walk(value, f"{where}.{key}" if where else key)
        elif isinstance(node, list):
            for i, item in enumerate(node):
                label = item.get("id", item.get("vehicle", i)) if isinstance(item, dict) else i
                walk(item, f"{where}[{label}]")

    walk(data, "")
    return found


def all_ids(data: dict) -> list[str]:
    """The registry's ids in registry order, then any other id the data cites."""
    extra = sorted(set(cited_ids(data)) - set(IDS))
    return list(IDS) + extra


def lookup(data: dict, key: str) -> str:
    """The value(s) at `key` formatted on one line, or '(not in this ruleset)'."""
    values = _resolve(data, key.split("."))
    if not values:
        return "(not in this ruleset)"
    return "; ".join(values)


def _resolve(node, parts: list[str]) -> list[str]:
    if not parts:
        return [_format(node)]
    part, rest = parts[0], parts[1:]
    if part.endswith("[]"):
        rows = node.get(part[:-2]) if isinstance(node, dict) else None
        if not isinstance(rows, list):
            return []
        found: list[tuple[str, str]] = []  # (row name, value) for the rows that set it
        for i, row in enumerate(rows):
            if isinstance(row, dict):
                name = str(row.get("id", row.get("vehicle", i)))
                found += [(name, v) for v in _resolve(row, rest)]
        return _by_row(found)
    if not isinstance(node, dict) or part not in node:
        return []
    return _resolve(node[part], rest)


def _by_row(found: list[tuple[str, str]]) -> list[str]:
    """`K1=6`, ... per row; or `value: row, row` when that at least halves the entries."""
    groups: dict[str, list[str]] = {}
    for name, value in found:
        groups.setdefault(value, []).append(name)
    if len(found) > 1 and 2 * len(groups) <= len(found):
        return [f"{value}: {', '.join(names)}" for value, names in groups.items()]
    return [f"{name}={value}" for name, value in found]


def _format(value) -> str:
    if isinstance(value, dict) and "orders" in value and "scope" in value:
        return format_matrix(value)
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        if all("count" in v for v in value):
            return format_chit_groups(value)
        return " / ".join(format_value(v) for v in value)
    if isinstance(value, list) and value and all(_is_pair(v) for v in value):
        return ", ".join(f"{a}-{b}" for a, b in value)
    return format_value(value)


def _is_pair(v) -> bool:
    return isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v)


def format_value(value) -> str:
    """A TOML value as short plain text: lists as `a, b`, tables as `k: v`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        items = [(k, v) for k, v in value.items() if k != "source"]
        return ", ".join(
            f"{k} " + ("+".join(map(format_value, v)) if isinstance(v, list) else format_value(v))
            for k, v in items
        )
    if isinstance(value, list):
        if any(isinstance(v, list | dict) for v in value):
            return "[" + "] [".join(format_value(v) for v in value) + "]"
        return ", ".join(format_value(v) for v in value)
    return str(value)


def format_matrix(table: dict) -> str:
    """The Order Matrix as `first/second: orders scope` cells."""
    types, orders, scope = table.get("types", []), table.get("orders", []), table.get("scope", [])
    cells = []
    try:
        for a, first in enumerate(types):
            for b, second in enumerate(types):
                cells.append(f"{first}/{second}: {'+'.join(orders[a][b])} {scope[a][b]}")
    except (IndexError, TypeError):
        return format_value(orders) + " | " + format_value(scope)
    return "; ".join(cells)


def format_chit_groups(groups: list[dict]) -> str:
    """Chit groups as `4 tank L`, `1 hmg R double`, `2 art S`..."""
    parts = []
    for g in groups:
        words = [str(g.get("count", "?")), str(g.get("type", "?"))]
        words += [str(g[k]) for k in ("letter", "art_target") if g.get(k)]
        if g.get("double"):
            words.append("double")
        parts.append(" ".join(words))
    return ", ".join(parts)
