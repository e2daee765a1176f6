"""The headroom report made (`bollesim headroom`, cli/headroom.py): the games played, the
clairvoyant's searches, the trigger sweeps, and headroom.md written from their numbers."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from bollesim import simulate
from bollesim.batch.runfolder import open_run
from bollesim.batch.spec import load_experiment
from bollesim.bollebank import clairvoyant as CV
from bollesim.bollebank import headroom as G
from bollesim.bollebank.rules.loader import load_ruleset
from bollesim.game.declaration import Game
from bollesim.report import headroom as H
from bollesim.report import plots
from bollesim.stats import naming, paired_tests
from bollesim.stats.intervals import mcnemar_exact, newcombe_paired
from bollesim.stats.naming import pct


@dataclass(frozen=True)
class Settings:
    """The game and the command's options (cli/headroom.py gives their meaning and
    defaults)."""

    game: Game
    games: int
    expert_games: int
    clairvoyant_games: int
    budget: int
    sweep_games: int
    threads: int
    penalised_games: int
    inner: int
    value_games: int
    restricted: Path | None
    spec: Path
    points: Path
    out: Path

    def command(self) -> str:
        """The command line that makes this report."""
        return " ".join([
            "bollesim headroom", f"--games {self.games}", f"--expert-games {self.expert_games}",
            f"--clairvoyant-games {self.clairvoyant_games}", f"--budget {self.budget}",
            f"--sweep-games {self.sweep_games}", f"--threads {self.threads}",
            f"--penalised-games {self.penalised_games}", f"--inner {self.inner}",
            f"--value-games {self.value_games}",
            *([f"--restricted {self.restricted}"] if self.restricted else []),
            *([f"--spec {self.spec}"] if self.spec != G.SPEC else []),
            *([f"--points {self.points}"] if self.points != G.POINTS else []),
            f"--out {self.out}"])


def make(s: Settings) -> None:
    """Play everything the report needs, then write it into s.out."""
    from bollesim.cli.running import progress_bar

    baseline, best = G.read_points(s.points)
    honest = G.honest_players(baseline, best)
    experts = G.expert_players()
    stages = len(honest) + len(experts) + len(G.BOUNDS) + len(G.PENALISED) + 1
    with progress_bar("headroom (players, bounds, sweeps)") as bar:
        task = bar.add_task("", total=stages)

        def done(_=None):
            bar.advance(task)
            return _

        frames = [done(play(s.game, label, policy, s.games, params))
                  for label, policy, params in honest]
        frames += [done(play(s.game, label, policy, s.expert_games, params))
                   for label, policy, params in experts]
        games = pl.concat(frames)
        order = list(dict.fromkeys(games["player"].to_list()))
        rungs = [rung(s.game, p, games.filter(pl.col("player") == p)) for p in order]
        bound, verdicts, cv_seconds, each = clairvoyant(baseline, best, s, done)
        measured = [done(penalised(o, best, baseline, s, each[o])) for o in G.PENALISED]
        found = done(sweeps(s.game, s.spec, G.main_point(best), s.sweep_games))
    write(s, games, rungs, bound, verdicts, cv_seconds, found, baseline, best,
          [m for m in measured if m is not None])


def play(game: Game, label: str, policy, games: int, params=None) -> pl.DataFrame:
    t = time.perf_counter()
    df = simulate(policy, games, seed=G.SEED, params=params or None, game=game)
    print(f"{label}: {games:,} games, {games / (time.perf_counter() - t):,.1f} games/s",
          file=sys.stderr)
    return game.result.with_outcomes(df).select("game", *game.result.headline).with_columns(
        pl.lit(label).alias("player"))


def rung(game: Game, label: str, df: pl.DataFrame) -> H.Rung:
    return H.Rung(label, {o: (int(df[o].sum()), df.height) for o in game.result.headline})


def clairvoyant(baseline: dict, best: list[dict], s: Settings,
                done) -> tuple[H.Rung, dict, float, dict]:
    """The clairvoyant bound of every outcome, its verdicts' counts per outcome, seconds,
    and its verdict of each game per outcome (`done` after each search)."""
    rules = load_ruleset()
    bases = G.clairvoyant_bases(baseline, best)
    counts, verdicts, each = {}, {}, {}
    t = time.perf_counter()
    for outcome, name in G.BOUNDS.items():
        player = CV.Clairvoyant(rules, CV.WIN_BY_NAME[name], bases, s.budget)
        t1 = time.perf_counter()
        each[outcome] = player.solve_games(G.SEED, 0, s.clairvoyant_games, s.threads)
        found = CV.bound(each[outcome])
        print(f"clairvoyant, {name}: {found} in {time.perf_counter() - t1:.0f} s", file=sys.stderr)
        verdicts[outcome] = found
        k = found["counted"] if outcome != s.game.result.loss else found[CV.LOST]
        counts[outcome] = (k, s.clairvoyant_games)
        done()
    counts.update({o: counts[source] for o, source in G.INHERITED.items()})
    return H.Rung("clairvoyant (sees the game's future)", counts, bound=True), verdicts, \
        time.perf_counter() - t, each


def penalised(outcome: str, best: list[dict], baseline: dict, s: Settings,
              plain: list[CV.Verdict]) -> H.Penalised | None:
    """The penalised clairvoyant on the first s.penalised_games games (None for none), at
    each V of the ladder (G.VALUE_TREES): per game, the best on the inner samples of the
    plain clairvoyant's line, the strong player's own game and the objective's best known
    point's, and that line on fresh ones (bollebank/penalised.py, value.py)."""
    from bollesim.bollebank import value
    from bollesim.bollebank.penalised import Measure, lower_estimates
    from bollesim.game.policy import load_policy

    n = s.penalised_games
    if n == 0:
        return None
    name = G.PENALISED[outcome]
    rules, objective = load_ruleset(), CV.WIN_BY_NAME[name]
    t = time.perf_counter()
    strong = load_policy(G.VALUE_POLICY)
    x, y = value.decisions(rules, objective, strong, None, G.VALUE_SEED, s.value_games, s.threads)
    players, lines = G.penalised_candidates(baseline, best, name, plain[:n])
    steps = []
    for trees in G.VALUE_TREES:
        fitted = value.fit(x, y, trees, s.threads)
        values = lower_estimates(Measure(name, players, fitted.text, s.inner), G.SEED, lines,
                                 s.threads)
        steps.append(H.ValueStep(f"{trees} trees", values[:, 0], values[:, 1]))
    print(f"penalised clairvoyant, {name}: {n} games in {time.perf_counter() - t:.0f} s",
          file=sys.stderr)
    return H.Penalised(name, outcome, steps, sum(v.counted_won for v in plain[:n]),
                       s.value_games, s.inner)


