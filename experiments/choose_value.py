"""Which V makes the penalised clairvoyant tightest, chosen on games no report uses.

The headroom report (`bollesim headroom`) plays games 0-1,999 of its seed. This plays the
plain clairvoyant on the games from --first on, then, for each step of V (the strong
player's games V is fitted on, times its trees), the penalised clairvoyant's lower
estimate for operational victory on those games: the lower, the tighter. docs/skill.md
gives what it found.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXAMPLE = "python experiments/choose_value.py --games 300 1000x10 1000x100 10000x100 30000x300"


def step(text: str) -> tuple[int, int]:
    """GAMESxTREES as (games, trees)."""
    try:
        games, trees = (int(x) for x in text.split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not GAMESxTREES, such as 1000x100") from None
    if games < 1 or trees < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: games and trees must be at least 1")
    return games, trees


class Parser(argparse.ArgumentParser):
    def error(self, message: str):
        """Bad input: one line, exit code 2."""
        self.exit(2, f"error: {message}\n")


def main() -> None:
    parser = Parser(description=__doc__.split("\n\n")[0],
                                     epilog=f"example: {EXAMPLE}")
    parser.add_argument("steps", nargs="+", type=step, help="the V tried, each GAMESxTREES")
    parser.add_argument("--first", type=int, default=2000, help="the first game (default 2000)")
    parser.add_argument("--games", type=int, default=300, help="games valued (default 300)")
    args = parser.parse_args()
    if args.first < 0 or args.games < 1:
        parser.error("--first must be at least 0 and --games at least 1")

    from bollesim.game.policy import load_policy
    from bollesim.game.registry import load_game
    from bollesim.report.headroom import mean_interval
    from bollesim.strong import clairvoyant as CV
    from bollesim.strong import headroom as G
    from bollesim.strong import value
    from bollesim.strong.penalised import Measure, lower_estimates

    game = load_game("bollebank")
    h = G.declared_headroom(game)
    rules, name = game.load_ruleset(), h.bounds[game.result.main]
    objective = CV.win_objectives(game.result)[name]
    baseline, best = G.read_points(game, h, Path(h.points))
    plain = CV.Clairvoyant(game, rules, objective, G.clairvoyant_bases(game, h, baseline, best),
                           50, h.nearer, h.cut).solve_games(h.seed, args.first, args.games, 2)
    players, lines = G.penalised_candidates(game, h, baseline, best, name, plain)
    strong = load_policy(h.value_policy, game.name)
    for games, trees in args.steps:
        x, y = value.decisions(game, rules, objective, strong, None, h.value_seed, games)
        measure = Measure(game.name, name, players, value.fit(x, y, trees).text, 16)
        fresh = lower_estimates(measure, h.seed, lines, 2, args.first)[:, 1]
        m, low, high = mean_interval(fresh)
        print(f"V on {games:,} games, {trees} trees: the bound is at least {100 * m:.1f}% "
              f"({100 * low:.1f} to {100 * high:.1f}) on games {args.first:,} to "
              f"{args.first + args.games - 1:,}", flush=True)


if __name__ == "__main__":  # the games are valued in worker processes, which import this
    sys.exit(main())
