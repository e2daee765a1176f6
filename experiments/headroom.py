"""How well can the game be played? A skill ladder on the same games (random, each preset,
the best known point of each objective, the expert at 1x to 8x its rollouts, the
clairvoyant bound), the bracket of the best achievable operational-victory rate, the
game's relative skill (docs/skill.md), and the first Fire order's trigger sweeps of
experiments/first_fire.toml on the spec's own parameters, beside the same sweeps of the
best point found. Every sentence of the report is made from its numbers
(bollesim/report/headroom.py).

    .venv/bin/python experiments/headroom.py                  # -> results/headroom/headroom.md
    .venv/bin/python experiments/headroom.py --games 2000 --expert-games 10 \\
        --clairvoyant-games 40 --sweep-games 500 --out results/headroom      # a quick look
    .venv/bin/python experiments/headroom.py --restricted results/restricted_first_fire
"""

from __future__ import annotations

import argparse
import sys
import time
import tomllib
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from bollesim import simulate  # noqa: E402
from bollesim.batch.runfolder import open_run  # noqa: E402
from bollesim.batch.spec import load_experiment  # noqa: E402
from bollesim.bollebank import clairvoyant as CV  # noqa: E402
from bollesim.bollebank.rules.loader import load_ruleset  # noqa: E402
from bollesim.game.policy import load_policy  # noqa: E402
from bollesim.report import headroom as H  # noqa: E402
from bollesim.report import plots  # noqa: E402
from bollesim.stats import analysis  # noqa: E402
from bollesim.stats.analysis import pct  # noqa: E402
from bollesim.stats.intervals import mcnemar_exact, newcombe_paired  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SPEC = "experiments/first_fire.toml"
POINTS = "experiments/best_points.toml"
SEED = 3  # the searches played seed 1 and held out seed 2: these games are new to them
PRESETS = ("historical", "cautious", "fire_at_roe", "fire_at_turn", "hold_fire", "rush")
EXPERT_FACTORS = (1, 2, 4, 8)  # the expert's rollouts, times its default
BOUNDS = {  # ladder outcome -> the clairvoyant's win objective (defeat: 1 - no defeat)
    "operational": "operational victory", "tactical": "tactical victory",
    "strategic": "strategic victory", "political": "political victory",
    "defeat": "no defeat",
}
INHERITED = {"perfect": "tactical"}
"""Outcomes bounded by another's bound, not searched: all four victories are a tactical
victory, whose search already leaves most games undecided."""
TRIGGERS = {"fire_at_roe": ("k", "fire_roe"), "fire_at_turn": ("t", "fire_turn")}
"""A preset's trigger parameter and the family's parameter it sets (bollesim/bollebank/scripted/space.py)."""
STRONG = "apprentice (the strong player)"
OVER_STRONG = "expert (lookahead) over the apprentice"
IMPOSED = {"k": "imposed_roe", "t": "imposed_turn"}
"""The restricted expert's parameter that imposes each preset trigger (policies/lookahead.py;
0: not imposed)."""


def read_points() -> tuple[dict, list[dict]]:
    data = tomllib.loads((ROOT / POINTS).read_text())
    return data["baseline"], data["best"]


def honest_players(baseline: dict, best: list[dict]) -> list[tuple[str, str, dict | None]]:
    """(label, policy, parameters): random, the presets at their defaults, the baseline and
    the best known point of each objective (one row per distinct point)."""
    out = [("random", "random", None), *((name, name, None) for name in PRESETS),
           (STRONG, "apprentice", None)]
    for p in [baseline, *best]:
        if p["label"] not in [label for label, _, _ in out]:
            out.append((p["label"], p["policy"], p["params"]))
    return out


def play(label: str, policy, games: int, params=None) -> pl.DataFrame:
    t = time.perf_counter()
    df = simulate(policy, games, seed=SEED, params=params or None)
    print(f"{label}: {games:,} games, {games / (time.perf_counter() - t):,.1f} games/s",
          file=sys.stderr)
    return analysis.with_outcomes(df).select("game", *H.OUTCOMES).with_columns(
        pl.lit(label).alias("player"))


def expert_label(factor: int, rollouts: int) -> str:
    return f"expert (lookahead), {factor}x: {rollouts} rollouts"


