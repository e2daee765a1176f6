"""Mutation check: bugs planted in the code, each caught by the default test suite.

Each mutant in MUTANTS is one small, plausible bug: a text `old` that occurs exactly once
in a file, replaced by `new`, and the tests that must fail when it is planted: `tests`
holds one or more pytest selections (a file, node ids, `-k EXPRESSION`, as on the pytest
command line), each of which must fail on its own. The script copies the repository (its
tracked and new files) to a temporary folder and, for each mutant in turn, plants the
bug there, runs each selection with pytest in a subprocess importing the copy, and puts
the file back. A mutant is caught when every selection has a failing test; MISSED when
one passes; BROKEN when pytest could not run (a mutant that does not import, a selection
that names no test).

The copy's compiled engine is cached by a hash of its sources (bollesim/jit_cache.py):
mutants of plain-Python modules (analysis, experiment, report...) share one compile,
while a mutant of compiled code compiles cold (one to two minutes). Those run last.

    .venv/bin/python tests/mutants.py                          # every mutant (about an hour)
    .venv/bin/python tests/mutants.py --only analysis precision  # areas or mutant names
    .venv/bin/python tests/mutants.py --list

Exit code 0 when every mutant is caught, 1 otherwise, 2 on bad arguments.
tests/test_mutants.py checks, without running them, that every mutant still applies.

To add mutants, append Mutant(...) entries to the list of their area, or a new area list
to AREAS; name the default-suite tests that catch the bug (run it once with --only).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("jit_cache", ROOT / "bollesim" / "jit_cache.py")
jit_cache = importlib.util.module_from_spec(_spec)  # alone: importing bollesim sets its cache
_spec.loader.exec_module(jit_cache)
TIMEOUT = 1800  # seconds for one pytest selection; a mutant that hangs is not caught


class Mutant(NamedTuple):
    name: str
    path: str  # repo-relative
    old: str  # occurs exactly once in path
    new: str
    rule: str  # what the bug breaks: a rulebook section, a reconstruction id, a formula
    why: str
    tests: tuple[str, ...]  # pytest selections of the default suite; each must fail


FAST_GAMES = "tests/test_fast_invariants.py -k keep_every_invariant"
"""The fast engine's checked games: every invariant after every phase of 130,000 games."""

ENGINE = [  # the fast engine, caught by its invariants over played games
    Mutant(
        "stack-limit-plus-one",
        "bollesim/bollebank/engine/execution.py",
        "count > st[tables.POS_STACK + p]:",
        "count > st[tables.POS_STACK + p] + 1:",
        "§2.1.1, §6.2",
        "moves may fill a position one vehicle beyond its stacking limit",
        (FAST_GAMES,),
    ),
    Mutant(
        "pair-chit-lost",
        "bollesim/bollebank/engine/orders.py",
        "        place_on_track(st, first)\n        place_on_track(st, second)\n",
        "        place_on_track(st, first)\n",
        "§5.3",
        "the second chit of a drawn pair never reaches its track",
        (FAST_GAMES,),
    ),
    Mutant(
        "pool-count-stale",
        "bollesim/bollebank/engine/orders.py",
        "    count_in_pool(st, chit, -1)\n",
        "",
        "I-POOL",
        "a drawn chit stays in the live pool counts that I-POOL's stop reads",
        (FAST_GAMES,),
    ),
    Mutant(
        "airstrike-twice",
        "bollesim/bollebank/engine/orders.py",
        "if st[observation.AIRSTRIKE_PENDING] or st[observation.AIRSTRIKES_USED] >= st[tables.S_AIRSTRIKES]:",
        "if st[observation.AIRSTRIKE_PENDING]:",
        "§5.4.4, I-AIR",
        "an airstrike may be called again after the game's one is used",
        (FAST_GAMES,),
    ),
    Mutant(
        "two-road-steps",
        "bollesim/bollebank/engine/execution.py",
        "st[layout.SCRATCH_TARGET + v] = step(st, v)",
        "st[layout.SCRATCH_TARGET + v] = next_step(st, step(st, v), heading(st, v))",
        "§6.2",
        "a regular move takes two road steps instead of one",
        (FAST_GAMES,),
    ),
    Mutant(
        "extra-move-unspent",
        "bollesim/bollebank/engine/execution.py",
        "    spend_ability(st, a)\n    if may_move(st, choice, True):",
        "    if may_move(st, choice, True):",
        "§5.5",
        "Extra move is used without spending its marker, so it comes every turn",
        (FAST_GAMES,),
    ),
    Mutant(
        "tow-link-one-sided",
        "bollesim/bollebank/engine/core.py",
        "        st[vx(towed, observation.V_TOWED_BY)] = -1\n",
        "",
        "§5.4.3",
        "a released tow clears the rescuer's side of the link but not the towed tank's",
        (FAST_GAMES,),
    ),
    Mutant(
        "hull-hit-no-stun",
        "bollesim/bollebank/engine/core.py",
        "if location == codes.HULL or location == codes.TURRET:",
        "if location == codes.TURRET:",
        "§7.1.3",
        "a hull hit does not stun the tank",
        (FAST_GAMES,),
    ),
    Mutant(
        "roe-below-track",
        "bollesim/bollebank/engine/core.py",
        "new = min(max(st[observation.ROE] + delta, st[tables.S_ROE_MIN]), st[tables.S_ROE_MAX])",
        "new = min(st[observation.ROE] + delta, st[tables.S_ROE_MAX])",
        "I-ROE0",
        "the RoE change is clamped only at the top, so the RoE can drop below level 1",
        (FAST_GAMES,),
    ),
    Mutant(
        "artillery-chit-twice",
        "bollesim/bollebank/engine/reaction.py",
        "                st[layout.X_N_ASIDE] -= 1\n",
        "",
        "§7.2",
        "artillery returns a random-unit chit to the pool without taking it from aside",
        (FAST_GAMES,),
    ),
    Mutant(
        "turn-past-limit",
        "bollesim/bollebank/engine/end.py",
        "if st[observation.TURN] >= st[tables.S_TURN_LIMIT]:",
        "if st[observation.TURN] > st[tables.S_TURN_LIMIT]:",
        "§4",
        "the game plays on past the turn limit",
        (FAST_GAMES,),
    ),
    Mutant(
        "tow-target-never-stacks",
        "bollesim/bollebank/engine/execution.py",
        "            and final(st, moves, r) == pos(st, v)\n",
        "",
        "§5.4.3",
        "a tank some rescuer heads for is ignored for stacking before the rescuer reaches it",
        (FAST_GAMES,),
    ),
    Mutant(
        "hull-marker-stays-green",
        "bollesim/bollebank/engine/end.py",
        "st[vx(v, observation.V_HULL_GREEN)] = 1 - st[vx(v, observation.V_HULL_GREEN)]",
        "st[vx(v, observation.V_HULL_GREEN)] = 1",
        "§6.2, §7.1.3",
        "the End phase never flips a hull marker to red, so a hull-hit tank moves every turn",
        (FAST_GAMES,),
    ),
    Mutant(
        "stunned-tank-fires",
        "bollesim/bollebank/engine/execution.py",
        "        or st[vx(v, observation.V_STUN)]\n",
        "",
        "§6, §7.1.3",
        "a stunned tank on its Fire side still attacks in the Execution phase",
        (FAST_GAMES,),
    ),
    Mutant(
        "operational-after-deadline",
        "bollesim/bollebank/engine/end.py",
        "if st[observation.TURN] <= st[observation.DEADLINE] and at_t2",
        "if at_t2",
        "I-OPV",
        "two tanks reaching T2 after the deadline still count for an operational victory",
        (FAST_GAMES,),
    ),
    Mutant(
        "tactical-on-light-damage",
        "bollesim/bollebank/engine/end.py",
        "if st[vx(v, observation.V_HEAVY)] and not in_saraci",
        "if st[vx(v, observation.V_LIGHT)] and not in_saraci",
        "§8, I-TACV",
        "tactical victory asks for lightly, not heavily, damaged vehicles to be in Saraci",
        (FAST_GAMES,),
    ),
]

BOTH_TACTICAL = "tests/test_rules_both_engines.py -k tactical"
BOTH_OPERATIONAL = "tests/test_rules_both_engines.py -k operational"
BOTH_TARGETS = "tests/test_rules_both_engines.py -k target"

