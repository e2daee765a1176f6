"""The Balkan Wars' apprentice against its teacher, on paired engagements of a seed no
training used (docs/balkan-wars.md, "The apprentice").

By default the shipped apprentice (`-P apprentice`), its teacher (the lookahead at its
defaults) and their base (`assault` at lookahead.SEARCHED). With --base defaults, an
apprentice is trained here (not shipped) on the lookahead over the family's defaults,
which leaves its base far more often, and measured the same way against that teacher.

    python experiments/balkan_apprentice.py --seed 4242 --paired 4000
    python experiments/balkan_apprentice.py --base defaults --games 12000 --tune-games 4000
"""

from __future__ import annotations

import argparse
import types

import numpy as np

from bollesim.balkan import lookahead
from bollesim.balkan.apprentice import declaration
from bollesim.balkan.game import GAME
from bollesim.game.policy import load_policy
from bollesim.strong import apprentice as A
from bollesim.strong import train as T

TEACHER = {"rollouts": 32, "base": "defaults", "first": 1, "screen": 6}
"""The lookahead the --base defaults apprentice learned from (docs/balkan-wars.md)."""


def teacher(rules, base=None):
    """The teacher of the --base defaults apprentice (its module's TEACHER names this one)."""
    return lookahead.player(rules, load_policy("lookahead", GAME).param_vector(TEACHER))


def over_defaults(rules, seed: int, games: int, tune_seed: int, tune_games: int):
    """(an apprentice module like the shipped one over `assault` at its defaults, its model
    trained on `games` engagements of the lookahead over the defaults)."""
    assault = load_policy("assault", GAME)
    vector = assault.kernel_params(assault.param_vector())
    own = types.ModuleType("balkan_apprentice_over_defaults")
    own.__dict__.update(declaration.__dict__)
    own.vectors = lambda row: (vector, np.zeros(1))
    own.TEACHER = __name__
    labels, _, expert = T.label(own, rules, seed, games)
    data = T.rows(own, labels, rules)
    model = T.fit(own, data, seed)
    threshold, scores = T.tune(own, GAME, rules, model, tune_seed, tune_games, expert)
    print(f"labels: {len(data.gate_y)} decisions, the lookahead left its base in "
          f"{int(data.gate_y.sum())}; threshold {threshold:g} of {scores}")
    return own, A.with_threshold(model, threshold), expert


def paired(name: str, a: np.ndarray, b: np.ndarray) -> None:
    d = a - b
    se = d.std(ddof=1) / np.sqrt(len(d))
    print(f"{name}: {100 * d.mean():+.2f} points, 95% paired interval "
          f"[{100 * (d.mean() - 1.96 * se):+.2f}, {100 * (d.mean() + 1.96 * se):+.2f}] "
          f"({int((d != 0).sum())} engagements differ)")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", choices=("searched", "defaults"), default="searched")
    p.add_argument("--seed", type=int, default=4242, help="the paired engagements' seed")
    p.add_argument("--paired", type=int, default=4000)
    p.add_argument("--games", type=int, default=12000, help="labelled (--base defaults)")
    p.add_argument("--tune-games", type=int, default=4000)
    args = p.parse_args(argv)
    rules, n = GAME.load_ruleset(), args.paired
    assault = load_policy("assault", GAME)
    if args.base == "searched":
        policy, expert = load_policy("apprentice", GAME), lookahead.teacher(rules)
        point = lookahead.SEARCHED
    else:
        own, model, expert = over_defaults(rules, 1001, args.games, 1000, args.tune_games)
        policy, point = T.policy_with(own, GAME.name, model), {}
    mine = GAME.play_chunk(rules, policy, np.tile(policy.param_vector(), (n, 1)), args.seed, 0,
                           "fast")[:, 0].astype(float)
    theirs = np.array([expert.play(args.seed, g, record=False)[0][0] for g in range(n)], float)
    base = GAME.play_chunk(rules, assault, np.tile(assault.param_vector(point), (n, 1)),
                           args.seed, 0, "fast")[:, 0].astype(float)
    print(f"{n} engagements of seed {args.seed}, attack won: apprentice {mine.mean():.2%}, "
          f"teacher {theirs.mean():.2%}, base {base.mean():.2%}")
    paired("apprentice - teacher", mine, theirs)
    paired("teacher - base", theirs, base)
    paired("apprentice - base", mine, base)


if __name__ == "__main__":
    main()
