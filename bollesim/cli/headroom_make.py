"""The headroom report made (`bollesim headroom`, cli/headroom.py) for any game that
declares its decision points and its headroom (bollesim/strong/headroom.py): everything
read and checked before the first game (`prepare`), then the games played, the
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
from bollesim.errors import UsageError
from bollesim.report import headroom as H
from bollesim.report import plots
from bollesim.stats import naming, paired_tests
from bollesim.stats.intervals import mcnemar_exact, newcombe_paired
from bollesim.stats.naming import pct
from bollesim.strong import clairvoyant as CV
from bollesim.strong import headroom as G

STEM = "headroom"  # the report's files: headroom.md, headroom.csv, headroom-*.png


@dataclass(frozen=True)
class Settings:
    """The command's options (cli/headroom.py gives their meaning and defaults); spec and
    points None: the game declares none."""

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
    spec: Path | None
    points: Path | None
    out: Path
    seed: int
    replace: bool = False

    def command(self, game, h: G.Headroom) -> str:
        """The command line that makes this report (--replace is not part of it)."""
        from bollesim.game.registry import command_line

        return " ".join([
            command_line(game, "headroom"),
            f"--games {self.games}", f"--expert-games {self.expert_games}",
            f"--clairvoyant-games {self.clairvoyant_games}", f"--budget {self.budget}",
            f"--sweep-games {self.sweep_games}", f"--threads {self.threads}",
            f"--penalised-games {self.penalised_games}", f"--inner {self.inner}",
            f"--value-games {self.value_games}",
            *([f"--seed {self.seed}"] if self.seed != h.seed else []),
            *([f"--restricted {self.restricted}"] if self.restricted else []),
            *([f"--spec {self.spec}"] if self.spec != _path(h.spec) else []),
            *([f"--points {self.points}"] if self.points != _path(h.points) else []),
            f"--out {self.out}"])


def _path(text: str | None) -> Path | None:
    return None if text is None else Path(text)


@dataclass(frozen=True)
class Plan:
    """What the report reads, read and checked before its first game: the game, its
    headroom, the baseline and best known points, the spec's experiment (None: no
    sweeps), the restricted player's run folder (None: not given)."""

    game: object
    h: G.Headroom
    baseline: dict
    best: list[dict]
    experiment: object | None
    restricted: object | None

    @property
    def result(self):
        return self.game.result

    @property
    def main_point(self) -> dict | None:
        return G.main_point(self.game, self.h, self.best)


def prepare(game, s: Settings) -> Plan:
    """Every input read and checked (UsageError, one line): the points, the spec (a sweep
    of the game's trigger presets, beside the best point of the main win), the restricted
    folder, and the seed (not V's)."""
    h = G.declared_headroom(game)
    if s.penalised_games and h.penalised and s.seed == h.value_seed:
        raise UsageError(f"--seed {s.seed} is the seed V is fitted on ({h.value_policy}'s "
                         "games): choose another")
    baseline, best = G.read_points(game, h, s.points)
    experiment = None
    if s.spec is not None:
        if not h.family_triggers:
            raise UsageError(f"--spec {s.spec}: {game.title} declares no trigger sweeps")
        experiment = load_experiment(s.spec, game)
        presets = ", ".join(h.family_triggers)
        for cell in experiment.cells:
            t = game.trigger(cell.policy.name)
            if cell.policy.name not in h.family_triggers or t is None:
                raise UsageError(f"--spec {s.spec}: it sweeps {cell.policy.name}, not one of the "
                                 f"trigger presets the report compares ({presets})")
            if t.param not in cell.param_dict():
                raise UsageError(f"--spec {s.spec}: a cell of {t.policy} without its trigger {t.param}")
        for preset, cells in trigger_cells(game, experiment).items():
            if len(cells) < 2:
                raise UsageError(f"--spec {s.spec}: it sweeps no setting of {preset}'s trigger "
                                 f"{game.trigger(preset).param} but one (nothing to compare)")
        if G.main_point(game, h, best) is None:
            raise UsageError(f"--spec {s.spec}: the trigger sweeps need the best known point "
                             f"of {h.bounds[game.result.main]} (--points)")
    elif s.restricted is not None:
        raise UsageError("--restricted: the report has no trigger sweeps to compare it with "
                         "(no --spec)")
    restricted = open_run(s.restricted, game) if s.restricted is not None else None
    return Plan(game, h, baseline, best, experiment, restricted)


