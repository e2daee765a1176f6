"""The Balkan Wars battle rules as the layers above the engine see them
(bollesim.game.declaration): the attacker's close-assault question; its strong player
the apprentice of the lookahead's declared decisions."""

from bollesim.balkan.result import RESULT
from bollesim.game.declaration import Game, Trigger

GAME = Game(
    name="balkan-wars",
    title="The Balkan Wars",
    result=RESULT,
    policies="policies.balkan_wars",
    baseline="assault",
    scripted="assault",
    # The headline question: when to close assault, by the defender's figures lost; the
    # strong player takes it with the trigger imposed, every arm's order its own
    # (experiments/balkan_close_assault_strong.toml).
    triggers=(Trigger("assault", "losses", lambda rules: range(0, 17, 2),
                      strong="imposed_losses"),),
    opening={"policy": "assault", "params": {"losses": 0},
             "note": "close assault after the first won firefight"},
    engine="bollesim.balkan.play",
    rules="bollesim.balkan.ruleset",
    form="bollesim.balkan.form",
    odds="bollesim.balkan.odds",
    narration="bollesim.balkan.narrate",
    show="bollesim.balkan.show",
    readings_page="docs/balkan-wars.md",
    experiment="experiments/balkan_close_assault.toml",
    positions="bollesim.balkan.positions",
    strong="apprentice",  # plays as its teacher, the lookahead (docs/apprentice.md)
    headroom="bollesim.balkan.headroom",
)