VICTORY_AND_TARGETS = [  # victory and target choice, in both engines
    Mutant(
        "tactical-turn-limit-extended",
        "bollesim/bollebank/engine/end.py",
        "tactical = silent and st[observation.TURN] <= st[tables.S_BASE_TURN_LIMIT]",
        "tactical = silent and st[observation.TURN] <= st[tables.S_TURN_LIMIT]",
        "§8, I-TACV",
        "the fast engine allows a tactical victory up to turn 40 in the extended game",
        (BOTH_TACTICAL,),
    ),
    Mutant(
        "reference-tactical-turn-limit-extended",
        "bollesim/bollebank/reference/end.py",
        'and game.turn <= rules.p("game", "turn_limit")',
        "and game.turn <= turn_limit(rules)",
        "§8, I-TACV",
        "the reference engine allows a tactical victory up to turn 40 in the extended game",
        ("tests/test_rules_reaction.py -k tactical", BOTH_TACTICAL),
    ),
    Mutant(
        "target-ignores-damage",
        "bollesim/bollebank/engine/reaction.py",
        "only_damaged = damaged != 0",
        "only_damaged = False",
        "§7.1, I-TARGET",
        "the fast engine's default target choice ignores heavy damage: lowest FP only",
        (FAST_GAMES, BOTH_TARGETS),
    ),
    Mutant(
        "reference-target-ignores-damage",
        "bollesim/bollebank/reference/reaction.py",
        "candidates = damaged or exposed",
        "candidates = exposed",
        "§7.1, I-TARGET",
        "the reference engine's default target choice ignores heavy damage",
        ("tests/test_rules_reaction.py -k target", BOTH_TARGETS),
    ),
    Mutant(
        "second-attack-same-target",
        "bollesim/bollebank/engine/reaction.py",
        "target = choose_target(st, weapon, first)",
        "target = choose_target(st, weapon, -1)",
        "§7.1",
        "the second attack of a double-target chit may hit the first target again",
        (FAST_GAMES,),
    ),
    Mutant(
        "in-saraci-without-overwatches",
        "bollesim/bollebank/rules/access.py",
        "return rules[at + packed.TOWN_OF + p] == codes.TOWN_S",
        "return p == rules[at + packed.S_SARACI]",
        "I-TACV, I-TOW-SARACI",
        "the compiled 'in Saraci' (fast engine and policies) drops the Saraci overwatches",
        (FAST_GAMES, BOTH_TACTICAL),
    ),
    Mutant(
        "reference-in-saraci-without-overwatches",
        "bollesim/bollebank/reference/orders.py",
        "return game.rules.town_of[position] == codes.TOWN_S",
        "return position == game.rules.saraci",
        "I-TACV, I-TOW-SARACI",
        "the reference engine's 'in Saraci' drops the Saraci overwatches",
        ("tests/test_rules_reaction.py -k tactical", BOTH_TACTICAL),
    ),
    Mutant(
        "reference-operational-after-deadline",
        "bollesim/bollebank/reference/end.py",
        "if game.turn <= game.deadline and at_t2 >= ",
        "if at_t2 >= ",
        "I-OPV",
        "the reference engine counts two tanks at T2 after the deadline",
        ("tests/test_rules_reaction.py -k operational", BOTH_OPERATIONAL),
    ),
    Mutant(
        "operational-with-one-tank",
        "bollesim/bollebank/engine/end.py",
        "at_t2 >= st[tables.S_TANKS_NEEDED]",
        "at_t2 >= 1",
        "§8, I-OPV",
        "one tank at T2 is enough for an operational victory",
        (FAST_GAMES, BOTH_OPERATIONAL),
    ),
    Mutant(
        "silent-before-the-setup-marker-flips",
        "bollesim/bollebank/engine/core.py",
        "        return st[layout.X_SETUP_FLIPPED] == 1\n",
        "        return True\n",
        "§8, §6.3",
        "artillery counts as silent while the Saraci setup marker still shows Saraci",
        (FAST_GAMES,),
    ),
    Mutant(
        "victories-not-sticky",
        "bollesim/bollebank/engine/end.py",
        "        st[observation.OPERATIONAL] |= operational\n",
        "        st[observation.OPERATIONAL] = operational\n",
        "I-STICKY",
        "an operational victory met once is lost when its conditions lapse",
        ("tests/test_rules_both_engines.py -k STICKY",),
    ),
    Mutant(
        "tactical-victory-never-offered",
        "bollesim/bollebank/engine/end.py",
        "    if operational or tactical:\n",
        "    if operational:\n",
        "§8, I-END",
        "a tactical victory alone is never offered, so the game cannot stop on it",
        (FAST_GAMES,),
    ),
    Mutant(
        "political-reversed",
        "bollesim/bollebank/engine/play.py",
        "political = not fired or st[observation.FIRE_ROE] <= st[observation.ROE]",
        "political = not fired or st[observation.FIRE_ROE] >= st[observation.ROE]",
        "§8",
        "political victory asks for the fire status at or above the RoE, not below",
        (FAST_GAMES,),
    ),
    Mutant(
        "diplomatic-without-military",
        "bollesim/bollebank/engine/play.py",
        "if st[tables.S_DIPLO_MILITARY] or defeat:",
        "if defeat:",
        "§8, I-DIPLO",
        "strategic and political victories count without an operational or tactical one",
        (FAST_GAMES,),
    ),
]

ANALYSIS = [  # rates, Wilson intervals, paired tests, best settings (bollesim/stats/analysis.py)
    Mutant(
        "wilson-wald-width",
        "bollesim/stats/intervals.py",
        "half = z * np.sqrt(p * (1.0 - p) / m + z2 / (4.0 * m * m)) / denom",
        "half = z * np.sqrt(p * (1.0 - p) / m) / denom",
        "Wilson (1927)",
        "the interval's half-width drops the z^2/4n^2 term",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "wilson-centre-at-the-rate",
        "bollesim/stats/intervals.py",
        "centre = (p + z2 / (2.0 * m)) / denom",
        "centre = p",
        "Wilson (1927)",
        "the interval is centred on the observed rate instead of shrunk toward one half",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "wilson-ignores-z",
        "bollesim/stats/intervals.py",
        "        z2 = z * z\n",
        "        z2 = 1.96 * 1.96\n",
        "Wilson (1927)",
        "a confidence level other than 95% changes the width but not the centre",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "rates-interval-swapped",
        "bollesim/stats/analysis.py",
        'pl.Series(f"{o}_low", low),\n                    pl.Series(f"{o}_high", high)]',
        'pl.Series(f"{o}_low", high),\n                    pl.Series(f"{o}_high", low)]',
        "rates",
        "the rates table gives each interval's bounds the wrong way round",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "perfect-is-any-victory",
        "bollesim/game/result.py",
        "return {self.all_wins: pl.all_horizontal(*wins),",
        "return {self.all_wins: pl.any_horizontal(*wins),",
        "§8",
        "'all four victories' counts games with any victory",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "no-result-counts-defeats",
        "bollesim/game/result.py",
        "self.no_result: ~pl.any_horizontal(*wins) & ~pl.col(self.loss).fill_null(False)}",
        "self.no_result: ~pl.any_horizontal(*wins)}",
        "§8",
        "'no result' includes the defeats",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "mcnemar-one-sided",
        "bollesim/stats/intervals.py",
        "return min(1.0, 2.0 * tail)",
        "return min(1.0, tail)",
        "exact McNemar test",
        "the paired test's p-value is one-sided: differences look twice as significant",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "mcnemar-larger-tail",
        "bollesim/stats/intervals.py",
        "lo = min(int(b), int(c))",
        "lo = max(int(b), int(c))",
        "exact McNemar test",
        "the binomial tail is summed up to the larger discordant count",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "newcombe-phi-sign",
        "bollesim/stats/intervals.py",
        "low = d - math.sqrt(max(da * da - 2 * phi * da * db + db * db, 0.0))",
        "low = d - math.sqrt(max(da * da + 2 * phi * da * db + db * db, 0.0))",
        "Newcombe (1998) method 10",
        "the paired interval's lower side widens with the pairs' correlation",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "newcombe-no-continuity",
        "bollesim/stats/intervals.py",
        "    if excess > n / 2:\n        excess -= n / 2\n    elif excess >= 0:\n        excess = 0\n",
        "",
        "Newcombe (1998) method 10",
        "phi loses its continuity correction",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "paired-difference-sign",
        "bollesim/stats/intervals.py",
        '"diff": (ka - kb) / n,',
        '"diff": (kb - ka) / n,',
        "paired comparison",
        "the paired difference is reported as b - a",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "significance-reversed",
        "bollesim/stats/intervals.py",
        '"significant": p < alpha,',
        '"significant": p >= alpha,',
        "paired comparison",
        "'significant' is said of the differences that are not",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "best-minimises-victories",
        "bollesim/stats/paired_tests.py",
        "score = -r if o in minimise else r",
        "score = r",
        "best_trigger",
        "the best setting for defeat is the one with the most defeats",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "best-tied-dropped",
        "bollesim/stats/paired_tests.py",
        "tied = [labels[i] for i in range(len(values)) if i != ib and p[i] >= chosen_alpha]",
        "tied = []",
        "best_trigger",
        "the settings not significantly different from the best are not listed",
        ("tests/test_analysis.py",),
    ),
    Mutant(
        "forest-split-strict",
        "bollesim/learn/forest.py",
        "(x[np.int64(blob[node])] > blob[node + 1])",
        "(x[np.int64(blob[node])] >= blob[node + 1])",
        "step",
        "the exported forest sends a value equal to a split's threshold the other way from"
        " LightGBM",
        ("tests/test_apprentice.py -k packed",),
    ),
    Mutant(
        "features-rank-off-by-one",
        "bollesim/bollebank/apprentice/features.py",
        "rank += scores[i] > scores[option]",
        "rank += scores[i] >= scores[option]",
        "fill",
        "the apprentice sees an option's rank among the base's scores counting itself",
        ("tests/test_apprentice.py -k features",),
    ),
    Mutant(
        "strong-finding-against-itself",
        "bollesim/stats/sensitivity.py",
        "strong = best_of.get(strong_counterpart(game, policy, param))",
        "strong = best_of.get((policy, param))",
        "robustness",
        "a finding is checked for the strong player against the policy's own answer",
        ("tests/test_sensitivity.py -k strong",),
    ),
    Mutant(
        "best-chosen-without-correction",
        "bollesim/stats/paired_tests.py",
        "chosen_alpha = alpha / max(1, len(values) - 1)",
        "chosen_alpha = alpha",
        "best_trigger",
        "a setting chosen as the best of many on the same games is called better than"
        " settings that only lost to its luck",
        ("tests/test_analysis.py -k equal_settings",),
    ),
    Mutant(
        "worst-labelled-as-default",
        "bollesim/stats/paired_tests.py",
        '"worst_label": labels[iw],',
        '"worst_label": labels[idef] if idef is not None else labels[iw],',
        "best_trigger",
        "the worst setting is labelled with the default's value",
        ("tests/test_analysis.py",),
    ),
]

