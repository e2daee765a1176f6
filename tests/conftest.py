"""Shared helpers for the rule tests: hand-built positions, scripted luck, scripted choices.

A rule test builds a position with `new_game(rules)` and plain attribute edits, scripts
the dice and draws with `ScriptedChance`, answers the player's decisions with `Script`
and calls one phase or helper of the reference engine through `make_table`.

    script = Script({D.ISSUE_ORDER: lambda opts: opts[1], D.DRAW_AGAIN: 0})
    table = make_table(game, ScriptedChance(d6=[3]), script)
"""

from __future__ import annotations

import os
import sys
from functools import cache

# Python's bytecode cache, written even where PYTHONDONTWRITEBYTECODE asks otherwise (as
# it does on CI's machines): without it each of the suite's processes compiles every
# module of the project and pytest rewrites every test module again. With it and the
# test modules' lazy imports, a worker collects the tests in 2.8 s of CPU, not 13 to 15
# (docs/development.md). The files go to __pycache__ folders, which git ignores; the
# commands the tests start read them.
sys.dont_write_bytecode = False

import numpy as np
import pytest
from hypothesis import settings

from bollesim.bollebank import codes, luck, observation
from bollesim.bollebank.reference.chance import ScriptedChance
from bollesim.bollebank.reference.state import Game, new_game
from bollesim.bollebank.reference.table import Table
from bollesim.bollebank.rules.loader import Ruleset, load_ruleset
from bollesim.game.policy import DecidePolicy

pytest_plugins = ["xdist_groups"]  # --dist loadgroup keeps each xdist_group in one worker

# The quick subset for the edit-test loop (`pytest -m quick`, under two minutes on 2 cores
# once the engine is compiled): the rules played move by move on the reference engine, the
# ruleset reader and its checks, the statistics, and the texts that must not rot. What it
# leaves out (the engines' equivalence, the invariants over many games, the commands, the
# page in a browser) the default suite runs.
QUICK = {
    "test_rules_orders", "test_rules_execution", "test_rules_reaction", "test_rules_readings",
    "test_rules_loader", "test_rules_docs", "test_cli_rules", "test_golden_example",
    "test_game_document", "test_step", "test_luck", "test_odds", "test_blocks",
    "test_analysis", "test_answer", "test_losses", "test_result", "test_choice_names",
    "test_run_options", "test_layers", "test_terminal", "test_mutants",
}


def only_quick(config: pytest.Config) -> bool:
    """Whether the run is the quick subset alone (`-m quick`)."""
    return config.option.markexpr.strip() == "quick"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject.toml): one worker more than there are cores. Many tests wait
    (on a browser, a server, a subprocess) and a third worker fills the core meanwhile: on
    2 cores with the engine compiled, 267 s with two workers, 231 s with three."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + 1


def pytest_ignore_collect(collection_path, config: pytest.Config) -> bool | None:
    """`-m quick` imports only the quick subset's modules: each worker would import all the
    others (the engine, the servers' and the browser's helpers) for tests it deselects."""
    if only_quick(config) and collection_path.suffix == ".py" \
            and collection_path.name.startswith("test_") and collection_path.stem not in QUICK:
        return True
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.stem in QUICK:
            item.add_marker(pytest.mark.quick)

# Property-based tests draw the same examples on every run and keep no database: a
# failure is reproducible, and the mutation check (tests/mutants.py) sees no examples
# saved by an earlier mutant.
settings.register_profile("bollesim", derandomize=True, database=None, deadline=None)
settings.load_profile("bollesim")

# The command line draws its tables as wide as COLUMNS says, 120 columns when captured and
# it is unset (cli/output.py: table_console). The tests read captured output: their
# terminal's width, or the 80 columns pytest-xdist's workers are given, must not wrap what
# they look for.
os.environ.pop("COLUMNS", None)


@pytest.fixture(scope="session")
def jsonschema():
    """jsonschema, imported by the tests that validate against a schema: its import builds
    the grammars of its formats, about two seconds that every worker would spend
    collecting."""
    return pytest.importorskip("jsonschema", reason="install the dev extra: pip install -e '.[dev]'")


@cache
def ruleset(*overrides: str) -> Ruleset:
    """The default ruleset with `KEY=VALUE` overrides (cached: a Ruleset is immutable)."""
    return load_ruleset(overrides=list(overrides))


def fresh_game(*overrides: str) -> Game:
    """The §3 setup position of the default ruleset (with overrides)."""
    return new_game(ruleset(*overrides))


class UnexpectedDecision(AssertionError):
    """The engine asked the player something the test did not script."""


