"""The structure the layers promise (docs/architecture.md): no import circle, no import
from a higher layer, and no module above the game's own package that names one of its
result columns, policies or places (bollesim/game/declaration.py is how they learn them)."""

import ast
import graphlib
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("base", "learn", "game", "strong", "balkan", "bollebank", "policies", "stats", "batch", "report", "search",
          "serve", "cli")
"""The layers, lowest first: each imports only from itself and those before it (the
games, balkan and bollebank, import neither the other)."""
BASE = {"blocks", "errors", "files", "jit", "jit_cache", "kept", "rng", "bits", "inputs", "terminal", "resources",
        "bollesim", "pointer"}


def modules() -> dict[str, Path]:
    found = {}
    for path in [*ROOT.glob("bollesim/**/*.py"), *ROOT.glob("policies/**/*.py")]:
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict) -> set[str]:
    """The modules of this project that `name` imports (anywhere in its body)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            targets = [base, *(f"{base}.{a.name}" for a in node.names)]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def layer(name: str) -> str:
    parts = name.split(".")
    if parts[0] == "policies":
        return "policies"
    if parts[-1] == "__main__":
        return "cli"
    return "base" if len(parts) == 1 or parts[1] in BASE else parts[1]


@cache
def graph() -> dict[str, set[str]]:
    """Every module of the project and the modules of the project it imports (parsed once,
    in the worker that first asks)."""
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_there_is_no_import_circle():
    try:
        list(graphlib.TopologicalSorter(graph()).static_order())
    except graphlib.CycleError as e:
        pytest.fail(f"import circle: {' -> '.join(e.args[1])}")


def test_no_module_imports_from_a_higher_layer():
    upward = [f"{a} -> {b}" for a, targets in graph().items() for b in targets
              if LAYERS.index(layer(b)) > LAYERS.index(layer(a))]
    assert not upward, upward


def test_one_game_imports_nothing_of_another():
    across = [f"{a} -> {b}" for a, targets in graph().items() for b in targets
              if {layer(a), layer(b)} == {"balkan", "bollebank"}]
    assert not across, across


GAMES = ("bollebank", "balkan-wars")
"""The games whose words no layer above them names."""


def game_names() -> tuple[set[str], set[str]]:
    """(names a constant may not be, words a constant may not contain), of every game of
    GAMES: its result columns, outcomes and their labels, its policies and their
    parameters, its trigger families, its title and the codes and names of its places."""
    from bollesim.game.policy import available_policies, load_policy
    from bollesim.game.registry import load_game

    exact, words = set(), set()
    for game in map(load_game, GAMES):
        result, policies = game.result, available_policies(game)
        parameters = {p.name for name in policies for p in load_policy(name, game).parameters}
        exact |= {*result.names, *result.outcome_names, *result.labels.values(), *policies}
        words |= {game.title, *(t.id for t in game.triggers),
                  *(n for n in [*result.names, *result.outcome_names, *parameters] if "_" in n),
                  *(label for label in result.labels.values() if " " in label),
                  *(f"-P {p}" for p in policies)}
        for place in game.load_ruleset().data.get("map", {}).get("positions", []):
            words.update({place["id"], place["name"]})
    words.add("Bøllebank")
    return exact, words


def code_strings(path: Path):
    """(line, text) of every string constant of a module that is not documentation (a
    string standing alone as a statement: a docstring)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


NOT_THE_GAME = {("bollesim.batch.session", "plan"),
                ("bollesim.game.result", "the outcomes are the wins, the loss, all_wins and "
                                         "no_result, each once")}
"""Strings above the game that are a game's name by chance: a run folder's plan, the
Result's own field `no_result`."""


def test_the_layers_above_the_game_name_none_of_its_columns_policies_or_places():
    exact, words = game_names()
    pattern = re.compile(r"(?<![\w-])(" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
                         + r")(?![\w-])")
    found = []
    for name, path in modules().items():
        if layer(name) in ("balkan", "bollebank", "policies"):
            continue
        for line, text in code_strings(path):
            if (name, text) in NOT_THE_GAME:
                continue
            hit = text if text in exact else next((m.group(0) for m in pattern.finditer(text)), None)
            if hit:
                found.append(f"{path.relative_to(ROOT)}:{line}: {hit}")
    assert not found, "\n".join(found)


REACHES_THE_ENGINE = {"bollesim.batch.bench"}
"""Modules above the game that import its package: the engine's own bench, which times
the fast engine's internals (its RNG floor reads the engine's result slots)."""


def test_the_layers_above_the_game_reach_it_only_through_its_declaration():
    """stats, batch, report, search and serve import nothing of the game's package: a
    second game plays through them unchanged (tests/test_second_game.py). The command
    line may: `rules`, `bench` and `play` are the game's own commands."""
    above = ("stats", "batch", "report", "search", "serve")
    found = [f"{a} -> {b}" for a, targets in graph().items() for b in targets
             if layer(a) in above and layer(b) == "bollebank" and a not in REACHES_THE_ENGINE]
    assert not found, found


def held_texts(value, depth: int = 0):
    """Every string a module-level value holds, inside containers, dataclasses, functions'
    defaults and typer apps (their help, epilogs and commands); a game's declaration
    itself (Game, Result, Trigger, Policy) is yielded as its type's name, to be refused."""
    import dataclasses
    import types

    import typer

    from bollesim.game.declaration import Game, Trigger
    from bollesim.game.policy import Policy
    from bollesim.game.result import Result

    if depth > 6:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Game | Result | Trigger | Policy):
        yield f"<a {type(value).__name__} held at import>"
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from held_texts(k, depth + 1)
            yield from held_texts(v, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in value:
            yield from held_texts(v, depth + 1)
    elif isinstance(value, types.FunctionType):
        yield from held_texts(value.__defaults__ or (), depth + 1)
        yield from held_texts(value.__kwdefaults__ or {}, depth + 1)
    elif isinstance(value, type):
        yield from held_texts([v for k, v in vars(value).items() if not k.startswith("__")],
                              depth + 1)
    elif isinstance(value, typer.Typer):
        yield from held_texts([value.info.help, value.info.epilog], depth + 1)
        for c in value.registered_commands:
            yield from held_texts([c.help, c.epilog, c.callback], depth + 1)
        for g in value.registered_groups:
            yield from held_texts(g.typer_instance, depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from held_texts(getattr(value, f.name), depth + 1)


def test_no_module_above_the_games_holds_a_games_words_at_import():
    """The game is a value passed to every layer, never frozen at import: no module-level
    name of a module above the games (nor a default argument, nor a command's help and
    examples) holds a word of either game (its outcomes and their labels, its policies,
    its triggers, its title: game_names) or a game's declaration. Read here from the
    modules as imported, not from their source: `BASELINE = load_game(...).baseline` holds
    no string literal."""
    import importlib
    import inspect

    exact, words = game_names()
    pattern = re.compile(r"(?<![\w-])(" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
                         + r")(?![\w-])")
    found = []
    for name in modules():
        if layer(name) in ("balkan", "bollebank", "policies") or name.endswith("__main__"):
            continue
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            elsewhere = inspect.isfunction(value) or inspect.isclass(value)  # imported: its own
            if attribute.startswith("__") or elsewhere and value.__module__ != name:
                continue
            for text in held_texts(value):
                hit = text if text in exact or text.startswith("<a ") else \
                    next((m.group(0) for m in pattern.finditer(text)), None)
                if hit and (name, text) not in NOT_THE_GAME:
                    found.append(f"{name}.{attribute}: {hit}")
    assert not found, "\n".join(found)
