"""Under `--dist loadgroup` (pyproject.toml's addopts) the tests of one xdist_group run in
one worker, in file order, and the other tests are handed out one by one
(tests/xdist_groups.py keeps this so on pytest 9.2)."""

from __future__ import annotations

import re
from pathlib import Path

pytest_plugins = ["pytester"]

GROUPED = """
import pytest

pytestmark = pytest.mark.xdist_group("session")

@pytest.mark.parametrize("step", range(12))
def test_step(step):
    pass
"""

SPREAD = """
import time

import pytest

@pytest.mark.parametrize("case", range(12))
def test_case(case):
    time.sleep(0.05)
"""


def test_a_group_runs_in_one_worker_in_order_and_the_rest_is_spread(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))  # finds xdist_groups
    pytester.makepyfile(test_grouped=GROUPED, test_spread=SPREAD)
    result = pytester.runpytest_subprocess("-p", "xdist_groups", "-n", "2", "--dist",
                                           "loadgroup", "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=24)
    ran = re.findall(r"^\[(gw\d)\] \[ *\d+%\] PASSED (\S+) *$", result.stdout.str(), re.M)
    grouped = [(worker, test) for worker, test in ran if "test_grouped.py" in test]
    assert len({worker for worker, _ in grouped}) == 1, grouped
    assert [test for _, test in grouped] == [
        f"test_grouped.py::test_step[{step}]@session" for step in range(12)]
    assert len({worker for worker, test in ran if "test_spread.py" in test}) == 2, ran


def test_the_quick_subset_names_test_modules_that_exist():
    """conftest.QUICK names modules of tests/ (a renamed module would leave the subset
    silently smaller), and none of the browser's or the engines' long checks."""
    from conftest import QUICK

    here = Path(__file__).parent
    assert {name for name in QUICK if not (here / f"{name}.py").is_file()} == set()
    assert not QUICK & {"test_serve", "test_fast_engine", "test_fast_invariants", "test_invariants"}
