"""The what-if page's form of a Balkan Wars scenario (Game.form), from its declaration
and readings by bollesim/game/form.py."""

from functools import cache

from bollesim.balkan.ruleset import BOOK
from bollesim.game import form


def edit_units() -> list[str]:
    return form.edit_units(BOOK.schema)


@cache
def form_model() -> dict:
    return form.form_model(BOOK, {})