def paired(games: pl.DataFrame):
    """compare(a, b, outcome) -> (a's rate - b's, its 95% interval, exact McNemar p < 0.05,
    games, that p), over the games both players played."""

    def compare(a: str, b: str, outcome: str):
        x = games.filter(pl.col("player") == a).select("game", pl.col(outcome).alias("a"))
        y = games.filter(pl.col("player") == b).select("game", pl.col(outcome).alias("b"))
        j = x.join(y, on="game")
        xa, xb = j["a"].to_numpy(), j["b"].to_numpy()
        n11, n10 = int((xa & xb).sum()), int((xa & ~xb).sum())
        n01, n00 = int((~xa & xb).sum()), int((~xa & ~xb).sum())
        low, high = newcombe_paired(n11, n10, n01, n00, 1.96)
        p = mcnemar_exact(n10, n01)
        return (n10 - n01) / j.height, low, high, p < 0.05, j.height, p

    return compare


def sweeps(game: Game, spec: Path, best_op: dict, games: int,
           family: bool = True) -> list[tuple[str, str, str, pl.DataFrame, pl.DataFrame | None]]:
    """Per grid of the spec: (preset, its trigger, the family's, the preset's sweep on the
    spec's own parameters, the best operational point's sweep of the same trigger, or
    None without `family`)."""
    experiment = load_experiment(spec, game)
    by_policy: dict[str, list] = {}
    for cell in experiment.cells:
        by_policy.setdefault(cell.policy.name, []).append(cell.param_dict())
    out = []
    for preset, cells in by_policy.items():
        k, p = G.TRIGGERS[preset]
        before = pl.concat([simulate(preset, games, seed=experiment.seed, params=c, game=game)
                            for c in cells], how="diagonal")
        values = [c[k] for c in cells]
        after = pl.concat([simulate(G.FAMILY, games, seed=experiment.seed,
                                    params={**best_op["params"], p: v}, game=game)
                           for v in values],
                          how="diagonal") if family else None
        out.append((preset, k, p, before, after))
    return out


