"""Mutation check: bugs planted in the fast engine, caught by its invariant checks.

Each mutant in MUTANTS is a small, plausible bug in bollesim/engine/. For each one the
script copies the repository's tracked files to a temporary directory, plants the bug
there and, in a subprocess importing the copy (with an empty numba cache, so every
kernel compiles cold: one to two minutes a mutant), plays games of the "random" and
"historical" policies with every invariant of bollesim/engine/invariants.py checked. A
mutant is caught when a game breaks an invariant, or crashed when the engine fails;
otherwise it is MISSED.

    .venv/bin/python tests/mutants.py                       # every mutant
    .venv/bin/python tests/mutants.py --only tow-link-one-sided --games 5000
    .venv/bin/python tests/mutants.py --list

Exit code 0 when every mutant is caught, 1 when one is missed, 2 on bad arguments.
tests/test_mutants.py checks, without compiling, that every mutant still applies.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ("random", "historical")
SEED = 1


class Mutant(NamedTuple):
    name: str
    path: str  # repo-relative, in bollesim/engine/
    old: str  # occurs exactly once in path
    new: str
    rule: str  # the rulebook section or docs/readings.md id the bug breaks
    why: str


MUTANTS = [
    Mutant(
        "stack-limit-plus-one",
        "bollesim/engine/execution.py",
        "st[counts + p] > st[T.POS_STACK + p]:",
        "st[counts + p] > st[T.POS_STACK + p] + 1:",
        "§2.1.1, §6.2",
        "moves may fill a position one vehicle beyond its stacking limit",
    ),
    Mutant(
        "pair-chit-lost",
        "bollesim/engine/orders.py",
        "        place_on_track(st, first)\n        place_on_track(st, second)\n",
        "        place_on_track(st, first)\n",
        "§5.3",
        "the second chit of a drawn pair never reaches its track",
    ),
    Mutant(
        "pool-count-stale",
        "bollesim/engine/orders.py",
        "    count_in_pool(st, chit, -1)\n",
        "",
        "I-POOL",
        "a drawn chit stays in the live pool counts that I-POOL's stop reads",
    ),
    Mutant(
        "airstrike-twice",
        "bollesim/engine/orders.py",
        "if st[O.AIRSTRIKE_PENDING] or st[O.AIRSTRIKES_USED] >= st[T.S_AIRSTRIKES]:",
        "if st[O.AIRSTRIKE_PENDING]:",
        "§5.4.4, I-AIR",
        "an airstrike may be called again after the game's one is used",
    ),
    Mutant(
        "two-road-steps",
        "bollesim/engine/execution.py",
        "st[L.SCRATCH_TARGET + v] = step(st, v)",
        "st[L.SCRATCH_TARGET + v] = next_step(st, step(st, v), heading(st, v))",
        "§6.2",
        "a regular move takes two road steps instead of one",
    ),
    Mutant(
        "extra-move-unspent",
        "bollesim/engine/execution.py",
        "    spend_ability(st, a)\n    if may_move(st, choice, True):",
        "    if may_move(st, choice, True):",
        "§5.5",
        "Extra move is used without spending its marker, so it comes every turn",
    ),
    Mutant(
        "tow-link-one-sided",
        "bollesim/engine/core.py",
        "        st[vx(towed, O.V_TOWED_BY)] = -1\n",
        "",
        "§5.4.3",
        "a released tow clears the rescuer's side of the link but not the towed tank's",
    ),
    Mutant(
        "hull-hit-no-stun",
        "bollesim/engine/core.py",
        "if location == C.HULL or location == C.TURRET:",
        "if location == C.TURRET:",
        "§7.1.3",
        "a hull hit does not stun the tank",
    ),
    Mutant(
        "roe-below-track",
        "bollesim/engine/core.py",
        "new = min(max(st[O.ROE] + delta, st[T.S_ROE_MIN]), st[T.S_ROE_MAX])",
        "new = min(st[O.ROE] + delta, st[T.S_ROE_MAX])",
        "I-ROE0",
        "the RoE change is clamped only at the top, so the RoE can drop below level 1",
    ),
    Mutant(
        "artillery-chit-twice",
        "bollesim/engine/reaction.py",
        "                st[L.X_N_ASIDE] -= 1\n",
        "",
        "§7.2",
        "artillery returns a random-unit chit to the pool without taking it from aside",
    ),
    Mutant(
        "turn-past-limit",
        "bollesim/engine/end.py",
        "if st[O.TURN] >= st[T.S_TURN_LIMIT]:",
        "if st[O.TURN] > st[T.S_TURN_LIMIT]:",
        "§4",
        "the game plays on past the turn limit",
    ),
    Mutant(
        "tow-target-never-stacks",
        "bollesim/engine/execution.py",
        "            and final(st, moves, r) == pos(st, v)\n",
        "",
        "§5.4.3",
        "a tank some rescuer heads for is ignored for stacking before the rescuer reaches it",
    ),
    Mutant(
        "hull-marker-stays-green",
        "bollesim/engine/end.py",
        "st[vx(v, O.V_HULL_GREEN)] = 1 - st[vx(v, O.V_HULL_GREEN)]",
        "st[vx(v, O.V_HULL_GREEN)] = 1",
        "§6.2, §7.1.3",
        "the End phase never flips a hull marker to red, so a hull-hit tank moves every turn",
    ),
    Mutant(
        "stunned-tank-fires",
        "bollesim/engine/execution.py",
        "        or st[vx(v, O.V_STUN)]\n",
        "",
        "§6, §7.1.3",
        "a stunned tank on its Fire side still attacks in the Execution phase",
    ),
    Mutant(
        "operational-after-deadline",
        "bollesim/engine/end.py",
        "if st[O.TURN] <= st[O.DEADLINE] and at_t2",
        "if at_t2",
        "I-OPV",
        "two tanks reaching T2 after the deadline still count for an operational victory",
    ),
    Mutant(
        "tactical-on-light-damage",
        "bollesim/engine/end.py",
        "if st[vx(v, O.V_HEAVY)] and not in_saraci",
        "if st[vx(v, O.V_LIGHT)] and not in_saraci",
        "§8, I-TACV",
        "tactical victory asks for lightly, not heavily, damaged vehicles to be in Saraci",
    ),
]

# Runs in the mutated copy: check it is the code imported, then play checked games.
# Exit code SETUP_FAILED: the copy was not imported or the mutant does not compile.
SETUP_FAILED = 3
SNIPPET = """
import json, sys
from pathlib import Path