def play_expert(games: int) -> list[pl.DataFrame]:
    """The expert at each of EXPERT_FACTORS, and at its defaults over the apprentice."""
    default = next(p.default for p in load_policy("lookahead").parameters if p.name == "rollouts")
    return [*(play(expert_label(f, int(f * default)), "lookahead", games,
                   {"rollouts": int(f * default)}) for f in EXPERT_FACTORS),
            play(OVER_STRONG, "lookahead", games, {"base": "apprentice"})]


def rung(label: str, df: pl.DataFrame) -> H.Rung:
    return H.Rung(label, {o: (int(df[o].sum()), df.height) for o in H.OUTCOMES})


def clairvoyant(baseline: dict, best: list[dict], games: int, budget: int,
                threads: int) -> tuple[H.Rung, dict, float]:
    """The clairvoyant bound of every outcome, its verdicts' counts per outcome, seconds."""
    rules = load_ruleset()
    bases = [(load_policy(p["policy"]), p["params"]) for p in [*best, baseline]]
    bases += [(load_policy("cautious"), None), (load_policy("historical"), None)]
    counts, verdicts = {}, {}
    t = time.perf_counter()
    for outcome, name in BOUNDS.items():
        player = CV.Clairvoyant(rules, CV.WIN_BY_NAME[name], bases, budget)
        t1 = time.perf_counter()
        found = CV.bound(player.solve_games(SEED, 0, games, threads))
        print(f"clairvoyant, {name}: {found} in {time.perf_counter() - t1:.0f} s", file=sys.stderr)
        verdicts[outcome] = found
        k = found["counted"] if outcome != "defeat" else found[CV.LOST]
        counts[outcome] = (k, games)
    counts.update({o: counts[source] for o, source in INHERITED.items()})
    return H.Rung("clairvoyant (sees the game's future)", counts, bound=True), verdicts, \
        time.perf_counter() - t


def paired(games: pl.DataFrame):
    """compare(a, b, outcome) -> (a's rate - b's, its 95% interval, exact McNemar p < 0.05,
    games), over the games both players played."""

    def compare(a: str, b: str, outcome: str):
        x = games.filter(pl.col("player") == a).select("game", pl.col(outcome).alias("a"))
        y = games.filter(pl.col("player") == b).select("game", pl.col(outcome).alias("b"))
        j = x.join(y, on="game")
        xa, xb = j["a"].to_numpy(), j["b"].to_numpy()
        n11, n10 = int((xa & xb).sum()), int((xa & ~xb).sum())
        n01, n00 = int((~xa & xb).sum()), int((~xa & ~xb).sum())
        low, high = newcombe_paired(n11, n10, n01, n00, 1.96)
        return (n10 - n01) / j.height, low, high, mcnemar_exact(n10, n01) < 0.05, j.height

    return compare


def sweeps(best_op: dict, games: int,
           family: bool = True) -> list[tuple[str, str, str, pl.DataFrame, pl.DataFrame | None]]:
    """Per grid of the spec: (preset, its trigger, the family's, the preset's sweep on the
    spec's own parameters, the best operational point's sweep of the same trigger, or
    None without `family`)."""
    experiment = load_experiment(ROOT / SPEC)
    by_policy: dict[str, list] = {}
    for cell in experiment.cells:
        by_policy.setdefault(cell.policy.name, []).append(cell.param_dict())
    out = []
    for preset, cells in by_policy.items():
        k, p = TRIGGERS[preset]
        before = pl.concat([simulate(preset, games, seed=experiment.seed, params=c)
                            for c in cells], how="diagonal")
        values = [c[k] for c in cells]
        after = pl.concat([simulate("plan", games, seed=experiment.seed,
                                    params={**best_op["params"], p: v}) for v in values],
                          how="diagonal") if family else None
        out.append((preset, k, p, before, after))
    return out