def make(plan: Plan, s: Settings, earlier: list[Path] = ()) -> None:
    """Play everything the report needs, then write it into s.out (replacing the files of
    `earlier`, an earlier report there)."""
    from bollesim.cli.running import progress_bar

    h = plan.h
    honest = G.honest_players(h, plan.baseline, plan.best)
    experts = G.expert_players(plan.game, h)
    stages = len(honest) + len(experts) + len(h.bounds) + len(h.penalised) + 1
    with progress_bar("headroom (players, bounds, sweeps)") as bar:
        task = bar.add_task("", total=stages)

        def done(_=None):
            bar.advance(task)
            return _

        frames = [done(play(plan, p, s.games, s.seed)) for p in honest]
        frames += [done(play(plan, p, s.expert_games, s.seed)) for p in experts]
        games = pl.concat(frames)
        order = list(dict.fromkeys(games["player"].to_list()))
        rungs = [rung(plan, p, games.filter(pl.col("player") == p)) for p in order]
        bound, verdicts, cv_seconds, each = clairvoyant(plan, s, done)
        measured = [done(penalised(plan, o, s, each[o])) for o in h.penalised]
        found = done(sweeps(plan, s.sweep_games))
    for path in earlier:
        path.unlink(missing_ok=True)
    write(plan, s, games, rungs, bound, verdicts, cv_seconds, found,
          [m for m in measured if m is not None])


def play(plan: Plan, p: G.Player, games: int, seed: int) -> pl.DataFrame:
    t = time.perf_counter()
    df = simulate(p.policy, games, seed=seed, params=p.params or None, game=plan.game.name)
    print(f"{p.label}: {games:,} games, {games / (time.perf_counter() - t):,.1f} games/s",
          file=sys.stderr)
    return plan.result.with_outcomes(df).select("game", *plan.result.headline).with_columns(
        pl.lit(p.label).alias("player"))


def rung(plan: Plan, label: str, df: pl.DataFrame) -> H.Rung:
    return H.Rung(label, {o: (int(df[o].sum()), df.height) for o in plan.result.headline})


def clairvoyant(plan: Plan, s: Settings, done) -> tuple[H.Rung, dict, float, dict]:
    """The clairvoyant bound of every outcome, its verdicts' counts per outcome, seconds,
    and its verdict of each game per outcome (`done` after each search)."""
    game, h = plan.game, plan.h
    rules, objectives = game.load_ruleset(), CV.win_objectives(game.result)
    bases = G.clairvoyant_bases(game, h, plan.baseline, plan.best)
    counts, verdicts, each = {}, {}, {}
    t = time.perf_counter()
    for outcome, name in h.bounds.items():
        player = CV.Clairvoyant(game, rules, objectives[name], bases, s.budget, h.nearer, h.cut)
        t1 = time.perf_counter()
        each[outcome] = player.solve_games(s.seed, 0, s.clairvoyant_games, s.threads)
        found = CV.bound(each[outcome])
        print(f"clairvoyant, {name}: {found} in {time.perf_counter() - t1:.0f} s", file=sys.stderr)
        verdicts[outcome] = found
        k = found["counted"] if outcome != game.result.loss else found[CV.LOST]
        counts[outcome] = (k, s.clairvoyant_games)
        done()
    counts.update({o: counts[source] for o, source in h.inherited.items()})
    return H.Rung("clairvoyant (sees the game's future)", counts, bound=True), verdicts, \
        time.perf_counter() - t, each


