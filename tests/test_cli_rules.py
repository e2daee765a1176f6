"""`bollesim rules check|show`: exit codes, one-line errors, provenance listing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from test_sweep import own_lines
from typer.testing import CliRunner

from bollesim.bollebank.rules.loader import DEFAULT_PATH, load_ruleset
from bollesim.bollebank.rules.readings import BY_ID
from bollesim.cli.app import app
from bollesim.cli.wiring import command, fail
from bollesim.errors import UsageError

DEFAULT_TEXT = DEFAULT_PATH.read_text(encoding="utf-8")
ALL_IDS = (
    "R-MAP R-FOF R-EAM R-CHITS R-TRACK R-MATRIX R-HIT "
    "I-ROE0 I-TARGET I-AIR I-POOL I-OPV I-TACV I-END I-ROE-ART I-DEADLINE I-RADIO "
    "I-ART-APC I-FIRST-FIRE I-SPENT I-FIRE-ISSUED I-DIPLO I-STICKY I-ABILITY-PHASE I-TOW-SARACI "
    "I-TOW-CP I-OW-SPREAD"
).split()

# Bad rulesets, each made by editing the text of default.toml: (old, new, key in message).
BAD_EDITS = {
    "broken_toml": ('name = "default"', 'name = "default', "not valid TOML"),
    "track_length": (
        "atgm_to_hit = [12, 11, 11, 10, 10, 10, 10, 9, 9, 8, 8, 7, 7, 6]",
        "atgm_to_hit = [12, 11, 11, 10, 10, 10, 10, 9, 9, 8, 8, 7, 7]",
        "tracks.atgm_to_hit",
    ),
    "unknown_road_end": ('["OPN1", "OPN"]', '["OPN1", "OPX"]', "map.roads["),
    "die_table": (
        'light = ["radio", "radio", "night_vision", "night_vision", "sights", "sights"]',
        'light = ["radio", "radio", "night_vision", "night_vision", "sights"]',
        "damage.light",
    ),
    "bad_fp": ("fp = 6\n", 'fp = "six"\n', "map.positions[K1].fp"),
}

runner = CliRunner()


def bad_file(tmp_path: Path, name: str) -> Path:
    old, new, _ = BAD_EDITS[name]
    assert DEFAULT_TEXT.count(old) == 1
    path = tmp_path / f"{name}.toml"
    path.write_text(DEFAULT_TEXT.replace(old, new), encoding="utf-8")
    return path


def assert_one_line_error(result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    lines = own_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0]


# --------------------------------------------------------------------------- rules check


def test_check_default():
    result = runner.invoke(app, ["rules", "check"])
    assert result.exit_code == 0, result.output
    digest = load_ruleset().digest
    assert result.stdout == f"ok: default.toml (ruleset default, sha256 {digest[:12]}…)\n"
    assert result.stderr == ""


def test_check_default_by_path():
    result = runner.invoke(app, ["rules", "check", str(DEFAULT_PATH)])
    assert result.exit_code == 0
    assert result.stdout.startswith(f"ok: {DEFAULT_PATH} (ruleset default, sha256 ")


def test_check_with_overrides_and_partial(tmp_path):
    partial = tmp_path / "tweak.toml"
    partial.write_text("[roe]\nfire_allowed = 9\n", encoding="utf-8")
    result = runner.invoke(
        app, ["rules", "check", "--partial", str(partial), "--set", "tracks.tank_to_hit=8"]
    )
    assert result.exit_code == 0, result.output
    digest = load_ruleset(overrides=["tracks.tank_to_hit=8"], partial=partial).digest
    assert digest[:12] in result.stdout and "tweak.toml" in result.stdout


@pytest.mark.parametrize("name", sorted(BAD_EDITS))
def test_check_bad_file(tmp_path, name):
    path = bad_file(tmp_path, name)
    result = runner.invoke(app, ["rules", "check", str(path)])
    assert_one_line_error(result, str(path), BAD_EDITS[name][2])


def test_check_missing_file(tmp_path):
    result = runner.invoke(app, ["rules", "check", str(tmp_path / "nope.toml")])
    assert_one_line_error(result, "nope.toml", "cannot read")


@pytest.mark.parametrize(
    ("assignment", "key"),
    [
        ("roe.no_such_key=3", "roe.no_such_key"),
        ("nope.x=1", "nope"),
        ("roe.fire_allowed=ten", "roe.fire_allowed"),
        ('damage.light=["radio"]', "damage.light"),
    ],
)
def test_check_bad_set(assignment, key):
    result = runner.invoke(app, ["rules", "check", "--set", assignment])
    assert_one_line_error(result, key)


def test_check_refuses_a_typo_naming_the_nearest_key(tmp_path):
    """A mistyped key in a partial file or in --set is one error line naming the key and
    the nearest known one."""
    partial = tmp_path / "tweak.toml"
    partial.write_text("[roe]\nfire_alowed = 10\n", encoding="utf-8")
    result = runner.invoke(app, ["rules", "check", "--partial", str(partial)])
    assert_one_line_error(result, "tweak.toml: roe.fire_alowed: unknown key",
                          "did you mean roe.fire_allowed?")
    result = runner.invoke(app, ["rules", "check", "--set", "roe.fire_alowed=10"])
    assert_one_line_error(result, "--set: roe.fire_alowed: unknown key",
                          "did you mean roe.fire_allowed?")
    result = runner.invoke(app, ["rules", "check", "--set", "roe.zzz=10"])  # nothing near
    assert_one_line_error(result, "--set: roe.zzz: unknown key (known: start, min, ")


@pytest.mark.parametrize(("assignment", "words"), [
    ("roe.hold_fire_attack=9223372036854775807", "must be a whole number from -24 to 24"),
    ("vehicles.platoon=[0, 1, 1, 1, 1, 1, 1, 1, 1]", "the engines hold 120"),
    ("map.positions[K2].fp=-1", "from 0 to 99"),
])
def test_check_refuses_what_an_engine_cannot_play(assignment, words):
    """Every integer has a range both engines play; platoons must fit the option buffer."""
    result = runner.invoke(app, ["rules", "check", "--set", assignment])
    assert_one_line_error(result, assignment.split("=")[0], words)


def test_check_and_show_a_reading():
    result = runner.invoke(app, ["rules", "check", "--reading", "I-AIR=ceil"])
    assert result.exit_code == 0 and "--reading I-AIR=ceil" in result.stdout
    assert load_ruleset(readings={"I-AIR": "ceil"}).digest[:12] in result.stdout
    result = runner.invoke(app, ["rules", "check", "--reading", "I-AIR=cel"])
    assert_one_line_error(result, "I-AIR", "unknown variant 'cel' (variants: floor, ceil)")
    result = runner.invoke(app, ["rules", "show", "--reconstructed", "-r", "R-TRACK=harder"])
    assert result.exit_code == 0 and "plays: harder" in result.stdout


def test_show_escapes_control_characters_from_the_file(tmp_path):
    """A crafted ruleset cannot drive the terminal: its strings are shown escaped."""
    path = tmp_path / "evil.toml"
    text = DEFAULT_TEXT.replace('name = "default"', 'name = "evil\\u001b[2J"')
    text = text.replace('source = "§5.5"\n', 'source = "§5.5 \\u001b]0;owned\\u0007"\n', 1)
    path.write_text(text, encoding="utf-8")
    for args in (["rules", "show", str(path)], ["rules", "show", "--reconstructed", str(path)],
                 ["rules", "check", str(path)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.stdout and "\x07" not in result.stdout
        assert "evil\\x1b[2J" in result.stdout
    assert "\\x1b]0;owned\\x07" in runner.invoke(app, ["rules", "show", str(path)]).stdout


def test_check_bad_file_as_a_process(tmp_path):
    """The installed entry point, as a user runs it: one line on stderr, exit 2."""
    path = bad_file(tmp_path, "track_length")
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run(
        [sys.executable, "-m", "bollesim", "rules", "check", str(path)],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
    assert "tracks.atgm_to_hit" in proc.stderr and "Traceback" not in proc.stderr

    proc = subprocess.run(
        [sys.executable, "-m", "bollesim", "rules", "check"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("ok: default.toml (ruleset default")


# --------------------------------------------------------------------------- rules show


def test_show_tables():
    result = runner.invoke(app, ["rules", "show"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    for title in (
        "Map positions",
        "Roads",
        "Enemy action markers",
        "Enemy weapon pool chits",
        "Enemy weapon tracks",
        "Order Matrix",
        "Damage tables",
        "Battalion HQ special abilities",
        "Scalar rules",
        "Interpretations",
    ):
        assert title in out, title
    # provenance strings from the TOML are shown with their tables
    for source in ("§2.1.1, R-MAP, R-FOF", "R-CHITS", "R-TRACK", "R-MATRIX", "R-HIT", "§5.5"):
        assert source in out, source
    assert "damaged_first" in out and "I-TARGET" in out


def test_show_map_positions_fit_80_columns_with_their_columns_explained():
    """No header of the map positions is split on an 80-column terminal, and each column
    but the id is explained by its meaning in the declaration."""
    from bollesim.bollebank.rules import schema

    out = CliRunner(env={"COLUMNS": "80"}).invoke(app, ["rules", "show"]).stdout
    lines = out.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("Map positions")))
    end = lines.index(next(line for line in lines if line.startswith("Roads")))
    heads = [[c.strip() for c in line.split("┃")[1:-1]] for line in lines[start:end]
             if line.startswith("┃")]
    assert len(heads) == 2, heads  # one header line in each of the two tables
    columns = schema.find("map.positions").columns
    assert sorted(sum(heads, [])) == sorted(["id", "id", "source", *(c.name for c in columns
                                                                      if c.name != "id")])
    legend = " ".join(lines[start:end])
    for column in columns[1:]:
        assert f"{column.name}: {column.meaning[:20]}" in legend, column.name
    assert max(len(line.rstrip()) for line in lines[start:end]) <= 80


def test_show_prints_the_exact_odds_beside_their_tables():
    """Each exact-odds table follows the table it comes from, and follows an edit."""
    from bollesim.bollebank.rules.odds import odds_tables, on_2d6, percent

    wide = CliRunner(env={"COLUMNS": "200"})
    out = wide.invoke(app, ["rules", "show"]).stdout
    beside = {"tracks": "Enemy weapon tracks", "damage": "Damage tables",
              "order_matrix": "Order Matrix (PAS1)"}
    after = {"tracks": "Damage tables", "damage": "Order Matrix (PAS1)",
             "order_matrix": "Battalion HQ special abilities"}
    for table in odds_tables(load_ruleset()):
        at = out.index(table.title)
        assert out.index(beside[table.key]) < at < out.index(after[table.key]), table.title
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in out.splitlines()
            if line.startswith("│ ATGM ")]
    assert ["ATGM", "4-7", "10 or more", percent(on_2d6(10)), percent(on_2d6(10, -1)),
            percent(on_2d6(10, -1)), percent(on_2d6(10, -2))] in rows, rows
    edited = wide.invoke(app, ["rules", "show", "--set", "tracks.tank_to_hit=9"]).stdout
    assert "hit (9 or more on 2d6)" in edited and percent(on_2d6(9)) in edited


def test_show_reflects_overrides():
    result = runner.invoke(
        app, ["rules", "show", "--set", "interpretations.target_priority=literal"]
    )
    assert result.exit_code == 0
    assert "literal" in result.stdout


def test_show_reconstructed_lists_every_id():
    result = runner.invoke(app, ["rules", "show", "--reconstructed"])
    assert result.exit_code == 0, result.output
    for rid in ALL_IDS:
        assert rid in result.stdout, rid
    # the values chosen for an id are shown next to it
    assert "interpretations.target_priority = damaged_first" in result.stdout
    assert "game.deadline_start = 18" in result.stdout


def test_show_reconstructed_follows_the_ruleset():
    result = runner.invoke(
        app, ["rules", "show", "--reconstructed", "--set", "game.deadline_start=16"]
    )
    assert result.exit_code == 0
    assert "game.deadline_start = 16" in result.stdout


def test_show_bad_file(tmp_path):
    path = bad_file(tmp_path, "die_table")
    result = runner.invoke(app, ["rules", "show", "--reconstructed", str(path)])
    assert_one_line_error(result, "damage.light")


def test_registry_covers_every_cited_id():
    from bollesim.bollebank.rules.show import cited_ids

    data = load_ruleset().data
    assert set(ALL_IDS) == set(BY_ID)
    assert set(cited_ids(data)) <= set(BY_ID)
    for rid, reading in BY_ID.items():
        assert reading.meaning and "\n" not in reading.meaning, rid


# --------------------------------------------------------------------------- help, errors


@pytest.mark.parametrize(
    "args", [[], ["rules"], ["rules", "check"], ["rules", "show"]], ids=" ".join
)
def test_help_has_an_example(args):
    result = runner.invoke(app, [*args, "--help"])
    assert result.exit_code == 0
    assert "Example" in result.stdout and "bollesim " in result.stdout


def test_shared_error_handling():
    """A command added with @command reports UsageError like a RulesetError."""
    demo = typer.Typer()

    @command(demo, "boom")
    def boom(times: int = 1) -> None:
        """Fail on purpose."""
        if times > 1:
            fail(f"asked {times} times")
        raise UsageError("unknown policy 'x'\n(known: historical)")

    @command(demo, "fine")
    def fine() -> None:
        """Succeed."""
        typer.echo("fine")

    result = runner.invoke(demo, ["boom"])
    assert_one_line_error(result, "unknown policy 'x' (known: historical)")
    result = runner.invoke(demo, ["boom", "--times", "2"])
    assert_one_line_error(result, "asked 2 times")
    result = runner.invoke(demo, ["fine"])
    assert result.exit_code == 0 and result.stdout == "fine\n"
