"""The readings: every value the rulebook does not print (R-..) and every interpretation
of ambiguous text (I-..) the engines rely on, each with its default and the plausible
alternatives, as named variants a user can switch on.

A variant is a set of ruleset values (key path -> value). Switching a reading on
(`--reading I-AIR=ceil`, `load_ruleset(readings={"I-AIR": "ceil"})`) writes its values
over the ruleset after every other setting; the default variant's values are those of
the shipped default.toml. The variant a ruleset plays is the one whose values it holds
(`Ruleset.readings`), so a run's manifest, which records the ruleset data, records its
readings too; loader.BOOK (bollesim/game/rulebook.py) applies and recognises them.
docs/readings.md is written from this module (rules/docs.py).

Every alternative agrees with every number §2, §7 and §11 print unless its `gives_up`
names the printed number it no longer reproduces.
"""

from __future__ import annotations

from collections.abc import Callable

from bollesim.bollebank.rules import schema
from bollesim.game.readings import Reading, Variant

# ------------------------------------------------------------------ alternatives as values


def _tracks_shifted(step: int) -> Callable[[dict], dict]:
    def values(d: dict) -> dict:
        return {
            f"tracks.{k}": [min(max(v + step, 2), 12) for v in d["tracks"][k]]
            for k in ("atgm_to_hit", "hmg_to_hit")
        }

    return values


def _marker_sides(change: Callable[[list[str]], list[str]]) -> Callable[[dict], dict]:
    def values(d: dict) -> dict:
        out = {}
        for marker in d["enemy_action_markers"]:
            sides = [dict(side, bsa=change(list(side.get("bsa", [])))) for side in marker["sides"]]
            out[f"enemy_action_markers[{marker['id']}].sides"] = sides
        return out

    return values


def _one_weapon_fewer(bsa: list[str]) -> list[str]:
    """The side loses the first of tank, atgm, hmg it has."""
    for weapon in schema.WEAPONS3:
        if weapon in bsa:
            return [w for w in bsa if w != weapon]
    return bsa


def _one_weapon_more(bsa: list[str]) -> list[str]:
    """The side gains the first of tank, atgm, hmg it lacks."""
    for weapon in schema.WEAPONS3:
        if weapon not in bsa:
            return [w for w in schema.WEAPONS3 if w in bsa or w == weapon]
    return bsa


def _chits(changes: dict[tuple, list[dict]]) -> Callable[[dict], dict]:
    """The default's chit groups with the groups of some (type, letter) replaced."""

    def values(d: dict) -> dict:
        groups, done = [], set()
        for g in d["chits"]["groups"]:
            kind = (g["type"], g.get("letter", g.get("art_target", "")))
            if kind in changes:
                if kind not in done:
                    groups += changes[kind]
                    done.add(kind)
            else:
                groups.append(g)
        return {"chits.groups": groups}

    return values


def _group(kind: str, letter: str, count: int, double: bool = False) -> dict:
    g = {"type": kind, "letter": letter, "count": count}
    return {**g, "double": True} if double else g


def _hmg(letter: str, single: int, double: int) -> list[dict]:
    out = [_group("hmg", letter, single)]
    return out + [_group("hmg", letter, double, True)] if double else out


def _interp(key: str, value) -> dict:
    return {f"interpretations.{key}": value}


TRACK_PRINTS = ("§2.1 and §7.1.1 (five or six ATGM chits hit on 10), the §2.1 caption "
                "(one HMG chit hits only on 12) and §11 (ATGM to-hit 10)")