def penalised(plan: Plan, outcome: str, s: Settings, plain: list[CV.Verdict]) -> H.Penalised | None:
    """The penalised clairvoyant on the first s.penalised_games games (None for none), at
    each V of the ladder (value_trees): per game, the best on the inner samples of the
    plain clairvoyant's line, the value policy's own game and the objective's best known
    point's, and that line on fresh ones (strong/penalised.py, strong/value.py)."""
    from bollesim.game.policy import load_policy
    from bollesim.strong import value
    from bollesim.strong.penalised import Measure, lower_estimates

    n = s.penalised_games
    if n == 0:
        return None
    game, h = plan.game, plan.h
    name = h.penalised[outcome]
    rules, objective = game.load_ruleset(), CV.win_objectives(game.result)[name]
    t = time.perf_counter()
    strong = load_policy(h.value_policy, game.name)
    x, y = value.decisions(game, rules, objective, strong, None, h.value_seed, s.value_games,
                           s.threads)
    players, lines = G.penalised_candidates(game, h, plan.baseline, plan.best, name, plain[:n])
    steps = []
    for trees in h.value_trees:
        fitted = value.fit(x, y, trees, s.threads)
        values = lower_estimates(Measure(game.name, name, players, fitted.text, s.inner), s.seed,
                                 lines, s.threads)
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


Sweep = tuple[str, str, str, pl.DataFrame, pl.DataFrame | None]


def trigger_cells(game, experiment) -> dict[str, list[dict]]:
    """Per trigger preset of the spec, its trigger sweep: the parameters of the preset's
    cells that share its first cell's other parameters, one per setting of the trigger, in
    the spec's order. A spec may sweep other parameters of the preset too (the close-assault
    question sweeps the stands needed as well): those cells are not the trigger's sweep."""
    out: dict[str, list[dict]] = {}
    for cell in experiment.cells:
        k, params = game.trigger(cell.policy.name).param, cell.param_dict()
        cells = out.setdefault(cell.policy.name, [])
        first = cells[0] if cells else params
        same = all(params[n] == v for n, v in first.items() if n != k)
        if same and params[k] not in [c[k] for c in cells]:
            cells.append(params)
    return out


def sweeps(plan: Plan, games: int, family: bool = True) -> list[Sweep]:
    """Per grid of the spec: (preset, its trigger, the family's, the preset's sweep on the
    spec's own parameters, the best main point's sweep of the same trigger, or None
    without `family`); [] without a spec."""
    experiment, h, name = plan.experiment, plan.h, plan.game.name
    if experiment is None:
        return []
    out = []
    for preset, cells in trigger_cells(plan.game, experiment).items():
        k, p = plan.game.trigger(preset).param, h.family_triggers[preset]
        before = pl.concat([simulate(preset, games, seed=experiment.seed, params=c, game=name)
                            for c in cells], how="diagonal")
        values = [c[k] for c in cells]
        after = pl.concat([simulate(h.family, games, seed=experiment.seed, game=name,
                                    params={**plan.main_point["params"], p: v}) for v in values],
                          how="diagonal") if family else None
        out.append((preset, k, p, before, after))
    return out


