"""Every notebook in notebooks/ runs from top to bottom without an error (small game counts).

Each notebook reads its game counts from BOLLESIM_NOTEBOOK_GAMES; the kernel is this
virtual environment's Python (ipykernel), started in the notebook's own folder.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import waiting


@pytest.fixture(scope="module")
def nbformat():
    """nbformat, imported by the tests that read a notebook: it imports jsonschema, which
    builds the grammars of its formats (about two seconds every worker would spend
    collecting)."""
    return pytest.importorskip("nbformat", reason="install the dev extra: pip install -e '.[dev]'")


NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
GAMES = "300"


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_uses_the_public_api(path: Path, nbformat):
    """No private module or name (a leading underscore) is imported, and cells assert
    what they show (their last expression, a table or a chart)."""
    nb = nbformat.read(path, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    imports = [line for cell in code for line in cell.splitlines()
               if line.lstrip().startswith(("import ", "from "))]
    assert imports and not [line for line in imports if "._" in line or " _" in line], imports
    assert sum("assert " in cell for cell in code) >= 3
    for cell in code:  # a cell that checks what it shows ends by showing it
        if "assert " in cell:
            assert isinstance(ast.parse(cell).body[-1], ast.Expr), f"a cell ends in no table or chart:\n{cell}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path: Path, monkeypatch, nbformat):
    nbclient = pytest.importorskip("nbclient", reason="install the dev extra: pip install -e '.[dev]'")
    monkeypatch.setenv("BOLLESIM_NOTEBOOK_GAMES", GAMES)
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(  # its waits (a cell, the kernel's start): the machine's pace
        nb, timeout=round(waiting.scaled(600)), startup_timeout=round(waiting.scaled(120)),
        iopub_timeout=round(waiting.scaled(4)), kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as exc:
        pytest.fail(f"{path.name}: a cell failed:\n{exc}")
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, errors
    images = sum(
        "image/png" in o.get("data", {})
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
    )
    if path.name == "explore.ipynb":  # the controlled, comparison and observational charts
        assert images >= 3, f"{path.name} drew {images} charts"
