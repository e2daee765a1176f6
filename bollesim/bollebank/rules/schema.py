"""The declaration of the ruleset file: every key once, with its type, shape, range,
meaning and provenance (the kinds of value are any game's: bollesim/game/schema.py).

Everything else derives from it: the loader's checks and messages (unknown keys with the
nearest known one, values outside their range), `rules show`, the packed vector both
engines and the policies read (rules/packed.py: every scalar below gets a slot, in this
order) and docs/ruleset.md (rules/docs.py writes it; a test keeps it current).

A ruleset is TOML. Top-level keys are `Key`s, `[table]`s are `Table`s and arrays of
tables (`[[map.positions]]`) are `Rows`; every table and every row may carry a `source`
string (its provenance: a rulebook section `§N` or an id of docs/readings.md). A key
path names a value everywhere (loader messages, `--set`, docs): `roe.fire_allowed`,
`map.positions[K1].fp`, `chits.groups[3].count`.

The ranges are what both engines can play: integers stay small (no overflow in the fast
engine's int64 arithmetic), lists fit the fast engine's buffers (the capacities below).
"""

from __future__ import annotations

from pathlib import Path

from bollesim.bollebank import codes
from bollesim.game.schema import (
    Choice,
    Flag,
    Int,
    Key,
    ListOf,
    Mask,
    Record,
    Rows,
    Schema,
    Table,
    Text,
)

DEFAULT_PATH = Path(__file__).with_name("default.toml")
"""The shipped ruleset."""

# ------------------------------------------------------------------ capacities
# The fast engine's fixed buffers; a ruleset that would overflow one is refused at load.
MAX_TRACK = 16  # chits on one weapon track (one track value per chit of its type)
MAX_POOL_CHITS = 54  # weapon pool chits (with one random-unit chit per vehicle and the
#                      setup marker: 64 chit ids)
MARKERS_PER_POOL = 4  # enemy-action markers in one pool (§6.2)
MAX_GROUPS = 120  # recipient groups of all platoons together (two or more of a platoon)
N_ABILITIES = 3  # ability markers, one per command vehicle (§5.5)
N_RELAYS = 2  # radio relays (§5.1: QL1 and QL3)
ROE_TRACK = (1, 24)  # §2.1.4: the RoE track's boxes
MAX_TURNS = 40  # §8 optional rule: play to turn 40

POSITION = "position"
VEHICLE = "vehicle"

WEAPONS3 = codes.WEAPON_NAMES[:3]  # tank, atgm, hmg: the BSA direct-fire weapons
TRACKS4 = codes.WEAPON_NAMES[:4]  # and artillery: the four tracks
ROE_LEVEL = Int(*ROE_TRACK)
ROE_CHANGE = Int(-24, 24)
DRM = Int(-6, 6)
D6_MAX = Int(0, 6)  # the highest d6 roll that succeeds (0: never)
POSITIONS = Choice(codes.POSITIONS, POSITION, by_id=True)
VEHICLES = Choice(codes.VEHICLES, VEHICLE, by_id=True)
PER_VEHICLE = f"one per vehicle, in the order of vehicles.ids ({codes.N_VEHICLES})"


def die_table(names: tuple[str, ...]) -> ListOf:
    return ListOf(Choice(names), 6, "by d6 face, 1 to 6")


