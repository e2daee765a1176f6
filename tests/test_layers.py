"""The structure the layers promise (docs/architecture.md): no import circle, no import
from a higher layer, and no module above the game's own package that names one of its
result columns, policies or places (bollesim/game/declaration.py is how they learn them)."""

import ast
import graphlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("base", "learn", "game", "strong", "balkan", "bollebank", "policies", "stats", "batch", "report", "search",
          "serve", "cli")
"""The layers, lowest first: each imports only from itself and those before it (the
games, balkan and bollebank, import neither the other)."""
BASE = {"blocks", "errors", "jit", "jit_cache", "rng", "bits", "inputs", "terminal", "resources", "bollesim", "pointer"}


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


GRAPH = {name: imports(name, path, modules()) for name, path in modules().items()}


def test_there_is_no_import_circle():
    try:
        list(graphlib.TopologicalSorter(GRAPH).static_order())
    except graphlib.CycleError as e:
        pytest.fail(f"import circle: {' -> '.join(e.args[1])}")


def test_no_module_imports_from_a_higher_layer():
    upward = [f"{a} -> {b}" for a, targets in GRAPH.items() for b in targets
              if LAYERS.index(layer(b)) > LAYERS.index(layer(a))]
    assert not upward, upward


def test_one_game_imports_nothing_of_another():
    across = [f"{a} -> {b}" for a, targets in GRAPH.items() for b in targets
              if {layer(a), layer(b)} == {"balkan", "bollebank"}]
    assert not across, across


def game_names() -> tuple[set[str], set[str]]:
    """(names a constant may not be, words a constant may not contain): the game's result
    columns and outcomes, its policies and their parameters, its title and the codes and
    names of its places."""
    from bollesim.bollebank.game import GAME
    from bollesim.game.policy import available_policies, load_policy

    rules = GAME.load_ruleset()
    policies = available_policies()
    parameters = {p.name for name in policies for p in load_policy(name).parameters}
    exact = {*GAME.result.names, *GAME.result.outcome_names, *policies}
    words = {"Bøllebank", *(n for n in [*GAME.result.names, *parameters] if "_" in n),
             *(f"-P {p}" for p in policies)}
    for place in rules.data["map"]["positions"]:
        words.update({place["id"], place["name"]})
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


NOT_THE_GAME = {("bollesim.batch.session", "plan")}
"""Strings above the game that are a game's name by chance: a run folder's plan."""


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
    found = [f"{a} -> {b}" for a, targets in GRAPH.items() for b in targets
             if layer(a) in above and layer(b) == "bollebank" and a not in REACHES_THE_ENGINE]
    assert not found, found
