"""The declaration of a Balkan Wars scenario file (default.toml): every key once, with
its kind, range, meaning and provenance, a section of the battle rules as the published
text names them ("Weapon Ranges", "Firing Modifiers", ...) or a reading (readings.py).

Distances are counted in steps of 0.125 km (2.5 cm on the table), the smallest distance
the rules name ("No stand may fire at a target at a range of less than 0.125km"): rifles
reach 2 steps effective and 8 maximum. A stand's distance is from the defender's line.
"""

from __future__ import annotations

from pathlib import Path

from bollesim.game.schema import Choice, Flag, Int, Key, ListOf, Rows, Schema, Table, Text

DEFAULT_PATH = Path(__file__).with_name("default.toml")

MAX_STANDS = 16  # stands of one side, in the fast engine's buffers ("approximately twelve")
MAX_SUBORDINATES = 3  # subordinate generals of one side (brigade commanders)
MAX_DICE = 2  # dice one stand throws
MAX_STEPS = 120  # 15 km: the longest distance a scenario may start at
MAX_LANES = 40  # lanes a stand's entry may start in (a lane is a stand's width, 40 mm)
MAX_MG = 1  # Armies: "no more than one may be a Machine Gun stand"

TYPES = ("infantry", "machine_gun", "cavalry", "mountain_artillery", "field_artillery",
         "medium_artillery", "heavy_artillery")
WEAPONS = ("rifle", "machine_gun", "artillery")
QUALITIES = ("veteran", "trained", "green")
GENERALS = ("excellent", "good", "average", "poor")
COVERS = ("none", "field", "hardened")
TERRAINS = ("normal", "difficult")
FORMATIONS = ("line", "column")
SIXES = ("modified", "rolled")
CLAMPS = ("die", "total")
TIES = ("none", "defender")
RETREATS = ("road_march", "leaves")
BLOCKED = ("lost", "stops")
FIREFIGHTS = ("one", "per_target")
BEYOND = ("to_maximum", "literal")
UNANSWERED = ("zero", "none", "sixes")
MOVES = ("again", "once")
SPARE = ("stands", "general")
COLUMNS = ("head", "all")
CROSSINGS = ("whole_move", "far_bank")
GENERAL_MOVES = ("free", "digit")

STEPS = Int(0, MAX_STEPS)
DRM = Int(-6, 6)


def side(name: str) -> Table:
    attacker = name == "attacker"
    where = (Key("at", Int(0, MAX_STEPS), "steps from the defender's line at the start (0: "
                 "the battle's start_distance, the attacker's table edge)", default=0)
             if attacker else
             Key("depth", Int(0, MAX_STEPS), "steps behind the defender's line at the start "
                 "(0: on the line, in its cover)", default=0))
    return Table(name, "the scenario", (
        Key("general", Choice(GENERALS, "general"), "the side's commanding general's quality "
            "(Generalship Qualities)"),
        Key("cover", Choice(COVERS, "cover"), "the side's cover: none, field (trenches, a "
            "built-up area) or hardened fortifications (Firing Modifiers); the defender's "
            "only on its line (I-FRONT)"),
        Key("artillery_sees", Flag(), "the side's artillery has its target in line of sight "
            "(Firing Modifiers)"),
        Key("other_stands", Int(0, 8), "transport and general stands: they count in the "
            "pre-battle strength but are not fought over (Armies, Winning a Battle)"),
        Rows("subordinates", "the commanding general's subordinate generals, each throwing "
             "his own move die (Move Sequence 1; Generals and Orders)", (
                 Key("quality", Choice(GENERALS, "general"), "the subordinate's quality "
                     "(Generalship Qualities)"),
             ), label=""),
        Rows("stands", "the side's troop stands, by type and quality", (
            Key("type", Choice(TYPES, "type"), "the troop type (Troop Types)"),
            Key("quality", Choice(QUALITIES, "quality"), "veteran, trained or green "
                "(Troop Types)"),
            Key("count", Int(1, MAX_STANDS), "how many such stands"),
            Key("general", Int(0, MAX_SUBORDINATES), "the general commanding them: 0 the "
                "side's commander, k its k-th subordinate (Move Sequence 2)", default=0),
            Key("lane", Int(0, MAX_LANES), "the lane of the first stand (a lane is a stand's "
                "width; with table.lanes)", default=0),
            Key("formation", Choice(FORMATIONS, "formation"), "line: the stands side by side "
                "in lanes from `lane` on; column: one behind another in `lane` (Movement "
                "Rules, I-FORMATION)", default="line"),
            where,
        ), label=""),
    ))


