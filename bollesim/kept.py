"""What bollesim makes once on a machine and keeps for later processes: the compiled
engine (numba's cache, jit_cache.py) and the charts' JavaScript bundle (report/charts.py).

`roots(kind)` says where a kind may be kept, in order of preference: beside the package
(its `__pycache__`, which git ignores) or, where that is read-only, the user's cache
folder. `text(kind, name, make)` is a text kept there: made once, then read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from bollesim.files import atomic_write

PACKAGE = Path(__file__).resolve().parent


def roots(kind: str) -> list[Path]:
    """Where `kind` may be kept, in order of preference."""
    user = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return [PACKAGE / "__pycache__" / kind, user / "bollesim" / kind]


def text(kind: str, name: str, make: Callable[[], str]) -> str:
    """The text kept as `name` in the first of kind's roots that holds it; else make(),
    kept in the first root that can be written (where none can, made in every process),
    written whole or not at all (files.atomic_write)."""
    for root in roots(kind):
        try:
            return (root / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
    made = make()
    for root in roots(kind):
        try:
            root.mkdir(parents=True, exist_ok=True)
            atomic_write(root / name, made.encode("utf-8"))
            break
        except OSError:
            continue
    return made