PRECISION = [  # the --precision stopping rule (bollesim/batch/precision.py)
    Mutant(
        "precision-watches-operational-only",
        "bollesim/batch/precision.py",
        "return tuple(result.flags)",
        "return tuple(result.flags[:1])",
        "--precision",
        "the stopping rule watches the operational rate only",
        ("tests/test_sweep.py -k precision",),
    ),
    Mutant(
        "precision-stops-at-half-width",
        "bollesim/batch/precision.py",
        "bool(worst <= precision),",
        "bool(worst <= precision / 2),",
        "--precision",
        "games are added until every half-width is half the one asked (runs too long)",
        ("tests/test_sweep.py -k precision",),
    ),
    Mutant(
        "precision-full-width",
        "bollesim/batch/precision.py",
        "return (np.asarray(high) - np.asarray(low)) / 2",
        "return np.asarray(high) - np.asarray(low)",
        "--precision",
        "the whole interval width is compared with the asked half-width",
        ("tests/test_sweep.py -k precision",),
    ),
    Mutant(
        "precision-judges-cell-0",
        "bollesim/batch/precision.py",
        "widths = half_widths(counts, n)",
        "widths = half_widths(counts[:1], n)",
        "--precision",
        "a sweep stops when its first cell is precise enough",
        ("tests/test_sweep.py -k precision",),
    ),
]

SWEEP = [  # cells, common seeds, per-cell rows, parameter columns (bollesim/batch/spec.py, session.py)
    Mutant(
        "cells-numbered-per-grid",
        "bollesim/batch/spec.py",
        "cells.append(Cell(first + len(cells), policy, vector, rules, readings, ruleset))",
        "cells.append(Cell(len(cells), policy, vector, rules, readings, ruleset))",
        "experiment spec",
        "each [[grid]] numbers its cells from 0, so two cells share a number",
        ("tests/test_sweep.py",),
    ),
    Mutant(
        "cells-seeded-apart",
        "bollesim/batch/session.py",
        "yield self.cells[i].policy, self.cells[i].chunk_params(a, b), self.seed, a",
        "yield self.cells[i].policy, self.cells[i].chunk_params(a, b), self.seed + i, a",
        "common random numbers",
        "each cell plays other seeds than the others, so cells cannot be paired",
        ("tests/test_sweep.py",),
    ),
    Mutant(
        "rows-of-one-cell",
        "bollesim/batch/session.py",
        "table = runner.to_table(results, cell.policy, params, self.seed, a, cell.cell, self.schema)",
        "table = runner.to_table(results, cell.policy, params, self.seed, a, 0, self.schema)",
        "sweep rows",
        "every row is labelled with the first cell",
        ("tests/test_sweep.py",),
    ),
    Mutant(
        "precision-counts-in-cell-0",
        "bollesim/batch/session.py",
        "self.counts[i] += results[:, rate_columns(self.result)].sum(axis=0)",
        "self.counts[0] += results[:, rate_columns(self.result)].sum(axis=0)",
        "--precision",
        "every cell's outcomes are counted as the first cell's",
        ("tests/test_sweep.py -k precision",),
    ),
    Mutant(
        "parameter-columns-of-one-policy",
        "bollesim/batch/spec.py",
        "names += [p.name for p in cell.policy.parameters if p.name not in names]",
        "names = [p.name for p in cell.policy.parameters]",
        "sweep columns",
        "the dataset keeps the parameter columns of the last cell's policy only",
        ("tests/test_sweep.py",),
    ),
    Mutant(
        "added-games-replayed",
        "bollesim/batch/session.py",
        "    for a in range(done, target, chunk):",
        "    for a in range(0, target - done, chunk):",
        "--precision, common random numbers",
        "games added for --precision replay the first games' indices and seeds",
        ("tests/test_sweep.py -k precision",),
    ),
]

REPORT = [  # what the balance report says (bollesim/report/balance.py, bollesim/report/plots.py)
    Mutant(
        "verdict-wording-swapped",
        "bollesim/report/balance.py",
        'return ("significant" if significant else "not significant")',
        'return ("not significant" if significant else "significant")',
        "report wording",
        "the report calls a significant difference not significant, and the reverse",
        ("tests/test_report.py::test_best_setting_table",),
    ),
    Mutant(
        "paired-table-sign-flipped",
        "bollesim/report/balance.py",
        "cmp = paired_tests.paired_comparison(game, games, int(c), int(base),",
        "cmp = paired_tests.paired_comparison(game, games, int(base), int(c),",
        "paired comparison",
        "the paired-differences table shows the base minus each cell, not the reverse",
        ("tests/test_report.py::test_paired_differences_table",),
    ),
    Mutant(
        "best-setting-ties-dropped",
        "bollesim/report/balance.py",
        '", ".join(tied) if paired else "not paired",',
        '"" if paired else "not paired",',
        "best_trigger",
        "the report leaves out the settings not significantly different from the best",
        ("tests/test_report.py::test_best_setting_table",),
    ),
    Mutant(
        "worst-setting-labelled-as-default",
        "bollesim/report/balance.py",
        "f\"{r['worst_label']}: {pct(r['worst_rate'])}\",",
        "f\"{r['default_label']}: {pct(r['worst_rate'])}\",",
        "best_trigger",
        "the worst setting's rate is shown under the default setting's label",
        ("tests/test_report.py::test_best_setting_table",),
    ),
    Mutant(
        "chart-strategic-draws-political",
        "bollesim/report/plots.py",
        'rows = frame.filter(pl.col("outcome") == o)',
        'rows = frame.filter(pl.col("outcome") == ("political" if o == "strategic" else o))',
        "charts",
        "the strategic-victory line of a chart plots the political victory's rates",
        ("tests/test_plots.py::test_trigger_chart",),
    ),
    Mutant(
        "worst-cell-labelled-as-best",
        "bollesim/report/balance.py",
        'labels[worst["cell"]], pct(worst[f"{o}_rate"]),',
        'labels[best["cell"]], pct(worst[f"{o}_rate"]),',
        "best and worst cells",
        "the best/worst cell table names the best cell as the worst",
        ("tests/test_report.py::test_best_and_worst_cell_table",),
    ),
    Mutant(
        "endings-defeat-inverted",
        "bollesim/report/balance.py",
        "game.result.labels[result.loss] if r[result.loss] else \"\"",
        "\"\" if r[result.loss] else game.result.labels[result.loss]",
        "§8",
        "the endings table marks the ends that are not defeats as defeats",
        ("tests/test_report.py::test_endings_table",),
    ),
    Mutant(
        "difference-bars-negated",
        "bollesim/report/plots.py",
        "ax.barh(ys, diff, height=0.62,",
        "ax.barh(ys, -diff, height=0.62,",
        "charts",
        "a paired-differences chart (compare, sensitivity) draws A - B as B - A",
        ("tests/test_plots.py::test_difference_chart_draws_each_paired_difference",),
    ),
    Mutant(
        "difference-rows-upside-down",
        "bollesim/report/plots.py",
        "    ax.invert_yaxis()\n    ax.xaxis.set_major_formatter",
        "    ax.xaxis.set_major_formatter",
        "charts",
        "a paired-differences chart draws its first row at the bottom (the largest move of a "
        "tornado chart last)",
        ("tests/test_plots.py::test_difference_chart_draws_each_paired_difference",),
    ),
]