DECLARATION = (
    Key("name", Text(), "the scenario's name, recorded in every run's manifest"),
    Table("battle", "Moves, Winning a Battle; the scenario", (
        Key("bounds", Int(1, 40), "bounds each side plays before the day ends (a bound is "
            "half an hour: Scales)"),
        Key("break_percent", Int(0, 100), "an army loses when more than this percent of its "
            "pre-battle stands are destroyed or have left the field (Winning a Battle)"),
        Key("start_distance", Int(1, MAX_STEPS), "the attacker's distance from the "
            "defender's line at the start, in steps of 0.125 km: the attacker's table edge "
            "(the scenario, I-FRONT)"),
        Key("approach", Choice(TERRAINS, "terrain"), "the table's ground: normal or "
            "difficult (Terrain, Movement Rates)"),
        Key("counter", Flag(), "the defender's policy: close assault after it wins a "
            "firefight in its own bound (false: hold and fire)"),
        Key("rally", Flag(), "the defender's policy: its generals' move digits bring stands "
            "behind its line back to it (false: every stand holds where it stands)"),
    )),
    Table("table", "Terrain, Movement Rules; the scenario", (
        Key("depth", Int(1, MAX_STEPS), "steps from the defender's line to its table edge "
            "behind it: a retreat past it leaves the field (Close Assault Rules)"),
        Key("lanes", Flag(), "the table has width: each stand stands in a lane one stand "
            "wide and fires within its arc (Firing Rules); false: the front at one point, "
            "every stand in lane 0, within every enemy's arc (I-FRONT)"),
        Key("road", Int(-1, MAX_LANES), "the lane of a road running the table's depth "
            "(Terrain: Roads); -1: none"),
        Key("river", Int(0, MAX_STEPS), "a river across the table this many steps from the "
            "defender's line, on the attacker's side (Terrain: Rivers); 0: none"),
        Key("bridge", Int(-1, MAX_LANES), "the lane of the river's bridge; -1: none"),
        Key("ford", Int(-1, MAX_LANES), "the lane of the river's ford; -1: none"),
        Key("impassable", ListOf(Int(0, MAX_LANES)), "lanes of ground no stand may enter "
            "(Terrain: marshes, cliffs, lakes): no stand starts there, no column deploys onto "
            "them, no general crosses them"),
    )),
    Table("generals", "Generalship Qualities", (
        Key("excellent", DRM, "move dice modifier of an Excellent general"),
        Key("good", DRM, "move dice modifier of a Good general"),
        Key("average", DRM, "move dice modifier of an Average general"),
        Key("poor", DRM, "move dice modifier of a Poor general"),
        Key("excellent_area", STEPS, "command area of an Excellent general, in steps"),
        Key("good_area", STEPS, "command area of a Good general, in steps"),
        Key("average_area", STEPS, "command area of an Average general, in steps"),
        Key("poor_area", STEPS, "command area of a Poor general, in steps"),
        Key("normal", STEPS, "a general's own move over normal terrain (Movement Rates)"),
        Key("difficult", STEPS, "a general's own move over difficult terrain "
            "(Movement Rates)"),
        Key("road", STEPS, "a general's own move on a road (Movement Rates)"),
    )),
    Rows("types", "the troop types: weapon, ranges, dice, figures and movement", (
        Key("id", Choice(TYPES, "type"), "the troop type"),
        Key("weapon", Choice(WEAPONS, "weapon"), "rifle (and carbine), machine_gun or "
            "artillery (Weapon Ranges)"),
        Key("effective", STEPS, "effective range (rifles, machine guns) or short range "
            "(artillery), in steps (Weapon Ranges)"),
        Key("maximum", STEPS, "maximum range, in steps (Weapon Ranges)"),
        Key("dice_near", Int(1, MAX_DICE), "dice a stand throws at effective or short range "
            "(Firing Rules: artillery two)"),
        Key("figures", Int(1, 8), "casualties that destroy a stand (Stands and Stand Sizes)"),
        Key("normal", STEPS, "steps a move takes it over normal terrain (Movement Rates)"),
        Key("difficult", STEPS, "steps a move takes it over difficult terrain, bridges and "
            "fords included (Movement Rates, Terrain)"),
        Key("road", STEPS, "steps a move takes it on a road, and a road march, the distance "
            "a loser of a close assault retires (Movement Rates, Close Assault Rules)"),
        Key("ford", Flag(), "it may cross a river by a ford as well as by a bridge "
            "(Movement Rules)"),
    ), source="Stands and Stand Sizes, Movement Rates, Weapon Ranges, Firing Rules"),
    Table("modifiers", "Firing Modifiers, Close Assault Modifiers", (
        Key("field", DRM, "the target (or the defender of a close assault) is in field "
            "fortifications or a built-up area"),
        Key("hardened", DRM, "the target is in hardened fortifications"),
        Key("veteran", DRM, "a veteran stand's dice"),
        Key("trained", DRM, "a trained stand's dice"),
        Key("green", DRM, "a green stand's dice"),
        Key("beyond_effective", DRM, "rifles and machine guns firing beyond effective range"),
        Key("unseen", DRM, "artillery firing at a target not in line of sight"),
    )),
    side("attacker"),
    side("defender"),
    Table("interpretations", "readings of the rules' silences: docs/balkan-wars.md", (
        Key("six", Choice(SIXES), "which die is a six that inflicts a casualty: a modified "
            "score of six, or a rolled six (I-SIX)"),
        Key("clamp", Choice(CLAMPS), "where the 1-to-6 limit applies: to each die, or to the "
            "total (between one and six a die) (I-CLAMP)"),
        Key("tie", Choice(TIES), "a tied close assault: nobody retires, or the assaulting "
            "side retires (I-TIE)"),
        Key("retreat", Choice(RETREATS), "the loser of a close assault retires a road march "
            "from where it stands, or the old model: a defender leaves the field (I-RETREAT)"),
        Key("blocked", Choice(BLOCKED), "a stand whose retreat a river it may not cross "
            "bars: lost, or stops at the bank (I-BLOCKED)"),
        Key("firefight", Choice(FIREFIGHTS), "one firefight a bound for each side's stands "
            "in range, or one for each target (I-FIREFIGHT)"),
        Key("beyond", Choice(BEYOND), "the -1 beyond effective range applies up to maximum "
            "range, or only short of it (I-BEYOND)"),
        Key("unanswered", Choice(UNANSWERED), "a firefight one side cannot answer: it totals "
            "0, no firefight, or only the sixes count (I-UNANSWERED)"),
        Key("moves", Choice(MOVES), "a stand may be moved again by another digit in the "
            "same bound, or once (I-MOVES)"),
        Key("spare", Choice(SPARE), "the 0.25 km of each unused digit lengthens the moves "
            "of the general's stands, or his own move (I-SPARE)"),
        Key("column", Choice(COLUMNS), "in a column only the leading stand fires, or every "
            "stand (I-COLUMN)"),
        Key("road_contact", Int(1, MAX_STEPS), "a road move is at road speed only if it "
            "ends more than this many steps from every enemy stand (I-CONTACT)"),
        Key("crossing", Choice(CROSSINGS), "a move across a river is made at the difficult "
            "rate, or ends on the far bank (I-CROSSING)"),
        Key("general_move", Choice(GENERAL_MOVES), "a general's own move is free, or costs "
            "one of his digits (I-GENERAL)"),
    )),
)

SCHEMA = Schema(DECLARATION)