def sweep_section(out: Path, found, best_op: dict, games: int) -> tuple[list[str], str]:
    """The preset trigger sweeps beside the same trigger swept for the best point, and
    their verdict in one sentence."""
    lines, words, changes = [], [], []
    experiment = load_experiment(ROOT / SPEC)
    width = max(H.widest_interval(df, k) for _, k, _, df, _ in found)
    width = max(width, *(H.widest_interval(df, p) for _, _, p, _, df in found))
    fixed = {name: v for name, v in experiment.cells[0].param_dict().items()
             if all(c.param_dict().get(name) == v for c in experiment.cells
                    if c.policy.name == experiment.cells[0].policy.name)}
    lines += ["## When to give the first Fire order", "",
              f"The trigger sweeps of `{SPEC}` on the spec's own parameters (its cells: "
              f"{', '.join(f'`{k}={v:g}`' for k, v in fixed.items())} and the trigger), "
              f"{games:,} games of its seed {experiment.seed} per setting (95% Wilson "
              f"intervals at most ±{100 * width:.1f} points), beside the same "
              f"trigger swept for {best_op['label']} (its other parameters fixed), on the "
              "same games. A trigger has an effect on an outcome when its best setting beats "
              "its worst on the same games (exact McNemar, p < 0.05); where it has none the "
              "table says so instead of comparing advice.", ""]
    for preset, k, p, before, after in found:
        name = f"headroom-trigger-{preset}.png"
        plots.rates_by_trigger(after, p, policy="plan").savefig(out / name, dpi=110,
                                                                 facecolor="white")
        lines += [f"### {analysis.parameter_label(preset, k)}", "", f"![{p}]({name})", ""]
        lines += advice_table(words, preset, k, before, "plan", p, after, best_op["label"],
                              changes)
    return lines, H.advice_verdict(words, best_op["label"], tuple(changes))


def advice_table(words: list[str], preset: str, k: str, before: pl.DataFrame, policy: str,
                 param: str, after: pl.DataFrame, who: str,
                 changes: list[str] | None = None) -> list[str]:
    """The table of the preset's best `k` per outcome beside `policy`'s best `param`, with
    the advice word of each line (appended to `words`; where it changes, what it says
    instead to `changes`)."""
    lines = [f"| outcome | best `{k}` ({preset}) | best `{param}` ({who}) | advice |",
             "|---|---|---|---|"]
    for b, a in zip(analysis.best_trigger(before, k).iter_rows(named=True),
                    analysis.best_trigger(after, param, policy=policy,
                                          default=None).iter_rows(named=True),
                    strict=True):
        word = H.advice_word(b, a)
        words.append(word)
        if word == "changes" and changes is not None:
            changes.append(f"{analysis.LABELS[b['outcome']]}, {param} = {a['best_label']} "
                           f"({pct(a['best_rate'])}) instead of {k} = {b['best_label']}")
        lines.append(f"| {analysis.LABELS[b['outcome']]} | {b['best_label']} "
                     f"({pct(b['best_rate'])}) | {a['best_label']} ({pct(a['best_rate'])}) "
                     f"| {word} |")
    return [*lines, ""]


def restricted_section(folder: Path | None, found) -> tuple[list[str], str | None]:
    """The headline under strong play: the restricted player's trigger sweep (its folder),
    its best setting per outcome beside the presets'; and its verdict in one sentence.
    Skipped with a note (and no verdict) when absent."""
    lines = ["## When to give the first Fire order, under strong play", ""]
    if folder is None or not folder.is_dir():
        where = f"`{folder}` does not exist" if folder is not None else "no folder was given"
        return [*lines, f"Not in this report: {where}. Give the restricted player's trigger "
                "sweep with `--restricted FOLDER`.", ""], None
    games = pl.read_parquet(open_run(folder).games_path)
    player = games["policy"][0]  # the lookahead player or the apprentice, restricted
    words, changes = [], []
    for preset, k, _, before, _ in found:
        imposed = IMPOSED[k]
        if imposed not in games.columns or not (games[imposed] > 0).any():
            continue
        own = games.filter(pl.col(imposed) > 0)
        n = own.group_by(imposed).len()["len"].min()
        lines += [f"### {analysis.parameter_label(preset, k)}", "",
                  f"{n:,} games per setting of the restricted {player} (95% intervals up "
                  f"to ±{100 * 1.96 * (0.25 / n) ** 0.5:.1f} points).", ""]
        lines += advice_table(words, preset, k, before, player, imposed, own,
                              f"restricted {player}", changes)
    if not words:
        return [*lines, f"`{folder}` sweeps none of the imposed triggers "
                f"{', '.join(IMPOSED.values())}.", ""], None
    verdict = H.advice_verdict(words, f"the {player} with its first Fire order imposed",
                               tuple(changes))
    return [*lines, verdict, ""], verdict