AXES_EACH_CELL = "tests/test_rule_axes.py::test_each_cell_plays_its_own_ruleset_on_common_seeds"
SENSITIVITY_EFFECTS = "tests/test_sensitivity.py::test_effects_from_the_rows"
SENSITIVITY_FINDINGS = "tests/test_sensitivity.py::test_robustness_from_the_rows"
SENSITIVITY_TABLES = "tests/test_sensitivity.py::test_report_tables_and_charts"

RULESETS = [  # per-cell rulesets, compare and sensitivity (batch/spec.py, session.py, compare.py,
    # sensitivity.py)
    Mutant(
        "cell-plays-the-experiments-ruleset",
        "bollesim/batch/session.py",
        "return self.cells[i].ruleset or self.rules",
        "return self.rules",
        "rule axes",
        "every cell of a grid with rule axes plays the experiment's ruleset, not its own",
        (AXES_EACH_CELL, "tests/test_sensitivity.py -k every_cell"),
    ),
    Mutant(
        "cell-ruleset-without-readings",
        "bollesim/batch/spec.py",
        '        data = rulebook.apply_readings(data, readings, "readings")\n',
        "        pass\n",
        "rule axes, readings",
        "a cell's readings are recorded but not switched on",
        (AXES_EACH_CELL, SENSITIVITY_EFFECTS),
    ),
    Mutant(
        "rows-say-the-experiments-ruleset",
        "bollesim/batch/session.py",
        "table = runner.with_ruleset(table, cell.ruleset_text(), self.ruleset(i).digest)",
        "table = runner.with_ruleset(table, cell.ruleset_text(), self.rules.digest)",
        "rule axes",
        "the rows of a cell that changes the ruleset carry the experiment's ruleset hash",
        (AXES_EACH_CELL,),
    ),
    Mutant(
        "cell-record-without-ruleset",
        "bollesim/batch/spec.py",
        "        if not self.changes_rules:\n            return {}\n",
        "        return {}\n",
        "rule axes, --resume",
        "the manifest and the resume key leave out each cell's rules, readings and hash",
        ("tests/test_rule_axes.py::test_manifest_and_labels_name_each_cells_ruleset",
         "tests/test_rule_axes.py::test_resume_is_exact_and_refuses_other_rules"),
    ),
    Mutant(
        "compare-ignores-seeds",
        "bollesim/stats/compare.py",
        "    if other.height:\n",
        "    if False:\n",
        "common random numbers",
        "compare pairs games played from different seeds",
        ("tests/test_compare.py::test_refusals_are_one_line",),
    ),
    Mutant(
        "compare-pairs-the-next-game",
        "bollesim/stats/compare.py",
        'side.games.join(common, on="game").with_columns(pl.lit(i, pl.Int32).alias("cell"))',
        'side.games.join(common, on="game").with_columns(pl.lit(i, pl.Int32).alias("cell"),\n'
        '                                                 pl.col("game") + i)',
        "paired comparison",
        "compare pairs game g of A with game g - 1 of B",
        ("tests/test_compare.py::test_two_runs_b_minus_a",),
    ),
    Mutant(
        "compare-a-minus-b",
        "bollesim/stats/compare.py",
        "cmp = paired_tests.paired_comparison(a.game, paired, 1, 0)",
        "cmp = paired_tests.paired_comparison(a.game, paired, 0, 1)",
        "paired comparison",
        "compare reports A - B under the heading B - A",
        ("tests/test_compare.py::test_two_runs_b_minus_a", "tests/test_compare.py::test_the_report"),
    ),
    Mutant(
        "sensitivity-alternatives-misnamed",
        "bollesim/batch/sensitivity.py",
        '"alternatives": [f"{r}={v}" for r, v in alts]}',
        '"alternatives": [f"{r}={v}" for r, v in alts[1:] + alts[:1]]}',
        "sensitivity",
        "each alternative's games are reported under the next alternative's name",
        (SENSITIVITY_EFFECTS,),
    ),
    Mutant(
        "sensitivity-change-sign",
        "bollesim/stats/sensitivity.py",
        'moved = (pairs[o] - pairs[f"{o}_as"]).to_numpy() / n_cells',
        'moved = (pairs[f"{o}_as"] - pairs[o]).to_numpy() / n_cells',
        "sensitivity",
        "a change is reported as the rate as specified minus the alternative's",
        (SENSITIVITY_EFFECTS, SENSITIVITY_TABLES),
    ),
    Mutant(
        "sensitivity-cells-independent",
        "bollesim/stats/sensitivity.py",
        "se = float(moved.std(ddof=1)) / math.sqrt(g) if g > 1 else 0.0",
        "se = float(moved.std(ddof=1)) / math.sqrt(g * n_cells) if g > 1 else 0.0",
        "sensitivity, common random numbers",
        "a change's interval counts every cell's game as independent (too narrow)",
        (SENSITIVITY_EFFECTS,),
    ),
    Mutant(
        "robustness-ties-read-backwards",
        "bollesim/stats/sensitivity.py",
        'if theirs["tied"] is not None and mine["best_label"] in theirs["tied"]:',
        'if mine["tied"] is not None and theirs["best_label"] in mine["tied"]:',
        "sensitivity, exact McNemar test",
        "'holds within noise' is judged on the games as specified, not the alternative's",
        (SENSITIVITY_FINDINGS,),
    ),
    Mutant(
        "ranking-swap-always-a-change",
        "bollesim/stats/sensitivity.py",
        'if cmp["p_value"] < ALPHA:',
        'if cmp["p_value"] <= 1.0:',
        "sensitivity, exact McNemar test",
        "a ranking whose order changes within noise is said to change",
        (SENSITIVITY_FINDINGS,),
    ),
    Mutant(
        "finding-that-changes-said-to-hold",
        "bollesim/stats/sensitivity.py",
        '    return "changes"\n\n\ndef _setting',
        '    return "holds"\n\n\ndef _setting',
        "sensitivity",
        "a best setting that another setting beats significantly is said to hold",
        (SENSITIVITY_FINDINGS, SENSITIVITY_TABLES),
    ),
    Mutant(
        "reordered-ranking-said-to-hold",
        "bollesim/stats/sensitivity.py",
        "    if before == after:\n",
        "    if True:\n",
        "sensitivity",
        "a ranking of the policies that an alternative reorders is said to hold",
        (SENSITIVITY_FINDINGS,),
    ),
    Mutant(
        "tornado-bars-negated",
        "bollesim/report/chartdata.py",
        'pl.col("alternative").alias("row"), "outcome", "diff", "low", "high",',
        'pl.col("alternative").alias("row"), "outcome", -pl.col("diff"), "low", "high",',
        "sensitivity, charts",
        "a tornado chart draws each alternative's change with the wrong sign",
        (SENSITIVITY_TABLES,),
    ),
    Mutant(
        "tornado-smallest-move-on-top",
        "bollesim/report/chartdata.py",
        '.sort("_size", "alternative", descending=[True, False]))',
        '.sort("_size", "alternative", descending=[False, False]))',
        "sensitivity, charts",
        "a tornado chart puts the smallest move at the top",
        (SENSITIVITY_TABLES,),
    ),
]

