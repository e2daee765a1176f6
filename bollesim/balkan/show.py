"""`bollesim --game balkan-wars rules show`: a scenario's tables with their provenance
(the rules' sections), the exact odds of its opening firefight beside them, and with
`--reconstructed` every reading with the variant the scenario plays."""

from __future__ import annotations

from rich.table import Table

from bollesim.balkan import schema
from bollesim.balkan.odds import exact_odds
from bollesim.balkan.ruleset import BOOK, Ruleset
from bollesim.terminal import printable


def _table(title: str, source: str, columns, rows) -> Table:
    t = Table(title=printable(f"{title} ({source})"), title_justify="left")
    for c in columns:
        t.add_column(printable(str(c)))
    for row in rows:
        t.add_row(*(printable(str(v)) for v in row))
    return t


def show_tables(console, rules: Ruleset) -> None:
    """The troop types, the modifiers, the generals, both sides and the battle, then the
    exact odds of the opening firefight."""
    data = rules.data
    columns = [k.name for k in schema.SCHEMA.find("types").columns]
    console.print(_table("Troop types", "Weapon Ranges, Movement Rates, Stands; steps of "
                         "0.125 km", columns, ([t[c] for c in columns] for t in data["types"])),
                  end="\n\n")
    for name in ("modifiers", "generals", "battle", "interpretations"):
        table = data[name]
        console.print(_table(name.capitalize(), table.get("source", ""), ("key", "value", "meaning"),
                             ([k, v, schema.SCHEMA.find(f"{name}.{k}").meaning]
                              for k, v in table.items() if k != "source")), end="\n\n")
    for side in ("attacker", "defender"):
        d = data[side]
        rows = [(s["type"], s["quality"], s["count"]) for s in d["stands"]]
        title = (f"The {side}: a {d['general']} general, cover {d['cover']}, "
                 f"{d['other_stands']} other stands")
        console.print(_table(title, d.get("source", ""), ("type", "quality", "count"), rows),
                      end="\n\n")
    for odds in exact_odds(rules):
        rows = [[c["text"] if isinstance(c, dict) else "-" if c is None else c for c in row]
                for row in odds["rows"]]
        console.print(_table(odds["title"], odds["source"], odds["columns"], rows), end="\n\n")


def show_readings(console, rules: Ruleset) -> None:
    """Every reading: its meaning, its variants and the one this scenario plays."""
    rows = []
    for reading in BOOK.readings:
        variants = ", ".join(v.name for v in reading.variants())
        rows.append((reading.id, f"{reading.meaning} (variants: {variants})",
                     rules.readings[reading.id]))
    console.print(_table("Readings", "docs/balkan-wars.md", ("id", "meaning", "this ruleset"),
                         rows))