def ladder_chart(rungs: list[H.Rung], path: Path) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(H.OUTCOMES), figsize=(3.0 * len(H.OUTCOMES), 0.45 * len(rungs) + 1.5),
                             sharey=True)
    y = np.arange(len(rungs))[::-1]
    for ax, o in zip(axes, H.OUTCOMES, strict=True):
        rates = [r.rate(o) for r in rungs]
        x = np.array([100 * r.rate for r in rates])
        err = np.array([[100 * (r.rate - r.low) for r in rates], [100 * (r.high - r.rate) for r in rates]])
        colors = ["#b2182b" if r.bound else "#2166ac" for r in rungs]
        ax.barh(y, x, color=colors, alpha=0.7)
        ax.errorbar(x, y, xerr=err, fmt="none", ecolor="black", capsize=2, lw=0.8)
        ax.set_title(analysis.LABELS[o], fontsize=9)
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of games", fontsize=8)
    axes[0].set_yticks(y, [r.label for r in rungs], fontsize=8)
    fig.suptitle("The skill ladder: rates with 95% Wilson intervals; red: the clairvoyant's "
                 "bound (at most, for defeat at least)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110, facecolor="white")


def main() -> None:
    class Formatter(argparse.RawDescriptionHelpFormatter,
                    argparse.ArgumentDefaultsHelpFormatter):
        """The description as written, every option with its default."""

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=Formatter)
    parser.add_argument("--games", type=int, default=20000, help="games per scripted player")
    parser.add_argument("--expert-games", type=int, default=2000,
                        help="games of the expert at each of its rollout settings (the first of the same games)")
    parser.add_argument("--clairvoyant-games", type=int, default=2000,
                        help="games of the clairvoyant bound (the first of the same games)")
    parser.add_argument("--budget", type=int, default=200,
                        help="the clairvoyant's decisions searched per game before it is undecided")
    parser.add_argument("--sweep-games", type=int, default=10000,
                        help="games per setting of the trigger sweeps")
    parser.add_argument("--threads", type=int, default=2, help="threads of the clairvoyant")
    parser.add_argument("--restricted", type=Path, default=None,
                        help="the restricted player's trigger sweep folder (optional)")
    parser.add_argument("--out", type=Path, default=Path("results") / "headroom",
                        help="the report folder (the committed one is results/showcase)")
    args = parser.parse_args()
    counts = (args.games, args.expert_games, args.clairvoyant_games, args.budget,
              args.sweep_games, args.threads)
    if min(counts) < 1:
        sys.exit("error: every count must be 1 or more")
    if max(args.expert_games, args.clairvoyant_games) > args.games:
        sys.exit("error: --expert-games and --clairvoyant-games must not exceed --games "
                 "(they play the first of the same games)")
    baseline, best = read_points()
    honest = honest_players(baseline, best)
    frames = [play(label, policy, args.games, params) for label, policy, params in honest]
    frames += play_expert(args.expert_games)
    games = pl.concat(frames)
    order = list(dict.fromkeys(games["player"].to_list()))
    rungs = [rung(p, games.filter(pl.col("player") == p)) for p in order]
    bound, verdicts, cv_seconds = clairvoyant(baseline, best, args.clairvoyant_games,
                                              args.budget, args.threads)
    found = sweeps(next(p for p in best if p["objective"] == "operational victory"),
                   args.sweep_games)
    write(args, games, rungs, bound, verdicts, cv_seconds, found, baseline, best)
    print(f"wrote {args.out / 'headroom.md'}", file=sys.stderr)


