"""docs/balkan-wars.md holds itself to the code: its readings are readings.py's (written
by bollesim/balkan/docs.py), and its table of every rule of the text covers every rule
line, says how each is played, and names tests that exist."""

from __future__ import annotations

import re
from pathlib import Path

from bollesim.balkan import docs
from bollesim.balkan.ruleset import BOOK

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "balkan-wars.md").read_text(encoding="utf-8")

RULE_LINES = (17, 21, *range(26, 29), *range(30, 33), *range(34, 37), 40, *range(44, 48),
              *range(51, 54), 57, *range(61, 65), *range(68, 72), *range(75, 82),
              *range(85, 90), 93, 100, 104, *range(106, 112), *range(115, 119),
              *range(122, 131), *range(134, 147), *range(150, 158), *range(161, 170),
              *range(173, 180), *range(183, 191), *range(194, 198), 200)
"""The lines of balkan-wars.txt that state a rule (its bullets and numbered steps; the
text is not in the repository, so the list is kept here)."""
BATTLE = range(97, 201)  # the text's BATTLE RULES


def rows() -> list[list[str]]:
    table = PAGE.split("## Every rule of the text", 1)[1].split("\n## ", 1)[0]
    return [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()
            if line.startswith("| ") and not line.startswith("| line") and not line.startswith("| ---")]


def lines_of(cell: str) -> set[int]:
    lo, _, hi = cell.partition("-")
    return set(range(int(lo), int(hi or lo) + 1))


def test_the_readings_section_is_current():
    assert docs.page_with_readings(PAGE) == PAGE, "run `python -m bollesim.balkan.docs`"
    for reading in BOOK.readings:
        assert f"### {reading.id}: " in PAGE


def test_the_rules_table_covers_every_rule_line():
    covered = set().union(*(lines_of(row[0]) for row in rows()))
    assert set(RULE_LINES) <= covered, sorted(set(RULE_LINES) - covered)


def test_only_rules_outside_a_battle_are_not_played():
    for row in rows():
        played = row[2]
        assert played.startswith(("as written", "not played", "I-")), row
        if played.startswith("not played"):
            assert not lines_of(row[0]) & set(BATTLE), row
            assert ":" in played and row[3] == "–", row  # a reason, no test


def test_every_cited_test_and_reading_exists():
    known = {r.id for r in BOOK.readings}
    for row in rows():
        assert set(re.findall(r"\bI-[A-Z-]*[A-Z]\b", row[2])) <= known, row
        for file, name in re.findall(r"`(test_balkan[a-z_]*\.py)::(test_\w+)`", row[3]):
            source = (ROOT / "tests" / file).read_text(encoding="utf-8")
            assert f"def {name}(" in source, (file, name)
        if not row[2].startswith("not played"):
            assert "::test_" in row[3], row
