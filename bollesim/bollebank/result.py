"""What a game of Operation Bøllebank produces (§8): its result columns in the fast
engine's slot order and its outcomes, declared once (bollesim.game.result)."""

import tomllib

from bollesim.bollebank import codes
from bollesim.bollebank.events import END_REASONS
from bollesim.bollebank.rules.schema import DEFAULT_PATH
from bollesim.game.result import Column, Outcome, Result


def _place_names() -> tuple[str, ...]:
    """The rulebook's names of the positions, as the shipped ruleset gives them ("SK-1 CKP")."""
    with open(DEFAULT_PATH, "rb") as f:
        rows = tomllib.load(f)["map"]["positions"]
    return tuple(row.get("name") or row["id"] for row in rows)


# A loss is heavy damage to a UN vehicle (§7.1.3 from a tank, ATGM or HMG hit, §7.2 from
# artillery on a 12) or its commander killed (§7.1.2, HMG); reference/effects.note_loss.
# The vehicle, weapon and place are those of the loss that ended the game in defeat (§8:
# a vehicle destroyed, or VL2's commander killed), null in every other game; its turn is
# the game's end_turn.

RESULT = Result(
    columns=(
        Column("operational", "bool",
               "operational victory: two tanks at Tango 2 by the deadline, artillery silent (§8)"),
        Column("tactical", "bool", "tactical victory: the direct-fire tracks empty, artillery silent, the heavily "
                                   "damaged in Saraci, before the end of turn 20 (§8)"),
        Column("strategic", "bool", "strategic victory: no Fire order, or the first at RoE 18 or more (§8)"),
        Column("political", "bool", "political victory: the fire status marker at or below the RoE at the end (§8)"),
        Column("defeat", "bool", "defeat: a vehicle destroyed, VL2's commander killed, or no victory by turn 40 (§8)"),
        Column("end_turn", "int16", "the turn the game ended on", "turn the game ended"),
        Column("end_reason", "text", "how the game ended", texts=END_REASONS),
        Column("first_fire_turn", "int16", "the turn of the first Fire order (§5.2); null: never fired",
               "turn of the first Fire order", null_when_zero=True),
        Column("first_fire_roe", "int16", "the RoE of the first Fire order (§5.2); null: never fired",
               "RoE at the first Fire order", null_when_zero=True),
        Column("final_roe", "int16", "the RoE at the end", "final RoE"),
        Column("deadline", "int16", "the Tango 2 deadline turn at the end"),
        Column("tanks_at_t2", "int16", "the most tanks seen at Tango 2 in an End phase"),
        Column("airstrike_turn", "int16", "the turn of the airstrike (§6.1); null: none", "turn of the airstrike",
               null_when_zero=True),
        Column("heavy_damage", "int16", "heavy damage results taken", "heavy damage"),
        Column("light_damage", "int16", "light damage results taken", "light damage"),
        Column("chits_drawn", "int16", "enemy weapon chits drawn"),
        Column("random_draws", "int32", "random numbers drawn (the game's length in chance)"),
        Column("first_loss_turn", "int16", "the turn of the first loss; null: none", "turn of the first loss",
               null_when_zero=True),
        Column("loss_vehicle", "text", "the vehicle lost in a defeat", "the vehicle lost", null_when_zero=True,
               texts=codes.VEHICLES),
        Column("loss_cause", "text", "the weapon that did it", "the weapon that did it", null_when_zero=True,
               texts=codes.WEAPON_WORDS),
        Column("loss_place", "text", "where the vehicle stood (the rulebook's name)", "where it stood",
               null_when_zero=True, texts=_place_names()),
    ),
    # Okabe-Ito colours, safe for colour-blind readers; defeat black, apart from them all.
    outcomes=(
        Outcome("operational", "operational victory", "high", "#0072B2", "o", "circle"),
        Outcome("tactical", "tactical victory", "high", "#009E73", "^", "triangle-up"),
        Outcome("strategic", "strategic victory", "high", "#E69F00", "s", "square"),
        Outcome("political", "political victory", "high", "#CC79A7", "D", "diamond"),
        # §8: "all four levels of victory ... the player's performance is deemed just perfect"
        Outcome("perfect", "perfect (all four victories)", "high", "#56B4E9", "*", "cross", (0, (1, 2))),
        Outcome("defeat", "defeat", "low", "#000000", "X", "cross", (0, (5, 2))),
        Outcome("no_result", "no result", "low", "#999999", "v", "triangle-down", (0, (1, 2))),
    ),
    wins=("operational", "tactical", "strategic", "political"),
    loss="defeat",
    all_wins="perfect",
    no_result="no_result",
    end_reason="end_reason",
    end_turn="end_turn",
    main="operational",  # §8: "the main mission ... an operational victory"
    loss_reasons=("vehicle destroyed", "VL2 commander killed", "turn 40"),
    trigger="first_fire_turn",
    acted="gave a Fire order",
    distributions=("end_turn", "first_fire_turn", "first_fire_roe", "heavy_damage", "light_damage", "damage"),
    totals=(("damage", "damage, heavy + light", ("heavy_damage", "light_damage")),),
    loss_factors=("loss_cause", "loss_vehicle", "loss_place", "end_turn"),
    loss_text="A vehicle destroyed (§7.1.3: an APC hit, or a tank hit twice in the same place) "
              "or VL2's commander killed (§7.1.2) ends the game at once (§8); the charts break "
              "those defeats down by the weapon that did it, the vehicle and where it stood, and "
              "the turn, as shares of all games. A loss is heavy damage or a killed commander on "
              "any vehicle.",
    no_loss="no loss (turn 40)",  # §8 optional rule: not won by turn 40
    first_loss="first_loss_turn",
    never_lost="no vehicle lost anything (heavy damage or commander)",
    draws="random_draws",
)
