"""`bollesim rules show`: a ruleset's tables as written, each with its provenance, the
meaning of every key (from the declaration, schema.py), and with `--reconstructed` every
reading (readings.py): its default, its alternatives and the values this ruleset holds.

Every string that comes from the ruleset passes through terminal.printable: a crafted
file must not drive the terminal.
"""

from __future__ import annotations

import re
from fractions import Fraction

from bollesim.bollebank.rules import schema
from bollesim.bollebank.rules.loader import BOOK, Ruleset
from bollesim.bollebank.rules.odds import OddsTable, cell_text, odds_tables
from bollesim.bollebank.rules.readings import READINGS
from bollesim.game.schema import is_whole
from bollesim.terminal import printable

ID_PATTERN = re.compile(r"\b[RI]-[A-Z0-9]+(?:-[A-Z0-9]+)*\b")

# Keys drawn in tables of their own; every other declared key is listed with its meaning.
DRAWN = {
    "name",
    "vehicles.ids",
    "vehicles.kind",
    "vehicles.platoon",
    "vehicles.hq",
    "map.roads",
    "map.positions",
    "enemy_action_markers",
    "chits.groups",
    "tracks.tank_hot_min",
    "tracks.atgm_to_hit",
    "tracks.hmg_to_hit",
    "order_matrix.types",
    "order_matrix.orders",
    "order_matrix.scope",
    "damage.tank_hit",
    "damage.atgm_hit",
    "damage.hmg_hit",
    "damage.artillery_hit",
    "damage.light",
    "abilities",
}


def show_tables(console, rules: Ruleset) -> None:
    """Every table of the ruleset, then every other key with its meaning."""
    data = rules.data
    odds = odds_tables(rules)
    for key, draw in (
        ("vehicles", vehicles), ("map", positions), ("roads", roads), ("markers", markers),
        ("chits", chits), ("tracks", track_rows), ("damage", damage_rows),
        ("order_matrix", order_matrix), ("abilities", abilities),
    ):
        table = draw(data)
        if table is not None:
            console.print(table, end="\n\n")
        for exact in (t for t in odds if t.key == key):  # the exact odds beside their table
            console.print(odds_table(exact), end="\n\n")
    for table in other_keys(data, rules.readings):
        console.print(table, end="\n\n")


def show_readings(console, rules: Ruleset) -> None:
    """Every reading: meaning, default, alternatives, and this ruleset's variant and values."""
    data = rules.data
    cited = cited_ids(data)
    t = _table("Readings: reconstructed values (R-..) and interpretations (I-..)",
               "docs/readings.md", "id", "meaning and alternatives", "this ruleset",
               show_lines=True)
    t.columns[0].no_wrap = True
    t.columns[1].ratio, t.columns[2].ratio = 3, 2
    for reading in READINGS:
        lines = [reading.meaning, f"default: {reading.default}"]
        for v in reading.alternatives:
            gives_up = f" (gives up {v.gives_up})" if v.gives_up else ""
            lines.append(f"{v.name}: {v.description}{gives_up}")
        if reading.fixed:
            lines.append(f"no alternative: {reading.fixed}")
        if reading.id in cited:
            lines.append("cited in: " + _places(cited[reading.id]))
        values = [f"plays: {rules.readings[reading.id]}"]
        values += [f"{k} = {lookup(data, k)}" for k in BOOK.reading_keys(reading)]
        t.add_row(reading.id, _p("\n".join(lines)), _p("\n".join(values)))
    for rid in sorted(set(cited) - {r.id for r in READINGS}):
        t.add_row(_p(rid), "(not a declared reading) cited in: " + _p(_places(cited[rid])), "")
    console.print(t, end="\n\n")


# ------------------------------------------------------------------ the tables


def _p(value) -> str:
    return printable(value)


def _fmt(value) -> str:
    return printable(format_value(value))


def _table(title: str, source, *columns: str, **kwargs):
    from rich.table import Table

    table = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        caption=f"source: {_p(source)}" if source else None,
        caption_justify="left",
        min_width=len(title),  # the title on one line when the terminal is wide enough
        **kwargs,
    )
    for col in columns:
        table.add_column(col, overflow="fold")
    return table


def _section(data: dict, name: str) -> dict:
    return data[name] if isinstance(data.get(name), dict) else {}


def _rows(value) -> list[dict]:
    return [row for row in value if isinstance(row, dict)] if isinstance(value, list) else []


