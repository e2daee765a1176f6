"""Operation Bøllebank as the layers above its engine see it (bollesim.game.declaration)."""

from bollesim.bollebank.result import RESULT
from bollesim.game.declaration import Game, Trigger

GAME = Game(
    name="bollebank",
    title="Operation Bøllebank",
    result=RESULT,
    policies="policies",
    baseline="historical",
    scripted="plan",  # compiled into the fast engine's kernel (engine/player.py)
    # The headline question: when to give the first Fire order (§5.2), by turn (every turn
    # of the game, §4) or by RoE (8..25, 25 = never, as the parameter declares).
    triggers=(
        Trigger("fire_at_turn", "t", lambda rules: range(1, rules.turn_limit + 1)),
        Trigger("fire_at_roe", "k"),
    ),
    engine="bollesim.bollebank.play",
    rules="bollesim.bollebank.rules.loader",
)
