"""The readings section of docs/balkan-wars.md, written from readings.py in the form of
docs/readings.md (each reading: its passage, its keys, its default and alternatives with
the values they set); tests/test_balkan_docs.py keeps the page current.

    python -m bollesim.balkan.docs        # rewrite the section in place
"""

from __future__ import annotations

import sys
from pathlib import Path

from bollesim.balkan.ruleset import BOOK

PAGE = Path(__file__).resolve().parents[2] / "docs" / "balkan-wars.md"
BEGIN = ("<!-- readings: written by `python -m bollesim.balkan.docs` from "
         "bollesim/balkan/readings.py: edit that, not this. -->")
END = "<!-- end of the readings -->"


def readings_section() -> str:
    """Every reading, as docs/readings.md gives Bøllebank's."""
    lines = [BEGIN, ""]
    for reading in BOOK.readings:
        lines += [f"### {reading.id}: {reading.meaning}", "", reading.text, ""]
        keys = BOOK.reading_keys(reading)
        if keys:
            lines += ["Keys: " + ", ".join(f"`{k}`" for k in keys) + ".", ""]
        default = BOOK.variant_values(reading, reading.variant(reading.default)) if keys else {}
        for variant in reading.variants():
            if variant.name == reading.default:
                head = f"- `{variant.name}` (default)"
            else:
                head = f"- `{variant.name}`: {variant.description}"
                values = BOOK.variant_values(reading, variant)
                changed = {k: v for k, v in values.items() if v != default.get(k)}
                if changed:
                    head += ". Sets " + "; ".join(f"`{k}` = `{_toml(v)}`" for k, v in changed.items())
            if variant.gives_up:
                head += f". Gives up {variant.gives_up}"
            lines.append(head + ".")
        if reading.fixed:
            lines.append(f"- No alternative is declared: {reading.fixed}.")
        lines.append("")
    return "\n".join([*lines, END])


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def page_with_readings(page: str) -> str:
    """The page with its readings section (between BEGIN and END) written anew."""
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + readings_section() + tail


def main() -> None:
    PAGE.write_text(page_with_readings(PAGE.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote the readings of {PAGE}", file=sys.stderr)


if __name__ == "__main__":
    main()
