"""The default ruleset loads, agrees with the numbers the rulebook prints, and bad files
are rejected with a RulesetError that names the key.

Section numbers (§) refer to the rulebook; R-../I-.. ids to docs/readings.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bollesim.bollebank import codes
from bollesim.bollebank.rules.loader import DEFAULT_PATH, UNLIMITED, RulesetError, load_ruleset

DEFAULT_TEXT = DEFAULT_PATH.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def rules():
    return load_ruleset()


def edited(tmp_path: Path, old: str, new: str, name: str = "edited.toml") -> Path:
    """A copy of default.toml with one exact piece of text replaced."""
    assert DEFAULT_TEXT.count(old) == 1, f"{old!r} must occur once in default.toml"
    path = tmp_path / name
    path.write_text(DEFAULT_TEXT.replace(old, new), encoding="utf-8")
    return path


def write(tmp_path: Path, text: str, name: str = "partial.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the default


def test_default_loads(rules):
    assert rules.name == "default"
    assert len(rules.digest) == 64 and int(rules.digest, 16) >= 0
    assert load_ruleset(DEFAULT_PATH).digest == rules.digest  # same file, same hash


def test_vehicles(rules):
    # §2.2.1: nine vehicles, VL2 and QL3 are APCs, seven Leopard tanks; §3 step 5: all at SAR
    assert rules.vehicle_ids == ("VL2", "QL3", "QL1", "AQ", "EA", "FA", "BQ", "FB", "GB")
    assert rules.is_tank.sum() == 7
    assert not rules.is_tank[rules.vehicle("VL2")] and not rules.is_tank[rules.vehicle("QL3")]
    assert rules.commander == rules.vehicle("VL2")
    assert rules.start_position == rules.position("SAR") == rules.saraci
    assert list(rules.platoon) == [0, 0, 0, 1, 1, 1, 2, 2, 2]


def test_pool_chits_39(rules):
    # §3 step 1: four tanks, fourteen ATGMs, fourteen HMGs, six artillery and the civilian car
    pool = rules.chit_type[: rules.n_pool_chits]
    assert rules.n_pool_chits == 39
    counts = {name: int((pool == code).sum()) for code, name in enumerate(codes.WEAPON_NAMES)}
    assert counts == {"tank": 4, "atgm": 14, "hmg": 14, "art": 6, "car": 1, "ru": 0}


def test_chit_details(rules):
    n = rules.n_pool_chits
    pool = slice(0, n)
    # R-CHITS: four HMG chits fire at two targets (§7.1), one L, two C, one R
    doubles = rules.chit_double[pool]
    assert doubles.sum() == 4 and (rules.chit_type[pool][doubles] == codes.HMG).all()
    assert sorted(rules.chit_letter[pool][doubles]) == sorted(
        [codes.LETTER_L, codes.LETTER_C, codes.LETTER_C, codes.LETTER_R]
    )
    # R-CHITS: artillery targets S x2, K x2, T2 x1, "No art." x1
    art = rules.chit_art_target[pool][rules.chit_type[pool] == codes.ART]
    assert sorted(art.tolist()) == sorted(
        [codes.TARGET_S, codes.TARGET_S, codes.TARGET_K, codes.TARGET_K, codes.TARGET_T2, codes.NO_ART]
    )
    # every tank, ATGM and HMG chit has a line-of-sight letter (§2.2.2)
    direct = np.isin(rules.chit_type[pool], codes.DIRECT_TRACKS)
    assert (rules.chit_letter[pool][direct] != codes.NO_LETTER).all()
    # §7.2: one random-unit chit per vehicle after the pool, then the Saraci setup marker (§3)
    nv = len(rules.vehicle_ids)
    assert (rules.chit_type[n : n + nv] == codes.RU).all()
    assert list(rules.chit_vehicle[n : n + nv]) == list(range(nv))
    assert (rules.chit_vehicle[pool] == -1).all()
    assert rules.setup_chit == n + nv == len(rules.chit_type) - 1
    assert rules.chit_type[rules.setup_chit] == codes.ART
    assert rules.chit_art_target[rules.setup_chit] == codes.TARGET_S


def test_tracks(rules):
    # §2.1 map caption and §7.1.1: five ATGM markers (index 4) and the 6th space (index 5) hit on 10
    assert rules.atgm_to_hit.shape == (14,) and rules.hmg_to_hit.shape == (14,)
    assert rules.atgm_to_hit[4] == 10 and rules.atgm_to_hit[5] == 10
    # §2.1 caption / §11: HMG with one marker hits only on a 12
    assert rules.hmg_to_hit[0] == 12
    # §2.1 caption: tank track spaces 6/H, 5-6/H, 4-6/H, 2-6/H; hot tanks hit on 7
    assert list(rules.tank_hot_min) == [6, 5, 4, 2]
    assert rules.tank_to_hit == 7
    # §7.1.1: -1 for an overwatch matching the last ATGM marker's letter
    assert rules.atgm_overwatch_drm == -1
    # more chits never make a weapon less accurate (R-TRACK)
    for track in (rules.atgm_to_hit, rules.hmg_to_hit, rules.tank_hot_min):
        assert (np.diff(track) <= 0).all()


def test_map(rules):
    pos = rules.position
    # §2.1.1 example: K1 has FP 6, letter R, and BSA tanks, ATGMs and HMGs fire at it;
    # from K1 a UN tank may fire at tanks, ATGMs, HMGs (letter R) and artillery
    k1 = pos("K1")
    assert rules.pos_fp[k1] == 6
    assert rules.pos_letter[k1] == codes.LETTER_R
    assert rules.pos_bsa[k1].tolist() == [True, True, True]
    assert rules.pos_un[k1].tolist() == [True, True, True, True]
    # §2.1.1: SK1 and SK2 stack three, other checkpoints and overwatches one, CPs unlimited
    assert rules.pos_stack[pos("SK1")] == rules.pos_stack[pos("SK2")] == 3
    for p in ("SK3", "SK4", "T21", "T22", "T23", "OPN1", "S1", "S2", "S3", "K1", "K2", "K3"):
        assert rules.pos_stack[pos(p)] == 1, p
    for p in ("SAR", "KAL", "OPN", "T2"):
        assert rules.pos_stack[pos(p)] == UNLIMITED and rules.pos_kind[pos(p)] == codes.CP
    # §2.1.1: SK-2 is exposed, SK-1 is not; §6.2: markers are drawn for SK2-4 and T21-23
    assert rules.pos_eam_pool[pos("SK1")] == codes.NO_POOL
    for p in ("SK2", "SK3", "SK4"):
        assert rules.pos_eam_pool[pos(p)] == codes.POOL_789
    for p in ("T21", "T22", "T23"):
        assert rules.pos_eam_pool[pos(p)] == codes.POOL_123 and rules.pos_kt2_road[pos(p)]
    # §2.1.1: all contact points except OP N are artillery targets
    assert rules.pos_art[pos("OPN")] == codes.NO_ART
    assert rules.pos_art[pos("T2")] == codes.TARGET_T2
    # §6.3, §11: S3 is L (GB at S3 may fire at an L marker), Saraci OW fire is indirect
    assert rules.pos_letter[pos("S3")] == codes.LETTER_L
    assert rules.pos_indirect[[pos("S1"), pos("S2"), pos("S3")]].all()
    assert not rules.pos_indirect[k1]


def test_roads(rules):
    pos = rules.position
    # §2.1.1: the overwatches of a town are adjacent to its CP and to each other
    for town, ows in (("SAR", ("S1", "S2", "S3")), ("KAL", ("K1", "K2", "K3"))):
        for a in ows:
            assert rules.adjacent[pos(a), pos(town)]
            assert all(rules.adjacent[pos(a), pos(b)] for b in ows if b != a)
    assert (rules.adjacent == rules.adjacent.T).all()
    # R-MAP: SAR-SK1-SK2-SK3-SK4-KAL-T21-T22-T23-T2
    assert rules.distance[pos("SAR"), pos("T2")] == 9
    # §11: VL2 moves from SK1 to OPN1 on its way to OP N
    assert rules.next_step[pos("SK1"), pos("OPN")] == pos("OPN1")
    assert rules.next_step[pos("SAR"), pos("KAL")] == pos("SK1")


def test_order_matrix(rules):
    t, a, h, art = codes.TANK, codes.ATGM, codes.HMG, codes.ART
    # §11: ATGM then tank -> fire or move, single vehicle
    assert rules.matrix_fire[a, t] and rules.matrix_move[a, t] and not rules.matrix_platoon[a, t]
    # §11: HMG + HMG -> move, platoon
    assert rules.matrix_move[h, h] and not rules.matrix_fire[h, h] and rules.matrix_platoon[h, h]
    # §11: ATGM then artillery -> platoon fire
    assert rules.matrix_fire[a, art] and rules.matrix_platoon[a, art]
    # §5.3 example: ATGM then HMG -> fire, platoon; artillery + artillery -> fire or move, platoon
    assert rules.matrix_fire[a, h] and rules.matrix_platoon[a, h]
    assert rules.matrix_fire[art, art] and rules.matrix_move[art, art]
    assert rules.matrix_platoon[art, art]
    # §11: tank then HMG -> fire, one vehicle
    assert rules.matrix_fire[t, h] and not rules.matrix_platoon[t, h]
    # every cell offers at least one order (R-MATRIX)
    assert (rules.matrix_fire | rules.matrix_move).all()


def test_damage_tables(rules):
    assert rules.hit_table.shape == (4, 6) and rules.light_table.shape == (6,)
    # §11: an HMG hit location roll of 4 hits the hull
    assert rules.hit_table[codes.HMG, 3] == codes.HULL
    # §7.2.1: light damage 1-2 radio (§11: a 2 damages the radio), 3-4 night vision, 5-6 sights
    assert list(rules.light_table) == [codes.RADIO] * 2 + [codes.NIGHT_VISION] * 2 + [codes.SIGHTS] * 2


def test_scalar_rules(rules):
    assert rules.p("game", "turn_limit") == 20  # §4
    assert rules.p("game", "deadline_start") == 18  # §3 step 9, I-DEADLINE
    assert rules.p("roe", "start") == 1  # I-ROE0
    assert rules.p("roe", "fire_allowed") == 8  # §2.1.4, §11 "RoE level is already at 8"
    assert rules.p("roe", "unrestricted") == 18  # §2.1.4
    assert rules.p("roe", "heavy_damage_fire") == -2  # §7.1.3, §11 "drops by 2 levels"
    assert rules.p("roe", "heavy_damage_hold") == 5  # §7.1.3
    assert list(rules.ability_level) == [8, 11, 14]  # §5.5
    assert rules.p("interpretations", "target_priority") == codes.TARGET_DAMAGED_FIRST  # I-TARGET


# --------------------------------------------------------------------------- overrides


def test_set_overrides():
    rules = load_ruleset(
        overrides=[
            "roe.fire_allowed=10",
            "interpretations.target_priority=literal",  # a bare word is a string
            "tracks.tank_to_hit = 8",
            "game.extend_to_40=true",
        ]
    )
    assert rules.p("roe", "fire_allowed") == 10
    assert rules.p("interpretations", "target_priority") == codes.TARGET_LITERAL
    assert rules.tank_to_hit == 8
    assert rules.p("game", "extend_to_40") is True
    assert rules.data["roe"]["fire_allowed"] == 10
    assert rules.digest != load_ruleset().digest


def test_set_list_value():
    new = list(range(13, 6, -1)) + [7] * 7
    rules = load_ruleset(overrides=[f"tracks.hmg_to_hit={new}"])
    assert list(rules.hmg_to_hit) == new


def test_partial_merge(tmp_path):
    partial = write(
        tmp_path,
        "[roe]\nfire_allowed = 9\n\n[tracks]\natgm_to_hit = [12, 12, 11, 11, 10, 10, 9, 9, "
        "9, 8, 8, 7, 7, 7]\n\n[interpretations]\nradio_check_per_vehicle = false\n",
    )
    rules = load_ruleset(partial=partial)
    assert rules.p("roe", "fire_allowed") == 9
    assert rules.p("roe", "unrestricted") == 18  # untouched keys of a merged table stay
    assert rules.atgm_to_hit[0] == 12 and rules.atgm_to_hit[6] == 9
    assert list(rules.hmg_to_hit) == list(load_ruleset().hmg_to_hit)
    assert rules.p("interpretations", "radio_check_per_vehicle") is False
    # --set is applied after the partial file
    rules = load_ruleset(partial=partial, overrides=["roe.fire_allowed=11"])
    assert rules.p("roe", "fire_allowed") == 11


def test_edited_copy_of_default(tmp_path):
    path = edited(tmp_path, "fire_allowed = 8 ", "fire_allowed = 7 ")
    assert load_ruleset(path).p("roe", "fire_allowed") == 7


# --------------------------------------------------------------------------- bad files


def error_of(**kwargs) -> RulesetError:
    with pytest.raises(RulesetError) as info:
        load_ruleset(**kwargs)
    message = str(info.value)
    assert "\n" not in message, "a RulesetError is one line"
    return info.value


def test_broken_toml(tmp_path):
    path = edited(tmp_path, 'name = "default"', 'name = "default')
    err = error_of(path=path)
    assert "not valid TOML" in str(err) and "line" in str(err)
    assert str(path) in str(err)


def test_missing_file(tmp_path):
    err = error_of(path=tmp_path / "nope.toml")
    assert "cannot read" in str(err) and "nope.toml" in str(err)


def test_track_of_wrong_length(tmp_path):
    path = edited(
        tmp_path,
        "atgm_to_hit = [12, 11, 11, 10, 10, 10, 10, 9, 9, 8, 8, 7, 7, 6]",
        "atgm_to_hit = [12, 11, 11, 10, 10, 10, 10, 9, 9, 8, 8, 7, 7]",
    )
    err = error_of(path=path)
    assert err.key == "tracks.atgm_to_hit"
    assert "14" in err.problem and "13" in err.problem


def test_track_value_out_of_range(tmp_path):
    path = edited(tmp_path, "tank_hot_min = [6, 5, 4, 2]", "tank_hot_min = [6, 5, 4, 0]")
    err = error_of(path=path)
    assert err.key == "tracks.tank_hot_min[3]"


def test_road_to_unknown_position(tmp_path):
    path = edited(tmp_path, '["OPN1", "OPN"]', '["OPN1", "OPX"]')
    err = error_of(path=path)
    assert err.key.startswith("map.roads[")
    assert "OPX" in err.problem and "unknown position" in err.problem


def test_unreachable_position(tmp_path):
    path = edited(tmp_path, '["SK1", "OPN1"], ["OPN1", "OPN"],', "")
    err = error_of(path=path)
    assert err.key == "map.roads" and "no road links" in err.problem


def test_die_table_not_covering_1_to_6(tmp_path):
    path = edited(
        tmp_path,
        'light = ["radio", "radio", "night_vision", "night_vision", "sights", "sights"]',
        'light = ["radio", "radio", "night_vision", "night_vision", "sights"]',
    )
    err = error_of(path=path)
    assert err.key == "damage.light"
    assert "6 entries" in err.problem and "1 to 6" in err.problem and "got 5" in err.problem


def test_die_table_unknown_location(tmp_path):
    path = edited(
        tmp_path,
        'hmg_hit = ["tracks", "tracks", "tracks", "hull", "hull", "turret"]',
        'hmg_hit = ["tracks", "tracks", "tracks", "hul", "hull", "turret"]',
    )
    err = error_of(path=path)
    assert err.key == "damage.hmg_hit[3]" and "'hul'" in err.problem


def test_chit_count_must_match_track(tmp_path):
    # one more ATGM chit than the ATGM track has spaces
    path = edited(
        tmp_path,
        '{ type = "atgm", letter = "C", count = 4 }',
        '{ type = "atgm", letter = "C", count = 5 }',
    )
    err = error_of(path=path)
    assert err.key == "tracks.atgm_to_hit" and "15" in err.problem


@pytest.mark.parametrize(
    ("assignment", "key", "words"),
    [
        ("roe.no_such_key=1", "roe.no_such_key", "unknown key"),
        ("no_such_table.x=1", "no_such_table", "unknown key"),
        ("roe.fire_allowed=high", "roe.fire_allowed", "high"),
        ("roe.fire_allowed", "roe.fire_allowed", "KEY=VALUE"),
        ("roe.fire_allowed=99", "roe.fire_allowed", "from 1 to 24, got 99"),
        ("roe.fire_allowed=0", "roe.fire_allowed", "from 1 to 24, got 0"),
        ("interpretations.target_priority=maybe", "interpretations.target_priority", "maybe"),
    ],
)
def test_bad_set(assignment, key, words):
    err = error_of(overrides=[assignment])
    assert err.key == key
    assert words in err.problem


def test_bad_partial(tmp_path):
    partial = write(tmp_path, '[damage]\nlight = ["radio"]\n')
    err = error_of(partial=partial)
    assert err.key == "damage.light"
    assert str(partial) in err.source


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        # a firing priority must be a number
        ("fp = 6\n", 'fp = "six"\n', "map.positions[K1].fp"),
        ("fp = 7\n", 'fp = "seven"\n', "enemy_action_markers[FP7].fp"),
        # an ability marker has two sides
        ('sides = ["extra_move", "extra_fire"]', 'sides = ["extra_move"]', "abilities[QL1].sides"),
        # platoon numbers are whole numbers
        ("platoon = [0, 0, 0, 1,", 'platoon = ["HQ", 0, 0, 1,', "vehicles.platoon[0]"),
        # every chit group is a table
        ('{ type = "car", count = 1 },', '"car",', "chits.groups[16]"),
    ],
)
def test_malformed_values_are_ruleset_errors(tmp_path, old, new, key):
    err = error_of(path=edited(tmp_path, old, new))
    assert err.key == key
