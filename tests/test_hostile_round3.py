"""Hostile input, round three: each case gets one `error:` line on stderr and exit code 2
(or, where the input is fine, works), never a traceback, and loses nothing written."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from bollesim.errors import UsageError
from bollesim.game import declaration


def cli(*args, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """`python -m bollesim ARGS` in a process of its own (about a second)."""
    return subprocess.run([sys.executable, "-m", "bollesim", *map(str, args)],
                          env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          timeout=300, **kwargs)


def one_line_error(proc: subprocess.CompletedProcess, *words: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


# ---------------------------------------------------------------- 15. $BOLLESIM_GAME


@pytest.mark.parametrize("name", ["nonsense", "../../etc/passwd", ".x", "os", "a..b"])
def test_bad_game_names_the_known_games(name):
    with pytest.raises(UsageError, match="no such game.*known: bollebank"):
        declaration._declared.__wrapped__(name)


def test_bad_game_is_one_line_even_for_version():
    one_line_error(cli("--version", env={"BOLLESIM_GAME": "../../etc/passwd"}),
                   "BOLLESIM_GAME", "known: bollebank")


# ---------------------------------------------------------------- 18. the Python API


@pytest.mark.parametrize(("kwargs", "error", "words"), [
    ({"params": np.full((2, 6), np.nan)}, UsageError, "params[0, 0]: fire_at_roe.k = nan is outside"),
    ({"params": np.tile([8, -5, 1, 0, 0, 0], (2, 1))}, UsageError, "stop_at_tanks = -5 is outside its range 0..4"),
    ({"params": {"k": 1000}}, UsageError, "k = 1000 is outside its range 8..25"),
    ({"first_game": -1}, UsageError, "first_game must be a whole number from 0"),
    ({"first_game": 1.5}, UsageError, "first_game must be a whole number"),
    ({"first_game": 10**15}, UsageError, "first_game + n_games must be"),
    ({"chunk_size": 0}, UsageError, "chunk_size must be a whole number from 1"),
    ({"rules": "default"}, TypeError, "rules must be a Ruleset"),
    ({"rules": {}}, TypeError, "rules must be a Ruleset"),
    ({"threads": "2"}, UsageError, "threads (--threads) must be a whole number from 1"),
    ({"threads": 0}, UsageError, "threads (--threads) must be a whole number from 1"),
])
def test_simulate_refuses_bad_arguments(kwargs, error, words):
    import bollesim

    with pytest.raises(error) as caught:
        bollesim.simulate("fire_at_roe", 2, engine="reference", **kwargs)
    assert words in str(caught.value)
