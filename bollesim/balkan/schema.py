"""The declaration of a Balkan Wars scenario file (default.toml): every key once, with
its kind, range, meaning and provenance, a section of the battle rules as the published
text names them ("Weapon Ranges", "Firing Modifiers", ...) or a reading (readings.py).

Distances are counted in steps of 0.125 km (2.5 cm on the table), the smallest distance
the rules name ("No stand may fire at a target at a range of less than 0.125km"): rifles
reach 2 steps effective and 8 maximum. A stand's distance is from the defender's line.
"""

from __future__ import annotations

from pathlib import Path

from bollesim.game.schema import Choice, Flag, Int, Key, Rows, Schema, Table, Text

DEFAULT_PATH = Path(__file__).with_name("default.toml")

MAX_STANDS = 16  # stands of one side, in the fast engine's buffers ("approximately twelve")
MAX_DICE = 2  # dice one stand throws
MAX_STEPS = 120  # 15 km: the longest distance a scenario may start at

TYPES = ("infantry", "machine_gun", "cavalry", "mountain_artillery", "field_artillery",
         "medium_artillery", "heavy_artillery")
WEAPONS = ("rifle", "machine_gun", "artillery")
QUALITIES = ("veteran", "trained", "green")
GENERALS = ("excellent", "good", "average", "poor")
COVERS = ("none", "field", "hardened")
TERRAINS = ("normal", "difficult")
SIXES = ("modified", "rolled")
CLAMPS = ("die", "total")
TIES = ("none", "defender")

STEPS = Int(0, MAX_STEPS)
DRM = Int(-6, 6)


def side(name: str) -> Table:
    return Table(name, "the scenario", (
        Key("general", Choice(GENERALS, "general"), "the side's general's quality "
            "(Generalship Qualities)"),
        Key("cover", Choice(COVERS, "cover"), "the side's cover: none, field (trenches, a "
            "built-up area) or hardened fortifications (Firing Modifiers)"),
        Key("artillery_sees", Flag(), "the side's artillery has its target in line of sight "
            "(Firing Modifiers)"),
        Key("other_stands", Int(0, 8), "transport and general stands: they count in the "
            "pre-battle strength but are not fought over (Armies, Winning a Battle)"),
        Rows("stands", "the side's troop stands, by type and quality", (
            Key("type", Choice(TYPES, "type"), "the troop type (Troop Types)"),
            Key("quality", Choice(QUALITIES, "quality"), "veteran, trained or green "
                "(Troop Types)"),
            Key("count", Int(1, MAX_STANDS), "how many such stands"),
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
            "defender's line at the start, in steps of 0.125 km (the scenario)"),
        Key("approach", Choice(TERRAINS, "terrain"), "the ground the attacker crosses: "
            "normal or difficult (Terrain, Movement Rates)"),
        Key("counter", Flag(), "the defender's policy: close assault after it wins a "
            "firefight in its own bound (false: hold and fire)"),
    )),
    Table("generals", "Generalship Qualities", (
        Key("excellent", DRM, "move dice modifier of an Excellent general"),
        Key("good", DRM, "move dice modifier of a Good general"),
        Key("average", DRM, "move dice modifier of an Average general"),
        Key("poor", DRM, "move dice modifier of a Poor general"),
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
        Key("difficult", STEPS, "steps a move takes it over difficult terrain "
            "(Movement Rates)"),
        Key("road", STEPS, "a road march, the distance a loser of a close assault retires "
            "(Movement Rates, Close Assault Rules)"),
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
    )),
)

SCHEMA = Schema(DECLARATION)
