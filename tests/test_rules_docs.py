"""The project documents itself: docs/ruleset.md and docs/readings.md are written from the
declaration and the readings and kept current, every reading id the code cites is
declared, and nothing points outside the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from bollesim.bollebank.rules import docs
from bollesim.bollebank.rules.readings import BY_ID
from bollesim.bollebank.rules.show import ID_PATTERN

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(docs.FILES))
def test_generated_docs_are_current(name):
    written = (ROOT / "docs" / name).read_text(encoding="utf-8")
    assert written == docs.FILES[name](), (
        f"docs/{name} is stale: run `python -m bollesim.bollebank.rules.docs`"
    )


def tracked(*patterns: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    return [ROOT / f for f in out]


def test_every_cited_reading_is_declared():
    """An R-../I-.. id in the code, the policies or the ruleset is one of docs/readings.md,
    or in the Balkan Wars' package one of its readings (docs/balkan-wars.md)."""
    from bollesim.balkan.ruleset import READINGS as BALKAN

    cited, balkan = set(), set()
    for path in tracked("bollesim", "policies"):
        if path.suffix in (".py", ".toml"):
            ids = set(ID_PATTERN.findall(path.read_text(encoding="utf-8")))
            if path.is_relative_to(ROOT / "bollesim" / "balkan"):
                balkan |= ids
            else:
                cited |= ids
    assert cited and cited <= set(BY_ID), sorted(cited - set(BY_ID))
    assert balkan and balkan <= set(BALKAN), sorted(balkan - set(BALKAN))


def test_nothing_points_outside_the_repository():
    """No tracked file cites documents a clone does not have; the README's and docs'
    links to files of the repository exist."""
    names = ("RECONSTRUCTION", "DESIGN", "STYLE")  # the background notes, and their folder:
    outside = re.compile("|".join(rf"{n}\.md" for n in names) + "|" + "shared" + "/rules")
    for path in tracked():
        if path.suffix in (".py", ".md", ".toml", ".ipynb", ".txt") and path.exists():
            assert not outside.search(path.read_text(encoding="utf-8")), path
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def test_the_usage_pages_rules_check_example_is_current():
    """docs/usage.md shows what `rules check --set tracks.tank_to_hit=8` prints, its
    checksum included (an edit of default.toml changes it)."""
    from typer.testing import CliRunner

    from bollesim.cli.app import app

    usage = (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    command = "bollesim rules check --set tracks.tank_to_hit=8"
    assert f"$ .venv/bin/{command}\n" in usage
    result = CliRunner().invoke(app, command.split()[1:])
    assert result.exit_code == 0, result.output
    assert f"   {result.stdout.strip()}\n" in usage, result.stdout
