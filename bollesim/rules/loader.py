"""Load, override and validate a ruleset file, and turn it into typed numpy arrays.

A bad file raises RulesetError naming the file, the key and the problem, so the command
line can print one line and exit 2.
"""

from __future__ import annotations

import copy
import hashlib
import json
import tomllib
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bollesim import codes as C

DEFAULT_PATH = Path(__file__).with_name("default.toml")
UNLIMITED = 99  # stacking limit used for "0 = unlimited" (§2.1.1 contact points)


class RulesetError(ValueError):
    """A ruleset file that cannot be used; str() is one line: file: key: problem."""

    def __init__(self, source: str, key: str, problem: str):
        self.source, self.key, self.problem = source, key, problem
        super().__init__(f"{source}: {key}: {problem}")


@dataclass(frozen=True)
class Ruleset:
    """Every table of the game as numpy arrays (see default.toml for meanings)."""

    name: str
    digest: str  # sha256 of the canonical ruleset data
    data: dict = field(repr=False)  # the merged TOML, for `rules show` and manifests
    # vehicles
    vehicle_ids: tuple[str, ...]
    is_tank: np.ndarray  # bool[V]
    platoon: np.ndarray  # int64[V], 0 = HQ
    is_hq: np.ndarray  # bool[V]
    commander: int
    relays: np.ndarray  # int64[2]
    start_position: int
    # map
    position_ids: tuple[str, ...]
    pos_kind: np.ndarray  # int64[P], codes.CP/CKP/OW
    pos_stack: np.ndarray  # int64[P], UNLIMITED for contact points
    pos_town: np.ndarray  # int64[P], codes.TOWN_*
    pos_letter: np.ndarray  # int64[P], codes.LETTER_*
    pos_art: np.ndarray  # int64[P], codes.TARGET_* (NO_ART: never targeted)
    pos_kt2_road: np.ndarray  # bool[P]
    pos_fp: np.ndarray  # int64[P], fixed firing priority, 0 = none
    pos_bsa: np.ndarray  # bool[P, 3], fixed BSA fields of fire by weapon
    pos_un: np.ndarray  # bool[P, 4], fixed UN fire icons by track
    pos_indirect: np.ndarray  # bool[P], UN fire from here is indirect
    pos_eam_pool: np.ndarray  # int64[P], codes.POOL_*
    adjacent: np.ndarray  # bool[P, P]
    distance: np.ndarray  # int64[P, P], road steps
    next_step: np.ndarray  # int64[P, P], next position from a toward b
    saraci: int
    kalesija: int
    tango2: int
    op_n: int
    # enemy action markers
    marker_ids: tuple[str, ...]
    marker_pool: np.ndarray  # int64[M]
    marker_fp: np.ndarray  # int64[M]
    marker_bsa: np.ndarray  # bool[M, 2, 3]
    marker_un: np.ndarray  # bool[M, 2, 4]
    # chits: weapon pool chits, then one random-unit chit per vehicle, then the setup marker
    chit_type: np.ndarray  # int64[K]
    chit_letter: np.ndarray  # int64[K]
    chit_double: np.ndarray  # bool[K]
    chit_art_target: np.ndarray  # int64[K]
    chit_vehicle: np.ndarray  # int64[K], the vehicle of a random-unit chit, else -1
    n_pool_chits: int  # chits 0..n-1 start in the enemy weapon pool (§3)
    setup_chit: int  # the special Saraci artillery marker (§3 step 6)
    # tracks
    tank_hot_min: np.ndarray
    tank_to_hit: int
    atgm_to_hit: np.ndarray
    hmg_to_hit: np.ndarray
    atgm_overwatch_drm: int
    # order matrix [first type, second type]
    matrix_fire: np.ndarray  # bool[4, 4]
    matrix_move: np.ndarray  # bool[4, 4]
    matrix_platoon: np.ndarray  # bool[4, 4]
    # damage tables by d6 face - 1
    hit_table: np.ndarray  # int64[4, 6]: by weapon (tank, atgm, hmg, art)
    light_table: np.ndarray  # int64[6]
    # abilities
    ability_vehicle: np.ndarray  # int64[3]
    ability_level: np.ndarray  # int64[3]
    ability_sides: np.ndarray  # int64[3, 2], codes.DRAW_THEIR_FIRE...
    draw_their_fire_at: int
    draw_their_fire_positions: np.ndarray  # bool[P]
    apc_second_move_from: np.ndarray  # bool[P], §6.2 optional rule
    extra_order_at: int
    direct_their_fire_at: int
    extra_turn_at: int
    # scalar rules, grouped by table name: params["roe"]["max"] and so on
    params: dict = field(repr=False)

    def p(self, table: str, key: str):
        """One scalar rule, e.g. rules.p("roe", "fire_allowed")."""
        return self.params[table][key]

    def vehicle(self, name: str) -> int:
        return self.vehicle_ids.index(name)

    def position(self, name: str) -> int:
        return self.position_ids.index(name)


