"""tests/mutants.py's mutants still apply: each one's old text occurs exactly once in its
file and each names default-suite tests that exist, so the mutation check cannot rot
silently (text only, nothing run; the check itself is `.venv/bin/python tests/mutants.py`)."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("mutants", ROOT / "tests" / "mutants.py")
mutants = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mutants)


def test_names_are_unique():
    names = [m.name for m in mutants.MUTANTS]
    assert len(names) == len(set(names))
    assert not set(names) & set(mutants.AREAS)  # --only takes either


@pytest.mark.parametrize("mutant", mutants.MUTANTS, ids=lambda m: m.name)
def test_mutant_applies_once(mutant):
    assert mutant.rule and mutant.why
    text = (ROOT / mutant.path).read_text()
    planted = mutants.mutated(mutant, text)  # raises unless old occurs exactly once
    assert planted != text
    if mutant.path.endswith(".py"):
        compile(planted, mutant.path, "exec")  # a mutant that does not parse tests nothing


def functions_in(path: Path) -> list[str]:
    return re.findall(r"^def (test_\w+)", path.read_text(), re.MULTILINE)


@pytest.mark.parametrize("mutant", mutants.MUTANTS, ids=lambda m: m.name)
def test_mutant_names_tests_that_exist(mutant):
    """Each selection is files or node ids of tests/, optionally with `-k WORD` naming
    part of a test function's name in them."""
    assert mutant.tests
    for selection in mutant.tests:
        args = shlex.split(selection)
        word = args[args.index("-k") + 1] if "-k" in args else None
        targets = [a for a in args if a not in ("-k", word)]
        assert targets, selection
        for target in targets:
            file, _, node = target.partition("::")
            assert file.startswith("tests/test_") and (ROOT / file).is_file(), target
            functions = functions_in(ROOT / file)
            assert not node or node.split("[")[0] in functions, target
            assert word is None or any(word in f for f in functions), selection


def test_a_stale_mutant_is_refused():
    mutant = mutants.MUTANTS[0]
    text = (ROOT / mutant.path).read_text()
    with pytest.raises(ValueError, match="found 0 times"):
        mutants.mutated(mutant._replace(old=mutant.old + "\0"), text)
    with pytest.raises(ValueError, match="found 2 times"):
        mutants.mutated(mutant, text + mutant.old)
    with pytest.raises(ValueError, match="equals old"):
        mutants.mutated(mutant._replace(new=mutant.old), text)


def test_plain_python_mutants_need_no_compile():
    by_name = {m.name: m for m in mutants.MUTANTS}
    assert not mutants.compiled(by_name["wilson-wald-width"])
    assert mutants.compiled(by_name["target-ignores-damage"])
