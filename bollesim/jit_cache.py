"""Where numba caches the compiled engine: a folder named by a hash of the sources.

numba checks a cached kernel against its own source file only, not against the files of
the functions it calls, so after an edit of engine/core.py the cached kernels of
engine/end.py, which inline core's helpers, would still run the old code. `configure`
therefore points numba's cache at `__pycache__/numba/<hash>` beside this package (or,
where the package is read-only, the user's cache folder), <hash> covering every source
file of bollesim/ and policies/ that compiled code is built from: an edit of any of them
gets a fresh folder, so a fresh compile. The KEEP most recently used folders stay (going
back to an earlier version costs no compile); older ones are removed.

bollesim/__init__.py calls `configure` before any kernel is defined. A NUMBA_CACHE_DIR
set by the user is respected as given; the one `configure` sets itself (inherited by
child processes) is recognised by NOT_EXPLICIT and worked out again from the sources
the child imports.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from contextlib import contextmanager
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
PACKAGES = (PACKAGE, PACKAGE.parent / "policies")
"""The source trees of compiled code: the library and the scripted policies."""

PURE_PYTHON = frozenset({
    "bollesim/__main__.py",
    "bollesim/balkan/form.py",
    "bollesim/balkan/game.py",
    "bollesim/balkan/narrate.py",
    "bollesim/balkan/odds.py",
    "bollesim/balkan/play.py",
    "bollesim/balkan/reference.py",
    "bollesim/balkan/result.py",
    "bollesim/balkan/show.py",
    "bollesim/batch/__init__.py",
    "bollesim/batch/durable.py",
    "bollesim/batch/limits.py",
    "bollesim/batch/manifest.py",
    "bollesim/batch/options.py",
    "bollesim/batch/partial.py",
    "bollesim/batch/precision.py",
    "bollesim/batch/replay.py",
    "bollesim/batch/runfolder.py",
    "bollesim/batch/sensitivity.py",
    "bollesim/batch/session.py",
    "bollesim/batch/source.py",
    "bollesim/batch/spec.py",
    "bollesim/batch/sweeps.py",
    "bollesim/batch/workspace.py",
    "bollesim/blocks.py",
    "bollesim/bollebank/engine/trace.py",
    "bollesim/bollebank/headroom.py",
    "bollesim/bollebank/lookahead.py",
    "bollesim/bollebank/narrate.py",
    "bollesim/bollebank/narrated.py",
    "bollesim/bollebank/rules/docs.py",
    "bollesim/bollebank/rules/form.py",
    "bollesim/bollebank/rules/odds.py",
    "bollesim/bollebank/rules/rulebook.py",
    "bollesim/bollebank/rules/show.py",
    "bollesim/cli/__init__.py",
    "bollesim/cli/app.py",
    "bollesim/cli/batch.py",
    "bollesim/cli/bench.py",
    "bollesim/cli/headroom.py",
    "bollesim/cli/headroom_make.py",
    "bollesim/cli/optimise.py",
    "bollesim/cli/options.py",
    "bollesim/cli/output.py",
    "bollesim/cli/play.py",
    "bollesim/cli/reports.py",
    "bollesim/cli/rules.py",
    "bollesim/cli/running.py",
    "bollesim/cli/serve.py",
    "bollesim/cli/tune.py",
    "bollesim/cli/wiring.py",
    "bollesim/game/form.py",
    "bollesim/game/patch.py",
    "bollesim/game/readings.py",
    "bollesim/game/relaxation.py",
    "bollesim/report/__init__.py",
    "bollesim/report/answer.py",
    "bollesim/report/balance.py",
    "bollesim/report/chartdata.py",
    "bollesim/report/charts.py",
    "bollesim/report/compare.py",
    "bollesim/report/document.py",
    "bollesim/report/headroom.py",
    "bollesim/report/plots.py",
    "bollesim/report/sensitivity.py",
    "bollesim/resources.py",
    "bollesim/search/__init__.py",
    "bollesim/search/certify.py",
    "bollesim/search/optimise.py",
    "bollesim/search/optimise_report.py",
    "bollesim/search/optimise_space.py",
    "bollesim/search/optimise_spec.py",
    "bollesim/search/race.py",
    "bollesim/search/tune.py",
    "bollesim/search/tune_answer.py",
    "bollesim/search/tune_report.py",
    "bollesim/search/tune_space.py",
    "bollesim/search/tune_spec.py",
    "bollesim/serve/__init__.py",
    "bollesim/serve/app.py",
    "bollesim/serve/best.py",
    "bollesim/serve/bodies.py",
    "bollesim/serve/edits.py",
    "bollesim/serve/find.py",
    "bollesim/serve/guards.py",
    "bollesim/serve/odds.py",
    "bollesim/serve/server.py",
    "bollesim/serve/state.py",
    "bollesim/serve/worker.py",
    "bollesim/stats/__init__.py",
    "bollesim/stats/analysis.py",
    "bollesim/stats/compare.py",
    "bollesim/stats/intervals.py",
    "bollesim/stats/naming.py",
    "bollesim/stats/paired_tests.py",
    "bollesim/stats/sensitivity.py",
    "bollesim/stats/skill.py",
    "bollesim/stats/vocabulary.py",
    "bollesim/strong/clairvoyant.py",
    "bollesim/strong/headroom.py",
    "bollesim/strong/penalised.py",
    "bollesim/strong/value.py",
    "policies/lookahead.py",
})
"""Modules that no compiled function is built from or reads (tests/test_jit_cache.py
checks this against the imports): editing them keeps the cache. Every other .py file of
PACKAGES counts, new ones included."""

KEEP = 4
"""Cache folders kept: the current one and the most recently used others."""

NOT_EXPLICIT = "BOLLESIM_NUMBA_CACHE_DIR"
"""Environment variable holding the NUMBA_CACHE_DIR that `configure` set itself."""


def sources() -> list[Path]:
    """The source files compiled code is built from, in a fixed order."""
    root = PACKAGE.parent
    found = [p for tree in PACKAGES if tree.is_dir() for p in tree.rglob("*.py")]
    return sorted(p for p in found if p.relative_to(root).as_posix() not in PURE_PYTHON)


def source_key(apart: tuple[Path, ...] = ()) -> str:
    """A hash of the names and contents of `sources()` (16 hex digits), and of the .py
    files of the `apart` trees (cached_apart)."""
    digest = hashlib.sha256()
    root = PACKAGE.parent
    named = [(p.relative_to(root).as_posix(), p) for p in sources()]
    named += [(p.relative_to(tree.parent).as_posix(), p)
              for tree in apart for p in sorted(tree.rglob("*.py"))]
    for name, path in named:
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_roots() -> list[Path]:
    """Where the keyed folders may go, in order of preference."""
    user = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return [PACKAGE / "__pycache__" / "numba", user / "bollesim" / "numba"]


def prune(root: Path, keep: int = KEEP) -> None:
    """Remove all but the `keep` most recently used folders under root."""
    folders = sorted(
        (p for p in root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True
    )
    for old in folders[keep:]:
        shutil.rmtree(old, ignore_errors=True)


def keyed_folder(apart: tuple[Path, ...] = ()) -> Path | None:
    """The cache folder of the current sources (and those of the `apart` trees), created
    and marked as just used; None when no root is writable."""
    key = source_key(apart)
    for root in cache_roots():
        folder = root / key
        try:
            folder.mkdir(parents=True, exist_ok=True)
            os.utime(folder)
            prune(root)
        except OSError:
            continue
        return folder
    return None


def configure() -> str | None:
    """Point numba's cache at the folder of the current sources (unless NUMBA_CACHE_DIR
    was set by the user); returns the cache folder in use, None for numba's default."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given and given != os.environ.get(NOT_EXPLICIT):
        return given
    folder = keyed_folder()
    if folder is None:
        return None
    os.environ["NUMBA_CACHE_DIR"] = os.environ[NOT_EXPLICIT] = str(folder)
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before bollesim: it read its environment already
        numba.config.CACHE_DIR = str(folder)
    return str(folder)


@contextmanager
def cached_apart(tree: Path):
    """While it lasts, compiled functions being defined (those of the .py files of `tree`,
    outside the package: the test oracle) are cached in a folder of their own, keyed by
    the package's sources and tree's: an edit of tree recompiles its functions only, and
    an edit of the package recompiles them too (they call the package's kernels)."""
    import numba

    given = os.environ.get("NUMBA_CACHE_DIR")
    if given and given != os.environ.get(NOT_EXPLICIT):
        folder = Path(given) / source_key((tree,))
    else:
        folder = keyed_folder((tree,))
    before = numba.config.CACHE_DIR
    if folder is not None:
        numba.config.CACHE_DIR = str(folder)
    try:
        yield
    finally:
        numba.config.CACHE_DIR = before