def sweep_section(game: Game, spec: Path, out: Path, found, best_op: dict,
                  games: int) -> tuple[list[str], str]:
    """The preset trigger sweeps beside the same trigger swept for the best point, and
    their verdict in one sentence."""
    lines, words, changes = [], [], []
    experiment = load_experiment(spec, game)
    width = max(H.widest_interval(game, df, k) for _, k, _, df, _ in found)
    width = max(width, *(H.widest_interval(game, df, p) for _, _, p, _, df in found))
    fixed = {name: v for name, v in experiment.cells[0].param_dict().items()
             if all(c.param_dict().get(name) == v for c in experiment.cells
                    if c.policy.name == experiment.cells[0].policy.name)}
    lines += ["## When to give the first Fire order", "",
              f"The trigger sweeps of `{spec}` on the spec's own parameters (its cells: "
              f"{', '.join(f'`{k}={v:g}`' for k, v in fixed.items())} and the trigger), "
              f"{games:,} games of its seed {experiment.seed} per setting (95% Wilson "
              f"intervals at most ±{100 * width:.1f} points), beside the same "
              f"trigger swept for {best_op['label']} (its other parameters fixed), on the "
              "same games. A trigger has an effect on an outcome when its best setting beats "
              "its worst on the same games (exact McNemar, p < 0.05); where it has none the "
              "table says so instead of comparing advice.", ""]
    for preset, k, p, before, after in found:
        name = f"headroom-trigger-{preset}.png"
        plots.rates_by_trigger(game, after, p, policy=G.FAMILY).savefig(out / name, dpi=110,
                                                                       facecolor="white")
        lines += [f"### {naming.parameter_label(game, preset, k)}", "", f"![{p}]({name})", ""]
        lines += advice_table(game, words, preset, k, before, G.FAMILY, p, after,
                              best_op["label"], changes)
    return lines, H.advice_verdict(words, best_op["label"], tuple(changes))


def advice_table(game: Game, words: list[str], preset: str, k: str, before: pl.DataFrame, policy: str,
                 param: str, after: pl.DataFrame, who: str,
                 changes: list[str] | None = None) -> list[str]:
    """The table of the preset's best `k` per outcome beside `policy`'s best `param`, with
    the advice word of each line (appended to `words`; where it changes, what it says
    instead to `changes`)."""
    lines = [f"| outcome | best `{k}` ({preset}) | best `{param}` ({who}) | advice |",
             "|---|---|---|---|"]
    labels = game.result.labels
    for b, a in zip(paired_tests.best_trigger(game, before, k).iter_rows(named=True),
                    paired_tests.best_trigger(game, after, param, policy=policy,
                                          default=None).iter_rows(named=True),
                    strict=True):
        word = H.advice_word(b, a)
        words.append(word)
        if word == "changes" and changes is not None:
            changes.append(f"{labels[b['outcome']]}, {param} = {a['best_label']} "
                           f"({pct(a['best_rate'])}) instead of {k} = {b['best_label']}")
        lines.append(f"| {labels[b['outcome']]} | {b['best_label']} "
                     f"({pct(b['best_rate'])}) | {a['best_label']} ({pct(a['best_rate'])}) "
                     f"| {word} |")
    return [*lines, ""]