def vehicles(data: dict):
    section = _section(data, "vehicles")
    ids = section.get("ids")
    if not isinstance(ids, list):
        return None
    t = _table("Vehicles", section.get("source"), "#", "id", "kind", "platoon", "hq")
    for i, vid in enumerate(ids):
        cols = [_item(section.get(k), i) for k in ("kind", "platoon", "hq")]
        t.add_row(str(i), _p(vid), *(_fmt(c) for c in cols))
    return t


def _item(values, i: int):
    return values[i] if isinstance(values, list) and i < len(values) else ""


FIRE_COLUMNS = ("fp", "bsa", "un", "un_fire", "eam_pool")
"""The map positions' columns of fire and markers, a table of their own: with the others
in one, the headers would wrap on an 80-column terminal."""


def positions(data: dict):
    """The map positions in two tables (where they are; their fire and markers), each with
    the meaning of its columns from the declaration."""
    from rich.console import Group

    section = _section(data, "map")
    rows = _rows(section.get("positions"))
    if not rows:
        return None
    meaning = {c.name: c.meaning for c in schema.find("map.positions").columns if c.name != "id"}
    place = [k for k in meaning if k not in FIRE_COLUMNS]
    tables = []
    for title, columns, source in (
            ("Map positions (stack 0 = unlimited)", place, section.get("source")),
            ("Map positions: fields of fire and enemy-action markers", FIRE_COLUMNS, None)):
        t = _table(title, source, "id", *columns, *(["source"] if source else []))
        legend = "\n".join(f"{k}: {meaning[k]}" for k in columns)
        t.caption = f"{t.caption}\n{legend}" if t.caption else legend
        for col in t.columns:
            col.min_width = len(str(col.header))  # a header is never split
        for row in rows:
            t.add_row(_p(row.get("id", "?")), *(_fmt(row.get(k, "")) for k in columns),
                      *([_fmt(row.get("source", ""))] if source else []))
        tables.append(t)
    return Group(tables[0], "", tables[1])


def roads(data: dict):
    section = _section(data, "map")
    pairs = [r for r in section.get("roads", []) if isinstance(r, list) and len(r) == 2]
    if not pairs:
        return None
    t = _table("Roads (adjacent positions)", section.get("source"), "position", "adjacent to")
    order = [str(row.get("id")) for row in _rows(section.get("positions"))]
    neighbours: dict[str, list[str]] = {}
    for a, b in pairs:
        neighbours.setdefault(str(a), []).append(str(b))
        neighbours.setdefault(str(b), []).append(str(a))
    for pid in order + sorted(set(neighbours) - set(order)):
        t.add_row(_p(pid), _p(", ".join(neighbours.get(pid, [])) or "(no road)"))
    return t


def markers(data: dict):
    rows = _rows(data.get("enemy_action_markers"))
    if not rows:
        return None
    t = _table("Enemy action markers (side drawn at random)", None, "id", "pool", "fp", "side",
               "BSA weapons", "UN targets", "source")
    for m in rows:
        for s, side in enumerate(m.get("sides", []) if isinstance(m.get("sides"), list) else []):
            side = side if isinstance(side, dict) else {}
            t.add_row(
                _p(m.get("id", "?")) if s == 0 else "",
                _fmt(m.get("pool", "")),
                _fmt(m.get("fp", "")),
                "ab"[s] if s < 2 else str(s),
                _fmt(side.get("bsa", [])),
                _fmt(side.get("un", [])),
                _fmt(m.get("source", "")) if s == 0 else "",
            )
    return t


def chits(data: dict):
    section = _section(data, "chits")
    groups = _rows(section.get("groups"))
    if not groups:
        return None
    t = _table("Enemy weapon pool chits", section.get("source"), "type", "letter", "double",
               "artillery target", "count", show_footer=True)
    for g in groups:
        t.add_row(_fmt(g.get("type", "")), _fmt(g.get("letter", "")),
                  "yes" if g.get("double") is True else "", _fmt(g.get("art_target", "")),
                  _fmt(g.get("count", "")))
    total = sum(g["count"] for g in groups if is_whole(g.get("count")))
    t.columns[0].footer, t.columns[-1].footer = "total", str(total)
    return t


def track_rows(data: dict):
    """The tracks, by the number of chits on the track."""
    return _die_rows(data, "tracks", "Enemy weapon tracks (by number of chits on the track)",
                     "chits")


def damage_rows(data: dict):
    """The damage tables, by d6 face."""
    return _die_rows(data, "damage", "Damage tables (by d6 roll)", "d6")


