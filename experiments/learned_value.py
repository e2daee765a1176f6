"""What the analysis of luck and errors costs and says with the learned value V standing in
wherever its calibration allows, and (to price V where it would be good enough) with V
standing in at every decision, on a run folder whose analysis `bollesim analyse --from DIR
--value learned` saved (its analysis-value.json: V and its calibration). docs/analyse.md,
"The learned value", gives what it found.

    python experiments/learned_value.py /tmp/h200 -n 200 [--only rule|everywhere]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from dataclasses import replace
from pathlib import Path


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("-n", "--games", type=int, default=200)
    parser.add_argument("--only", choices=("rule", "everywhere"), default=None,
                        help="one of the two analyses (default: both)")
    parser.add_argument("--steps", type=int, default=None,
                        help="samples of the chance to the next decision per option")
    args = parser.parse_args(argv)
    from bollesim.batch.manifest import cell_ruleset
    from bollesim.batch.replay import row_params
    from bollesim.batch.runfolder import open_run
    from bollesim.game.policy import load_policy
    from bollesim.game.registry import load_game
    from bollesim.strong.calibration import Calibration
    from bollesim.strong.learned import VALUE_FILE, LearnedAnalyst
    from bollesim.strong.split import totals, variance_split
    from bollesim.strong.value import Value

    saved = json.loads((args.folder / VALUE_FILE).read_text())
    game = load_game(saved["game"])
    run = open_run(args.folder, game)
    rules = cell_ruleset(run.manifest, run.path, 0)
    stated = load_policy(saved["stated_player"], game)
    calibration = Calibration.from_dict(saved["learned_value"]["calibration"])
    everywhere = replace(calibration, bins=tuple(replace(b, stands_in=True)
                                                 for b in calibration.bins))
    games = run.collect(run.scan().sort("game")).head(args.games)
    from bollesim.strong.analysis import objective_of

    for name, c in (("rule", calibration), ("everywhere", everywhere)):
        if args.only not in (None, name):
            continue
        analyst = LearnedAnalyst(game, rules, stated, stated.param_vector(),
                                 objective_of(game.result), 8, Value.read(saved["model"]), c,
                                 steps=args.steps or saved["learned_value"]["steps"])
        wall, used = time.monotonic(), cpu()
        analyses = []
        for row in games.iter_rows(named=True):
            played = load_policy(str(row["policy"]), game)
            analyses.append(analyst.analyse(played, row_params(played, row), int(row["seed"]),
                                            int(row["game"])))
        wall, used = time.monotonic() - wall, cpu() - used
        table = totals(analyses)
        split = variance_split(table)
        print(f"  per game: errors {table['errors'].mean():.3f}, residual "
              f"{table['residual'].mean():+.3f}, luck {table['luck'].mean():+.3f}; errors "
              f"called {table['errors_called'].sum()}")
        print(f"V {name}: {len(analyses)} games, {wall:.1f} s wall, {used:.1f} s CPU; "
              f"decisions by V {analyst.by_value}, by rollouts {analyst.by_rollouts}")
        for k in ("luck", "player", "rest"):
            s = getattr(split, k)
            print(f"  {k}: {s.value:.0%} ({s.low:.0%}..{s.high:.0%})")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