import bollesim, policies

root = Path.cwd().resolve()
for module in (bollesim, policies):
    if root not in Path(module.__file__).resolve().parents:
        print(f"{module.__name__} imported from {module.__file__}, not {root}", file=sys.stderr)
        sys.exit(3)  # SETUP_FAILED

from numba.core.errors import NumbaError

from bollesim.engine.invariants import check_games, first_violation
from bollesim.policy import load_policy
from bollesim.rules.loader import load_ruleset

n, seed = int(sys.argv[1]), int(sys.argv[2])
rules = load_ruleset()
for name in sys.argv[3:]:
    try:
        errors = check_games(rules, load_policy(name), n, seed)
    except NumbaError as error:
        print(f"the mutant does not compile: {error}", file=sys.stderr)
        sys.exit(3)  # SETUP_FAILED
    failed = int((errors[:, 0] != 0).sum())
    print(json.dumps({"policy": name, "failed": failed, "first": first_violation(errors)}))
"""


def mutated(mutant: Mutant, text: str) -> str:
    """text with the mutant planted; ValueError unless its old text occurs exactly once."""
    count = text.count(mutant.old)
    if count != 1:
        raise ValueError(f"{mutant.name}: old text found {count} times in {mutant.path}")
    if mutant.new == mutant.old:
        raise ValueError(f"{mutant.name}: new text equals old text")
    return text.replace(mutant.old, mutant.new)


def copy_repository(target: Path) -> None:
    """The working-tree versions of the tracked files (git ls-files) into target."""
    listing = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    for name in filter(None, listing.split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is left out
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def run_mutant(mutant: Mutant, games: int) -> tuple[str, int, str]:
    """(verdict, games with a violation, first violation or crash) of one mutant."""
    with tempfile.TemporaryDirectory() as copy, tempfile.TemporaryDirectory() as cache:
        copy_repository(Path(copy))
        path = Path(copy) / mutant.path
        path.write_text(mutated(mutant, path.read_text()))
        env = dict(os.environ, PYTHONPATH=copy, NUMBA_CACHE_DIR=cache)
        command = [sys.executable, "-c", SNIPPET, str(games), str(SEED), *POLICIES]
        done = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True)
    if done.returncode == SETUP_FAILED:
        raise RuntimeError(f"{mutant.name}: {done.stderr.strip()}")
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit code {done.returncode}"]
        return "crashed", 0, lines[-1]
    results = [json.loads(line) for line in done.stdout.splitlines()]
    failed = sum(r["failed"] for r in results)
    first = next((f"{r['policy']}: {r['first']}" for r in results if r["first"]), "-")
    return ("caught" if failed else "MISSED"), failed, first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20000, help="games per policy")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    names = [m.name for m in MUTANTS]
    unknown = [name for name in args.only or () if name not in names]
    if unknown:
        print(
            f"mutants.py: unknown mutant {', '.join(unknown)} (known: {', '.join(names)})",
            file=sys.stderr,
        )
        return 2
    width = max(map(len, names))
    if args.list:
        for m in MUTANTS:
            print(f"{m.name:<{width}}  {m.rule:<14}  {m.path}: {m.why}")
        return 0
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only]
    played = args.games * len(POLICIES)
    start = time.monotonic()
    missed = 0
    for i, m in enumerate(chosen, 1):
        print(
            f"[{i}/{len(chosen)}] {m.name}: compiling and playing {played} games",
            file=sys.stderr,
            flush=True,
        )
        verdict, failed, first = run_mutant(m, args.games)
        missed += verdict == "MISSED"
        games = "-" if verdict == "crashed" else f"{failed}/{played}"
        print(f"{m.name:<{width}}  {m.rule:<14}  {verdict:<7}  {games:>11}  {first}", flush=True)
    minutes, seconds = divmod(round(time.monotonic() - start), 60)
    print(f"{len(chosen) - missed}/{len(chosen)} caught in {minutes}m {seconds:02d}s")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
