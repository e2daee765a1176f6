"""Pig race as the layers above its engine see it (bollesim.game.declaration)."""

from bollesim.game.declaration import Game, Trigger
from toygame.result import RESULT

GAME = Game(
    name="pig",
    title="Pig race",
    result=RESULT,
    policies="toygame.policies",
    baseline="banker",
    scripted="",
    triggers=(Trigger("banker", "start", lambda rules: range(1, rules.turns + 1)),),
    opening={"policy": "banker", "params": {"hold": 8, "start": 1},
             "note": "bank eight points or more from the first turn"},
    engine="toygame.play",
    rules="toygame.rules",
    form="toygame.form",
    find_keys=("game.turns", "game.busts_to_lose"),
    positions="toygame.positions",
)