# --------------------------------------------------------------------------- reading


def read_toml(path: Path) -> dict:
    """The TOML of a ruleset or partial: a regular UTF-8 file of at most inputs.TOML_LIMIT."""
    from bollesim.inputs import TOML_LIMIT, InputError, read_text

    try:
        text = read_text(path, TOML_LIMIT)
    except InputError as exc:
        raise RulesetError(str(path), "-", exc.problem) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(str(path), "-", f"not valid TOML: {exc}") from None
    except RecursionError:
        raise RulesetError(str(path), "-", "not valid TOML: nested too deeply") from None


def merge(base: dict, override: dict) -> dict:
    """Deep-merge a partial ruleset into a full one (tables merge, values replace)."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def apply_setting(data: dict, assignment: str, source: str = "--set") -> dict:
    """Apply one `KEY=VALUE` override, e.g. `roe.fire_allowed=10` or `tracks.tank_to_hit=8`.

    VALUE is read as a TOML value (numbers, true/false, [lists], "strings"); a bare word
    that is not valid TOML is taken as a string.
    """
    if "=" not in assignment:
        raise RulesetError(source, assignment, "expected KEY=VALUE, e.g. roe.fire_allowed=10")
    key, raw = (part.strip() for part in assignment.split("=", 1))
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    parts = key.split(".")
    out = copy.deepcopy(data)
    node = out
    for i, part in enumerate(parts[:-1]):
        if not isinstance(node.get(part), dict):
            known = ", ".join(sorted(k for k, v in node.items() if isinstance(v, dict)))
            raise RulesetError(source, ".".join(parts[: i + 1]), f"no such table (known: {known})")
        node = node[part]
    if parts[-1] not in node:
        raise RulesetError(source, key, "no such key in the ruleset")
    if type(node[parts[-1]]) is not type(value) and not (
        isinstance(node[parts[-1]], int | float) and isinstance(value, int | float)
    ):
        raise RulesetError(source, key, f"expected a {type(node[parts[-1]]).__name__}, got {raw!r}")
    node[parts[-1]] = value
    return out


def load_ruleset(
    path: str | Path | None = None,
    overrides: list[str] | None = None,
    partial: str | Path | None = None,
) -> Ruleset:
    """Read a ruleset (default: the shipped one), apply a partial TOML and `KEY=VALUE`
    overrides, validate it and return its arrays."""
    source = str(path) if path is not None else "default.toml"
    data = read_toml(Path(path) if path is not None else DEFAULT_PATH)
    if partial is not None:
        data = merge(data, read_toml(Path(partial)))
        source = f"{source} + {partial}"
    for assignment in overrides or []:
        data = apply_setting(data, assignment)
    return build(data, source)


# --------------------------------------------------------------------------- validating


class _Reader:
    """Typed access to the TOML data that raises RulesetError with the dotted key."""

    def __init__(self, data: dict, source: str):
        self.data, self.source = data, source

    def fail(self, key: str, problem: str):
        raise RulesetError(self.source, key, problem)

    def get(self, key: str, kind, default=None):
        node = self.data
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                if default is not None:
                    return default
                self.fail(key, "missing")
            node = node[part]
        if kind is int and (isinstance(node, bool) or not isinstance(node, int)):
            self.fail(key, f"must be a whole number, got {node!r}")
        if kind is not int and not isinstance(node, kind):
            self.fail(key, f"must be a {kind.__name__}, got {node!r}")
        return node

    def int_in(self, key: str, lo: int, hi: int, default=None) -> int:
        value = self.get(key, int, default)
        if not lo <= value <= hi:
            self.fail(key, f"must be between {lo} and {hi}, got {value}")
        return value

    def int_list(self, key: str, length: int, lo: int, hi: int) -> np.ndarray:
        values = self.get(key, list)
        if len(values) != length:
            self.fail(key, f"must have {length} entries (one per chit count), got {len(values)}")
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                self.fail(f"{key}[{i}]", f"must be a whole number from {lo} to {hi}, got {v!r}")
        return np.array(values, dtype=np.int64)

    def tables(self, key: str) -> list[dict]:
        rows = self.get(key, list)
        for i, row in enumerate(rows):
            if not isinstance(row, dict):
                self.fail(f"{key}[{i}]", f"must be a table {{ ... }}, got {row!r}")
        return rows

    def whole(self, key: str, value, lo: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            self.fail(key, f"must be a whole number >= {lo}, got {value!r}")
        return value

    def choice(self, key: str, value, allowed: tuple[str, ...]) -> int:
        if value not in allowed:
            self.fail(key, f"unknown value {value!r} (expected one of {', '.join(allowed)})")
        return allowed.index(value)

    def name(self, key: str, value, names: tuple[str, ...], what: str) -> int:
        if value not in names:
            self.fail(key, f"unknown {what} {value!r} (known: {', '.join(names)})")
        return names.index(value)


def _die_table(r: _Reader, key: str, names: tuple[str, ...]) -> np.ndarray:
    values = r.get(key, list)
    if len(values) != 6:
        r.fail(key, f"must cover the die faces 1-6 (6 entries), got {len(values)}")
    return np.array([r.choice(f"{key}[{i}]", v, names) for i, v in enumerate(values)])


def _weapon_mask(r: _Reader, key: str, values, allowed: tuple[str, ...]) -> np.ndarray:
    mask = np.zeros(len(allowed), dtype=bool)
    if not isinstance(values, list):
        r.fail(key, f"must be a list of weapons, got {values!r}")
    for v in values:
        mask[r.choice(key, v, allowed)] = True
    return mask


def _road_graph(r: _Reader, ids: tuple[str, ...]):
    n = len(ids)
    adjacent = np.zeros((n, n), dtype=bool)
    for i, road in enumerate(r.get("map.roads", list)):
        if not (isinstance(road, list) and len(road) == 2):
            r.fail(f"map.roads[{i}]", f"a road joins two positions, got {road!r}")
        a, b = (r.name(f"map.roads[{i}]", p, ids, "position") for p in road)
        adjacent[a, b] = adjacent[b, a] = True
    distance = np.full((n, n), -1, dtype=np.int64)
    for s in range(n):  # breadth-first search from every position
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
    # next_step[a, b]: the neighbour of a on a shortest path to b (lowest index on ties).
    next_step = np.empty((n, n), dtype=np.int64)
    for a in range(n):
        for b in range(n):
            if a == b:
                next_step[a, b] = a
            else:
                options = [
                    c for c in np.flatnonzero(adjacent[a]) if distance[c, b] == distance[a, b] - 1
                ]
                next_step[a, b] = options[0]
    return adjacent, distance, next_step


def build(data: dict, source: str = "ruleset") -> Ruleset:
    """Validate merged ruleset data and build the arrays."""
    r = _Reader(data, source)
    weapons3 = C.WEAPON_NAMES[:3]
    tracks4 = C.WEAPON_NAMES[:4]

    # vehicles (§2.2.1)
    vehicle_ids = tuple(r.get("vehicles.ids", list))
    nv = len(vehicle_ids)
    if vehicle_ids != C.VEHICLES:  # §2.2.1: the cast is the rulebook's, in this order
        r.fail("vehicles.ids", f"must be the rulebook's vehicles in this order: {list(C.VEHICLES)}")
    kinds = r.get("vehicles.kind", list)
    platoon = r.get("vehicles.platoon", list)
    hq = r.get("vehicles.hq", list)
    for key, values in (
        ("vehicles.kind", kinds),
        ("vehicles.platoon", platoon),
        ("vehicles.hq", hq),
    ):
        if len(values) != nv:
            r.fail(key, f"must have one entry per vehicle ({nv}), got {len(values)}")
    for i, v in enumerate(platoon):
        r.whole(f"vehicles.platoon[{i}]", v, 0)
    for i, v in enumerate(hq):
        if not isinstance(v, bool):
            r.fail(f"vehicles.hq[{i}]", f"must be true or false, got {v!r}")
    is_tank = np.array([r.choice("vehicles.kind", k, ("apc", "tank")) == 1 for k in kinds])
    commander = r.name(
        "vehicles.commander", r.get("vehicles.commander", str), vehicle_ids, "vehicle"
    )
    relays = np.array(
        [
            r.name("vehicles.relays", v, vehicle_ids, "vehicle")
            for v in r.get("vehicles.relays", list)
        ]
    )

    # map (R-MAP, R-FOF)
    rows = r.tables("map.positions")
    position_ids = tuple(row.get("id", "") for row in rows)
    if position_ids != C.POSITIONS:  # §2.1.1: the map's positions, in this order
        r.fail(
            "map.positions", f"must be the rulebook's positions in this order: {list(C.POSITIONS)}"
        )
    n = len(position_ids)
    pos = {
        k: np.zeros(n, dtype=np.int64)
        for k in ("kind", "stack", "town", "letter", "art", "fp", "eam_pool")
    }
    pos_kt2 = np.zeros(n, dtype=bool)
    pos_indirect = np.zeros(n, dtype=bool)
    pos_bsa = np.zeros((n, 3), dtype=bool)
    pos_un = np.zeros((n, 4), dtype=bool)
    for i, row in enumerate(rows):
        key = f"map.positions[{row['id']}]"
        pos["kind"][i] = r.choice(f"{key}.kind", row.get("kind"), C.KIND_NAMES)
        stack = row.get("stack", 0)
        if isinstance(stack, bool) or not isinstance(stack, int) or stack < 0:
            r.fail(f"{key}.stack", f"must be a whole number >= 0 (0 = unlimited), got {stack!r}")
        pos["stack"][i] = stack or UNLIMITED
        pos["town"][i] = r.choice(f"{key}.town", row.get("town", ""), C.TOWN_NAMES)
        pos["letter"][i] = r.choice(f"{key}.letter", row.get("letter", ""), C.LETTER_NAMES)
        pos["art"][i] = r.choice(f"{key}.art", row.get("art", "none") or "none", C.ART_TARGET_NAMES)
        pos["fp"][i] = r.whole(f"{key}.fp", row.get("fp", 0), 0)
        pos["eam_pool"][i] = r.choice(f"{key}.eam_pool", row.get("eam_pool", ""), C.POOL_NAMES)
        pos_kt2[i] = r.choice(f"{key}.road", row.get("road", ""), ("", "KT2")) == 1
        fire_kind = r.choice(f"{key}.un_fire", row.get("un_fire", ""), ("", "direct", "indirect"))
        pos_indirect[i] = fire_kind == 2
        pos_bsa[i] = _weapon_mask(r, f"{key}.bsa", row.get("bsa", []), weapons3)
        pos_un[i] = _weapon_mask(r, f"{key}.un", row.get("un", []), tracks4)
        if pos["kind"][i] == C.OW and (
            pos["town"][i] == C.NO_TOWN or pos["letter"][i] == C.NO_LETTER
        ):
            r.fail(key, "an overwatch needs a town (S or K) and a letter (L, C or R)")
        if pos_bsa[i].any() and pos["fp"][i] <= 0:
            r.fail(f"{key}.fp", "a fixed field of fire needs a firing priority >= 1")
        if pos["eam_pool"][i] and (pos_bsa[i].any() or pos_un[i].any()):
            r.fail(key, "a position with an enemy-action marker takes its fields from the marker")
    adjacent, distance, next_step = _road_graph(r, position_ids)
    for k in ("saraci", "kalesija", "tango2", "op_n"):
        r.name(f"map.{k}", r.get(f"map.{k}", str), position_ids, "position")
    start = r.name("vehicles.start", r.get("vehicles.start", str), position_ids, "position")

    # enemy action markers (R-EAM)
    markers = r.tables("enemy_action_markers")
    marker_ids = tuple(m.get("id", "") for m in markers)
    m_pool = np.zeros(len(markers), dtype=np.int64)
    m_fp = np.zeros(len(markers), dtype=np.int64)
    m_bsa = np.zeros((len(markers), 2, 3), dtype=bool)
    m_un = np.zeros((len(markers), 2, 4), dtype=bool)
    for i, m in enumerate(markers):
        key = f"enemy_action_markers[{marker_ids[i]}]"
        m_pool[i] = r.choice(f"{key}.pool", m.get("pool"), C.POOL_NAMES[1:]) + 1
        m_fp[i] = r.whole(f"{key}.fp", m.get("fp", 0), 1)
        sides = m.get("sides", [])
        if len(sides) != 2:
            r.fail(f"{key}.sides", f"a marker has two sides, got {len(sides)}")
        for s, side in enumerate(sides):
            if not isinstance(side, dict):
                r.fail(f"{key}.sides[{s}]", f"must be a table {{ bsa, un }}, got {side!r}")
            m_bsa[i, s] = _weapon_mask(r, f"{key}.sides[{s}].bsa", side.get("bsa", []), weapons3)
            m_un[i, s] = _weapon_mask(r, f"{key}.sides[{s}].un", side.get("un", []), tracks4)
    for p in range(n):
        if (
            pos["eam_pool"][p]
            and (m_pool == pos["eam_pool"][p]).sum() < (pos["eam_pool"] == pos["eam_pool"][p]).sum()
        ):
            r.fail(
                "enemy_action_markers",
                f"pool {C.POOL_NAMES[pos['eam_pool'][p]]} has fewer markers than positions drawing from it",
            )

    # chits (§3, R-CHITS)
    ctype, cletter, cdouble, ctarget = [], [], [], []
    for i, g in enumerate(r.tables("chits.groups")):
        key = f"chits.groups[{i}]"
        t = r.choice(f"{key}.type", g.get("type"), C.WEAPON_NAMES[:5])
        count = g.get("count")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            r.fail(f"{key}.count", f"must be a whole number >= 0, got {count!r}")
        letter = r.choice(f"{key}.letter", g.get("letter", ""), C.LETTER_NAMES)
        target = r.choice(f"{key}.art_target", g.get("art_target", "none"), C.ART_TARGET_NAMES)
        if t == C.ART and "art_target" not in g:
            r.fail(f"{key}.art_target", "an artillery chit needs a target: S, K, T2 or none")
        for _ in range(count):
            ctype.append(t)
            cletter.append(letter)
            cdouble.append(bool(g.get("double", False)))
            ctarget.append(target)
    n_pool = len(ctype)
    track_len = {"tank_hot_min": C.TANK, "atgm_to_hit": C.ATGM, "hmg_to_hit": C.HMG}
    for key, t in track_len.items():
        need = ctype.count(t)
        if len(r.get(f"tracks.{key}", list)) != need:
            r.fail(
                f"tracks.{key}",
                f"needs one value per {C.WEAPON_NAMES[t]} chit ({need}), got {len(r.get(f'tracks.{key}', list))}",
            )
    chit_vehicle = [-1] * n_pool + list(range(nv)) + [-1]
    ctype += [C.RU] * nv + [C.ART]
    cletter += [C.NO_LETTER] * (nv + 1)
    cdouble += [False] * (nv + 1)
    setup_target = r.choice(
        "chits.setup_artillery_target",
        r.get("chits.setup_artillery_target", str),
        C.ART_TARGET_NAMES,
    )
    ctarget += [C.NO_ART] * nv + [setup_target]

    # tracks (R-TRACK)
    tank_hot_min = r.int_list("tracks.tank_hot_min", ctype[:n_pool].count(C.TANK), 1, 7)
    atgm_to_hit = r.int_list("tracks.atgm_to_hit", ctype[:n_pool].count(C.ATGM), 2, 13)
    hmg_to_hit = r.int_list("tracks.hmg_to_hit", ctype[:n_pool].count(C.HMG), 2, 13)

    # order matrix (R-MATRIX)
    types = r.get("order_matrix.types", list)
    if types != list(tracks4):
        r.fail("order_matrix.types", f"must be {list(tracks4)}")
    orders = r.get("order_matrix.orders", list)
    scope = r.get("order_matrix.scope", list)
    mfire = np.zeros((4, 4), dtype=bool)
    mmove = np.zeros((4, 4), dtype=bool)
    mplatoon = np.zeros((4, 4), dtype=bool)
    for key, table in (("order_matrix.orders", orders), ("order_matrix.scope", scope)):
        if len(table) != 4 or any(not isinstance(row, list) or len(row) != 4 for row in table):
            r.fail(key, "must be a 4x4 table (first chit x second chit)")
    for a in range(4):
        for b in range(4):
            cell = orders[a][b]
            for o in cell:
                r.choice(f"order_matrix.orders[{a}][{b}]", o, ("fire", "move"))
            mfire[a, b], mmove[a, b] = "fire" in cell, "move" in cell
            mplatoon[a, b] = (
                r.choice(f"order_matrix.scope[{a}][{b}]", scope[a][b], ("single", "platoon")) == 1
            )

    # damage (R-HIT)
    hit_table = np.stack(
        [
            _die_table(r, f"damage.{w}_hit", C.HEAVY_NAMES)
            for w in ("tank", "atgm", "hmg", "artillery")
        ]
    )
    light_table = _die_table(r, "damage.light", C.LIGHT_NAMES)

    # abilities (§5.5)
    abilities = r.tables("abilities")
    if len(abilities) != 3:
        r.fail("abilities", f"needs the three command vehicles' markers, got {len(abilities)}")
    a_vehicle = np.array(
        [
            r.name(f"abilities[{i}].vehicle", a.get("vehicle"), vehicle_ids, "vehicle")
            for i, a in enumerate(abilities)
        ]
    )
    a_level = [a.get("level", 0) for a in abilities]
    for i, a in enumerate(abilities):
        if not isinstance(a.get("sides"), list) or len(a["sides"]) != 2:
            r.fail(f"abilities[{i}].sides", f"a marker has two sides, got {a.get('sides')!r}")
    a_sides = np.array(
        [
            [r.choice(f"abilities[{i}].sides", s, C.ABILITY_NAMES) for s in a.get("sides", [])]
            for i, a in enumerate(abilities)
        ]
    )
    if a_sides.shape != (3, 2):
        r.fail("abilities", "each ability marker has two sides")
    dtf_positions = np.zeros(n, dtype=bool)
    for p in r.get("ability_rules.draw_their_fire_positions", list):
        dtf_positions[
            r.name("ability_rules.draw_their_fire_positions", p, position_ids, "position")
        ] = True
    apc_second = np.zeros(n, dtype=bool)
    for p in r.get("movement.apc_second_move_from", list):
        apc_second[r.name("movement.apc_second_move_from", p, position_ids, "position")] = True

    def at(key: str) -> int:
        return r.name(
            f"ability_rules.{key}", r.get(f"ability_rules.{key}", str), position_ids, "position"
        )

    # scalar rules: ranges checked here, so the engines can trust them
    params = {
        "game": {
            "turn_limit": r.int_in("game.turn_limit", 1, 40),
            "extended_turn_limit": r.int_in("game.extended_turn_limit", 1, 80),
            "extend_to_40": r.get("game.extend_to_40", bool),
            "deadline_start": r.int_in("game.deadline_start", 0, 40),
            "deadline_max": r.int_in("game.deadline_max", 0, 80),
            "tanks_needed_at_t2": r.int_in("game.tanks_needed_at_t2", 1, int(is_tank.sum())),
        },
        "roe": {
            k: r.get(f"roe.{k}", int)
            for k in (
                "start",
                "min",
                "max",
                "fire_allowed",
                "unrestricted",
                "hold_fire_attack",
                "heavy_damage_hold",
                "heavy_damage_fire",
                "commander_killed_hold",
                "commander_killed_fire",
            )
        },
        "tracks": {
            "tank_to_hit": r.int_in("tracks.tank_to_hit", 2, 13),
            "atgm_overwatch_drm": r.int_in("tracks.atgm_overwatch_drm", -6, 6),
        },
        "damage": {
            "hmg_kills_commander_on": r.int_in("damage.hmg_kills_commander_on", 1, 7),
            "commander_killed_acts_max": r.int_in("damage.commander_killed_acts_max", 0, 6),
        },
        "artillery": {
            "only_effects_roll": r.int_in("artillery.only_effects_roll", 1, 12),
            "heavy_damage_roll": r.int_in("artillery.heavy_damage_roll", 2, 13),
            "roe_on_s_or_k": r.int_in("artillery.roe_on_s_or_k", -24, 24),
            "deadline_on_t2": r.int_in("artillery.deadline_on_t2", -20, 20),
            "roe_on_no_art": r.int_in("artillery.roe_on_no_art", -24, 24),
        },
        "fire": {
            "indirect_hit_max": r.int_in("fire.indirect_hit_max", 0, 6),
            "sights_hit_max": r.int_in("fire.sights_hit_max", 0, 6),
            "depot_rolls": r.int_in("fire.depot_rolls", 1, 9),
        },
        "movement": {
            "night_vision_fail_min": r.int_in("movement.night_vision_fail_min", -5, 7),
            "night_vision_adjacent_drm": r.int_in("movement.night_vision_adjacent_drm", -6, 6),
            "tow_range": r.int_in("movement.tow_range", 0, 20),
            "apc_double_move": r.get("movement.apc_double_move", bool),
        },
        "radio": {
            "one_damaged_max": r.int_in("radio.one_damaged_max", 0, 6),
            "same_position_drm": r.int_in("radio.same_position_drm", -6, 6),
            "ql3_at_opn_drm": r.int_in("radio.ql3_at_opn_drm", -6, 6),
            "two_damaged_max": r.int_in("radio.two_damaged_max", 0, 6),
        },
        "abilities": {
            "draw_their_fire_drm": r.int_in("ability_rules.draw_their_fire_drm", -6, 6),
            "ql1_range": r.int_in("ability_rules.ql1_range", 0, 20),
        },
        "interpretations": {
            "target_priority": r.choice(
                "interpretations.target_priority",
                r.get("interpretations.target_priority", str),
                C.TARGET_RULE_NAMES,
            ),
            "airstrikes_per_game": r.int_in("interpretations.airstrikes_per_game", 0, 9),
            "artillery_effects_always": r.get("interpretations.artillery_effects_always", bool),
            "radio_check_per_vehicle": r.get("interpretations.radio_check_per_vehicle", bool),
            "pool_min_chits": r.int_in("interpretations.pool_min_chits", 2, 40),
            "spent_returns_to_track": r.get("interpretations.spent_returns_to_track", bool),
            "fire_status_on_issue": r.get("interpretations.fire_status_on_issue", bool),
            "diplomatic_needs_military": r.get("interpretations.diplomatic_needs_military", bool),
            "victories_sticky": r.get("interpretations.victories_sticky", bool),
        },
    }
    roe = params["roe"]
    if not 1 <= roe["min"] <= roe["start"] <= roe["max"]:
        r.fail("roe.start", f"must lie within roe.min..roe.max ({roe['min']}..{roe['max']})")
    for k in ("fire_allowed", "unrestricted"):
        if not roe["min"] <= roe[k] <= roe["max"]:
            r.fail(f"roe.{k}", f"must lie within roe.min..roe.max ({roe['min']}..{roe['max']})")
    for i, level in enumerate(a_level):
        if (
            isinstance(level, bool)
            or not isinstance(level, int | np.integer)
            or not roe["min"] <= level <= roe["max"]
        ):
            r.fail(
                f"abilities[{i}].level",
                f"must be an RoE level within {roe['min']}..{roe['max']}, got {level!r}",
            )
    g = params["game"]
    if g["extended_turn_limit"] < g["turn_limit"]:
        r.fail("game.extended_turn_limit", "must not be below game.turn_limit")

    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False).encode()
    return Ruleset(
        name=str(data.get("name", "ruleset")),
        digest=hashlib.sha256(canonical).hexdigest(),
        data=data,
        vehicle_ids=vehicle_ids,
        is_tank=is_tank,
        platoon=np.array(platoon, dtype=np.int64),
        is_hq=np.array(hq, dtype=bool),
        commander=commander,
        relays=relays,
        start_position=start,
        position_ids=position_ids,
        pos_kind=pos["kind"],
        pos_stack=pos["stack"],
        pos_town=pos["town"],
        pos_letter=pos["letter"],
        pos_art=pos["art"],
        pos_kt2_road=pos_kt2,
        pos_fp=pos["fp"],
        pos_bsa=pos_bsa,
        pos_un=pos_un,
        pos_indirect=pos_indirect,
        pos_eam_pool=pos["eam_pool"],
        adjacent=adjacent,
        distance=distance,
        next_step=next_step,
        saraci=position_ids.index(data["map"]["saraci"]),
        kalesija=position_ids.index(data["map"]["kalesija"]),
        tango2=position_ids.index(data["map"]["tango2"]),
        op_n=position_ids.index(data["map"]["op_n"]),
        marker_ids=marker_ids,
        marker_pool=m_pool,
        marker_fp=m_fp,
        marker_bsa=m_bsa,
        marker_un=m_un,
        chit_type=np.array(ctype, dtype=np.int64),
        chit_letter=np.array(cletter, dtype=np.int64),
        chit_double=np.array(cdouble, dtype=bool),
        chit_art_target=np.array(ctarget, dtype=np.int64),
        chit_vehicle=np.array(chit_vehicle, dtype=np.int64),
        n_pool_chits=n_pool,
        setup_chit=len(ctype) - 1,
        tank_hot_min=tank_hot_min,
        tank_to_hit=params["tracks"]["tank_to_hit"],
        atgm_to_hit=atgm_to_hit,
        hmg_to_hit=hmg_to_hit,
        atgm_overwatch_drm=params["tracks"]["atgm_overwatch_drm"],
        matrix_fire=mfire,
        matrix_move=mmove,
        matrix_platoon=mplatoon,
        hit_table=hit_table,
        light_table=light_table,
        ability_vehicle=a_vehicle,
        ability_level=np.array(a_level, dtype=np.int64),
        ability_sides=a_sides,
        draw_their_fire_at=at("draw_their_fire_at"),
        draw_their_fire_positions=dtf_positions,
        apc_second_move_from=apc_second,
        extra_order_at=at("extra_order_at"),
        direct_their_fire_at=at("direct_their_fire_at"),
        extra_turn_at=at("extra_turn_at"),
        params=params,
    )