DECLARATION: tuple[Key | Table | Rows, ...] = (
    Key("name", Text(), "the ruleset's name, recorded in every run's manifest"),
    Table("game", "§4, §8, §3 step 9, I-DEADLINE", (
        Key("turn_limit", Int(1, MAX_TURNS), "the last turn of a game (§4: twenty)",
            slot="S_BASE_TURN_LIMIT"),
        Key("extended_turn_limit", Int(1, MAX_TURNS),
            "the last turn when the game is extended (§8 optional rule)"),
        Key("extend_to_40", Flag(), "§8 optional rule: play on to extended_turn_limit, then "
            "a loss", slot="S_EXTEND"),
        Key("deadline_start", Int(1, MAX_TURNS), "the turn the T2 deadline marker starts on "
            "(§3 step 9, I-DEADLINE)"),
        Key("deadline_max", Int(1, MAX_TURNS),
            "the latest turn the Extra turn ability can move the deadline to (§5.5)"),
        Key("tanks_needed_at_t2", Int(1, codes.N_VEHICLES),
            "tanks at Tango 2 for an operational victory (§8)", slot="S_TANKS_NEEDED"),
    )),
    Table("roe", "§2.1.4, §5.2, §7.1.2, §7.1.3, §7.2, I-ROE0", (
        Key("start", ROE_LEVEL, "the RoE level at setup (I-ROE0)", slot="S_ROE_START"),
        Key("min", ROE_LEVEL, "the lowest RoE level (the track's first box)", slot="S_ROE_MIN"),
        Key("max", ROE_LEVEL, "the highest RoE level (the track's last box)", slot="S_ROE_MAX"),
        Key("fire_allowed", ROE_LEVEL,
            "the RoE level from which a first Fire order may be given (§2.1.4)"),
        Key("unrestricted", ROE_LEVEL, "the RoE level of Unrestricted fire: strategic victory, "
            "airstrike (§2.1.4, §8)"),
        Key("hold_fire_attack", ROE_CHANGE, "RoE change per enemy attack under Hold Fire "
            "(§7.1.2)", slot="S_HOLD_ATTACK"),
        Key("heavy_damage_hold", ROE_CHANGE, "RoE change per heavy damage under Hold Fire "
            "(§7.1.3)", slot="S_HEAVY_HOLD"),
        Key("heavy_damage_fire", ROE_CHANGE, "RoE change per heavy damage under Fire at Will "
            "(§7.1.3)", slot="S_HEAVY_FIRE"),
        Key("commander_killed_hold", ROE_CHANGE, "RoE change when a tank commander is killed "
            "under Hold Fire (§7.1.3)", slot="S_KIA_HOLD"),
        Key("commander_killed_fire", ROE_CHANGE, "RoE change when a tank commander is killed "
            "under Fire at Will (§7.1.3)", slot="S_KIA_FIRE"),
    )),
    Table("vehicles", "§2.2.1, §5.1, §3 step 5", (
        Key("ids", ListOf(Text(), codes.N_VEHICLES), "the rulebook's nine vehicles, in this order "
            f"(it is the vehicle index everywhere): {', '.join(codes.VEHICLES)}"),
        Key("kind", ListOf(Choice(("apc", "tank")), None, PER_VEHICLE),
            "apc or tank: only tanks fire, tow and count at Tango 2"),
        Key("platoon", ListOf(Int(0, codes.N_VEHICLES), None, PER_VEHICLE),
            "platoon number, 0 = none (battalion HQ); platoon orders go to groups of one "
            "platoon (§5.4.1)"),
        Key("hq", ListOf(Flag(), None, PER_VEHICLE),
            "battalion HQ vehicle: a tow needs one within tow range (§5.4.3)"),
        Key("relays", ListOf(VEHICLES, N_RELAYS),
            "the vehicles an order is relayed through (§5.1)"),
        Key("commander", VEHICLES, "the player's vehicle: moves without orders, its commander "
            "killed loses the game (§5, §7.1.2)", slot="S_COMMANDER"),
        Key("start", POSITIONS, "where every vehicle starts (§3 step 5)"),
    )),
    Table("map", "§2.1.1, R-MAP, R-FOF", (
        Key("roads", ListOf(ListOf(POSITIONS, 2)),
            "pairs of adjacent positions; a move takes one road step (§2.1.1, §6.2)"),
        Key("saraci", POSITIONS, "Saraci's contact point (I-TACV)"),
        Key("kalesija", POSITIONS, "Kalesija's contact point"),
        Key("tango2", POSITIONS, "the Tango 2 contact point (§8)"),
        Key("op_n", POSITIONS, "the OP N contact point (§5.1)", slot="S_OPN"),
        Rows("positions", "the map's positions, in the order of codes.POSITIONS", (
            Key("id", Text(), "the position's id; the rulebook's positions in this order: "
                + ", ".join(codes.POSITIONS)),
            Key("name", Text(), "the rulebook's name for it, used in narration (\"SK-1 CKP\", "
                "§2.1.1, §11); empty: the id", ""),
            Key("kind", Choice(codes.KIND_NAMES),
                "cp (contact point), ckp (checkpoint) or ow (overwatch) (§2.1.1)"),
            Key("stack", Int(0, codes.N_VEHICLES), "stacking limit, 0 = unlimited (§2.1.1)", 0),
            Key("town", Choice(codes.TOWN_NAMES), "S or K: an overwatch of Saraci or Kalesija", ""),
            Key("letter", Choice(codes.LETTER_NAMES),
                "line-of-sight letter of an overwatch: L, C or R (§2.1.1)", ""),
            Key("art", Choice(codes.ART_TARGET_NAMES),
                "artillery target group: S, K, T2, or none (§2.1.1, §7.2)", "none"),
            Key("road", Choice(("", "KT2")),
                "KT2: on the Kalesija-Tango 2 road (§5.4.1 move restrictions)", ""),
            Key("fp", Int(0, 99), "firing priority of a fixed field of fire, 0 = none (R-FOF)", 0),
            Key("bsa", Mask(WEAPONS3, "weapon"),
                "BSA weapons that can fire at a fixed field of fire (R-FOF)", []),
            Key("un", Mask(TRACKS4, "track"),
                "UN fire icons: the tracks a UN tank may fire at from here (R-FOF)", []),
            Key("un_fire", Choice(("", "direct", "indirect")),
                "direct, or indirect (hollow icon: hits on 1-5) (§6.3, R-FOF)", ""),
            Key("eam_pool", Choice(codes.POOL_NAMES),
                "enemy-action marker pool drawn on first entry: 123 or 789 (§6.2)", ""),
        )),
    )),
    Rows("enemy_action_markers", "the markers drawn for the exposed checkpoints (§6.2, R-EAM)", (
        Key("id", Text(), "the marker's name"),
        Key("pool", Choice(codes.POOL_NAMES[1:]), "its pool: 123 or 789"),
        Key("fp", Int(1, 99), "its firing priority"),
        Key("sides", ListOf(Record((
            Key("bsa", Mask(WEAPONS3, "weapon"), "BSA weapons that fire at the position", []),
            Key("un", Mask(TRACKS4, "track"), "tracks a UN tank may fire at from there", []),
        )), 2), "its two sides (a 7-8-9 marker lands on a random side)"),
    ), source="R-EAM"),
    Table("chits", "§3 step 1 (counts), R-CHITS (letters, targets)", (
        Rows("groups", "the enemy weapon pool: each group is `count` identical chits", (
            Key("type", Choice(codes.WEAPON_NAMES[:5]), "tank, atgm, hmg, art or car"),
            Key("letter", Choice(codes.LETTER_NAMES),
                "line-of-sight letter L, C or R (§2.2.2)", ""),
            Key("count", Int(0, MAX_TRACK), "how many chits"),
            Key("double", Flag(), "an HMG chit that fires at two targets (§7.1)", False),
            Key("art_target", Choice(codes.ART_TARGET_NAMES),
                "an artillery chit's target: S, K, T2 or none (No art.) (§7.2)", "none"),
        ), label=""),
        Key("setup_artillery_target", Choice(codes.ART_TARGET_NAMES),
            "the target of the special marker on the artillery track's setup space (§3 step 6)",
            slot="S_SETUP_ART_TARGET"),
    )),
    Table("tracks", "§2.1 map captions, §7.1.1, §11, R-TRACK", (
        Key("tank_hot_min", ListOf(Int(1, 7), None, "one per tank chit", falling=True),
            "enemy tanks are hot on a d6 of at least this, by tank chits on the track"),
        Key("tank_to_hit", Int(2, 13), "hot enemy tanks hit on 2d6 of at least this"),
        Key("atgm_to_hit", ListOf(Int(2, 13), None, "one per ATGM chit", falling=True),
            "ATGMs hit on 2d6 of at least this, by ATGM chits on the track"),
        Key("hmg_to_hit", ListOf(Int(2, 13), None, "one per HMG chit", falling=True),
            "HMGs hit on 2d6 of at least this, by HMG chits on the track"),
        Key("atgm_overwatch_drm", DRM, "ATGM modifier when a UN vehicle holds an overwatch of "
            "the last ATGM chit's letter (§7.1.1)", slot="S_ATGM_OW_DRM"),
    )),
    Table("order_matrix", "R-MATRIX, §5.3, §11", (
        Key("types", ListOf(Text(), 4), "the chit types of rows and columns: "
            + ", ".join(TRACKS4)),
        Key("orders", ListOf(ListOf(Mask(("fire", "move"), "order"), 4), 4),
            "[first chit][second chit]: the orders the pair allows (PAS1)"),
        Key("scope", ListOf(ListOf(Choice(("single", "platoon")), 4), 4),
            "[first chit][second chit]: single vehicle, or platoon (or any one vehicle)"),
    )),
    Table("damage", "R-HIT, §7.1.3, §7.2, §7.2.1, §11 (HMG 4 hits the hull)", (
        Key("tank_hit", die_table(codes.HEAVY_NAMES), "where an enemy tank hit lands (PAS4)"),
        Key("atgm_hit", die_table(codes.HEAVY_NAMES), "where an ATGM hit lands (PAS4)"),
        Key("hmg_hit", die_table(codes.HEAVY_NAMES), "where an HMG hit lands (PAS4)"),
        Key("artillery_hit", die_table(codes.HEAVY_NAMES),
            "where artillery heavy damage lands (§7.2)"),
        Key("light", die_table(codes.LIGHT_NAMES), "the light damage of a random-unit chit "
            "(§7.2.1); each kind must appear, as the roll repeats until it gives a new one"),
        Key("hmg_kills_commander_on", Int(1, 7), "an unbuttoned commander is killed on a d6 of "
            "at least this after an HMG attack (§7.1.2)", slot="S_HMG_KILL_ON"),
        Key("commander_killed_acts_max", D6_MAX, "a vehicle whose commander was killed acts on "
            "a d6 up to this (§7.1.3)", slot="S_KIA_ACTS_MAX"),
    )),
    Table("artillery", "§7.2", (
        Key("only_effects_roll", Int(1, 12), "2d6 up to this: only the further effects",
            slot="S_ART_ONLY_EFFECTS"),
        Key("heavy_damage_roll", Int(2, 13), "2d6 of at least this: the drawn vehicle takes "
            "heavy damage", slot="S_ART_HEAVY"),
        Key("roe_on_s_or_k", ROE_CHANGE, "RoE change when artillery fires at S or K",
            slot="S_ART_ROE_SK"),
        Key("deadline_on_t2", Int(-MAX_TURNS, MAX_TURNS),
            "T2 deadline change when artillery fires at T2", slot="S_ART_DEADLINE_T2"),
        Key("roe_on_no_art", ROE_CHANGE, "RoE change when a regular No art. chit fires",
            slot="S_ART_ROE_NO_ART"),
    )),
    Table("fire", "§6.3, §7.2.1", (
        Key("indirect_hit_max", D6_MAX, "indirect UN fire (hollow icon) hits on a d6 up to this",
            slot="S_INDIRECT_MAX"),
        Key("sights_hit_max", D6_MAX, "a tank with misaligned sights hits on a d6 up to this",
            slot="S_SIGHTS_MAX"),
        Key("depot_rolls", Int(1, 9), "this many Saraci overwatch shots in a turn, all rolling "
            "1, blow up the ammunition depot"),
    )),
    Table("movement", "§6.2, §5.4.3", (
        Key("night_vision_fail_min", Int(-5, 7), "a vehicle with night-vision damage does not "
            "move on a modified d6 of at least this", slot="S_NV_FAIL_MIN"),
        Key("night_vision_adjacent_drm", DRM, "the night-vision roll's modifier per adjacent "
            "position holding an undamaged vehicle", slot="S_NV_ADJ_DRM"),
        Key("tow_range", Int(0, 20), "a tow needs an HQ vehicle within this many road steps "
            "of the rescuer (§5.4.3)"),
        Key("apc_double_move", Flag(), "§6.2 optional rule: APCs may move twice once a tank "
            "reached Kalesija", slot="S_APC_DOUBLE"),
        Key("apc_second_move_from", ListOf(POSITIONS),
            "the positions an APC's first step must enter for its second (§6.2)"),
    )),
    Table("radio", "§5.1", (
        Key("one_damaged_max", D6_MAX, "with one damaged radio in the link, the order arrives "
            "on a modified d6 up to this", slot="S_RADIO_ONE_MAX"),
        Key("same_position_drm", DRM, "modifier when an undamaged vehicle shares the damaged "
            "one's position", slot="S_RADIO_SAME_DRM"),
        Key("ql3_at_opn_drm", DRM, "modifier when QL3 stands at OP N with an undamaged radio",
            slot="S_RADIO_QL3_DRM"),
        Key("two_damaged_max", D6_MAX, "with two damaged radios, the order arrives on a d6 up "
            "to this", slot="S_RADIO_TWO_MAX"),
    )),
    Rows("abilities", "the battalion HQ special ability markers, one per command vehicle (§5.5)", (
        Key("vehicle", VEHICLES, "the command vehicle: where it stands decides the use"),
        Key("level", ROE_LEVEL, "the RoE level from which the marker is available"),
        Key("sides", ListOf(Choice(codes.ABILITY_NAMES), 2), "its two sides"),
    ), label="vehicle", source="§5.5"),
    Table("ability_rules", "§5.5", (
        Key("draw_their_fire_at", POSITIONS, "where the marker's vehicle must stand for Draw "
            "their fire", slot="S_DTF_AT"),
        Key("draw_their_fire_positions", ListOf(POSITIONS),
            "the positions whose vehicles Draw their fire protects"),
        Key("draw_their_fire_drm", DRM, "Draw their fire's modifier to direct fire",
            slot="S_DTF_DRM"),
        Key("extra_order_at", POSITIONS, "where the marker's vehicle must stand for Extra order"),
        Key("direct_their_fire_at", POSITIONS,
            "where the marker's vehicle must stand for Direct their fire", slot="S_DIRECT_FIRE_AT"),
        Key("extra_turn_at", POSITIONS, "where the marker's vehicle must stand for Extra turn"),
        Key("ql1_range", Int(0, 20), "Extra move and Extra fire reach vehicles within this many "
            "road steps of the marker's vehicle"),
    )),
    Table("interpretations", "readings of ambiguous text: docs/readings.md", (
        Key("target_priority", Choice(codes.TARGET_RULE_NAMES), "BSA target choice (I-TARGET)",
            slot="S_TARGET_RULE"),
        Key("airstrikes_per_game", Int(0, 9), "airstrike markers in the game (I-AIR)",
            slot="S_AIRSTRIKES"),
        Key("airstrike_leaves", Choice(codes.AIR_LEAVES_NAMES),
            "what an airstrike leaves on each track: floor or ceil of half (I-AIR)",
            slot="S_AIR_LEAVES"),
        Key("artillery_effects_always", Flag(), "artillery's further effects apply with no "
            "vehicle at the target (I-ROE-ART)", slot="S_ART_ALWAYS"),
        Key("artillery_on_apc", Choice(codes.ART_APC_NAMES), "artillery heavy damage on an APC: "
            "destroys it, or rolls a location like a tank's (I-ART-APC)", slot="S_ART_ON_APC"),
        Key("radio_check_per_vehicle", Flag(), "a platoon order rolls the radio once per "
            "vehicle, else once (I-RADIO)", slot="S_RADIO_PER_VEHICLE"),
        Key("pool_min_chits", Int(2, MAX_POOL_CHITS), "with fewer weapon chits in the pool the "
            "Orders phase ends (I-POOL)", slot="S_POOL_MIN"),
        Key("spent_returns_to_track", Flag(), "a spent ability goes back to the RoE track when "
            "the RoE drops below its level (I-SPENT)", slot="S_SPENT_RETURNS"),
        Key("fire_status_on_issue", Flag(), "the fire-status marker moves when the first Fire "
            "order is issued, received or not (I-FIRE-ISSUED)", slot="S_FIRE_ON_ISSUE"),
        Key("fire_order_roe", Choice(codes.FIRE_ROE_NAMES), "which Fire orders need the RoE of "
            "fire_allowed: the first, or every one (I-FIRST-FIRE)", slot="S_FIRE_ORDER_ROE"),
        Key("diplomatic_needs_military", Flag(), "strategic and political victories count only "
            "with an operational or tactical one (I-DIPLO)", slot="S_DIPLO_MILITARY"),
        Key("victories_sticky", Flag(), "a military victory once met counts at game end "
            "unless the game is lost (I-STICKY)", slot="S_STICKY"),
        Key("t2_reached_at", Choice(codes.T2_REACHED_NAMES), "when tanks at Tango 2 count for the "
            "operational victory: at a turn's end, or at any moment (I-OPV)",
            slot="S_T2_REACHED_AT"),
        Key("tow_from_cp", Choice(codes.TOW_CP_NAMES), "where a tow hooked up at a contact point "
            "may go: any other contact point, or a nearest one (I-TOW-CP)", slot="S_TOW_FROM_CP"),
    )),
)


# ------------------------------------------------------------------ lookups

SCHEMA = Schema(DECLARATION)
TOP = SCHEMA.top
find = SCHEMA.find
scalar_keys = SCHEMA.scalar_keys
unknown_keys = SCHEMA.unknown_keys


def slot_name(key: Key) -> str:
    """The name of a scalar key's slot in the packed vector."""
    return key.slot or "S_" + key.name.upper()