def restricted_section(game: Game, folder: Path | None, found) -> tuple[list[str], str | None]:
    """The headline under strong play: the restricted player's trigger sweep (its folder),
    its best setting per outcome beside the presets'; and its verdict in one sentence.
    Skipped with a note (and no verdict) when not given."""
    lines = ["## When to give the first Fire order, under strong play", ""]
    if folder is None:
        return [*lines, "Not in this report: no folder was given. Give the restricted "
                "player's trigger sweep with `--restricted FOLDER`.", ""], None
    games = pl.read_parquet(open_run(folder, game).games_path)
    player = games["policy"][0]  # the lookahead player or the apprentice, restricted
    words, changes = [], []
    for preset, k, _, before, _ in found:
        imposed = G.IMPOSED[k]
        if imposed not in games.columns or not (games[imposed] > 0).any():
            continue
        own = games.filter(pl.col(imposed) > 0)
        n = own.group_by(imposed).len()["len"].min()
        lines += [f"### {naming.parameter_label(game, preset, k)}", "",
                  f"{n:,} games per setting of the restricted {player} (95% intervals up "
                  f"to ±{100 * 1.96 * (0.25 / n) ** 0.5:.1f} points).", ""]
        lines += advice_table(game, words, preset, k, before, player, imposed, own,
                              f"restricted {player}", changes)
    if not words:
        return [*lines, f"`{folder}` sweeps none of the imposed triggers "
                f"{', '.join(G.IMPOSED.values())}.", ""], None
    verdict = H.advice_verdict(words, f"the {player} with its first Fire order imposed",
                               tuple(changes))
    return [*lines, verdict, ""], verdict


