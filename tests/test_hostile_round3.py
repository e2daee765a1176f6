"""Hostile input, round three: each case gets one `error:` line on stderr and exit code 2
(or, where the input is fine, works), never a traceback, and loses nothing written."""

from __future__ import annotations

import os
import subprocess
import sys

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
