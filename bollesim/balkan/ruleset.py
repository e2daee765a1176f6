"""A Balkan Wars scenario as the engines read it: the data checked against the
declaration (schema.py) and built into per-stand arrays, and the game's Rulebook (BOOK:
loading, `--set`, the readings)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from bollesim.balkan import readings, schema
from bollesim.game.declaration import ruleset_digest
from bollesim.game.reader import Reader
from bollesim.game.rulebook import Rulebook

# The columns of a side's stand table (Ruleset.attacker, .defender), one row per stand:
# MOVE the rate over the table's ground, ROAD on a road (and the retreat's road march),
# DIFFICULT over difficult ground (a river's crossing), FORD 1 if it may ford a river,
# LANE, FORMATION and GENERAL (0 the commander, k the k-th subordinate) at the start,
# START its distance at the start (attacker: from the defender's line; defender: behind it).
(WEAPON, QUALITY_DRM, EFFECTIVE, MAXIMUM, DICE_NEAR, FIGURES, MOVE, ROAD, DIFFICULT, FORD,
 LANE, FORMATION, GENERAL, START) = range(14)
N_COLUMNS = 14
ARTILLERY = schema.WEAPONS.index("artillery")
MACHINE_GUN = schema.TYPES.index("machine_gun")
LINE, COLUMN = range(2)  # schema.FORMATIONS
MOD, AREA = range(2)  # the columns of a side's generals' table: move modifier, command area
N_GENERAL_COLUMNS = 2
MAX_GENERALS = 1 + schema.MAX_SUBORDINATES


@dataclass(frozen=True)
class Ruleset:
    """A scenario: its scalars and each side's stands as an int64 table (the columns
    above), in the order the file lists them."""

    name: str
    digest: str
    data: dict = field(repr=False)
    attacker: np.ndarray  # int64[n, N_COLUMNS]
    defender: np.ndarray
    scalars: np.ndarray  # int64[N_SCALARS], by the names of SCALARS
    generals: tuple = ()  # per side, int64[1 + subordinates, N_GENERAL_COLUMNS]: the commander first

    def p(self, name: str) -> int:
        return int(self.scalars[SCALARS.index(name)])

    @cached_property
    def readings(self) -> dict[str, str]:
        return BOOK.active_variants(self.data)


SCALARS = ("bounds", "break_percent", "start_distance", "counter", "attacker_move",
           "defender_move", "attacker_cover", "defender_cover", "attacker_unseen",
           "defender_unseen", "attacker_strength", "defender_strength", "beyond_effective",
           "six_rolled", "clamp_total", "tie_defender", "attacker_generals",
           "defender_generals", "rally", "depth", "lanes", "road", "river", "bridge", "ford",
           "general_move", "general_difficult", "general_road", "retreat_leaves",
           "blocked_stops", "per_target", "beyond_literal", "unanswered", "moves_once",
           "spare_general", "column_all", "road_contact", "crossing_far_bank",
           "general_digit", "impassable")
"""The scenario's numbers the engines read, by name: each side's commander's move dice
modifier, the cover modifier its targets have (the defender's on its line), its
artillery's line-of-sight modifier, its pre-battle strength in stands and its number of
generals; the table (its impassable lanes as a bit mask, bit k for lane k); the
readings' choices (interpretations)."""

READ_AS = {"six_rolled": "six", "clamp_total": "clamp", "tie_defender": "tie",
           "retreat_leaves": "retreat", "blocked_stops": "blocked", "per_target": "firefight",
           "beyond_literal": "beyond", "unanswered": "unanswered", "moves_once": "moves",
           "spare_general": "spare", "column_all": "column", "road_contact": "road_contact",
           "crossing_far_bank": "crossing", "general_digit": "general_move"}
"""The scalars that are the interpretations' keys, read as their choice's index."""


def _check_table(r: Reader) -> dict:
    table = {k: r.value(f"table.{k}") for k in ("depth", "lanes", "road", "river", "bridge", "ford")}
    mask = 0
    for lane in r.value("table.impassable"):
        mask |= 1 << lane
    if mask and not table["lanes"]:
        r.fail("table.impassable", "needs table.lanes: without lanes the front is at one point")
    table["impassable"] = mask
    for key in ("bridge", "ford"):
        if table[key] >= 0 and not table["river"]:
            r.fail(f"table.{key}", "a crossing needs a river (table.river)")
    if not table["lanes"]:
        for key in ("road", "bridge", "ford"):
            if table[key] > 0:
                r.fail(f"table.{key}", "with table.lanes false every stand is in lane 0: "
                       "give 0 or -1")
    return table


def _stands(r: Reader, side: str, types: dict, quality_mod, table: dict, scalars: dict,
            n_generals: int) -> np.ndarray:
    """A side's stand table, one row per stand, checked (Troop Types, Armies)."""
    terrain = r.value("battle.approach")
    edge = scalars["start_distance"] if side == "attacker" else table["depth"]
    rows, guns, commanded = [], 0, set()
    for entry in r.rows(f"{side}.stands"):
        kind = types[schema.TYPES[entry["type"]]]
        quality = schema.QUALITIES[entry["quality"]]
        if quality == "green" and kind["weapon"] != schema.WEAPONS.index("rifle"):
            r.fail(f"{entry['_key']}.quality", "machine guns and artillery are veteran or "
                   "trained (Troop Types)")
        if entry["general"] >= n_generals:
            r.fail(f"{entry['_key']}.general", f"the side has {n_generals - 1} subordinate "
                   f"generals (give 0 to {n_generals - 1})")
        if entry["lane"] and not table["lanes"]:
            r.fail(f"{entry['_key']}.lane", "with table.lanes false every stand is in lane 0")
        where = entry["at"] if side == "attacker" else entry["depth"]
        start = (where or edge) if side == "attacker" else where
        if start > edge:
            r.fail(f"{entry['_key']}.{'at' if side == 'attacker' else 'depth'}",
                   f"must not be past the {side}'s table edge ({edge} steps)")
        guns += entry["count"] * (entry["type"] == MACHINE_GUN)
        commanded.add(entry["general"])
        for k in range(entry["count"]):
            lane = entry["lane"] + (k if entry["formation"] == LINE and table["lanes"] else 0)
            if lane <= schema.MAX_LANES and table["impassable"] >> lane & 1:
                r.fail(f"{entry['_key']}.lane", f"a stand would stand in impassable lane {lane} "
                       "(table.impassable)")
            rows.append((kind["weapon"], quality_mod[entry["quality"]], kind["effective"],
                         kind["maximum"], kind["dice_near"], kind["figures"],
                         kind["difficult" if terrain else "normal"], kind["road"],
                         kind["difficult"], int(kind["ford"]), lane, entry["formation"],
                         entry["general"], start))
    if guns > schema.MAX_MG:
        r.fail(f"{side}.stands", f"{guns} machine-gun stands: an army has no more than "
               f"{schema.MAX_MG} (Armies)")
    if not rows or len(rows) > schema.MAX_STANDS:
        r.fail(f"{side}.stands", f"must hold 1 to {schema.MAX_STANDS} stands, got {len(rows)}")
    idle = sorted(set(range(n_generals)) - commanded)
    if idle:
        r.fail(f"{side}.subordinates", f"subordinate {idle[0]} commands no stand (give a "
               f"stands entry general = {idle[0]})")
    return np.array(rows, dtype=np.int64)


def build(data: dict, source: str = "ruleset") -> Ruleset:
    """Check merged scenario data against the declaration and build the Ruleset."""
    r = Reader(data, source, schema.SCHEMA)
    unknown = schema.SCHEMA.unknown_keys(data)
    if unknown:
        r.fail(*unknown)
    name = r.value("name")
    types = {schema.TYPES[row["id"]]: row for row in r.rows("types")}
    missing = [t for t in schema.TYPES if t not in types]
    if missing:
        r.fail("types", f"no row for {missing[0]} (each of {', '.join(schema.TYPES)} once)")
    if len(types) != len(r.rows("types")):
        r.fail("types", "a type is given twice")
    for row in types.values():
        if row["effective"] > row["maximum"]:
            r.fail(f"{row['_key']}.effective", f"must not exceed maximum ({row['maximum']})")
    mods = {k: r.value(f"modifiers.{k}") for k in ("field", "hardened", "veteran",
                                                   "trained", "green", "beyond_effective",
                                                   "unseen")}
    cover_mod = (0, mods["field"], mods["hardened"])
    quality_mod = (mods["veteran"], mods["trained"], mods["green"])
    table = _check_table(r)
    terrain = r.value("battle.approach")
    scalars = {"start_distance": r.value("battle.start_distance")}
    sides, generals = {}, []
    for side in ("attacker", "defender"):
        qualities = [r.value(f"{side}.general")] + [
            row["quality"] for row in r.rows(f"{side}.subordinates")]
        if len(qualities) > MAX_GENERALS:
            r.fail(f"{side}.subordinates", f"at most {schema.MAX_SUBORDINATES} subordinate "
                   f"generals, got {len(qualities) - 1}")
        gens = [(r.value(f"generals.{schema.GENERALS[q]}"),
                 r.value(f"generals.{schema.GENERALS[q]}_area")) for q in qualities]
        generals.append(np.array(gens, dtype=np.int64))
        rows = _stands(r, side, types, quality_mod, table, scalars, len(qualities))
        sides[side] = rows
        scalars[f"{side}_move"] = gens[0][0]
        scalars[f"{side}_cover"] = cover_mod[r.value(f"{side}.cover")]
        scalars[f"{side}_unseen"] = 0 if r.value(f"{side}.artillery_sees") else mods["unseen"]
        scalars[f"{side}_strength"] = len(rows) + r.value(f"{side}.other_stands")
        scalars[f"{side}_generals"] = len(qualities)
    scalars.update(
        bounds=r.value("battle.bounds"), break_percent=r.value("battle.break_percent"),
        counter=int(r.value("battle.counter")), rally=int(r.value("battle.rally")),
        beyond_effective=mods["beyond_effective"], general_move=r.value(
            f"generals.{'difficult' if terrain else 'normal'}"),
        general_difficult=r.value("generals.difficult"), general_road=r.value("generals.road"),
        **{k: int(v) for k, v in table.items()},
        **{k: r.value(f"interpretations.{key}") for k, key in READ_AS.items()})
    return Ruleset(name, ruleset_digest(data), data, sides["attacker"], sides["defender"],
                   np.array([scalars[k] for k in SCALARS], dtype=np.int64), tuple(generals))


BOOK = Rulebook(schema.SCHEMA, schema.DEFAULT_PATH, readings.READINGS, build)
load_ruleset, locate, set_value, apply_readings = (
    BOOK.load_ruleset, BOOK.locate, BOOK.set_value, BOOK.apply_readings)
READINGS = BOOK.READINGS  # by id, as declaration.RULEBOOK asks
DEFAULT_PATH = BOOK.default_path
reading_keys, ids_hint, parse_choices = BOOK.reading_keys, BOOK.ids_hint, BOOK.parse_choices
