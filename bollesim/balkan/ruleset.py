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

# The columns of a side's stand table (Ruleset.attacker, .defender), one row per stand.
WEAPON, QUALITY_DRM, EFFECTIVE, MAXIMUM, DICE_NEAR, FIGURES, MOVE, ROAD = range(8)
N_COLUMNS = 8
ARTILLERY = schema.WEAPONS.index("artillery")


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

    def p(self, name: str) -> int:
        return int(self.scalars[SCALARS.index(name)])

    @cached_property
    def readings(self) -> dict[str, str]:
        return BOOK.active_variants(self.data)


SCALARS = ("bounds", "break_percent", "start_distance", "counter", "attacker_move",
           "defender_move", "attacker_cover", "defender_cover", "attacker_unseen",
           "defender_unseen", "attacker_strength", "defender_strength", "beyond_effective",
           "six_rolled", "clamp_total", "tie_defender")
"""The scenario's numbers the engines read, by name: each side's general's move dice
modifier, the cover modifier its targets have, its artillery's line-of-sight modifier
and its pre-battle strength in stands."""


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
    terrain = r.value("battle.approach")
    sides, scalars = {}, {}
    for side in ("attacker", "defender"):
        rows = []
        for entry in r.rows(f"{side}.stands"):
            kind = types[schema.TYPES[entry["type"]]]
            quality = schema.QUALITIES[entry["quality"]]
            if quality == "green" and kind["weapon"] != schema.WEAPONS.index("rifle"):
                r.fail(f"{entry['_key']}.quality", "machine guns and artillery are veteran or "
                       "trained (Troop Types)")
            for _ in range(entry["count"]):
                rows.append((kind["weapon"], quality_mod[entry["quality"]], kind["effective"],
                             kind["maximum"], kind["dice_near"], kind["figures"],
                             kind["difficult" if terrain else "normal"], kind["road"]))
        if not rows or len(rows) > schema.MAX_STANDS:
            r.fail(f"{side}.stands", f"must hold 1 to {schema.MAX_STANDS} stands, got {len(rows)}")
        sides[side] = np.array(rows, dtype=np.int64)
        general = schema.GENERALS[r.value(f"{side}.general")]
        scalars[f"{side}_move"] = r.value(f"generals.{general}")
        scalars[f"{side}_cover"] = cover_mod[r.value(f"{side}.cover")]
        scalars[f"{side}_unseen"] = 0 if r.value(f"{side}.artillery_sees") else mods["unseen"]
        scalars[f"{side}_strength"] = len(rows) + r.value(f"{side}.other_stands")
    scalars.update(
        bounds=r.value("battle.bounds"), break_percent=r.value("battle.break_percent"),
        start_distance=r.value("battle.start_distance"), counter=int(r.value("battle.counter")),
        beyond_effective=mods["beyond_effective"],
        six_rolled=r.value("interpretations.six"), clamp_total=r.value("interpretations.clamp"),
        tie_defender=r.value("interpretations.tie"))
    return Ruleset(name, ruleset_digest(data), data, sides["attacker"], sides["defender"],
                   np.array([scalars[k] for k in SCALARS], dtype=np.int64))


BOOK = Rulebook(schema.SCHEMA, schema.DEFAULT_PATH, readings.READINGS, build)
load_ruleset, locate, set_value, apply_readings = (
    BOOK.load_ruleset, BOOK.locate, BOOK.set_value, BOOK.apply_readings)
READINGS = BOOK.READINGS  # by id, as declaration.RULEBOOK asks
DEFAULT_PATH = BOOK.default_path
reading_keys, ids_hint, parse_choices = BOOK.reading_keys, BOOK.ids_hint, BOOK.parse_choices