def sweep_section(plan: Plan, spec: Path, out: Path, found, games: int) -> tuple[list[str], str]:
    """The preset trigger sweeps beside the same trigger swept for the best point, and
    their verdict in one sentence."""
    lines, words, changes = [], [], []
    experiment, h, best_op = plan.experiment, plan.h, plan.main_point
    width = max(H.widest_interval(plan.game, df, k) for _, k, _, df, _ in found)
    width = max(width, *(H.widest_interval(plan.game, df, p) for _, _, p, _, df in found))
    first = next(iter(trigger_cells(plan.game, experiment).values()))
    fixed = {name: v for name, v in first[0].items() if all(c[name] == v for c in first)}
    lines += [f"## {h.question}", "",
              f"The trigger sweeps of `{spec}` on the spec's own parameters (its cells: "
              f"{', '.join(f'`{k}={v:g}`' for k, v in fixed.items())} and the trigger), "
              f"{games:,} games of its seed {experiment.seed} per setting (95% Wilson "
              f"intervals at most ±{100 * width:.1f} points), beside the same "
              f"trigger swept for {best_op['label']} (its other parameters fixed), on the "
              "same games. A trigger has an effect on an outcome when its best setting beats "
              "its worst on the same games (exact McNemar, p < 0.05); where it has none the "
              "table says so instead of comparing advice.", ""]
    for preset, k, p, before, after in found:
        name = f"{STEM}-trigger-{preset}.png"
        plots.rates_by_trigger(plan.game, after, p, policy=h.family).savefig(
            out / name, dpi=110, facecolor="white")
        lines += [f"### {naming.parameter_label(plan.game, preset, k)}", "", f"![{p}]({name})", ""]
        lines += advice_table(plan, words, preset, k, before, h.family, p, after,
                              best_op["label"], changes)
    return lines, H.advice_verdict(words, best_op["label"], tuple(changes))


def advice_table(plan: Plan, words: list[str], preset: str, k: str, before: pl.DataFrame,
                 policy: str, param: str, after: pl.DataFrame, who: str,
                 changes: list[str] | None = None) -> list[str]:
    """The table of the preset's best `k` per outcome beside `policy`'s best `param`, with
    the advice word of each line (appended to `words`; where it changes, what it says
    instead to `changes`)."""
    labels = plan.result.labels
    lines = [f"| outcome | best `{k}` ({preset}) | best `{param}` ({who}) | advice |",
             "|---|---|---|---|"]
    for b, a in zip(paired_tests.best_trigger(plan.game, before, k).iter_rows(named=True),
                    paired_tests.best_trigger(plan.game, after, param, policy=policy,
                                          default=None).iter_rows(named=True),
                    strict=True):
        word = H.advice_word(b, a, "the preset" if preset != plan.h.family else "the spec's point")
        words.append(word)
        if word == "changes" and changes is not None:
            changes.append(f"{labels[b['outcome']]}, {param} = {a['best_label']} "
                           f"({pct(a['best_rate'])}) instead of {k} = {b['best_label']}")
        lines.append(f"| {labels[b['outcome']]} | {b['best_label']} "
                     f"({pct(b['best_rate'])}) | {a['best_label']} ({pct(a['best_rate'])}) "
                     f"| {word} |")
    return [*lines, ""]


def restricted_section(plan: Plan, found) -> tuple[list[str], str | None]:
    """The headline under strong play: the restricted player's trigger sweep (its folder),
    its best setting per outcome beside the presets'; and its verdict in one sentence.
    Skipped with a note (and no verdict) when not given."""
    h = plan.h
    lines = [f"## {h.question}, under strong play", ""]
    if not G.imposed(plan.game):
        return [*lines, f"Not in this report: the strong player ({plan.game.strong}) has no "
                "parameter that imposes the trigger (the game declares none), so no "
                "restricted player answers the question.", ""], None
    if plan.restricted is None:
        return [*lines, "Not in this report: no folder was given. Give the restricted "
                "player's trigger sweep with `--restricted FOLDER`.", ""], None
    folder = plan.restricted.path
    games = pl.read_parquet(plan.restricted.games_path)
    player = games["policy"][0]  # the strong player or the expert, restricted
    words, changes = [], []
    imposing = G.imposed(plan.game)
    for preset, k, _, before, _ in found:
        imposed = imposing.get(k)
        own = G.imposing_rows(plan.game, games, imposed) if imposed in games.columns else games[:0]
        if not own.height:
            continue
        n = own.group_by(imposed).len()["len"].min()
        lines += [f"### {naming.parameter_label(plan.game, preset, k)}", "",
                  f"{n:,} games per setting of the restricted {player} (95% intervals up "
                  f"to ±{100 * 1.96 * (0.25 / n) ** 0.5:.1f} points).", ""]
        lines += advice_table(plan, words, preset, k, before, player, imposed, own,
                              f"restricted {player}", changes)
    if not words:
        return [*lines, f"`{folder}` sweeps none of the imposed triggers "
                f"{', '.join(imposing.values())}.", ""], None
    verdict = H.advice_verdict(words, f"the {player} {h.imposed}", tuple(changes))
    return [*lines, verdict, ""], verdict


