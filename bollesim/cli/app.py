"""The `bollesim` command line (typer): `app` with every command registered, one module
of cli/ per command group (cli/wiring.py says how a command is registered)."""

from __future__ import annotations

from bollesim.cli import (  # noqa: F401  registers
    analyse,
    batch,
    bench,
    headroom,
    optimise,
    play,
    reports,
    rules,
    serve,
    train,
    tune,
)
from bollesim.cli.wiring import app

__all__ = ["app", "main"]


def main() -> None:  # pragma: no cover - entry point for `python -m bollesim`
    app(prog_name="bollesim")
