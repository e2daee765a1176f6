"""A game is a value found by its registered name (bollesim/game/registry.py): the games
built in, and the test game registered from outside the package through an entry point
(tests/bollesim_pig-0.dist-info), as any other package would register one."""

import subprocess
import sys
from pathlib import Path

import pytest

import bollesim
from bollesim.errors import UsageError
from bollesim.game.declaration import Game
from bollesim.game.registry import BUILT_IN, load_game, registered

TESTS = Path(__file__).parent


def test_a_game_is_loaded_once_by_its_name_and_a_game_is_its_own_value():
    game = bollesim.load_game("balkan-wars")
    assert isinstance(game, Game) and game.name == "balkan-wars"
    assert load_game("balkan-wars") is game and load_game(game) is game


def test_the_test_game_is_registered_through_an_entry_point_as_an_outside_game_is():
    assert "pig" not in BUILT_IN and registered()["pig"] == "toygame.game"
    assert load_game("pig").title == "Pig race"


def test_an_unknown_name_names_the_known_games_in_one_line():
    with pytest.raises(UsageError) as raised:
        load_game("chess\nerror: forged")
    assert str(raised.value) == ('unknown game "chess\\nerror: forged" '
                                 "(known: bollebank, balkan-wars, pig)")


def test_a_name_that_is_not_a_string_is_refused():
    with pytest.raises(TypeError, match="registered name or a Game"):
        load_game(None)


PROBE = """
import sys
from bollesim.errors import UsageError
from bollesim.game.registry import load_game, registered
for name in ("this", "json", "toygame.game", "../../etc/passwd", "pig"):
    try:
        load_game(name)
    except UsageError as exc:
        print(exc)
print(sorted(m for m in ("this", "toygame", "toygame.game") if m in sys.modules))
"""


def test_nothing_is_imported_from_a_name_that_is_not_registered(tmp_path):
    """Issue 45: `this` printed the Zen of Python when a game's name was imported as a
    module. Without tests/ on the path the test game is not registered either."""
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          cwd=tmp_path, check=True)
    lines = done.stdout.splitlines()
    assert len(lines) == 6 and lines[-1] == "[]", done.stdout
    assert all(line.endswith("(known: bollebank, balkan-wars)") for line in lines[:-1])
    assert "Beautiful is better" not in done.stdout + done.stderr


def test_a_registration_that_declares_another_game_is_a_developer_error(monkeypatch):
    from bollesim.game import registry

    monkeypatch.setattr(registry, "BUILT_IN", {**BUILT_IN, "chess": "toygame.game"})
    with pytest.raises(TypeError, match="does not declare a Game named 'chess'"):
        registry.load_game("chess")


def test_a_new_game_needs_its_own_package_and_one_registration_line():
    """Pig race (tests/toygame: its rules, engine, result, form and policies) is registered
    by one line outside its package, an entry point (tests/bollesim_pig-0.dist-info), and
    named nowhere in bollesim/, policies/ or the project's metadata: every tool takes it as
    it takes a built-in game (tests/test_second_game.py plays it through them)."""
    import re

    root = TESTS.parent
    lines = (TESTS / "bollesim_pig-0.dist-info" / "entry_points.txt").read_text().splitlines()
    assert [line for line in lines if "=" in line] == ["pig = toygame.game"]
    named = [str(path.relative_to(root)) for tree in ("bollesim", "policies")
             for path in (root / tree).rglob("*.py")
             if re.search(r"\btoygame\b|\bpig\b|Pig race", path.read_text(encoding="utf-8"))]
    named += ["pyproject.toml"] * bool(re.search(r"toygame|\bpig\b",
                                                 (root / "pyproject.toml").read_text()))
    assert not named, named
    assert load_game("pig").policies == "toygame.policies"  # its policies in its package