def ladder_chart(plan: Plan, rungs: list[H.Rung], path: Path) -> None:
    import matplotlib.pyplot as plt

    outcomes, labels = plan.result.headline, plan.result.labels
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
        ax.set_title(labels[o], fontsize=9)
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of games", fontsize=8)
    axes[0].set_yticks(y, [r.label for r in rungs], fontsize=8)
    fig.suptitle("The skill ladder: rates with 95% Wilson intervals; red: the clairvoyant's "
                 f"bound (at most, for {labels[plan.result.loss]} at least)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110, facecolor="white")


def penalised_section(plan: Plan, measured: list[H.Penalised], subset: list[H.Rung]) -> list[str]:
    """The penalised clairvoyant beside the plain one (docs/skill.md), or a note."""
    h = plan.h
    lines = ["### The penalised clairvoyant", "",
             "Information relaxation with a penalty (Brown, Smith and Sun 2010; "
             "`docs/skill.md`) charges the clairvoyant, at each decision, the value V of "
             "the state the game's own chance led to minus its expectation over the chance "
             "outcomes to that state; the charge has mean zero, so its max over lines is "
             "still a bound, and a good V makes it tight. Here V is a LightGBM fit of the "
             f"outcome over the decision's observation, on every decision of {h.value_policy} "
             f"games of seed {h.value_seed} (`bollesim/strong/value.py`), its "
             "expectation from samples of the chance to the next decision drawn off the "
             "game's tape (`bollesim/strong/penalised.py`). The max over every line is "
             "out of reach; each game's best line of three (the plain clairvoyant's, "
             f"{h.value_policy}'s own game and the objective's best known point's), valued "
             "again on fresh samples, is a lower estimate of it: the penalised bound is at "
             "least that.", ""]
    if not measured:
        why = "`--penalised-games 0`" if h.penalised else "the game declares no outcome for it"
        return [*lines, f"Not measured in this report ({why}).", ""]
    return [*lines, *(x for p in measured for x in H.penalised_lines(plan.result, p, subset)), ""]


def write(plan: Plan, s: Settings, games, rungs, bound, verdicts, cv_seconds, found,
          measured: list[H.Penalised]) -> None:
    h, result, out = plan.h, plan.result, s.out
    main, loss, labels = result.main, result.loss, result.labels
    out.mkdir(parents=True, exist_ok=True)
    m = s.clairvoyant_games
    ladder_chart(plan, [*rungs, bound], out / f"{STEM}-ladder.png")
    same = games.filter(pl.col("game") < m)
    subset = [rung(plan, r.label, same.filter(pl.col("player") == r.label)) for r in rungs
              if same.filter(pl.col("player") == r.label).height == m]  # all m games
    best_op = H.best_honest(result, subset, main)
    safest = H.best_honest(result, subset, loss)
    op = verdicts[main]
    skills = H.skill_rows(result, subset, h.beginner, bound)
    sweep_lines, sweep_verdict, restricted_lines, restricted_verdict = [], None, [], None
    if found:
        sweep_lines, sweep_verdict = sweep_section(plan, s.spec, out, found, s.sweep_games)
        restricted_lines, restricted_verdict = restricted_section(plan, found)
    widths = {o: H.half_width(rungs[: len(rungs) - len(G.expert_players(plan.game, h))], o)
              for o in (main, loss)}
    playouts = "the best known points" if plan.best else "the baseline"
    playouts += f", {' and '.join(h.clairvoyant_also)}" if h.clairvoyant_also else ""
    lines = [
        f"# Headroom of {plan.game.title}: how well can the game be played?", "",
        f"**{H.headline(result, rungs, plan.baseline['label'], paired(games), h.baseline_called)}**", "",
        f"**{H.bracket_sentence(result, best_op, bound, op[CV.UNDECIDED], op[CV.LOST], h.chance)} "
        f"{H.designer_sentence(result, best_op, bound, op[CV.LOST], safest, measured, h.chance)}**",
        "",
        f"**{H.skill_sentence(result, skills, h.beginner)}**", "",
        *([f"**{sweep_verdict}**", ""] if sweep_verdict else []),
        *([f"**{restricted_verdict}**", ""] if restricted_verdict else []),
        "## The skill ladder", "",
        f"Games of seed {s.seed}, the same games for every player: {s.games:,} for the "
        f"scripted players (95% Wilson intervals at most ±{100 * widths[main]:.1f} "
        f"points for the {labels[main]}, ±{100 * widths[loss]:.1f} for {labels[loss]}), the "
        f"first {s.expert_games:,} of them for the expert at each setting, the first "
        f"{m:,} for the clairvoyant. "
        + (f"The best known points are declared in `{s.points}` (with where each comes "
           "from). " if s.points else "")
        + "The clairvoyant's row is a bound per outcome, each from its own search: at most "
        f"that rate of each win, at least that rate of {labels[loss]}.",
        "", f"![ladder]({STEM}-ladder.png)", "",
        *H.ladder_table(result, [*rungs, bound]), "",
        "## The bracket", "",
        f"The clairvoyant (`bollesim/strong/clairvoyant.py`) replays each game from setup "
        f"on the game's own chance stream and searches its choices (iterative deepening, "
        f"every node's playouts by {playouts}; "
        f"at most "
        f"{s.budget:,} decisions per game): a game is won when a line of choices wins it, "
        f"lost when every line was searched, undecided otherwise and then counted as won. "
        f"Its {len(h.bounds)} searches on {m:,} games took {cv_seconds:.0f} s "
        f"({s.threads} threads).", "",
        *([h.inherited_note, ""] if h.inherited_note else []),
        "| objective | won (line found) | proven lost | undecided (counted as won) |",
        "|---|---:|---:|---:|",
        *(f"| {name} | {verdicts[o][CV.WON]:,} | {verdicts[o][CV.LOST]:,} "
          f"| {verdicts[o][CV.UNDECIDED]:,} |" for o, name in h.bounds.items()), "",
        H.bracket_sentence(result, best_op, bound, op[CV.UNDECIDED], op[CV.LOST], h.chance), "",
        *penalised_section(plan, measured, subset),
        "## Skill and luck", "",
        "The relative skill of each outcome (Dreef, Borm and van der Genugten 2004; "
        f"`docs/skill.md`): the share of the distance from the {h.beginner} player to the "
        f"clairvoyant that the best honest player covers, on the first {m:,} games. The "
        "interval takes the three rates at the ends of their intervals.", "",
        *H.skill_table(result, skills, h.beginner), "", H.skill_sentence(result, skills, h.beginner), "",
        *sweep_lines,
        *restricted_lines,
        "## How this was made", "", "```sh",
        s.command(plan.game, h), "```", "",
    ]
    (out / f"{STEM}.md").write_text("\n".join(lines))
    pl.DataFrame([{"player": r.label, "bound": r.bound,
                   **{f"{o}_{x}": v for o in result.headline if o in r.counts
                      for x, v in zip(("k", "n"), r.counts[o], strict=True)}}
                  for r in [*rungs, bound]]).write_csv(out / f"{STEM}.csv")