def ladder_chart(game: Game, rungs: list[H.Rung], path: Path) -> None:
    import matplotlib.pyplot as plt

    outcomes = game.result.headline
    fig, axes = plt.subplots(1, len(outcomes), figsize=(3.0 * len(outcomes), 0.45 * len(rungs) + 1.5),
                             sharey=True)
    y = np.arange(len(rungs))[::-1]
    for ax, o in zip(axes, outcomes, strict=True):
        rates = [r.rate(o) for r in rungs]
        x = np.array([100 * r.rate for r in rates])
        err = np.array([[100 * (r.rate - r.low) for r in rates], [100 * (r.high - r.rate) for r in rates]])
        colors = ["#b2182b" if r.bound else "#2166ac" for r in rungs]
        ax.barh(y, x, color=colors, alpha=0.7)
        ax.errorbar(x, y, xerr=err, fmt="none", ecolor="black", capsize=2, lw=0.8)
        ax.set_title(game.result.labels[o], fontsize=9)
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of games", fontsize=8)
    axes[0].set_yticks(y, [r.label for r in rungs], fontsize=8)
    fig.suptitle("The skill ladder: rates with 95% Wilson intervals; red: the clairvoyant's "
                 "bound (at most, for defeat at least)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110, facecolor="white")


def penalised_section(game: Game, measured: list[H.Penalised], subset: list[H.Rung]) -> list[str]:
    """The penalised clairvoyant beside the plain one (docs/skill.md), or a note."""
    lines = ["### The penalised clairvoyant", "",
             "Information relaxation with a penalty (Brown, Smith and Sun 2010; "
             "`docs/skill.md`) charges the clairvoyant, at each decision, the value V of "
             "the state the game's own chance led to minus its expectation over the chance "
             "outcomes to that state; the charge has mean zero, so its max over lines is "
             "still a bound, and a good V makes it tight. Here V is a LightGBM fit of the "
             f"outcome over the decision's observation, on every decision of {G.VALUE_POLICY} "
             f"games of seed {G.VALUE_SEED} (`bollesim/bollebank/value.py`), its "
             "expectation from samples of the chance to the next decision drawn off the "
             "game's tape (`bollesim/bollebank/penalised.py`). The max over every line is "
             "out of reach; each game's best line of three (the plain clairvoyant's, "
             f"{G.VALUE_POLICY}'s own game and the objective's best known point's), valued "
             "again on fresh samples, is a lower estimate of it: the penalised bound is at "
             "least that.", ""]
    if not measured:
        return [*lines, "Not measured in this report (`--penalised-games 0`).", ""]
    return [*lines, *(x for p in measured for x in H.penalised_lines(game.result, p, subset)), ""]


def write(s: Settings, games, rungs, bound, verdicts, cv_seconds, found, baseline, best,
          measured: list[H.Penalised]) -> None:
    game, result = s.game, s.game.result
    out, main, loss = s.out, result.main, result.loss
    out.mkdir(parents=True, exist_ok=True)
    m = s.clairvoyant_games
    ladder_chart(game, [*rungs, bound], out / "headroom-ladder.png")
    same = games.filter(pl.col("game") < m)
    subset = [rung(game, r.label, same.filter(pl.col("player") == r.label)) for r in rungs
              if same.filter(pl.col("player") == r.label).height == m]  # all m games
    best_op = H.best_honest(result, subset, main)
    op = verdicts[main]
    skills = H.skill_rows(result, subset, G.BEGINNER, bound)
    sweep_lines, sweep_verdict = sweep_section(game, s.spec, out, found, G.main_point(best),
                                               s.sweep_games)
    restricted_lines, restricted_verdict = restricted_section(game, s.restricted, found)
    safest = H.best_honest(result, subset, loss)
    widths = {o: H.half_width(rungs[: len(rungs) - len(G.expert_players())], o)
              for o in (main, loss)}
    lines = [
        "# Headroom: how well can the game be played?", "",
        f"**{H.headline(result, rungs, baseline['label'], paired(games))}**", "",
        f"**{H.bracket_sentence(result, best_op, bound, op[CV.UNDECIDED], op[CV.LOST])} "
        f"{H.designer_sentence(result, best_op, bound, op[CV.LOST], safest, measured)}**",
        "",
        f"**{H.skill_sentence(result, skills)}**", "",
        f"**{sweep_verdict}**", "",
        *([f"**{restricted_verdict}**", ""] if restricted_verdict else []),
        "## The skill ladder", "",
        f"Games of seed {G.SEED}, the same games for every player: {s.games:,} for the "
        f"scripted players (95% Wilson intervals at most ±{100 * widths[main]:.1f} "
        f"points for the operational victory, ±{100 * widths[loss]:.1f} for defeat), the "
        f"first {s.expert_games:,} of them for the expert at each setting, the first "
        f"{m:,} for the clairvoyant. The best known points are declared in `{s.points}` "
        "(with where each comes from). The clairvoyant's row is a bound per outcome, "
        "each from its own search: at most that many victories, at least that many defeats.",
        "", "![ladder](headroom-ladder.png)", "",
        *H.ladder_table(result, [*rungs, bound]), "",
        "## The bracket", "",
        f"The clairvoyant (`bollesim/bollebank/clairvoyant.py`) replays each game from setup "
        f"on the game's own chance stream and searches its choices (iterative deepening, "
        f"every node's playouts by the best known points, {' and '.join(G.CLAIRVOYANT_ALSO)}; "
        f"at most "
        f"{s.budget:,} decisions per game): a game is won when a line of choices wins it, "
        f"lost when every line was searched, undecided otherwise and then counted as won. "
        f"Its {len(G.BOUNDS)} searches on {m:,} games took {cv_seconds:.0f} s "
        f"({s.threads} threads).", "",
        "The bound of all four victories is the tactical victory's: every game with all "
        "four is a tactical victory.", "",
        "| objective | won (line found) | proven lost | undecided (counted as won) |",
        "|---|---:|---:|---:|",
        *(f"| {CV.WIN_BY_NAME[name].name} | {verdicts[o][CV.WON]:,} | {verdicts[o][CV.LOST]:,} "
          f"| {verdicts[o][CV.UNDECIDED]:,} |" for o, name in G.BOUNDS.items()), "",
        H.bracket_sentence(result, best_op, bound, op[CV.UNDECIDED], op[CV.LOST]), "",
        *penalised_section(game, measured, subset),
        "## Skill and luck", "",
        "The relative skill of each outcome (Dreef, Borm and van der Genugten 2004; "
        "`docs/skill.md`): the share of the distance from the random player to the "
        f"clairvoyant that the best honest player covers, on the first {m:,} games. The "
        "interval takes the three rates at the ends of their intervals.", "",
        *H.skill_table(result, skills, G.BEGINNER), "", H.skill_sentence(result, skills), "",
        *sweep_lines,
        *restricted_lines,
        "## How this was made", "", "```sh",
        s.command(), "```", "",
    ]
    (out / "headroom.md").write_text("\n".join(lines))
    pl.DataFrame([{"player": r.label, "bound": r.bound,
                   **{f"{o}_{x}": v for o in result.headline if o in r.counts
                      for x, v in zip(("k", "n"), r.counts[o], strict=True)}}
                  for r in [*rungs, bound]]).write_csv(out / "headroom.csv")


