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
import re
import shutil
import sys
from contextlib import contextmanager
from pathlib import Path

from bollesim.kept import PACKAGE, roots

PACKAGES = (PACKAGE, PACKAGE.parent / "policies")
"""The source trees of compiled code: the library and the scripted policies."""

MAKERS = ("compiled", "njit", "intrinsic")
"""What makes compiled code: bollesim.jit's `compiled`, numba's njit and intrinsic."""
DECIDE = "def decide("
"""A policy's `decide`, compiled by bollesim/game/policy.py."""
COMPILED = re.compile(rf"^\s*@(?:{'|'.join(MAKERS)})\b|\b(?:{'|'.join(MAKERS)})\(|^{re.escape(DECIDE)}",
                      re.M)
"""Compiled code defined in a file: a function made by one of MAKERS, or a policy's
`decide`. A file that names none of them (most files) is not searched: every process
keys the cache at its start."""
TEXT = re.compile(r"(?s)(\"\"\"|\'\'\').*?\1")
"""A triple-quoted string (documentation): what it says is not code."""
IMPORTS = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\s+(\([^)]*\)|[^\n#]*)|import\s+([\w., ]+))", re.M)
"""An import statement (anywhere in a file): from MODULE import NAMES, or import MODULES."""


def modules() -> dict[str, Path]:
    """Every module of PACKAGES by its dotted name (a package by its own name)."""
    root = PACKAGE.parent
    found = {}
    for tree in PACKAGES:
        for path in tree.rglob("*.py") if tree.is_dir() else ():
            name = ".".join(path.relative_to(root).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imported(text: str, known: dict[str, Path]) -> set[str]:
    """The modules of `known` that a file's text imports (a name imported from a package
    may be a module of it)."""
    out = set()
    for source, names, plain in IMPORTS.findall(text):
        if plain:
            candidates = [n.split(" as ")[0].strip() for n in plain.split(",")]
        else:
            parts = names.strip("() \n").replace("\n", " ").split(",")
            candidates = [source, *(f"{source}.{n.split(' as ')[0].strip()}" for n in parts)]
        out.update(c for c in candidates if c in known)
    return out


def compiled_sources() -> list[Path]:
    """The files compiled code is built from: those that define it (COMPILED) and every
    module of PACKAGES they import, directly or through others. Any other file (the layers
    above the engines, a policy that plays whole games) is pure Python: an edit of it
    keeps the cache (tests/test_jit_cache.py checks this against the imports)."""
    known = modules()
    raw = {name: path.read_text(encoding="utf-8") for name, path in known.items()}
    code: dict[str, str] = {}

    def text(name: str) -> str:  # the file without its documentation, made when first asked
        if name not in code:
            code[name] = TEXT.sub("", raw[name])
        return code[name]

    todo = [name for name, source in raw.items()
            if any(m in source for m in (*MAKERS, DECIDE)) and COMPILED.search(text(name))]
    reached = set()
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += imported(text(name), known)
    return [known[name] for name in reached]


KEEP = 4
"""Cache folders kept: the current one and the most recently used others."""

NOT_EXPLICIT = "BOLLESIM_NUMBA_CACHE_DIR"
"""Environment variable holding the NUMBA_CACHE_DIR that `configure` set itself."""


def sources() -> list[Path]:
    """The source files compiled code is built from (compiled_sources), in a fixed order."""
    return sorted(compiled_sources())


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
    for root in roots("numba"):
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