def _die_rows(data: dict, name: str, title: str, label: str):
    section = _section(data, name)
    rows = {k: v for k, v in section.items() if f"{name}.{k}" in DRAWN and isinstance(v, list)}
    if not rows:
        return None
    width = max(len(v) for v in rows.values())
    t = _table(title, section.get("source"), label, *(str(i + 1) for i in range(width)))
    for key, values in rows.items():
        t.add_row(key, *(_fmt(v) for v in values), *([""] * (width - len(values))))
    return t


def odds_table(odds: OddsTable):
    """An exact-odds table (odds.py): chances as percentages."""
    t = _table(odds.title, odds.source, *odds.columns)
    for i, column in enumerate(t.columns):
        if any(isinstance(row[i], Fraction) for row in odds.rows):
            column.justify = "right"
    for row in odds.rows:
        t.add_row(*(_p(cell_text(c)) for c in row))
    return t


def order_matrix(data: dict):
    section = _section(data, "order_matrix")
    types, orders, scope = (section.get(k, []) for k in ("types", "orders", "scope"))
    if not (isinstance(types, list) and types and isinstance(orders, list)):
        return None
    t = _table("Order Matrix (PAS1): first chit (rows) x second chit (columns)",
               section.get("source"), "first \\ second", *(_p(x) for x in types))
    for a, first in enumerate(types):
        cells = []
        for b in range(len(types)):
            try:
                cells.append(f"{' or '.join(orders[a][b])}, {scope[a][b]}")
            except (IndexError, TypeError):
                cells.append("?")
        t.add_row(_p(first), *(_p(c) for c in cells))
    return t


def abilities(data: dict):
    rows = _rows(data.get("abilities"))
    if not rows:
        return None
    t = _table("Battalion HQ special abilities (available from RoE level)", None, "vehicle",
               "level", "sides", "source")
    for a in rows:
        t.add_row(*(_fmt(a.get(k, "")) for k in ("vehicle", "level", "sides", "source")))
    return t


def other_keys(data: dict, readings: dict[str, str]) -> list:
    """Every declared key not drawn above, with its value and meaning: one table of rules,
    one of interpretations (with the reading each belongs to and the variant it plays)."""
    reading_of = {k: r.id for r in READINGS for k in BOOK.reading_keys(r)}
    rules = _table("Scalar rules", None, "key", "value", "meaning", "source")
    interp = _table("Interpretations (switches for ambiguous text)",
                    _section(data, "interpretations").get("source"), "key", "value", "reading",
                    "meaning")
    for table, ratios in ((rules, (3, 2, 5, 3)), (interp, (3, 2, 2, 5))):
        for column, ratio in zip(table.columns, ratios, strict=True):
            column.ratio = ratio
    for entry in schema.DECLARATION:
        if not isinstance(entry, schema.Table):
            continue
        section = _section(data, entry.name)
        first = True
        for key in entry.entries:
            path = f"{entry.name}.{key.name}"
            if path in DRAWN or key.name not in section:
                continue
            value = _fmt(section[key.name])
            if entry.name == "interpretations":
                rid = reading_of.get(path, "")
                plays = f"{rid} ({readings[rid]})" if rid else ""
                interp.add_row(key.name, value, plays, key.meaning)
                continue
            rules.add_row(path, value, key.meaning, _fmt(section.get("source", "")) if first else "")
            first = False
    return [t for t in (rules, interp) if t.row_count]


# ------------------------------------------------------------------ values as text


def cited_ids(data: dict) -> dict[str, list[str]]:
    """Every R-../I-.. id found in a `source` string of the data, with the key paths of
    the tables that cite it (in file order)."""
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


def _places(wheres: list[str]) -> str:
    grouped: dict[str, list[str]] = {}
    for where in wheres:
        m = re.fullmatch(r"(.*)\[([^\]]+)\]", where)
        base, item = (m.group(1), m.group(2)) if m else (where, None)
        grouped.setdefault(base, [])
        if item is not None:
            grouped[base].append(item)
    return ", ".join(f"{b}[{', '.join(i)}]" if i else b for b, i in grouped.items())


def lookup(data: dict, path: str) -> str:
    """The value at a key path on one line, or '(not in this ruleset)'."""
    try:
        value = BOOK.get_path(data, path)
    except ValueError:
        return "(not in this ruleset)"
    return "(not in this ruleset)" if value is None else _format(value)


def _format(value) -> str:
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