READINGS: tuple[Reading, ...] = (
    # ---------------------------------------------------------- reconstructed values
    Reading(
        "R-MAP", "the roads and the overwatches' line-of-sight letters",
        "The rulebook describes the map but prints neither its roads nor every letter. "
        "The roads run SAR-SK1-SK2-SK3-SK4-KAL-T21-T22-T23-T2, with OP N reached from SK1 "
        "by OPN1 (§11: VL2 moves from SK1 to OPN1 on its way to OP N); each town's "
        "overwatches are adjacent to its contact point and to each other (§2.1.1). The "
        "letters S1=R, S2=C, S3=L and K1=R are printed (§2.1.1, §11); K2=C and K3=L "
        "complete Kalesija like Saraci.",
        "reconstructed", keys=("map.roads", "map.positions[K2].letter", "map.positions[K3].letter"),
        fixed="§2.1.1 and §11 fix the roads; a designer with the map edits map.roads and "
        "the letters directly",
    ),
    Reading(
        "R-FOF", "the fixed fields of fire: firing priorities, BSA weapons, UN fire icons",
        "The Kalesija overwatches have fixed fields of fire; §2.1.1 prints K1's (FP 6, BSA "
        "tank, ATGM and HMG, UN icons for every track). K2 and K3 are reconstructed with "
        "lower priorities toward the road, so K3 (FP 4) is fired on first. The Saraci "
        "overwatches fire indirectly (§6.3) and are not exposed.",
        "reconstructed",
        alternatives=(Variant(
            "k2-first", "K2 FP 4, K3 FP 5: the centre overwatch is fired on first",
            {"map.positions[K2].fp": 4, "map.positions[K3].fp": 5},
        ),),
    ),
    Reading(
        "R-EAM", "the enemy-action markers' BSA weapons and UN targets",
        "The six markers drawn for the exposed checkpoints are not printed. The 1-2-3 "
        "markers are the same on both sides; each 7-8-9 marker has two sides. §11 fixes "
        "FP7 side a (SK-4: BSA ATGM and HMG, UN target HMG), and that SK-2's marker lets "
        "BSA tanks fire while SK-3's does not.",
        "reconstructed",
        alternatives=(
            Variant("lighter", "a lighter road: each marker side loses one BSA weapon (the "
                    "first of tank, ATGM, HMG it has)", _marker_sides(_one_weapon_fewer),
                    "§11 turn 5: SK-2 loses its BSA tanks and SK-4 its ATGMs"),
            Variant("heavier", "a heavier road: each marker side gains one BSA weapon (the "
                    "first of tank, ATGM, HMG it lacks)", _marker_sides(_one_weapon_more),
                    "§11 turn 5: BSA tanks could fire at SK-4, not only at SK-2"),
        ),
    ),
    Reading(
        "R-CHITS", "the letters of the pool chits, the double-target HMGs, artillery targets",
        "§3 counts the chits (4 tank, 14 ATGM, 14 HMG, 6 artillery, the car) but not their "
        "letters or targets. The default gives tanks L1 C2 R1, ATGMs and HMGs L5 C4 R5, four "
        "HMGs that fire at two targets (one L, two C, one R; §2.1 shows one), and artillery "
        "S, S, K, K, T2 and one No Artillery chit.",
        "reconstructed",
        alternatives=(
            Variant("even", "letters spread evenly: ATGMs and HMGs L4 C6 R4 (the same "
                    "double-target HMGs)", _chits({
                        ("atgm", "L"): [_group("atgm", "L", 4)],
                        ("atgm", "C"): [_group("atgm", "C", 6)],
                        ("atgm", "R"): [_group("atgm", "R", 4)],
                        ("hmg", "L"): _hmg("L", 3, 1),
                        ("hmg", "C"): _hmg("C", 4, 2),
                        ("hmg", "R"): _hmg("R", 3, 1),
                    })),
            Variant("two-doubles", "two double-target HMG chits (L and R)", _chits({
                ("hmg", "L"): _hmg("L", 4, 1),
                ("hmg", "C"): _hmg("C", 4, 0),
                ("hmg", "R"): _hmg("R", 4, 1),
            })),
            Variant("six-doubles", "six double-target HMG chits (two of each letter)", _chits({
                ("hmg", "L"): _hmg("L", 3, 2),
                ("hmg", "C"): _hmg("C", 2, 2),
                ("hmg", "R"): _hmg("R", 3, 2),
            })),
            Variant("two-no-art", "a second No Artillery chit in place of a K one", _chits({
                ("art", "K"): [{"type": "art", "art_target": "K", "count": 1}],
                ("art", "none"): [{"type": "art", "art_target": "none", "count": 2}],
            })),
        ),
    ),
    Reading(
        "R-TRACK", "the track values: tank hot roll, ATGM and HMG to-hit by chit count",
        "The tank track (hot on 6, 5-6, 4-6, 2-6; hot tanks hit on 7) is printed on the map. "
        "Of the ATGM and HMG tracks the rulebook prints only that five or six ATGM chits hit "
        "on 10 and one HMG chit on 12; the rest rises steadily from 12 to 6 (ATGM) and 7 "
        "(HMG), more chits never hitting less often.",
        "reconstructed",
        alternatives=(
            Variant("easier", "ATGM and HMG to-hit one lower everywhere (within 2..12)",
                    _tracks_shifted(-1), TRACK_PRINTS),
            Variant("harder", "ATGM and HMG to-hit one higher everywhere (within 2..12)",
                    _tracks_shifted(+1), TRACK_PRINTS),
            Variant("tank-6", "hot enemy tanks hit on 6 or more", {"tracks.tank_to_hit": 6},
                    "the map caption: hot tanks hit on 7"),
            Variant("tank-8", "hot enemy tanks hit on 8 or more", {"tracks.tank_to_hit": 8},
                    "the map caption: hot tanks hit on 7"),
        ),
    ),
    Reading(
        "R-MATRIX", "the Order Matrix (PAS1): orders and scope of each pair of chits",
        "The Order Matrix is a player aid the rulebook does not print. §5.3 and §11 fix "
        "seven of its sixteen cells (ATGM-HMG platoon fire, artillery-artillery platoon fire "
        "or move, ATGM-tank single fire or move, HMG-HMG platoon move, ATGM-artillery platoon "
        "fire, tank-HMG single fire); the others are reconstructed so every cell offers an "
        "order.",
        "reconstructed", keys=("order_matrix.orders", "order_matrix.scope"),
        fixed="no single alternative is more plausible than another: set cells with "
        "order_matrix.orders and order_matrix.scope",
    ),
    Reading(
        "R-HIT", "the damage tables (PAS4): hit location by d6 and weapon",
        "The Enemy Direct Fire diagrams are not printed. §11 fixes one entry (an HMG hit "
        "rolling 4 lands on the hull) and §7.2 the artillery table (1-2 tracks, 3-4 hull, 5-6 "
        "turret). The default lets tanks hit like artillery, ATGMs mostly the hull and HMGs "
        "mostly the tracks.",
        "reconstructed",
        alternatives=(
            Variant("hmg-like-atgm", "HMG hits land like ATGM hits (1 tracks, 2-4 hull, 5-6 "
                    "turret)", lambda d: {"damage.hmg_hit": d["damage"]["atgm_hit"]}),
            Variant("tank-tracks-1-3", "enemy tank hits: 1-3 tracks, 4 hull, 5-6 turret",
                    {"damage.tank_hit": ["tracks", "tracks", "tracks", "hull", "turret",
                                         "turret"]}),
        ),
    ),
    # ---------------------------------------------------------- interpretations
    Reading(
        "I-ROE0", "the RoE marker starts at level 1 and stays within 1..24",
        "§3 step 8 puts the RoE marker on the track's first space; §5.3's example says the "
        "RoE 'is still at 0'. Both are read as level 1, the first box of the 24 (§2.1.4).",
        "level-1", keys=("roe.start", "roe.min", "roe.max"),
        fixed="the track has 24 boxes from 1 (§2.1.4)",
    ),
    Reading(
        "I-TARGET", "which exposed vehicle a BSA weapon fires at",
        "§7.1: 'Vehicle with a heavy damage counter; if no damaged vehicle or more than one, "
        "then to the lowest firing priority'. The default reads the damaged vehicles the "
        "weapon can reach as the candidates when there are any (then lowest FP among them); "
        "ties are broken at random.",
        "damaged_first",
        alternatives=(Variant(
            "literal", "a single damaged vehicle is fired on first; with none or several, the "
            "lowest FP of all", _interp("target_priority", "literal")),),
    ),
    Reading(
        "I-AIR", "the airstrike: what it leaves, how often, when it strikes",
        "§6.1: 'Reduce all enemy weapons tracks by half, rounded down.' The default leaves "
        "floor(n/2) chits on each track (the artillery setup marker stays). One marker per "
        "game; it strikes in the Execution phase of the turn it is called.",
        "floor", keys=("interpretations.airstrikes_per_game",),
        alternatives=(Variant("ceil", "a track keeps ceil(n/2) chits: the reduction is "
                              "rounded down", _interp("airstrike_leaves", "ceil")),),
    ),
    Reading(
        "I-POOL", "too few weapon chits left to draw a pair ends the Orders phase",
        "§5.3 draws pairs from the pool but says nothing of a pool that runs dry.",
        "two-chits", keys=("interpretations.pool_min_chits",),
        fixed="a pair needs two chits",
    ),
    Reading(
        "I-OPV", "when tanks at Tango 2 count for the operational victory",
        "§8: 'At least two tanks must reach Tango 2 in the turn where the Tango 2 deadline "
        "marker is or before', and artillery must be silent. The default counts the tanks at "
        "the end of a turn no later than the deadline, as victory is assessed in the End "
        "phase (§4); artillery must be silent when the victory is declared.",
        "turn_end",
        alternatives=(Variant(
            "any_moment", "the tanks count as soon as enough of them stand in Tango 2 by the "
            "deadline, even if a later phase of the turn moves the deadline before them",
            _interp("t2_reached_at", "any_moment")),),
    ),
    Reading(
        "I-TACV", "'in Saraci' is Saraci's contact point or one of its overwatches",
        "§8 tactical victory asks that heavily damaged units be 'in Saraci'. §2.1.1 treats a "
        "town's contact point and its three overwatches together (artillery, moves).",
        "town", keys=("map.saraci",), fixed="§2.1.1 groups a town with its overwatches",
    ),
    Reading(
        "I-END", "stopping on a victory or playing on is the player's decision",
        "§4 and §8: when a victory can be declared the player 'can either stop play ... or "
        "continue'. The engines ask the policy (decision stop_on_victory).",
        "player", fixed="a player choice, asked of the policy",
    ),
    Reading(
        "I-ROE-ART", "artillery's further effects apply with or without vehicles at the target",
        "§7.2 lists the RoE and deadline effects as 'further effects' applied on a roll that "
        "is only made with vehicles at the target, yet says S or K raise the RoE 'each time "
        "it fires' and the map caption lowers the T2 deadline with no vehicles there. The "
        "default applies them every time the artillery fires.",
        "always",
        alternatives=(Variant(
            "occupied", "the further effects apply only with a vehicle at the target",
            _interp("artillery_effects_always", False),
            "the map caption and §11 turn 4: artillery on an empty T2 lowers the deadline"),),
    ),
    Reading(
        "I-DEADLINE", "the T2 deadline marker starts on turn 18",
        "§3 step 9 places it on the turn 18 space and the map caption drops it 'to 16'; §11 "
        "says it 'goes down to turn 6', read as 16.",
        "18",
        alternatives=(
            Variant("16", "the deadline starts on turn 16", {"game.deadline_start": 16},
                    "§3 step 9: the turn 18 space"),
            Variant("20", "the deadline starts on turn 20", {"game.deadline_start": 20},
                    "§3 step 9: the turn 18 space"),
        ),
    ),
    Reading(
        "I-RADIO", "a platoon order checks the radio once per receiving vehicle",
        "§5.1: 'In case of a platoon order, check the radio link individually for all "
        "vehicles in the platoon.' §11 shows a single roll for platoon 1's Fire order.",
        "per_vehicle",
        alternatives=(Variant(
            "per_order", "one roll serves every vehicle of the order, as §11 shows",
            _interp("radio_check_per_vehicle", False),
            "§5.1: the radio link is checked individually for each vehicle"),),
    ),
    Reading(
        "I-ART-APC", "a 12 on the artillery roll that draws an APC destroys it",
        "§7.2 gives the drawn vehicle heavy damage 'roll for location'; §7.1.3 says any "
        "location hit on a PBV 302 destroys it. The default carries §7.1.3 over to artillery.",
        "destroys",
        alternatives=(Variant(
            "location", "artillery heavy damage on an APC is rolled for location like a "
            "tank's, and the APC survives one hit", _interp("artillery_on_apc", "location")),),
    ),
    Reading(
        "I-FIRST-FIRE", "only the first Fire order needs the RoE of 8",
        "§5.4.2: 'In order to assign a Fire order for the first time in the game, the RoE "
        "... must allow the UN forces to fire ... From that point onwards, you can issue Fire "
        "orders without restrictions.' Later Fire orders need no RoE, even after it drops.",
        "first",
        alternatives=(Variant(
            "every", "every Fire order needs the RoE at fire_allowed or more (§2.1.4: Hold fire "
            "negates any type of fire)", _interp("fire_order_roe", "every")),),
    ),
    Reading(
        "I-FIRE-ISSUED", "the fire-status marker moves when the first Fire order is issued",
        "§5.2: the marker goes to the RoE 'when the first Fire order is given'. The default "
        "reads 'given' as issued, whether or not a vehicle receives it over the radio.",
        "on_issue",
        alternatives=(Variant(
            "on_receipt", "the marker moves only when a vehicle receives the first Fire order",
            _interp("fire_status_on_issue", False)),),
    ),
    Reading(
        "I-DIPLO", "the diplomatic victories count only alongside a military one",
        "§8: 'In addition to achieving operational and/or tactical victory, the player must "
        "assess their level of victory in the diplomatic sphere.' The default counts the "
        "strategic and political victories only with an operational or tactical one.",
        "with_military",
        alternatives=(Variant(
            "alone", "the strategic and political victories are assessed on their own (never "
            "after a defeat)", _interp("diplomatic_needs_military", False)),),
    ),
    Reading(
        "I-SPENT", "a spent ability stays spent when the RoE drops below its level",
        "§5.5: 'If, for any reason, the RoE level drops below the special ability level, the "
        "special ability marker is immediately placed back on the RoE track.' The default "
        "applies this to a marker in its box, not to a spent one (which comes back only on "
        "doubles, §5.3).",
        "stays_spent",
        alternatives=(Variant(
            "returns", "a spent marker also goes back to the RoE track, and becomes available "
            "again when the RoE climbs back", _interp("spent_returns_to_track", True)),),
    ),
    Reading(
        "I-STICKY", "a military victory once met counts at game end unless the game is lost",
        "§8 lets the player play on after a victory 'to achieve another victory type or "
        "both'. The default keeps an operational or tactical victory once assessed, so "
        "playing on for more never loses what was won (a defeat still loses everything).",
        "sticky",
        alternatives=(Variant(
            "at_assessment", "only the conditions met at the last assessment count",
            _interp("victories_sticky", False)),),
    ),
    Reading(
        "I-ABILITY-PHASE", "Extra turn is used in the End phase, before victory assessment",
        "§5.5: each ability is used 'in the turn phase corresponding to the description'; "
        "Extra turn moves the T2 deadline, which only the End phase's assessment reads.",
        "end-phase", fixed="any earlier use has the same effect on the assessment",
    ),
    Reading(
        "I-TOW-SARACI", "'a tank already at Saraci' (§5.4.3) is Saraci or its overwatches",
        "§5.4.3: 'It's not possible to tow a tank already at Saraci.' Read with I-TACV.",
        "town", keys=("map.saraci",), fixed="the same reading as I-TACV",
    ),
    Reading(
        "I-TOW-CP", "a tow hooked up at a contact point may go to any other contact point",
        "§5.4.3 sends the Tow marker 'to the nearest contact point', then adds: 'Ignore "
        "actual contact point in assigning destination (i.e. a tank in Kalesija can be towed "
        "to Saraci).' The default lets a tow hooked up at a contact point go to any other "
        "contact point, and elsewhere to a nearest one (the player's choice on ties).",
        "any_cp",
        alternatives=(Variant(
            "nearest", "every tow goes to a nearest other contact point",
            _interp("tow_from_cp", "nearest"),
            "§5.4.3's example: a tank in Kalesija towed to Saraci"),),
    ),
    Reading(
        "I-OW-SPREAD", "a platoon sent to a town's overwatches takes distinct overwatches",
        "§5.4.1: 'do count all three OW positions of the same town as same destination'. A "
        "platoon order to a town's overwatches sends its k-th vehicle to the town's k-th "
        "overwatch (S1, S2, S3 or K1, K2, K3); a group larger than the town's overwatches "
        "cannot be sent.",
        "in-order", fixed="the order of the overwatches is a convention with no effect on "
        "what a platoon can reach",
    ),
)

BY_ID = {r.id: r for r in READINGS}
