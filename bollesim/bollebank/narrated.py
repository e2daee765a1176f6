"""One game of Operation Bøllebank played with its event trace kept and told turn by turn
(Game.narration; docs/architecture.md §6)."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

import numba
import numpy as np

from bollesim.bollebank import decisions, observation
from bollesim.bollebank import events as E
from bollesim.bollebank.narrate import Narrator, outcome_line
from bollesim.bollebank.reference.play import play_game
from bollesim.bollebank.result import RESULT
from bollesim.bollebank.rules.loader import Ruleset
from bollesim.game.policy import DecidePolicy


def narrated_game(
    rules: Ruleset,
    policy: DecidePolicy,
    params: np.ndarray,
    seed: int,
    game_index: int = 0,
    engine: str = "reference",
) -> tuple[list[str], dict]:
    """The turn-by-turn account of one game and its result row ({column: value}); either
    engine records the same events (docs/architecture.md §2)."""
    if engine == "fast":
        from bollesim.bollebank.engine.trace import play_traced_game

        trace, results, _ = play_traced_game(rules, policy, params, seed, game_index)
        row = RESULT.row(results)
    else:
        trace = []
        with policy_compile_notice(policy):
            row = play_game(rules, policy, params, seed, game_index, trace)
    return account(rules, policy, params, seed, game_index, trace, row), row


def account(rules: Ruleset, policy: DecidePolicy, params: np.ndarray, seed: int, game_index: int,
            trace: list, row: dict) -> list[str]:
    """The lines of a narrated game: what was played, its events, its outcome."""
    lines = Narrator(rules).narrate(trace)
    return [*header(rules, policy, params, seed, game_index), *lines, "", outcome_line(row)]


def game_document(rules: Ruleset, policy: DecidePolicy, params: np.ndarray, seed: int,
                  game_index: int = 0) -> dict:
    """One game as data (docs/game.schema.json), played by the reference engine: what was
    played, its steps in order (every decision put to the policy, with its options and
    choice, and every event of the trace, the chits drawn and the dice among them), the
    narration and the result row."""
    trace: list = []
    steps: list[tuple[int, dict]] = []  # (events before it, decision)
    words = Narrator(rules)
    decide = policy.decide

    def recorded(kind, obs, packed, options, n_options, kernel_params, prng):
        choice = int(decide(kind, obs, packed, options, n_options, kernel_params, prng))
        steps.append((len(trace), {
            "turn": int(obs[observation.TURN]),
            "decision": decisions.KIND_NAMES[kind],
            "context": [int(obs[observation.CONTEXT_A]), int(obs[observation.CONTEXT_B])],
            "options": [{"code": int(o), "words": words.option(kind, int(o))} for o in options[:n_options]],
            "chosen": choice,
        }))
        return choice

    recorder = DecidePolicy(policy.name, policy.doc, policy.parameters, recorded, game=policy.game)
    with policy_compile_notice(policy):
        row = play_game(rules, recorder, policy.kernel_params(params), seed, game_index, trace)
    events = [{"turn": t, "event": E.EVENT_NAMES[kind], "args": [a, b, c, d]}
              for t, kind, a, b, c, d in trace]
    for at, decision in reversed(steps):  # from the last, so that each index still holds
        events.insert(at, decision)
    return {
        "policy": policy.name,
        "params": {p.name: p.choice(v) if p.choices is not None else plain_number(v)
                   for p, v in zip(policy.parameters, params, strict=True)},
        "seed": seed,
        "game": game_index,
        "ruleset": {"name": rules.name, "sha256": rules.digest},
        "steps": events,
        "narration": account(rules, policy, params, seed, game_index, trace, row),
        "result": {k: v.item() if isinstance(v, np.generic) else v for k, v in row.items()},
    }


def plain_number(value: float) -> int | float:
    """A parameter's value for JSON: a whole number as an integer."""
    return int(value) if float(value).is_integer() else float(value)


POLICY_COMPILING = (
    "bollesim: compiling the policy {} once for this machine (about 20 s; later starts "
    "take under a second)..."
)


@contextmanager
def policy_compile_notice(policy: DecidePolicy):
    """Say so, on a terminal, when the reference engine is about to compile a policy's
    decide for the first time on this machine (a marker in numba's cache folder, as
    engine/play.compiled_for keeps for the kernels)."""
    from bollesim.bollebank.engine.play import compile_notice

    folder = numba.config.CACHE_DIR
    source = getattr(policy.decide, "py_func", None)  # presets share their family's decide
    name = source.__module__ if source is not None else policy.name
    marker = Path(folder) / f"compiled-decide-{name}" if folder else None
    if marker is not None and not marker.exists():
        compile_notice(sys.stderr, POLICY_COMPILING.format(policy.name))
    yield
    if marker is not None:
        try:
            marker.touch()
        except OSError:
            pass


def header(rules: Ruleset, policy: DecidePolicy, params: np.ndarray, seed: int, game_index: int) -> list[str]:
    """The first lines of a narrated game: what was played (either engine plays it alike)."""
    values = ", ".join(f"{p.name}={p.text(v)}" for p, v in zip(policy.parameters, params, strict=True))
    return [
        f"Policy {policy.name}" + (f" ({values})" if values else "") + f"; seed {seed}, game {game_index}",
        f"Ruleset {rules.name} (sha256 {rules.digest[:12]}…)",
    ]