def write(args, games, rungs, bound, verdicts, cv_seconds, found, baseline, best) -> None:
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    m = args.clairvoyant_games
    ladder_chart([*rungs, bound], out / "headroom-ladder.png")
    same = games.filter(pl.col("game") < m)
    subset = [rung(r.label, same.filter(pl.col("player") == r.label)) for r in rungs
              if same.filter(pl.col("player") == r.label).height == m]  # all m games
    best_op = H.best_honest(subset, "operational")
    op = verdicts["operational"]
    skills = H.skill_rows(subset, "random", bound)
    best_op_point = next(p for p in best if p["objective"] == "operational victory")
    sweep_lines, sweep_verdict = sweep_section(out, found, best_op_point, args.sweep_games)
    restricted_lines, restricted_verdict = restricted_section(args.restricted, found)
    widths = {o: H.half_width(rungs[: len(rungs) - len(EXPERT_FACTORS) - 1], o)
              for o in ("operational", "defeat")}
    lines = [
        "# Headroom: how well can the game be played?", "",
        f"**{H.headline(rungs, baseline['label'], paired(games))}**", "",
        f"**{H.bracket_sentence(best_op, bound, op[CV.UNDECIDED], op[CV.LOST])}**", "",
        f"**{H.skill_sentence(skills)}**", "",
        f"**{sweep_verdict}**", "",
        *([f"**{restricted_verdict}**", ""] if restricted_verdict else []),
        "## The skill ladder", "",
        f"Games of seed {SEED}, the same games for every player: {args.games:,} for the "
        f"scripted players (95% Wilson intervals at most ±{100 * widths['operational']:.1f} "
        f"points for the operational victory, ±{100 * widths['defeat']:.1f} for defeat), the "
        f"first {args.expert_games:,} of them for the expert at each setting, the first "
        f"{m:,} for the clairvoyant. The best known points are declared in `{POINTS}` "
        "(with where each comes from). The clairvoyant's row is a bound per outcome, "
        "each from its own search: at most that many victories, at least that many defeats.",
        "", "![ladder](headroom-ladder.png)", "",
        *H.ladder_table([*rungs, bound]), "",
        "## The bracket", "",
        f"The clairvoyant (`bollesim/bollebank/clairvoyant.py`) replays each game from setup "
        f"on the game's own chance stream and searches its choices (iterative deepening, "
        f"every node's playouts by the best known points, cautious and historical; at most "
        f"{args.budget:,} decisions per game): a game is won when a line of choices wins it, "
        f"lost when every line was searched, undecided otherwise and then counted as won. "
        f"Its {len(BOUNDS)} searches on {m:,} games took {cv_seconds:.0f} s "
        f"({args.threads} threads).", "",
        "The bound of all four victories is the tactical victory's: every game with all "
        "four is a tactical victory.", "",
        "| objective | won (line found) | proven lost | undecided (counted as won) |",
        "|---|---:|---:|---:|",
        *(f"| {CV.WIN_BY_NAME[name].name} | {verdicts[o][CV.WON]:,} | {verdicts[o][CV.LOST]:,} "
          f"| {verdicts[o][CV.UNDECIDED]:,} |" for o, name in BOUNDS.items()), "",
        H.bracket_sentence(best_op, bound, op[CV.UNDECIDED], op[CV.LOST]), "",
        "## Skill and luck", "",
        "The relative skill of each outcome (Dreef, Borm and van der Genugten 2004; "
        "`docs/skill.md`): the share of the distance from the random player to the "
        f"clairvoyant that the best honest player covers, on the first {m:,} games. The "
        "interval takes the three rates at the ends of their intervals.", "",
        *H.skill_table(skills, "random"), "", H.skill_sentence(skills), "",
        *sweep_lines,
        *restricted_lines,
        "## How this was made", "", "```sh",
        f".venv/bin/python experiments/headroom.py --games {args.games} --expert-games "
        f"{args.expert_games} --clairvoyant-games {m} --budget {args.budget} "
        f"--sweep-games {args.sweep_games} --threads {args.threads}"
        + (f" --restricted {args.restricted}" if args.restricted else "")
        + f" --out {args.out}", "```", "",
    ]
    (out / "headroom.md").write_text("\n".join(lines))
    pl.DataFrame([{"player": r.label, "bound": r.bound,
                   **{f"{o}_{x}": v for o in H.OUTCOMES if o in r.counts
                      for x, v in zip(("k", "n"), r.counts[o], strict=True)}}
                  for r in [*rungs, bound]]).write_csv(out / "headroom.csv")


if __name__ == "__main__":
    main()