class Script:
    """A player that answers from a dict {decision kind: answer} and records every offer.

    An answer is an option value, a list of option values (used in turn), or a callable
    `f(options) -> option value`. A decision kind the dict does not name fails the test.
    `offers` holds (kind, options, (context a, context b)) for every decision put to it
    (the engine does not ask when there is a single option).
    """

    def __init__(self, answers: dict | None = None):
        self.answers = {k: (list(v) if isinstance(v, list | tuple) else v)
                        for k, v in (answers or {}).items()}
        self.offers: list[tuple[int, list[int], tuple[int, int]]] = []

    def decide(self, kind, obs, rules, options, n, params, prng):
        opts = [int(x) for x in options[:n]]
        self.offers.append((int(kind), opts, (int(obs[observation.CONTEXT_A]), int(obs[observation.CONTEXT_B]))))
        if kind not in self.answers:
            raise UnexpectedDecision(f"unscripted decision kind {kind} with options {opts}")
        answer = self.answers[kind]
        if isinstance(answer, list):
            assert answer, f"scripted answers for decision kind {kind} ran out"
            value = answer.pop(0)
        elif callable(answer):
            value = answer(opts)
        else:
            value = answer
        assert value in opts, f"scripted answer {value} is not among {opts} (kind {kind})"
        return opts.index(value)

    def offered(self, kind: int) -> list[list[int]]:
        """The option lists offered for one decision kind, in order."""
        return [opts for k, opts, _ in self.offers if k == kind]

    def policy(self) -> DecidePolicy:
        return DecidePolicy(name="script", doc="", parameters=(), decide=self.decide, game="bollebank")


class RecordingChance(ScriptedChance):
    """ScriptedChance that also records the items of every pick: (what, items)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.offered: list[tuple[str, list]] = []

    def pick(self, items: list, purpose: int, turn: int) -> int:
        self.offered.append((luck.NAMES[purpose], list(items)))
        return super().pick(items, purpose, turn)


def make_table(game: Game, chance: ScriptedChance | None = None,
               script: Script | dict | None = None) -> Table:
    """A Table for a hand-built game: scripted luck (none by default: any random call
    fails the test) and a scripted player; the trace is kept in table.trace."""
    if not isinstance(script, Script):
        script = Script(script)
    table = Table(game, chance or ScriptedChance(), script.policy(), params=np.zeros(0),
                  seed=0, game_index=0, trace=[])
    table.script = script
    return table


def pool_chits(game: Game, kind: int, letter: int | None = None, double: bool | None = None,
               target: int | None = None) -> list[int]:
    """The chits in the pool of a type, optionally of a letter (codes.LETTER_*),
    double-target flag or artillery target (codes.TARGET_*), in pool order."""
    rules = game.rules
    return [
        chit for chit in game.pool
        if rules.chit_type[chit] == kind
        and (letter is None or rules.chit_letter[chit] == letter)
        and (double is None or bool(rules.chit_double[chit]) == double)
        and (target is None or rules.chit_art_target[chit] == target)
    ]


def take_chit(game: Game, kind: int, letter: int | None = None, double: bool | None = None,
              target: int | None = None) -> int:
    """Remove from the pool (and return) the first chit that pool_chits would list."""
    found = pool_chits(game, kind, letter, double, target)
    assert found, f"no chit of type {kind} letter {letter} double {double} target {target}"
    game.pool.remove(found[0])
    return found[0]


def stack_track(game: Game, kind: int, n: int, letter: int | None = None,
                double: bool | None = None) -> list[int]:
    """Put n chits of a type on its track (from the pool); the last one gets `letter`
    and `double` if given, the others any letter and single fire."""
    chits = [take_chit(game, kind, double=False if kind == codes.HMG else None) for _ in range(n - 1)]
    chits.append(take_chit(game, kind, letter, double))
    game.tracks[kind].extend(chits)
    return chits


def place(game: Game, **where: int) -> None:
    """Move vehicles by name: place(game, AQ=SK2, EA=SK3)."""
    for name, position in where.items():
        game.vehicles[game.rules.vehicle(name)].position = position


def events(table: Table, kind: int) -> list[tuple[int, int, int, int]]:
    """The (a, b, c, d) arguments of every trace event of one kind."""
    return [ev[2:] for ev in table.trace if ev[1] == kind]


def ability_index(game: Game, ability: int) -> tuple[int, int]:
    """(marker, side) of an ability code (codes.DRAW_THEIR_FIRE ...)."""
    sides = game.rules.ability_sides
    for a in range(len(sides)):
        for s in (0, 1):
            if sides[a, s] == ability:
                return a, s
    raise AssertionError(f"no ability {ability}")


def ready(game: Game, ability: int) -> int:
    """Put an ability marker face up in its box and return its marker index."""
    a, side = ability_index(game, ability)
    game.abilities[a].state = codes.AVAILABLE
    game.abilities[a].side = side
    return a



def everyone_at(game: Game, position: int) -> None:
    """Put all nine vehicles at one position (a blank slate for hand-built positions)."""
    for v in game.vehicles:
        v.position = position