OPTIMISE = [  # policy search: the race, held-out seeds, best.json (bollesim/search/optimise.py, race.py, optimise_*.py)
    Mutant(
        "race-seeds-per-candidate",
        "bollesim/search/race.py",
        "games = simulate(search.policy, stop - first, search.seed,",
        "games = simulate(search.policy, stop - first, search.seed + int(c),",
        "common random numbers",
        "each trial plays its own games: the race compares luck as well as play",
        ("tests/test_optimise.py -k same_games",),
    ),
    Mutant(
        "race-keeps-the-worst",
        "bollesim/search/race.py",
        'return np.argsort(-means[:, 0], kind="stable")',
        'return np.argsort(means[:, 0], kind="stable")',
        "the finalists are the best trials",
        "the trials with the lowest objective are ranked first",
        ("tests/test_optimise.py -k brute_force",),
    ),
    Mutant(
        "holdout-on-the-search-seed",
        "bollesim/search/optimise.py",
        "search.holdout_games, search.holdout_seed,",
        "search.holdout_games, search.seed,",
        "held-out estimate",
        "the winners are estimated on the games that chose them (biased upward)",
        ("tests/test_optimise.py -k held_out_games",),
    ),
    Mutant(
        "holdout-baseline-is-a-candidate",
        "bollesim/search/optimise.py",
        'held.append(("defaults", search.policy.param_vector()))',
        'held.append(("defaults", race.pool[0]))',
        "paired differences against the defaults",
        "the baseline is the first candidate (the spec's fixed values), not the declared defaults",
        ("tests/test_optimise.py -k pairs",),
    ),
    Mutant(
        "best-json-floats",
        "bollesim/search/optimise.py",
        "int(v) if is_whole(p) else float(v)",
        "float(v)",
        "best.json contract",
        "whole-numbered parameters are written as floats",
        ("tests/test_optimise.py -k contract",),
    ),
    Mutant(
        "score-ignores-weights",
        "bollesim/game/result.py",
        "out += weight * games",
        "out += games",
        "weighted objective",
        "every outcome of a weighted score counts with weight 1",
        ("tests/test_optimise.py -k weighted",),
    ),
    Mutant(
        "pareto-one-front",
        "bollesim/search/race.py",
        "ranks[left[~dominated]] = rank",
        "ranks[left[~dominated]] = 0",
        "Pareto fronts",
        "every front is ranked first",
        ("tests/test_optimise.py -k pareto_ranks",),
    ),
    Mutant(
        "seeds-without-presets",
        "bollesim/search/optimise_space.py",
        "if search.policy.name == search.game.scripted:",
        "if search.policy.name != search.game.scripted:",
        "the presets in the space are seeds",
        "the search starts without the presets and can end below them",
        ("tests/test_optimise.py -k presets",),
    ),
    Mutant(
        "categorical-as-integers",
        "bollesim/search/optimise_space.py",
        "out[axis.name] = CategoricalDistribution(axis.choices[int(axis.low):int(axis.high) + 1])",
        "out[axis.name] = IntDistribution(int(axis.low), int(axis.high))",
        "categorical parameters are choices",
        "a post or a target is offered to the sampler as a number",
        ("tests/test_optimise.py -k categorical",),
    ),
    Mutant(
        "sampler-unseeded",
        "bollesim/search/race.py",
        "seed=search.seed % 2**32,",
        "seed=None,",
        "reproducible: the same spec gives the same search",
        "the sampler draws from the clock: two runs of one spec differ",
        ("tests/test_optimise.py -k same_spec",),
    ),
]

# the lookahead player (bollesim/strong/, bollebank/positions.py, engine/primitives.py,
# engine/rollout.py, script.py)
LOOKAHEAD = [
    Mutant(
        "rollout-on-the-games-stream",
        "bollesim/bollebank/engine/script.py",
        "st[layout.CHANCE] = st[layout.SCRIPT_KEYS]",
        "st[layout.CHANCE] = st[layout.CHANCE]",
        "issue 12: rollouts draw from a chance stream keyed apart from the game's",
        "the rollouts replay the game's own draws after the decision: they see its future",
        ("tests/test_lookahead.py -k oracle", "tests/test_lookahead.py -k future"),
    ),
    Mutant(
        "fire-before-the-imposed-trigger",
        "bollesim/bollebank/engine/primitives.py",
        "met = obs[observation.ROE] >= roe and obs[observation.TURN] >= turn",
        "met = obs[observation.ROE] >= roe - 1 and obs[observation.TURN] >= turn - 1",
        "restricted play: the first Fire order exactly when the imposed trigger allows it",
        "the player may give its first Fire order one RoE step or one turn early",
        ("tests/test_lookahead.py -k imposed",),
    ),
    Mutant(
        "ties-ignore-the-base",
        "bollesim/strong/kernel.py",
        "return best if d.sum() > confidence * np.sqrt((d * d).sum()) else base",
        "return best if d.sum() >= confidence * np.sqrt((d * d).sum()) else base",
        "lookahead: with no evidence it plays as its base policy",
        "a tie goes to the first option listed, often 'no order'",
        ("tests/test_lookahead.py -k tie",),
    ),
    Mutant(
        "objective-rewards-defeat",
        "bollesim/bollebank/lookahead.py",
        'Objective("operational victory and no defeat", {"operational": 1, "defeat": -1})',
        'Objective("operational victory and no defeat", {"operational": 1, "defeat": 1})',
        "lookahead: an option's score is the objective's mean over its rollouts",
        "the default objective counts a defeat for the player",
        ("tests/test_lookahead.py -k objectives_mean",),
    ),
    Mutant(
        "balkan-reference-ignores-the-order's-halt",
        "bollesim/balkan/reference_move.py",
        "return np.array([tactics.stop(s.weapon, s.order, s.effective, s.maximum, params) for s in b.attacker],",
        "return np.array([tactics.halt(s.weapon, params) for s in b.attacker],",
        "Balkan Wars, Weapon Ranges: an arm's order says how far it advances (tactics.stop)",
        "the reference engine advances to the family's halt whatever the order",
        ("tests/test_balkan_decisions.py -k both_engines", "tests/test_balkan_decisions.py -k how_far"),
    ),
    Mutant(
        "balkan-reference-digit-moves-the-farthest",
        "bollesim/balkan/reference_move.py",
        "leader = int(tactics.pick(code, *stands))",
        "leader = int(tactics.pick(tactics.FARTHEST, *stands))",
        "Balkan Wars, Generals and Orders: a digit moves the group the attacker names (tactics.DIGIT)",
        "the reference engine moves the farthest group whatever the digit's option",
        ("tests/test_balkan_decisions.py -k both_engines",),
    ),
    Mutant(
        "balkan-nearest-group-is-the-farthest",
        "bollesim/balkan/tactics.py",
        "if near < 0 or gap[i] < gap[near]:",
        "if near < 0 or gap[i] > gap[near]:",
        "Balkan Wars, Generals and Orders: a digit's NEAREST option moves the nearest group",
        "the nearest group's option moves the farthest (and is never offered)",
        ("tests/test_balkan_decisions.py -k digit_option",),
    ),
    Mutant(
        "balkan-only-the-family's-full-move-moves",
        "bollesim/balkan/tactics.py",
        "return order >= FULL or (order == PART and not moved)",
        "return order == FULL or (order == PART and not moved)",
        "Balkan Wars, Move Sequence 2: an order toward a weapon's range moves the arm",
        "an arm ordered to a weapon's range never moves",
        ("tests/test_balkan_decisions.py -k how_far",),
    ),
]

LUCK = [  # the keyed chance stream (bollesim/rng.py, bollesim/bollebank/luck.py)
    Mutant(
        "luck-counted-over-the-game",
        "bollesim/rng.py",
        "return mix64(sub + np.uint64(n) * GOLDEN)",
        "return mix64(sub + np.uint64(s[at + 1]) * GOLDEN)",
        "docs/architecture.md §3: a draw is keyed by (game, turn, purpose, n)",
        "a draw's index counts every draw of the game: one extra die re-deals the rest",
        ("tests/test_luck.py",),
    ),
    Mutant(
        "tank-status-on-the-radio-die",
        "bollesim/bollebank/reference/reaction.py",
        "die = table.d6(luck.TANK_STATUS)",
        "die = table.d6(luck.RADIO)",
        "§7.1: the tank-status die is a purpose of its own",
        "the tank-status die follows the turn's radio dice, which the player's orders vary",
        ("tests/test_luck.py -k tank_status",),
    ),
]

TUNE = [  # inverse design: search, certification, knobs (bollesim/search/tune*.py, certify.py)
    Mutant(
        "tune-keeps-an-earlier-patch",
        "bollesim/search/tune_report.py",
        "            path.unlink(missing_ok=True)",
        "            pass",
        "a result folder holds one tune's result",
        "an earlier tune's patch.toml survives beside a report that found no solution",
        ("tests/test_tune.py -k command_prints",),
    ),
    Mutant(
        "tune-certifies-on-search-games",
        "bollesim/search/certify.py",
        "games = player_outcomes(tune, rules, tune.holdout_seed, 0, tune.holdout_games, RunOptions.of(options),",
        "games = player_outcomes(tune, rules, tune.seed, 0, tune.holdout_games, RunOptions.of(options),",
        "a best choice is estimated on held-out seeds",
        "certification replays the proposals on the search's own games, which chose them",
        ("tests/test_tune.py::test_certification_plays_only_held_out_games",),
    ),
    Mutant(
        "tune-skips-the-rules-as-they-are",
        "bollesim/search/tune.py",
        "    state.play({})\n",
        "",
        "smallest change first: no change is smaller than any",
        "the search never tries the starting rules, so it never answers no change needed",
        ("tests/test_tune.py::test_a_target_the_rules_already_meet_needs_no_change",),
    ),
    Mutant(
        "tune-entry-ignores-falling",
        "bollesim/search/tune_space.py",
        "        if kind.get(\"falling\"):",
        "        if False:",
        "R-TRACK: more chits never hit less often",
        "one entry of a weapon track may rise above its neighbour",
        ("tests/test_tune.py::test_a_falling_track_stays_falling_and_in_its_declared_range",),
    ),
    Mutant(
        "tune-falls-back-after-a-failed-certificate",
        "bollesim/search/tune_answer.py",
        "            found = go_on(found.state)",
        "            pass",
        "the smallest change first, certified on held-out games",
        "after a proposal misses on the held-out games, tune takes the next change it happened "
        "to play, though a smaller one was never tried",
        ("tests/test_tune.py -k untried",),
    ),
    Mutant(
        "tune-gap-of-a-player-to-itself",
        "bollesim/search/tune_spec.py",
        "    if len(names) == 2 and names[0] == names[1]:",
        "    if False:",
        "bad input: one error line, exit 2, before the work",
        "a gap between a player and itself is accepted and plays the whole budget",
        ("tests/test_tune.py -k gap_between",),
    ),
]

