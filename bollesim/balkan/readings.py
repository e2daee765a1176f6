"""The readings of the Balkan Wars battle rules: where the text is silent or ambiguous,
a default and the plausible alternatives, each a set of scenario values (the machinery
is any game's: bollesim/game/rulebook.py). docs/balkan-wars.md explains each."""

from __future__ import annotations

from bollesim.game.readings import Reading, Variant

READINGS: tuple[Reading, ...] = (
    Reading(
        "I-SIX", "a six reached by a modifier counts as a six",
        "Firing Rules: 'any modified D6 dice score of six will cause a casualty on the "
        "opposing side'. The default reads the modified score: a veteran's rolled five is "
        "a six, a green stand's rolled six is not.",
        "modified",
        alternatives=(Variant("rolled", "only a rolled six inflicts the casualty, whatever "
                              "the modifiers", {"interpretations.six": "rolled"}),),
    ),
    Reading(
        "I-CLAMP", "the 1-to-6 limit is kept by each die",
        "Firing Rules: 'no modified D6 dice score may exceed six or be less that one in "
        "total'. The default limits each die's modified score to 1..6 before the dice are "
        "added; the alternative adds the modified scores and limits only the total to "
        "between one and six a die (a veteran's six then counts seven).",
        "die",
        alternatives=(Variant("total", "the limit applies to the side's total, one to six "
                              "a die", {"interpretations.clamp": "total"}),),
    ),
    Reading(
        "I-TIE", "a tie has no winner",
        "Firing Rules and Close Assault Rules say what the side 'with the highest modified "
        "D6 dice score' wins and nothing of equal scores. The default: a tied firefight "
        "has no winner (so no close assault follows) and a tied close assault makes "
        "nobody retire; the difference is nought, so only sixes cause casualties.",
        "none",
        alternatives=(Variant("defender", "the defending side wins a tied close assault: "
                              "the assaulting stands retire", {"interpretations.tie":
                                                               "defender"}),),
    ),
    Reading(
        "I-MG", "a machine-gun stand throws one die and three casualties destroy it",
        "Stands and Stand Sizes: a machine-gun stand is '1 Machine Gun + 2 Figures'; the "
        "Firing Rules give every stand but artillery one die. The default counts the gun "
        "and its two figures as three casualties.",
        "one-die",
        alternatives=(
            Variant("four-figures", "a machine-gun stand takes four casualties, like "
                    "every other stand", {"types[machine_gun].figures": 4}),
            Variant("two-dice", "a machine-gun stand throws two dice at effective range, "
                    "like artillery at short range", {"types[machine_gun].dice_near": 2}),
        ),
    ),
    Reading(
        "I-FIELD-ART", "field artillery's short range is 1 km",
        "Weapon Ranges print 'Field Artillery: 1km (30cm)', but the rules' scale is 20 cm "
        "a km (1 cm = 50 m) and every other range agrees with it. The default keeps the "
        "kilometre (8 steps); the alternative keeps the 30 cm (1.5 km, 12 steps).",
        "1km",
        alternatives=(Variant("30cm", "short range 1.5 km (30 cm)",
                              {"types[field_artillery].effective": 12},
                              "the scale of 20 cm a km"),),
    ),
    Reading(
        "I-FRONT", "the battle is an engagement along a front, in distances from the line",
        "The rules leave the table's geometry to the players. The model keeps one "
        "distance per attacking stand, all defenders on their line, every stand within "
        "its general's command area and in each other's arc of fire; the stands nearest "
        "the enemy take the fire, the most damaged of them first; a defender that loses "
        "a close assault retires off the position and counts as having left the field.",
        "front", keys=("battle.start_distance",),
        fixed="the geometry a table would give is a scenario's, not a rule's",
    ),
)
