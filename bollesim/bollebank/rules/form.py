"""The page's form of Operation Bøllebank's rules (Game.form), generated from the
ruleset's declaration (rules/schema.py) and its readings (rules/readings.py) by
bollesim/game/form.py, which documents its shape."""

from __future__ import annotations

from functools import cache

from bollesim.bollebank.rules import schema
from bollesim.bollebank.rules.loader import BOOK
from bollesim.game import form

AXES = {
    "order_matrix.orders": "order_matrix.types",
    "order_matrix.scope": "order_matrix.types",
}
"""Grids whose rows and columns are named by the values of another key (R-MATRIX: the
matrix is indexed [first chit][second chit] over order_matrix.types)."""


def edit_units() -> list[str]:
    return form.edit_units(schema.SCHEMA)


@cache
def form_model() -> dict:
    return form.form_model(BOOK, AXES)