RACES = [  # what a busy machine brought out: a Ctrl-C, a burst of changes, an error in a thread
    Mutant(
        "ctrl-c-held-by-the-mask-alone",
        "bollesim/strong/penalised.py",
        "    main = threading.current_thread() is threading.main_thread()",
        "    main = False",
        "Ctrl-C ends a command and every process it started",
        "a Ctrl-C delivered to another thread comes out inside the pool's start: a worker "
        "is left behind, or dies with a traceback",
        ("'tests/test_penalised.py::test_ctrl_c_stops_the_workers_at_once_and_quietly"
         "[workers starting]'",),
    ),
    Mutant(
        "ctrl-c-unblocked-by-the-resource-tracker",
        "bollesim/strong/penalised.py",
        "    resource_tracker.ensure_running()  # before the hold: its launch unblocks SIGINT (CPython)\n",
        "",
        "Ctrl-C ends a command and every process it started",
        "the resource tracker, launched inside the hold, unblocks SIGINT: the workers started "
        "after it die of the Ctrl-C and the pool breaks with a traceback",
        ("'tests/test_penalised.py::test_ctrl_c_stops_the_workers_at_once_and_quietly"
         "[workers starting]'",),
    ),
    Mutant(
        "ctrl-c-waits-for-the-games-under-way",
        "bollesim/strong/penalised.py",
        "    if not finished:\n        for worker",
        "    if False:\n        for worker",
        "Ctrl-C ends a command within seconds, whatever its workers are doing",
        "after Ctrl-C the penalised bound waits for the workers' games under way",
        ("'tests/test_penalised.py::test_ctrl_c_stops_the_workers_at_once_and_quietly"
         "[workers at their games]'",),
    ),
    Mutant(
        "a-refused-change-cancels-the-one-before",
        "bollesim/serve/app.py",
        "    if change < server.applied:",
        "    if change != server.changes:",
        "every change the page sends is answered",
        "a request refused with 400 after a valid change arrived leaves that change answered "
        "409 with nothing played: the event stream sends only pings",
        ("tests/test_serve.py -k refused_after", "tests/test_serve_hostile.py -k hammered"),
    ),
    Mutant(
        "an-error-stops-the-first-worker-only",
        "bollesim/blocks.py",
        "            stop.set()  # at once, whichever thread it came in (the caller waits on the first)",
        "            pass",
        "the first error stops the hand-out of blocks",
        "an error in the second worker goes on through every block",
        ("tests/test_blocks.py -k error_stops",),
    ),
]

FOLDERS = [  # what a run folder keeps and the compile locks (bollesim/batch/workspace.py, engine/play.py)
    Mutant(
        "run-drops-a-readers-files",
        "bollesim/batch/workspace.py",
        "            carry_over(former, self.out)",
        "            pass",
        "nothing already written is lost",
        "a run put in a run folder's place deletes the notes and folders a reader put there",
        ("tests/test_runfolder.py -k reader_put",),
    ),
    Mutant(
        "resume-takes-any-finished-run-as-complete",
        "bollesim/batch/session.py",
        'if mode == "resume" and manifest.get("plan") == asked:',
        'if mode == "resume":',
        "a finished run is never replaced or passed off unasked",
        "--resume on a folder holding another finished run says it is complete",
        ("tests/test_resume.py -k never_replaces",),
    ),
    Mutant(
        "a-finished-run-is-replaced-unasked",
        "bollesim/batch/session.py",
        'if mode == "replace" or not (out / MANIFEST).exists():',
        'if mode != "resume" or not (out / MANIFEST).exists():',
        "a finished run is never replaced unasked",
        "a plain run into a finished run's folder replaces it silently",
        ("tests/test_resume.py -k what_to_do",),
    ),
    Mutant(
        "a-run-under-nohup-stops-on-a-hangup",
        "bollesim/cli/running.py",
        "                if signal.getsignal(sig) is not signal.SIG_IGN}",
        "}",
        "a signal the command was started with ignored stays ignored (nohup)",
        "a run started under nohup stops at the terminal's hangup",
        ("tests/test_resume.py -k hangup",),
    ),
    Mutant(
        "the-own-players-shares-unexplained",
        "bollesim/report/luck.py",
        "        return bool(games) and all(",
        "        return False and all(",
        "a split whose player's and rest's shares cancel says why",
        "games the stated player played itself show +100% the player's and -100% the rest, unexplained",
        ("tests/test_analysis_report.py -k played_itself",),
    ),
    Mutant(
        "the-luck-panel-plays-the-shipped-rules",
        "bollesim/serve/luck.py",
        "    analyst = Analyst(game, built.rules, stated,",
        "    analyst = Analyst(game, game.load_ruleset(), stated,",
        "the panel analyses the games of the rules on the page",
        "the luck panel analyses the shipped rules whatever the page's edits",
        ("tests/test_serve_luck.py -k rules_on_the_page",),
    ),
    Mutant(
        "the-luck-panel-analyses-other-games",
        "bollesim/serve/luck.py",
        "    return Asked(analyst, policy, params, server.settings.seed, games), []",
        "    return Asked(analyst, policy, params, server.settings.seed + 1, games), []",
        "the panel's answer is `bollesim analyse`'s for the page's own games",
        "the luck panel analyses the games of another seed than the page's",
        ("tests/test_serve_luck.py -k what_analyse_says",),
    ),
    Mutant(
        "the-page-sends-a-change-while-the-last-is-in-flight",
        "bollesim/serve/static/page.js",
        "  if (page.posting) {",
        "  if (false) {",
        "the server sees the page's changes in the order they were made",
        "two odds requests in flight reach the server in either order and the newer one's odds never come",
        ("tests/test_serve.py -k change_made_while",),
    ),
    Mutant(
        "one-compile-lock-for-every-kernel",
        "bollesim/bollebank/engine/play.py",
        "    lock = FileLock(marker.with_name(marker.name + LOCK_SUFFIX))",
        "    lock = FileLock(marker.with_name(marker.name + LOCK_SUFFIX\n"
        "                                     if marker.name.endswith(PHASES_MARKER) else 'all.lock'))",
        "two kernels compile side by side",
        "a process compiling one kernel holds up every other kernel's first compile",
        ("tests/test_jit_cache.py -k side_by_side",),
    ),
    Mutant(
        "every-process-compiles-for-itself",
        "bollesim/jit.py",
        "            compiling = self.overloads.get(tuple(args)) is None and self._can_compile",
        "            compiling = False",
        "a function compiles once for the processes that need it together",
        "test workers started together each compile the same functions (two thirds of it wasted)",
        ("tests/test_jit.py -k waits_on_another",),
    ),
    Mutant(
        "v-chosen-on-the-reports-games",
        "experiments/choose_value.py",
        "lower_estimates(measure, h.seed, lines, 2, args.first)",
        "lower_estimates(measure, h.seed, lines, 2, 0)",
        "a best choice is chosen on games no report uses",
        "the choice of V values the lines of games 2,000 on against the report's own games",
        ("tests/test_headroom.py -k choice_of_v",),
    ),
]

