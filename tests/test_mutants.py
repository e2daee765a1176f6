"""tests/mutants.py's mutants still apply to the fast engine: each one's old text occurs
exactly once in its file, so the mutation check cannot rot silently (text only, no
compile; the check itself is `.venv/bin/python tests/mutants.py`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("mutants", ROOT / "tests" / "mutants.py")
mutants = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mutants)


def test_names_are_unique():
    names = [m.name for m in mutants.MUTANTS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("mutant", mutants.MUTANTS, ids=lambda m: m.name)
def test_mutant_applies_once(mutant):
    assert mutant.path.startswith("bollesim/engine/")
    assert mutant.rule and mutant.why
    text = (ROOT / mutant.path).read_text()
    assert mutants.mutated(mutant, text) != text  # raises unless old occurs exactly once


def test_a_stale_mutant_is_refused():
    mutant = mutants.MUTANTS[0]
    text = (ROOT / mutant.path).read_text()
    with pytest.raises(ValueError, match="found 0 times"):
        mutants.mutated(mutant._replace(old=mutant.old + "\0"), text)
    with pytest.raises(ValueError, match="found 2 times"):
        mutants.mutated(mutant, text + mutant.old)
    with pytest.raises(ValueError, match="equals old"):
        mutants.mutated(mutant._replace(new=mutant.old), text)
