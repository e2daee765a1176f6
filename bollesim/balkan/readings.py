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
        "I-FRONT", "the battle is an engagement along an axis, in distances and lanes",
        "The rules leave the table's geometry to the players. The model puts every stand "
        "at a distance along the axis of the attack, in steps of 0.125 km (the attacker's "
        "from the defender's line, the defender's behind it) and, with table.lanes, in a "
        "lane one stand wide (40 mm, Stands and Stand Sizes); without lanes every stand "
        "stands in lane 0. Ranges are measured along the axis; a command area and a road's "
        "contact on the table (a lane is 0.2 km across). Every stand faces the enemy: it "
        "fires ahead, at enemies in its lane or the next (the Firing Rules' arc). The "
        "attacker's table edge is its start, the defender's table.depth behind its line; "
        "the defender's cover is its line (a stand behind it has none). A stand with no "
        "enemy in its arc measures its advance from the defender's line. A close assault "
        "joins an attacker's stand and a defender's within the attacker's stand's "
        "effective range, whichever side goes in. Casualties fall on the stands nearest "
        "the enemy, the most damaged of them first. A general starts at the bulk of his "
        "stands (their lower median) and is never fought over, nor are the transport "
        "stands, which count in the strength but stand nowhere on the table.",
        "front", keys=("battle.start_distance", "table.lanes"),
        fixed="the geometry a table would give is a scenario's, not a rule's",
    ),
    Reading(
        "I-DEFENDER", "the defender holds its line, fires and, as the scenario says, "
        "counter-attacks and rallies",
        "The rules give both sides the same bound; the analysis plays one player, the "
        "attacker, against a scripted defender (the game's, not a player's choice). Its "
        "generals throw their move dice every bound (Move Sequence 1) and pass no digits "
        "down; with battle.rally their digits bring stands behind the line back to it, "
        "the farthest back first; otherwise every stand and general holds where it stands. It fires "
        "at its nearest enemies (with I-FIREFIGHT=per-target each stand at the nearest in "
        "its arc, then the most damaged); with battle.counter it close assaults after a "
        "won firefight. A rallying defender's generals go toward the bulk of their stands.",
        "scripted", keys=("battle.counter", "battle.rally"),
        fixed="the defender's choices are the scenario's keys battle.counter and battle.rally",
    ),
    Reading(
        "I-RETREAT", "the loser of a close assault retires a road march from where it stands",
        "Close Assault Rules: 'The loser of the Close Assault must retire a full Road March "
        "distance at once. If the full Road March move takes the retiring stand or stands "
        "off the battlefield, it may not return.' The default plays it as written: each "
        "losing stand retires its road march (infantry 2 km) from the contact, away from "
        "the enemy, and is lost only if that carries it past its side's table edge (the "
        "defender's table.depth behind its line, the attacker's start) or a river it may "
        "not cross bars it (I-BLOCKED). A defender pushed off its line loses its cover.",
        "road-march",
        alternatives=(Variant("leaves", "the model before: a defender that loses leaves the "
                              "field at once; an attacker falls back to a road march from "
                              "the defender's line", {"interpretations.retreat": "leaves"},
                              "the text's retreat of a road march, a stand lost only off "
                              "the table"),),
    ),
    Reading(
        "I-BLOCKED", "a stand that cannot retire is lost",
        "Close Assault Rules: the loser 'must retire a full Road March distance'; Movement "
        "Rules: rivers are crossed only at bridges and fords (field, medium and heavy "
        "artillery only at bridges). Nothing says what becomes of a stand that cannot "
        "retire. The default: a stand whose retreat crosses a river with no crossing it "
        "may use in its lane cannot retire and is lost (forced to leave the field, Winning "
        "a Battle).",
        "lost",
        alternatives=(Variant("stops", "it retires as far as the river and stays on that "
                              "bank", {"interpretations.blocked": "stops"}),),
    ),
    Reading(
        "I-FIREFIGHT", "each side's stands in range fire one firefight a bound",
        "Firing Rules: both sides 'throw one D6 dice for each stand that is firing at the "
        "same target', so each target has a firefight of its own; 'No stands may fire more "
        "than once'. The default keeps the model's one firefight a bound, unlike the text: "
        "every stand with an enemy in range and arc fires at its nearest enemy (its "
        "modifiers by that target), all in one contest, the casualties on each side's "
        "stands nearest the enemy, and a won firefight lets every close stand assault.",
        "one",
        alternatives=(Variant("per-target", "as written: each stand of the moving side "
                              "picks a target (the attacker: tactics.target, the nearest in "
                              "its arc, then the most damaged; the defender the same), and "
                              "the stands firing at one target are one firefight; the target "
                              "replies at the nearest of them it reaches, and every other "
                              "stand of its side that reaches a firing stand picks one the "
                              "same way and fires in its firefight; casualties fall on the "
                              "firers and on the target and those that joined it, and a won "
                              "firefight lets its close firers assault those stands",
                              {"interpretations.firefight": "per_target"}),),
    ),
    Reading(
        "I-BEYOND", "the -1 beyond effective range applies up to maximum range",
        "Firing Modifiers: 'Rifle, Carbine, or Machine Gun stands firing at greater than "
        "Effective Range and less than Maximum Range: -1'. Read to the letter, a stand at "
        "exactly maximum range fires without the -1, better than a step closer. The "
        "default reads 'less than' as 'up to': the modifier covers the whole band beyond "
        "effective range.",
        "to-maximum",
        alternatives=(Variant("literal", "to the letter: no -1 at exactly maximum range",
                              {"interpretations.beyond": "literal"}),),
    ),
    Reading(
        "I-UNANSWERED", "a side that cannot reply totals 0 and loses the firefight",
        "Move Sequence 3: 'Both sides may fire at enemy stands that are within range'; "
        "Firing Rules: 'Total the modified D6 dice scores for both ... The side with the "
        "highest modified D6 dice score is deemed to have won the firefight'. Nothing says "
        "what happens when one side has nothing in range. The default totals it 0: the "
        "firing side wins and inflicts its total over six and its sixes (a veteran machine "
        "gun at 1.5 km wins every firefight against infantry that cannot reply).",
        "zero",
        alternatives=(
            Variant("none", "no firefight when one side cannot reply: no dice, no "
                    "casualties, no winner", {"interpretations.unanswered": "none"}),
            Variant("sixes", "the firing side throws; nobody wins; only its sixes cause "
                    "casualties", {"interpretations.unanswered": "sixes"}),
        ),
    ),
    Reading(
        "I-MOVES", "a stand may be moved again by another digit in the same bound",
        "Generals and Orders: a General 'may move single stands or group of stands for "
        "every digit'; Movement Rules: 'One digit ... is expended to move a stand or a "
        "group of stands'. Whether one stand may take two digits in one bound the text does "
        "not say. The default lets a group move again with another digit (the model "
        "before).",
        "again",
        alternatives=(Variant("once", "each stand moves at most once a bound, as in De "
                              "Bellis Antiquitatis, which the rules credit; the unused "
                              "digits lengthen moves (I-SPARE)",
                              {"interpretations.moves": "once"}),),
    ),
    Reading(
        "I-SPARE", "each unused digit lengthens the moves of the general's stands by 0.25 km",
        "Movement Rules: 'A General may add 0.25km (5cm) for every unused digit of their "
        "modified D6 dice score.' To what, the text does not say. The default reads it "
        "with the sentences on moving stands around it: each group the general moved in "
        "the bound goes 0.25 km further toward its goal for every digit he left unused.",
        "stands",
        alternatives=(Variant("general", "the distance lengthens the general's own move",
                              {"interpretations.spare": "general"}),),
    ),
    Reading(
        "I-FORMATION", "a group is in line or in column",
        "Movement Rules: a group moving together 'may not change formation unless a "
        "further digit ... is expended'; 'One digit ... is expended to change the formation "
        "of a group of stands'. The rules name no formation. The model reads the period's "
        "two: a line (the stands side by side, a lane each) and a column (one behind "
        "another in one lane, sharing its distance). Only a column or a single stand keeps "
        "to a road's lane. A column deploying into line spreads to either side (its middle "
        "stand keeps the lane); a line forming column gathers on its middle stand's lane.",
        "line-and-column",
        fixed="the rules name no formations to choose between; these are the era's two",
    ),
    Reading(
        "I-COLUMN", "in a column only the leading stand fires",
        "Firing Rules: stands fire 'straight ahead or one stand width sideways and ahead'. "
        "A column's stands stand one behind another in one lane (I-FORMATION), so straight "
        "ahead of all but the first is a friend: the default lets only its leading stand "
        "(the first on the field in stand order) fire, and so close assault.",
        "head",
        alternatives=(Variant("all", "every stand of a column fires",
                              {"interpretations.column": "all"}),),
    ),
    Reading(
        "I-CONTACT", "road speed needs the move to end beyond 1 km of every enemy stand",
        "Terrain: roads speed troops 'as long as they do not move off the road and they "
        "remain out of contact with the enemy'. The rules define no contact. The default "
        "reads it as out of the enemy's rifles: a move is at road speed only when it ends "
        "more than 1 km (8 steps) from every enemy stand.",
        "rifle-range",
        alternatives=(Variant("touching", "contact is 0.125 km or closer",
                              {"interpretations.road_contact": 1}),),
    ),
    Reading(
        "I-CROSSING", "a move across a river is made at the difficult rate",
        "Terrain: crossing a river 'imposes penalties upon the movement of all troops', "
        "and bridges and fords are Difficult Terrain. How a move that crosses is measured "
        "the text leaves open. The default makes the whole move at the difficult rate.",
        "whole-move",
        alternatives=(Variant("far-bank", "the move ends on the far bank, 0.125 km past the "
                              "river", {"interpretations.crossing": "far_bank"}),),
    ),
    Reading(
        "I-GENERAL", "a general's own move costs no digit",
        "Movement Rates give a General 3 km on roads and 2 km elsewhere; whether moving the "
        "General figure spends a digit the text does not say. The default: each general "
        "moves once a bound after his stands, free, toward the middle of his stands (the "
        "attacker's: tactics.general_to).",
        "free",
        alternatives=(Variant("digit", "the move spends one of his digits: a general with "
                              "none left stays", {"interpretations.general_move": "digit"}),),
    ),
)