APPRENTICE = [  # the apprentice written once (bollesim/strong/apprentice.py, train.py, cli/train.py)
    Mutant(
        "balkan-imposed-trigger-not-kept",
        "bollesim/balkan/apprentice/declaration.py",
        "return not (restriction[0] > 0 and kind == tactics.CLOSE_ASSAULT)",
        "return True",
        "Balkan Wars' strong close-assault question: the imposed trigger is the close assault",
        "the apprentice closes assault on its own choice though a trigger is imposed",
        ("tests/test_balkan_apprentice.py -k imposed",),
    ),
    Mutant(
        "apprentice-ignores-the-restriction",
        "bollesim/strong/apprentice.py",
        "(free or own.departs(kind, obs, options, base, i, restriction))",
        "True",
        "restricted play: the apprentice leaves its base only where the game's departs allows",
        "an imposed first Fire order is given early when the chooser prefers a Fire order",
        ("tests/test_apprentice.py -k imposed", "tests/test_apprentice.py -k restated"),
    ),
    Mutant(
        "apprentice-shortlists-the-worst",
        "bollesim/strong/apprentice.py",
        'shortlist = np.argsort(-first, kind="mergesort")',
        'shortlist = np.argsort(first, kind="mergesort")',
        "the chooser's cascade: its first trees keep the best-scored options for the rest",
        "the options the first trees score worst get the whole forest",
        ("tests/test_apprentice.py -k restated",),
    ),
    Mutant(
        "apprentice-learns-every-kind",
        "bollesim/strong/apprentice.py",
        "        if kind == learned:",
        "        if True:",
        "the kinds a game's apprentice learns (KINDS); its base makes the others",
        "the apprentice's features and forests choose at decisions they never learned",
        ("tests/test_apprentice.py -k both_engines", "tests/test_apprentice.py -k as_its_decide"),
    ),
    Mutant(
        "tuning-counts-defeat-for-the-player",
        "bollesim/strong/train.py",
        "total += weight * rows[:, i].mean()",
        "total += abs(weight) * rows[:, i].mean()",
        "the gate's threshold is chosen by the teacher's objective",
        "a threshold whose games lose more scores better",
        ("tests/test_apprentice.py -k objective",),
    ),
    Mutant(
        "labels-digest-always-hashes-kinds",
        "bollesim/strong/train.py",
        "if len(np.unique(self.kinds)) > 1:",
        "if True:",
        "the shipped model's record: its command gives its data digest again",
        "a game that learns one kind no longer reproduces its recorded data digest",
        ("tests/test_apprentice.py -k labels_digest",),
    ),
    Mutant(
        "train-refuses-after-writing",
        "bollesim/cli/train.py",
        "    apprenticeship(game)  # a game without decision points, or without an apprentice: refused",
        "    pass",
        "bad input: one error line, nothing written",
        "a game without decision points is refused only after the model's folder is made",
        ("tests/test_apprentice.py -k without_an_apprentice",),
    ),
]

BOUNDS = [  # the clairvoyant and penalised bounds and headroom, any game's (bollesim/strong/, cli/headroom*.py)
    Mutant(
        "no-loss-needs-the-loss",
        "bollesim/strong/clairvoyant.py",
        "main, loss = (slot(result.main), 1), (slot(result.loss), 0)",
        "main, loss = (slot(result.main), 1), (slot(result.loss), 1)",
        "the win objectives made from the game's result flags",
        "the clairvoyant bounds 'no defeat' by searching for defeats",
        ("tests/test_clairvoyant.py -k win_objectives",),
    ),
    Mutant(
        "nearer-reversed",
        "bollesim/strong/clairvoyant.py",
        "*(-sign * int(row[s])",
        "*(sign * int(row[s])",
        "the game's nearer columns order the search",
        "the clairvoyant tries the playouts furthest from winning first",
        ("tests/test_clairvoyant.py -k nearest",),
    ),
    Mutant(
        "v-reads-the-observation-off-by-one",
        "bollesim/strong/penalised.py",
        "self.observed = slice(POINT_OBS, POINT_OBS + game",
        "self.observed = slice(POINT_OBS + 1, POINT_OBS + 1 + game",
        "a point's layout: [choice, kind, n, observation..., options...]",
        "V of the next decision is read from the wrong slots of the STEP samples",
        ("tests/test_penalised.py -k line_is_v",),
    ),
    Mutant(
        "headroom-clairvoyant-on-the-declared-seed",
        "bollesim/cli/headroom_make.py",
        "each[outcome] = player.solve_games(s.seed,",
        "each[outcome] = player.solve_games(plan.h.seed,",
        "--seed plays every part of the report on the seed given",
        "the clairvoyant bounds other games than the ladder plays",
        ("tests/test_headroom.py -k small_counts",),
    ),
    Mutant(
        "headroom-replace-ignored",
        "bollesim/batch/workspace.py",
        "if earlier and not replace:",
        "if earlier:",
        "an earlier report is replaced only when --replace says so",
        "--replace is refused like any finished folder",
        ("tests/test_headroom.py -k run_folder",),
    ),
    Mutant(
        "headroom-trigger-settings-twice",
        "bollesim/cli/headroom_make.py",
        "if same and params[k] not in [c[k] for c in cells]:",
        "if same:",
        "a trigger sweep is the trigger's own cells, each setting once",
        "the close-assault spec's stands-needed grid adds a second 0 to the losses sweep",
        ("tests/test_headroom_balkan.py -k sweeps",),
    ),
    Mutant(
        "random-never-the-last-option",
        "policies/uniform.py",
        "return below(prng, n_options)",
        "return below(prng, max(1, n_options - 1))",
        "the random policy is uniform over the options offered",
        "every game's beginner never takes its last option (the full move, the fresh stands)",
        ("tests/test_headroom_balkan.py -k random",),
    ),
    Mutant(
        "restricted-drops-the-zero-trigger",
        "bollesim/strong/headroom.py",
        "return games.filter(pl.col(param) != default)",
        "return games.filter(pl.col(param) > 0)",
        "a restricted sweep's imposed settings are all but the strong player's \"not imposed\"",
        "the Balkan Wars' imposed_losses 0 (close at the first won firefight) is left out",
        ("tests/test_headroom_balkan.py -k imposed_rows",),
    ),
    Mutant(
        "balkan-strong-trigger-unchecked",
        "bollesim/strong/headroom.py",
        "if imposed(game) and set(imposed(game).values()) - {",
        "if False and set(imposed(game).values()) - {",
        "Trigger.strong names a parameter of the game's strong player",
        "a misspelt imposed_losses passes the declaration's check",
        ("tests/test_headroom_balkan.py -k declaration_fits",),
    ),
]

