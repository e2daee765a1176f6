"""docs/ruleset.md and docs/readings.md, written from the declaration (schema.py) and the
readings (readings.py); tests/test_rules_docs.py keeps the files current.

    python -m bollesim.bollebank.rules.docs        # rewrite both files
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

from bollesim.bollebank.rules import schema
from bollesim.bollebank.rules.loader import BOOK
from bollesim.bollebank.rules.readings import READINGS
from bollesim.game.schema import REQUIRED

DOCS = Path(__file__).resolve().parents[3] / "docs"
GENERATED = "<!-- Written by `python -m bollesim.bollebank.rules.docs` from {}: edit that, not this. -->"


def ruleset_md() -> str:
    lines = [
        "# The ruleset file",
        "",
        GENERATED.format("bollesim/bollebank/rules/schema.py"),
        "",
        "A ruleset is a TOML file; `bollesim/bollebank/rules/default.toml` is the shipped one. Every "
        "key the engines read is below, with the values it accepts and what it means. A key "
        "path names a value on the command line (`--set`), in experiment specs and in "
        "error messages: `roe.fire_allowed`, `map.positions[K1].fp` (a row by its id), "
        "`chits.groups[3].count` (a row by its index).",
        "",
        "Every table and every row may carry a `source` string: the rulebook section (`§N`) "
        "that prints its values, or the id of a reading ([readings.md](readings.md)) where "
        "the rulebook does not. A key the declaration does not know is an error naming the "
        "nearest known key; a value outside its range is an error naming what is allowed. "
        "The ranges are what both engines can play.",
        "",
    ]
    for entry in schema.DECLARATION:
        if isinstance(entry, schema.Key):
            lines += _key_table("Top level", "", [entry])
        elif isinstance(entry, schema.Table):
            keys = [k for k in entry.entries if isinstance(k, schema.Key)]
            lines += _key_table(f"[{entry.name}]", entry.source, keys, entry.name + ".")
            for rows in (r for r in entry.entries if isinstance(r, schema.Rows)):
                lines += _rows_table(f"{entry.name}.{rows.name}", rows)
        else:
            lines += _rows_table(entry.name, entry)
    lines += _odds_section()
    return "\n".join(lines).rstrip() + "\n"


def _odds_section() -> list[str]:
    """The exact odds of the default ruleset (odds.py), as `bollesim rules show` prints
    them beside its tables, with each chance also as a fraction."""
    from bollesim.bollebank.rules.loader import load_ruleset
    from bollesim.bollebank.rules.odds import cell_text, odds_tables

    out = [
        "## Exact odds of the default ruleset",
        "",
        "Where an answer needs no simulation it is computed exactly, by enumerating the "
        "dice and the chits (`bollesim/bollebank/rules/odds.py`; `bollesim rules show` "
        "prints the same tables for any ruleset beside the tables they come from). A "
        "modifier is added to the roll, so a -1 asks the dice for one more; `-` marks a "
        "modifier that does not apply to that weapon.",
        "",
    ]
    for table in odds_tables(load_ruleset()):
        title = table.title.removeprefix("Exact odds: ")
        out += [f"### {title[0].upper()}{title[1:]}", "", f"Source: {table.source}.",
                "", "| " + " | ".join(_cell(c) for c in table.columns) + " |",
                "|" + " --- |" * len(table.columns)]
        for row in table.rows:
            cells = [cell_text(c) + (f" ({c})" if isinstance(c, Fraction) and c not in (0, 1)
                                     else "") for c in row]
            out.append("| " + " | ".join(_cell(c.strip()) for c in cells) + " |")
        out.append("")
    return out


def _key_table(title: str, source: str, keys: list, prefix: str = "") -> list[str]:
    out = [f"## {title}", ""]
    if source:
        out += [f"Source: {source}.", ""]
    out += ["| key | value | meaning |", "| --- | --- | --- |"]
    for k in keys:
        out.append(f"| `{prefix}{k.name}` | {_cell(k.kind.describe())} | {_cell(k.meaning)} |")
    return out + [""]


def _rows_table(path: str, rows: schema.Rows) -> list[str]:
    out = [f"## [[{path}]]", "", f"{rows.meaning[0].upper()}{rows.meaning[1:]}."]
    if rows.source:
        out[-1] += f" Source: {rows.source}."
    out += ["", "| column | value | default | meaning |", "| --- | --- | --- | --- |"]
    for c in rows.columns:
        default = "(required)" if c.default is REQUIRED else f"`{_toml(c.default)}`"
        out.append(f"| `{c.name}` | {_cell(c.kind.describe())} | {default} | {_cell(c.meaning)} |")
    return out + [""]


def readings_md() -> str:
    lines = [
        "# Readings",
        "",
        GENERATED.format("bollesim/bollebank/rules/readings.py"),
        "",
        "The rulebook refers to player aids and map art it does not print, and some of its "
        "sentences can be read more than one way. Every value bollesim had to reconstruct "
        "(an `R-..` id) and every interpretation the engines rely on (an `I-..` id) is a "
        "*reading*: it has a default, the one `default.toml` plays, and where another is "
        "plausible, named alternatives. Each alternative agrees with every number §2, §7 "
        "and §11 print, unless it says which printed number it gives up.",
        "",
        "A reading is a set of ruleset values. Switch one on for a command with "
        "`--reading ID=VARIANT` (e.g. `bollesim run -P historical --reading I-AIR=ceil`), "
        "from Python with `load_ruleset(readings={\"I-AIR\": \"ceil\"})`; it is applied "
        "after the ruleset file, `--partial` and `--set`. `bollesim rules show "
        "--reconstructed` lists every reading with the variant a ruleset plays (`custom` "
        "when its values match none).",
        "",
    ]
    for reading in READINGS:
        lines += [f"## {reading.id}: {reading.meaning}", "", reading.text, ""]
        keys = BOOK.reading_keys(reading)
        if keys:
            lines.append("Keys: " + ", ".join(f"`{k}`" for k in keys) + ".")
            lines.append("")
        for variant in reading.variants():
            name = f"`{variant.name}`"
            if variant.name == reading.default:
                head = f"- {name} (default)"
            else:
                head = f"- {name}: {variant.description}"
            if keys and variant.name != reading.default:
                values = BOOK.variant_values(reading, variant)
                changed = {k: v for k, v in values.items() if v != _default_value(reading, k)}
                head += ". Sets " + "; ".join(f"`{k}` = {_short(v)}" for k, v in changed.items())
            if variant.gives_up:
                head += f". Gives up {variant.gives_up}"
            lines.append(head + ".")
        if reading.fixed:
            lines.append(f"- No alternative is declared: {reading.fixed}.")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _default_value(reading, key: str):
    return BOOK.variant_values(reading, reading.variant(reading.default))[key]


def _short(value) -> str:
    from bollesim.bollebank.rules.show import _format

    return f"`{_format(value)}`"


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value).replace("'", '"')


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


FILES = {"ruleset.md": ruleset_md, "readings.md": readings_md}


def main() -> None:
    DOCS.mkdir(exist_ok=True)
    for name, write in FILES.items():
        (DOCS / name).write_text(write(), encoding="utf-8")
        print(f"wrote {DOCS / name}", file=sys.stderr)


if __name__ == "__main__":
    main()
