"""What a game of Pig race produces."""

from bollesim.game.result import Column, Outcome, Result

END_REASONS = ("target reached", "busted out", "out of turns")

RESULT = Result(
    columns=(
        Column("reached", "bool", "the banked points reached the target"),
        Column("steady", "bool", "no turn busted"),
        Column("busted_out", "bool", "busted as many turns as the rules allow"),
        Column("end_turn", "int16", "the turn the game ended on", "turn the game ended"),
        Column("end_reason", "text", "how the game ended", texts=END_REASONS),
        Column("first_bank_turn", "int16", "the turn points were first banked; null: never",
               "turn of the first bank", null_when_zero=True),
        Column("busts", "int16", "turns busted"),
        Column("score", "int16", "points banked"),
    ),
    outcomes=(
        Outcome("reached", "target reached", "high", "#0072B2", "o", "circle"),
        Outcome("steady", "never busted", "high", "#009E73", "^", "triangle-up"),
        Outcome("clean", "both", "high", "#56B4E9", "*", "cross", (0, (1, 2))),
        Outcome("busted_out", "busted out", "low", "#000000", "X", "cross", (0, (5, 2))),
        Outcome("no_result", "no result", "low", "#999999", "v", "triangle-down", (0, (1, 2))),
    ),
    wins=("reached", "steady"),
    loss="busted_out",
    all_wins="clean",
    no_result="no_result",
    end_reason="end_reason",
    end_turn="end_turn",
    main="reached",
    loss_reasons=("busted out",),
    trigger="first_bank_turn",
    acted="banked",
    distributions=("end_turn", "score", "busts"),
)