LUCK_AND_ERRORS = [  # the analysis of luck and errors (bollesim/strong/analysis.py, estimates.py, chance.py)
    Mutant(
        "calibration-bias-sign",
        "bollesim/strong/calibration.py",
        "    d = v - m\n",
        "    d = m - v\n",
        "docs/analyse.md: the calibration's bias is V minus the rollouts' mean",
        "a learned value that is too high is reported too low",
        ("tests/test_learned_value.py -k planted_bias",),
    ),
    Mutant(
        "learned-value-stands-in-without-its-rule",
        "bollesim/strong/learned.py",
        "            if not self.calibration.stands_in(here).all():",
        "            if False:",
        "docs/analyse.md: V stands in only where its calibration allows",
        "a learned value refused by its calibration still values the options",
        ("tests/test_learned_value.py -k expectations",),
    ),
    Mutant(
        "learned-value-error-measured-on-v-again",
        "bollesim/strong/learned.py",
        "lambda k: self._fresh(seed, game, walked[k], out[k][0]), by_value)",
        "lambda k: np.vstack(out[k][0]), by_value)",
        "docs/analyse.md: where V stands in, the error is measured on fresh rollouts",
        "the errors keep V's own error, the option V flatters taken for the best",
        ("tests/test_learned_value.py -k fresh",),
    ),
    Mutant(
        "learned-value-error-left-out-of-the-intervals",
        "bollesim/strong/analysis.py",
        "extra = np.asarray(more[0]) if more else np.zeros(len(values))",
        "extra = np.zeros(len(values))",
        "docs/analyse.md: the values from V carry its calibration error",
        "the intervals of values from V ignore V's own error",
        ("tests/test_learned_value.py -k expectations",),
    ),
    Mutant(
        "luck-sign-of-a-draw",
        "bollesim/strong/estimates.py",
        "return difference(outcomes[actual] - before), value(before)",
        "return difference(before - outcomes[actual]), value(before)",
        "docs/analyse.md: luck is the value after the outcome minus its expectation",
        "a draw's luck by rollouts comes out with its sign turned",
        ("tests/test_luck_and_errors.py -k stated_rate",),
    ),
    Mutant(
        "luck-sign-exact",
        "bollesim/strong/analysis.py",
        "luck = Estimate(after.value - before.value)",
        "luck = Estimate(before.value - after.value)",
        "docs/analyse.md: luck is the value after the outcome minus its expectation",
        "a draw's exact luck comes out with its sign turned",
        ("tests/test_luck_and_errors.py -k programmes",),
    ),
    Mutant(
        "telescoping-adds-the-errors",
        "bollesim/strong/analysis.py",
        "return self.outcome - self.start.value - (self.luck.value - self.errors)",
        "return self.outcome - self.start.value - (self.luck.value + self.errors)",
        "result - start = summed luck - summed errors + residual",
        "the residual counts the errors as gains",
        ("tests/test_luck_and_errors.py -k telescopes",),
    ),
    Mutant(
        "chance-expected-from-the-stated-choice",
        "bollesim/strong/analysis.py",
        "                before = step.values[step.taken]\n",
        "                before = step.values[step.stated]\n",
        "the chance after a decision is expected from the option taken",
        "the chance between two decisions is measured from the stated player's option",
        ("tests/test_luck_and_errors.py -k one_event",),
    ),
    Mutant(
        "rollouts-numbered-by-their-thread",
        "bollesim/strong/analysis.py",
        "numbers[i::parts])",
        "numbers[i::parts] + i)",
        "reproducibility: the same analysis whatever the number of threads",
        "the rollouts dealt to a thread other than the first are drawn on other streams",
        ("tests/test_luck_and_errors.py -k side_by_side",
         "tests/test_analysis_bollebank.py -k few_calls"),
    ),
    Mutant(
        "games-yielded-out-of-order",
        "bollesim/strong/analysis.py",
        "                        yield pending.popleft().result()",
        "                        yield pending.pop().result()",
        "the many games' analyses in the order of their games",
        "games analysed side by side come back in another order",
        ("tests/test_luck_and_errors.py -k side_by_side",),
    ),
    Mutant(
        "walk-follows-the-stated-players-choice",
        "bollesim/strong/kernel.py",
        "        script[n] = points[k, 0]\n",
        "        script[n] = asked[k, 0]\n",
        "the analysis walks the game the played policy played",
        "the walk in one kernel call goes on with the stated player's choice",
        ("tests/test_analysis_bollebank.py -k few_calls",),
    ),
    Mutant(
        "outcomes-on-streams-of-their-own",
        "bollesim/strong/chance.py",
        "numbers = np.tile(np.arange(rollouts, dtype=np.int64), n)",
        "numbers = np.arange(n * rollouts, dtype=np.int64)",
        "common random numbers across a draw's outcomes",
        "each outcome of a draw is rolled out on streams of its own",
        ("tests/test_luck_and_errors.py -k outcomes_of_a_draw",),
    ),
    Mutant(
        "options-on-streams-of-their-own",
        "bollesim/strong/lookahead.py",
        "np.tile(np.arange(r), n))",
        "np.arange(n * r))",
        "common random numbers across a decision's options",
        "each option of a decision is rolled out on streams of its own",
        ("tests/test_luck_and_errors.py -k options_of_a_decision",),
    ),
    Mutant(
        "rollout-played-by-the-snapshots-player",
        "bollesim/bollebank/engine/rollout.py",
        "    st[layout.SCRIPTED] = scripted\n",
        "",
        "bollesim/game/positions.py: the primitives read nothing but their arguments",
        "a rollout from a position another player took is played by that player",
        ("tests/test_analysis_bollebank.py -k own",),
    ),
    Mutant(
        "luck-sentence-names-the-rest-the-players",
        "bollesim/report/luck.py",
        "f\"{share(split['player'])} the player's",
        "f\"{share(split['rest'])} the player's",
        "docs/analyse.md: the share of the variance that is the player's errors",
        "analysis.md and the balance report give the rest's share as the player's",
        ("tests/test_analysis_report.py -k numbers_of_the_json",
         "tests/test_analysis_report.py -k say_the_split"),
    ),
    Mutant(
        "draws-2d6-weights-shifted",
        "bollesim/bollebank/engine/draws.py",
        "+= 6 - abs(v - 5) if dice else 1",
        "+= 6 - abs(v - 4) if dice else 1",
        "docs/analyse.md: a 2d6 by its sum, weights 1, 2, .., 6, .., 1 of 36",
        "Bøllebank's 2d6 outcomes weighted one sum off",
        ("tests/test_analysis_bollebank.py -k weights",),
    ),
    Mutant(
        "draws-forced-one-late",
        "bollesim/bollebank/engine/draws.py",
        "    if k < st[layout.DRAW_FORCED]:",
        "    if k <= st[layout.DRAW_FORCED]:",
        "bollesim/game/chance.py: forced gives the draw numbered `draw` its outcome",
        "Bøllebank forces the draw after the one asked",
        ("tests/test_analysis_bollebank.py -k replays_the_game",),
    ),
]

AREAS = {
    "engine": ENGINE,
    "folders": FOLDERS,
    "luck": LUCK,
    "victory": VICTORY_AND_TARGETS,
    "analysis": ANALYSIS,
    "precision": PRECISION,
    "sweep": SWEEP,
    "report": REPORT,
    "rulesets": RULESETS,
    "optimise": OPTIMISE,
    "lookahead": LOOKAHEAD,
    "apprentice": APPRENTICE,
    "luck-errors": LUCK_AND_ERRORS,
    "tune": TUNE,
    "races": RACES,
    "bounds": BOUNDS,
}
"""The mutants by area (`--only AREA`)."""

MUTANTS = [m for area in AREAS.values() for m in area]

# Runs in the copy: check it is the code imported, then run pytest on the selection.
SETUP_FAILED = 99
SNIPPET = f"""
import sys
from pathlib import Path

import bollesim, policies

root = Path.cwd().resolve()
for module in (bollesim, policies):
    if root not in Path(module.__file__).resolve().parents:
        print(f"{{module.__name__}} imported from {{module.__file__}}, not {{root}}", file=sys.stderr)
        sys.exit({SETUP_FAILED})

import pytest

sys.exit(pytest.main(["-q", "-x", "-n0", "-p", "no:cacheprovider", *sys.argv[1:]]))
"""


def mutated(mutant: Mutant, text: str) -> str:
    """text with the mutant planted; ValueError unless its old text occurs exactly once."""
    count = text.count(mutant.old)
    if count != 1:
        raise ValueError(f"{mutant.name}: old text found {count} times in {mutant.path}")
    if mutant.new == mutant.old:
        raise ValueError(f"{mutant.name}: new text equals old text")
    return text.replace(mutant.old, mutant.new)


def compiled(mutant: Mutant) -> bool:
    """The mutant changes a file compiled code is built from (a cold compile)."""
    root = jit_cache.PACKAGE.parent
    return mutant.path in {p.relative_to(root).as_posix() for p in jit_cache.sources()}


def copy_repository(target: Path) -> None:
    """The working-tree versions of the tracked and new (not ignored) files into target."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    for name in filter(None, listing.split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is left out
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def run_selection(copy: Path, selection: str) -> tuple[str, str]:
    """(verdict, detail) of one pytest selection in the copy: "failed" with the first
    failing test, "passed", or "broken" with pytest's complaint."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", jit_cache.NOT_EXPLICIT)}
    env["PYTHONPATH"] = str(copy)
    command = [sys.executable, "-c", SNIPPET, *shlex.split(selection)]
    try:
        done = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "broken", f"{selection}: no result in {TIMEOUT} s"
    if done.returncode == SETUP_FAILED:
        raise RuntimeError(done.stderr.strip())
    lines = done.stdout.splitlines()
    if done.returncode == 1:
        failed = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
        return "failed", (failed[0] if failed else lines[-1] if lines else "?")[:120]
    if done.returncode == 0:
        return "passed", f"{selection}: {lines[-1] if lines else ''}"
    tail = (done.stdout + done.stderr).strip().splitlines()
    return "broken", f"{selection}: exit code {done.returncode}: {tail[-1] if tail else ''}"[:150]


def run_mutant(copy: Path, mutant: Mutant) -> tuple[str, str]:
    """(verdict, detail) of one mutant planted in the copy (put back afterwards)."""
    path = copy / mutant.path
    original = path.read_bytes()
    path.write_text(mutated(mutant, original.decode()))
    try:
        details = []
        for selection in mutant.tests:
            verdict, detail = run_selection(copy, selection)
            if verdict != "failed":
                return ("MISSED" if verdict == "passed" else "BROKEN"), detail
            details.append(detail)
        return "caught", " | ".join(details)
    finally:
        path.write_bytes(original)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help=f"run only these mutants or areas ({', '.join(AREAS)})")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args(argv)
    names = [m.name for m in MUTANTS]
    unknown = [n for n in args.only or () if n not in names and n not in AREAS]
    if unknown:
        print(f"mutants.py: unknown mutant or area {', '.join(unknown)} "
              f"(areas: {', '.join(AREAS)}; --list names the mutants)", file=sys.stderr)
        return 2
    width = max(map(len, names))
    if args.list:
        for area, mutants in AREAS.items():
            for m in mutants:
                print(f"{area:<9}  {m.name:<{width}}  {m.rule:<22}  {m.path}: {m.why}")
        return 0
    chosen = [m for area, mutants in AREAS.items() for m in mutants
              if not args.only or m.name in args.only or area in args.only]
    chosen.sort(key=compiled)  # plain-Python mutants first: they share the copy's compile
    start = time.monotonic()
    missed = 0
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder)
        copy_repository(copy)
        for i, m in enumerate(chosen, 1):
            cold = " (compiling cold)" if compiled(m) else ""
            print(f"[{i}/{len(chosen)}] {m.name}{cold}", file=sys.stderr, flush=True)
            verdict, detail = run_mutant(copy, m)
            missed += verdict != "caught"
            print(f"{m.name:<{width}}  {verdict:<7}  {detail}", flush=True)
    minutes, seconds = divmod(round(time.monotonic() - start), 60)
    print(f"{len(chosen) - missed}/{len(chosen)} caught in {minutes}m {seconds:02d}s")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
