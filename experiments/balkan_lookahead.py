"""The Balkan Wars' lookahead against the best point of a small search of `assault`.

A grid of the family's parameters is played on the same engagements of one seed (the ten
best again on ten times as many), then the lookahead and the best point play the same
engagements of a held-out seed: their attack-won rates and the paired difference with its
95% interval (docs/balkan-wars.md, "Why the lookahead tied, and what was measured").
With --decisions N, first the lookahead's decisions in N engagements of the search seed:
how many are asked, looked at, left to the base by the screen, scored with options of
different values, and left.

    python experiments/balkan_lookahead.py --search-seed 1 --games 2000 --seed 20261207 --paired 4000
    python experiments/balkan_lookahead.py base=defaults rollouts=128   # the lookahead's parameters
    python experiments/balkan_lookahead.py --decisions 200 --paired 0 first=1 screen=6
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np

import bollesim
from bollesim.game.policy import load_policy
from bollesim.game.registry import load_game

NAMES = ("advance_to", "guns_to", "losses", "min_stands")
GRID = (range(1, 9), (2, 4, 8, 12, 16, 24), (0, 2, 4, 8, 48), (1, 3, 5))


def won(game, rules, family, point: dict, seed: int, n: int) -> float:
    """The attack-won rate of `assault` at `point` on engagements 0 .. n - 1 of `seed`."""
    rows = np.tile(family.param_vector(point), (n, 1))
    return float(game.play_chunk(rules, family, rows, seed, 0, "fast")[:, 0].mean())


def search(seed: int, n: int) -> dict:
    """The best point of GRID on `seed`: every point on n engagements, the ten best on 10 n."""
    game = load_game("balkan-wars")
    rules, family = game.load_ruleset(), load_policy("assault", game)
    points = [dict(zip(NAMES, p, strict=True)) for p in itertools.product(*GRID)]
    first = sorted(points, key=lambda p: -won(game, rules, family, p, seed, n))[:10]
    scored = sorted(((won(game, rules, family, p, seed, 10 * n), p) for p in first), key=lambda x: -x[0])
    print(f"{len(points)} points on {n} engagements of seed {seed}; the best ten on {10 * n}:")
    for rate, p in scored:
        print(f"  {rate:.2%}  {p}")
    return scored[0][1]


def ends(rows) -> str:
    """How the engagements ended, counted."""
    counts = dict(rows.group_by("end_reason").len().rows())
    return ", ".join(f"{reason} {counts[reason]}" for reason in sorted(counts))


def paired(seed: int, n: int, best: dict, lookahead: dict) -> None:
    """The lookahead against `best` and against the family's defaults, paired on `seed`."""
    rows = bollesim.simulate("lookahead", n, seed=seed, game="balkan-wars", params=lookahead)
    mine = rows["won"].to_numpy().astype(float)
    print(f"lookahead {lookahead or '(defaults)'}: attack won {mine.mean():.2%} ({n} engagements of seed "
          f"{seed}); {ends(rows)}")
    for name, point in ((f"assault at {best}", best), ("assault at its defaults", {})):
        theirs = bollesim.simulate("assault", n, seed=seed, game="balkan-wars", params=point)
        other = theirs["won"]
        print(f"  {name}: {ends(theirs)}")
        d = mine - other.to_numpy().astype(float)
        half = 1.96 * d.std(ddof=1) / np.sqrt(n)
        print(f"  {name}: {other.mean():.2%}; lookahead minus it {100 * d.mean():+.2f} pp "
              f"(95% {100 * (d.mean() - half):+.2f} to {100 * (d.mean() + half):+.2f}); "
              f"{int((d != 0).sum())} differ ({int((d > 0).sum())} better, {int((d < 0).sum())} worse)")


def decisions(seed: int, n: int, lookahead: dict) -> None:
    """The lookahead's decisions in engagements 0 .. n - 1 of `seed`, by kind: asked, looked
    at (some rollouts), left to the base by the screen (only the base's choice scored),
    with two or more options scored and not all alike, and where it left the base's
    choice (to which option)."""
    from bollesim.balkan import lookahead as bw_lookahead
    from bollesim.balkan import positions

    game = load_game("balkan-wars")
    rules = game.load_ruleset()
    player = bw_lookahead.player(rules, load_policy("lookahead", game).param_vector(lookahead))
    tally = {kind: [0, 0, 0, 0, {}] for kind in positions.KINDS}
    for g in range(n):
        for d in player.play(seed, g)[1]:
            t = tally[positions.KINDS[d.kind]]
            scored = d.scores[~np.isnan(d.scores)]
            t[0] += 1
            t[1] += d.rollouts > 0
            t[2] += d.rollouts > 0 and len(scored) == 1
            t[3] += len(scored) > 1 and scored.max() > scored.min()
            if d.choice != d.base_choice:
                name = positions.OPTIONS[d.kind][int(d.options[d.choice])]
                t[4][name] = t[4].get(name, 0) + 1
    print(f"the lookahead's decisions in {n} engagements of seed {seed} ({lookahead or 'defaults'}):")
    for kind, (asked, looked, screened, differ, left) in tally.items():
        print(f"  {kind}: {asked} asked, {looked} looked at, {screened} left to the base by the "
              f"screen, {differ} with options of different values, left the base's choice "
              f"{sum(left.values())} times {left or ''}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--search-seed", type=int, default=1)
    parser.add_argument("--games", type=int, default=2000, help="engagements a point in the search")
    parser.add_argument("--seed", type=int, default=20261207, help="the held-out seed")
    parser.add_argument("--paired", type=int, default=400, help="paired engagements of the held-out seed")
    parser.add_argument("--decisions", type=int, default=0,
                        help="first count the lookahead's decisions in this many engagements")
    parser.add_argument("lookahead", nargs="*", help="the lookahead's parameters, NAME=VALUE")
    args = parser.parse_args()
    lookahead = dict(a.split("=", 1) for a in args.lookahead)
    if args.decisions:
        decisions(args.search_seed, args.decisions, lookahead)
    if args.paired:
        paired(args.seed, args.paired, search(args.search_seed, args.games), lookahead)


if __name__ == "__main__":
    main()
