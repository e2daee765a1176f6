"""What a Balkan Wars engagement produces (bollesim.game.result): which side broke and
when, the close assaults, stands lost and casualties per side."""

from bollesim.balkan.engine_state import END_REASONS
from bollesim.game.result import Column, Outcome, Result

RESULT = Result(
    columns=(
        Column("won", "bool", "the defender broke and the attacker did not"),
        Column("light", "bool", "the attacker lost at most one stand"),
        Column("lost", "bool", "the attacker broke (with the defender or alone)"),
        Column("end_bound", "int16", "the bound the battle ended on", "bound the battle ended"),
        Column("end_reason", "text", "how the battle ended", texts=END_REASONS),
        Column("first_assault_bound", "int16", "the bound of the attacker's first close "
               "assault; null: none", "bound of the first close assault", null_when_zero=True),
        Column("assaults", "int16", "close assaults the attacker made"),
        Column("attacker_stands_lost", "int16", "the attacker's stands destroyed or gone",
               "attacker's stands lost"),
        Column("defender_stands_lost", "int16", "the defender's stands destroyed or gone",
               "defender's stands lost"),
        Column("attacker_casualties", "int16", "figures the attacker lost"),
        Column("defender_casualties", "int16", "figures the defender lost"),
    ),
    outcomes=(
        Outcome("won", "attack won", "high", "#0072B2", "o", "circle"),
        Outcome("light", "light losses", "high", "#009E73", "^", "triangle-up"),
        Outcome("won_light", "won with light losses", "high", "#56B4E9", "*", "cross",
                (0, (1, 2))),
        Outcome("lost", "attack broke", "low", "#000000", "X", "cross", (0, (5, 2))),
        Outcome("day_ended", "day ended", "low", "#999999", "v", "triangle-down", (0, (1, 2))),
    ),
    wins=("won", "light"),
    loss="lost",
    all_wins="won_light",
    no_result="day_ended",
    end_reason="end_reason",
    end_turn="end_bound",
    main="won",
    loss_reasons=("attacker broke", "both broke"),
    trigger="first_assault_bound",
    acted="close assaulted",
    distributions=("end_bound", "attacker_stands_lost", "defender_stands_lost"),
    turn="bound",
)
