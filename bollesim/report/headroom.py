"""The headroom report's findings, each sentence made from the numbers it states
(`bollesim headroom` plays the games, bollesim/cli/headroom_make.py;
tests/test_headroom.py checks the sentences against numbers computed in the test).

- The ladder: every player's rate of every outcome on the same games, with its 95% Wilson
  interval, and the clairvoyant bound beside them (strong/clairvoyant.py).
- The bracket: the best achievable rate of the main win lies between the best honest
  player's and the clairvoyant's, on the same games.
- The skill measure: the relative skill of each outcome (stats/skill.py, docs/skill.md).
- The trigger sweeps: per outcome, whether the first Fire order's trigger has an effect at
  all (the best setting significantly better than the worst, exact McNemar on the same
  games) before any advice is compared.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bollesim.game.declaration import Game
from bollesim.game.result import Result
from bollesim.report.chartdata import signed_ci
from bollesim.report.document import pct_ci
from bollesim.stats import skill
from bollesim.stats.intervals import wilson
from bollesim.stats.naming import pct


@dataclass(frozen=True)
class Rung:
    """One player of the ladder: per outcome (successes, games); `bound` marks the
    clairvoyant, whose counts are an upper bound (a lower one for the loss)."""

    label: str
    counts: dict[str, tuple[int, int]]
    bound: bool = False

    def rate(self, outcome: str) -> skill.Rate:
        k, n = self.counts[outcome]
        low, high = wilson(k, n)
        return skill.Rate(k / n, low, high)


def half_width(rungs: list[Rung], outcome: str) -> float:
    """The widest half-width of the 95% intervals of an outcome's rates on the ladder."""
    return max((r.rate(outcome).high - r.rate(outcome).low) / 2 for r in rungs
               if outcome in r.counts)


def widest_interval(game: Game, games, by: str) -> float:
    """The widest half-width of the 95% Wilson intervals of the outcomes' rates over the
    settings of `by` in a sweep's games of the game."""
    from bollesim.stats.analysis import rates

    outcomes = game.result.headline
    table = rates(game, games.filter(games[by].is_not_null()), by=by, outcomes=outcomes)
    return max(float(((table[f"{o}_high"] - table[f"{o}_low"]) / 2).max()) for o in outcomes)


def ladder_table(result: Result, rungs: list[Rung]) -> list[str]:
    """The ladder as a markdown table: a row per player, a column per outcome."""
    labels, outcomes = result.labels, result.headline
    head = "| player | " + " | ".join(labels[o] for o in outcomes) + " |"
    lines = [head, "|---|" + "---:|" * len(outcomes)]
    for r in rungs:
        cells = []
        for o in outcomes:
            if o not in r.counts:
                cells.append("–")
                continue
            rate = r.rate(o)
            mark = ("≥ " if o in result.minimise else "≤ ") if r.bound else ""
            cells.append(mark + pct_ci(rate.rate, rate.low, rate.high))
        lines.append(f"| {r.label} | " + " | ".join(cells) + " |")
    return lines


def best_honest(result: Result, rungs: list[Rung], outcome: str) -> Rung:
    """The honest player with the best rate of an outcome (the lowest, for one to avoid)."""
    honest = [r for r in rungs if not r.bound and outcome in r.counts]
    sign = -1 if outcome in result.minimise else 1
    return max(honest, key=lambda r: sign * r.rate(outcome).rate)


def bracket_sentence(result: Result, best: Rung, clairvoyant: Rung, undecided: int,
                     lost: int, chance: str = "the chance outcomes") -> str:
    """The bracket of the best achievable rate of the main win, on the same games, and
    what its ends mean: how many games luck decides whatever the play, between the games
    proven lost and those where no winning line was found (chance: what the clairvoyant
    foresees, in the game's words)."""
    labels, main = result.labels, result.main
    b, c = best.rate(main), clairvoyant.rate(main)
    k, n = clairvoyant.counts[main]
    won = k - undecided
    gap = skill.luck_share(b.rate, c.rate)
    return (
        f"On these {n:,} games the best achievable {labels[main]} rate lies between "
        f"{pct_ci(b.rate, b.low, b.high)} ({best.label}, the best honest player) and "
        f"{pct_ci(c.rate, c.low, c.high)} (the clairvoyant: {won:,} games won by a "
        f"line found, {undecided:,} undecided within its budget and counted as won, "
        f"{lost:,} proven lost). Luck that no play beats, even one that sees the future, "
        f"decides at least the {lost:,} games proven lost ({pct(lost / n)}) and at most "
        f"the {n - won:,} with no winning line found ({pct((n - won) / n)}); the "
        f"{100 * gap:.1f} points between the two ends are games that better honest play or "
        f"only foreknowledge of {chance} could win: the bracket does not say "
        f"which."
    )


def skill_rows(result: Result, rungs: list[Rung], beginner: str, clairvoyant: Rung) -> list[dict]:
    """Per outcome the clairvoyant bounds: the beginner's, the best honest player's and the
    clairvoyant's rates (as rates to maximise) and the relative skill with its
    conservative interval."""
    outcomes = result.headline
    start = next(r for r in rungs if r.label == beginner)
    rows = []
    for o in outcomes:
        if o not in clairvoyant.counts:
            continue
        best = best_honest(result, rungs, o)
        r0, rb, rc = (skill.as_good(result, o, r.rate(o)) for r in (start, best, clairvoyant))
        low, high = skill.relative_skill_interval(r0, rb, rc)
        rows.append({"outcome": o, "best": best.label, "beginner": r0.rate, "best_rate": rb.rate,
                     "clairvoyant": rc.rate,
                     "skill": skill.relative_skill(r0.rate, rb.rate, rc.rate),
                     "low": low, "high": high})
    return rows


def skill_table(result: Result, rows: list[dict], beginner: str) -> list[str]:
    labels = result.labels
    lines = [f"| outcome (as a rate to reach) | {beginner} | best honest player | clairvoyant "
             "| relative skill (interval) |", "|---|---:|---|---:|---:|"]
    for r in rows:
        name = labels[r["outcome"]] if r["outcome"] not in result.minimise else f"no {labels[r['outcome']]}"
        lines.append(f"| {name} | {pct(r['beginner'])} | {r['best']}, {pct(r['best_rate'])} "
                     f"| {pct(r['clairvoyant'])} | {_share(r['skill'])} "
                     f"({_share(r['low'])} to {_share(r['high'])}) |")
    return lines


def _share(x: float) -> str:
    return "–" if x != x else f"{x:.2f}"


def skill_sentence(result: Result, rows: list[dict], beginner: str) -> str:
    """The main win's relative skill in words (beginner: the beginner's policy)."""
    labels, main = result.labels, result.main
    r = next(r for r in rows if r["outcome"] == main)
    return (
        f"For the {labels[main]} the best honest player closes "
        f"{_share(r['skill'])} of the distance from the {beginner} player "
        f"({pct(r['beginner'])}) to the clairvoyant ({pct(r['clairvoyant'])}): a relative "
        f"skill of at least {_share(r['skill'])} (interval {_share(r['low'])} to "
        f"{_share(r['high'])}); the rest of that distance is luck to a player who plays "
        f"as well as {r['best']}."
    )


def effect(row: dict) -> bool:
    """Whether a trigger has an effect on an outcome: its best setting is significantly
    better than its worst on the same games (a best_trigger row)."""
    return bool(row["significant_vs_worst"])


def advice_word(before: dict, after: dict, first: str = "the preset") -> str:
    """'no effect' where the trigger changes nothing for either player (flat lines), 'no
    effect for X' for one of them (`first`: what the player of `before` is), else 'holds'
    (the same best setting, or the preset's best tied with the other's best) or 'changes'."""
    if not effect(before) and not effect(after):
        return "no effect"
    if not effect(before):
        return f"no effect for {first}"
    if not effect(after):
        return "no effect for the other player"
    same = before["best_label"] == after["best_label"] or before["best_label"] in (after["tied"] or [])
    return "holds" if same else "changes"


def advice_verdict(words: list[str], player: str, changes: tuple[str, ...] = ()) -> str:
    """One sentence from the advice words of every outcome and trigger, naming the lines
    where the advice changes (`changes`: what each says instead)."""
    counted = {w: words.count(w) for w in dict.fromkeys(words)}
    parts = ", ".join(f"{w} for {k}" for w, k in counted.items())
    compared = counted.get("holds", 0) + counted.get("changes", 0)
    if not compared:
        return (f"Under {player}, the trigger has no effect that both "
                f"players show for any outcome ({parts}): no advice to compare.")
    instead = f": {'; '.join(changes)}" if changes else ""
    return (f"Under {player}, of the {compared} outcome lines where the trigger has an "
            f"effect for both players, the advice holds for {counted.get('holds', 0)} and "
            f"changes for {counted.get('changes', 0)} ({parts}){instead}.")


def headline(result: Result, rungs: list[Rung], baseline: str, compare,
             called: tuple[str, str] = ("the best simple preset", "the preset")) -> str:
    """The headline: the highest rate of the main win against the baseline, and the lowest
    loss rate among the players whose main-win rate is not below the baseline's (no
    headline for a player that wins nothing).
    compare(a, b, outcome) -> (a's rate - b's, its 95% interval, significant, games, the
    exact McNemar p) on the games both played; called: what the baseline is, in full and
    short (Headroom.baseline_called)."""
    full, short = called
    labels, main, loss = result.labels, result.main, result.loss
    base = next(r for r in rungs if r.label == baseline)
    most = best_honest(result, rungs, main)
    b, m = base.rate(main), most.rate(main)
    if most.label == baseline:
        first = (f"The highest {labels[main]} rate: {baseline}, "
                 f"{pct_ci(b.rate, b.low, b.high)}, {full}.")
    else:
        d = compare(most.label, baseline, main)
        first = (f"The highest {labels[main]} rate: {most.label}, "
                 f"{pct_ci(m.rate, m.low, m.high)}, against {full} "
                 f"{baseline}: {signed_ci(*d[:3])} points on the same {d[4]:,} games, "
                 f"{_separated(d)}. {tied_with_best(result, rungs, most, compare, main)}")
    eligible = [r for r in rungs if not r.bound and loss in r.counts
                and (r.label == baseline or not _worse(compare(r.label, baseline, main)))]
    safest = min(eligible, key=lambda r: r.rate(loss).rate)
    s, bd = safest.rate(loss), base.rate(loss)
    if safest.label == baseline:
        second = (f"No player with at least its {labels[main]} rate has a lower {labels[loss]} "
                  f"rate than {short} ({pct_ci(bd.rate, bd.low, bd.high)}).")
    else:
        d = compare(safest.label, baseline, loss)
        second = (f"Of the players with at least {short}'s {labels[main]} rate, the "
                  f"lowest {labels[loss]} rate: {safest.label}, {pct_ci(s.rate, s.low, s.high)}: "
                  f"{signed_ci(*d[:3])} points against {short} on the same {d[4]:,} "
                  f"games, {_separated(d)}. {tied_with_best(result, eligible, safest, compare, loss)}")
    return f"{first} {second}"


def tied_with_best(result: Result, rungs: list[Rung], best: Rung, compare, outcome: str) -> str:
    """The players of `rungs` that tie with `best` on `outcome`, on the same games: it was
    chosen as the best on these games, so each other player is tested against it at 5%
    divided by their number (Bonferroni), exact McNemar on the games both played
    (compare(...)[5], its p)."""
    label = result.labels[outcome]
    others = [r for r in rungs if not r.bound and outcome in r.counts and r is not best]
    if not others:
        return ""
    level = 0.05 / len(others)
    ties = [r for r in others if compare(best.label, r.label, outcome)[5] >= level]
    test = (f"exact McNemar at {level:.3g}, 5% over the {len(others)} other players, as it "
            "was chosen as the best on these games")
    if not ties:
        return f"No other player ties with it on these games ({test})."
    named = ", ".join(f"{r.label} ({pct(r.rate(outcome).rate)})" for r in ties)
    return (f"Tied with it on {label} on these games ({test}): {named}; which of them is "
            "best, these games do not settle.")


def _separated(diff) -> str:
    return "separated" if diff[3] else "not separated at these counts"


def _worse(diff) -> bool:
    """Significantly below on the same games."""
    return diff[3] and diff[0] < 0


@dataclass(frozen=True)
class ValueStep:
    """One V of the ladder: per game, the best candidate line's penalised value on the
    inner samples and the same line's on fresh ones (unbiased for that line)."""

    label: str
    found: np.ndarray
    fresh: np.ndarray


@dataclass(frozen=True)
class Penalised:
    """The penalised clairvoyant on the first games of one win objective (`outcome`: the
    ladder's outcome it bounds, the main win, or the loss as no loss): each V's step, the plain
    clairvoyant's successes on the same games, V's training games, its inner samples."""

    objective: str
    outcome: str
    steps: list[ValueStep]
    plain: int
    value_games: int
    samples: int

    @property
    def best(self) -> ValueStep:
        """The step of V with the lowest estimate on fresh samples: no V built brings the
        bound below its estimate, a lower one of each V's bound."""
        return min(self.steps, key=lambda step: float(np.mean(step.fresh)))


def mean_interval(x: np.ndarray) -> tuple[float, float, float]:
    """The mean and its 95% normal interval."""
    m = float(np.mean(x))
    half = 1.96 * float(np.std(x, ddof=1)) / len(x) ** 0.5 if len(x) > 1 else float("inf")
    return m, m - half, m + half


def _points(m: float, low: float, high: float) -> str:
    return f"{100 * m:.1f} ({100 * low:.1f} to {100 * high:.1f})"


def honest_rate(result: Result, p: Penalised, rungs: list[Rung]) -> tuple[Rung, float]:
    """The best honest player of the objective's outcome and its rate of reaching it
    (the loss: 1 - its rate)."""
    best = best_honest(result, rungs, p.outcome)
    rate = best.rate(p.outcome).rate
    return best, (1 - rate if p.outcome in result.minimise else rate)


def penalised_lines(result: Result, p: Penalised, rungs: list[Rung]) -> list[str]:
    """The ladder of V for one objective: each step's lower estimate of the penalised
    bound, its gap above the best honest player, the inner samples' noise; and what it
    says."""
    main = result.main
    n = len(p.steps[0].found)
    best, honest = honest_rate(result, p, rungs)
    same = rungs[0].counts[main][1]
    lines = [f"For {p.objective}, on the first {n:,} games ({p.samples} inner samples per "
             f"decision; V fitted on {p.value_games:,} games), against {best.label}, the "
             f"best honest player ({pct(honest)} on the first {same:,} games):", "",
             "| V | the lines on their inner samples | the same lines on fresh samples: "
             "the bound is at least | points above the best honest player, at least | "
             "the inner samples' noise |", "|---|---:|---:|---:|---:|",
             f"| 0 (the plain clairvoyant: its bound) | – | {pct(p.plain / n)} | "
             f"{100 * (p.plain / n - honest):.1f} | – |"]
    for step in p.steps:
        fresh = mean_interval(step.fresh)
        lines.append(f"| {step.label} | {_points(*mean_interval(step.found))} | "
                     f"{_points(*fresh)} | {100 * (fresh[0] - honest):.1f} | "
                     f"{_points(*mean_interval(step.found - step.fresh))} |")
    last = mean_interval(p.best.fresh)
    lines += ["", f"With the best V ({p.best.label}) the penalised bound is at least "
              f"{_points(*last)}%, {_gap(last[1] - honest)} the best honest player at the "
              f"low end of its interval: "
              + ("this V cannot bring the bound within 10 points, whatever the search; a V "
                 "nearer the best play's value would." if last[1] - honest > 0.10 else
                 "a lower estimate, not a bound: the max over every line may be higher.")
              + " The best proven bound stays the plain clairvoyant's.", ""]
    return lines


def _gap(points: float) -> str:
    """'at least 5.3 points above', or '2.4 points below' (a gap as words)."""
    return (f"at least {100 * points:.1f} points above" if points >= 0 else
            f"{100 * -points:.1f} points below")


def designer_sentence(result: Result, best: Rung, clairvoyant: Rung, lost: int, safest: Rung,
                      penalised: list[Penalised] = (),
                      chance: str = "the chance outcomes") -> str:
    """The bracket in a designer's words: how far today's best player is at most from the
    best possible play, for the main win and for no loss; the share of games luck
    decides whatever the play; and how low the penalised clairvoyant could bring the
    upper ends with the V built (the lower estimates of its bound)."""
    labels, main, loss = result.labels, result.main, result.loss
    b, c = best.rate(main), clairvoyant.rate(main)
    n = clairvoyant.counts[main][1]
    safe, floor = 1 - safest.rate(loss).rate, 1 - clairvoyant.rate(loss).rate
    text = (
        f"In words: today's best player ({best.label}) reaches {labels[main]} in "
        f"{pct(b.rate)} of games; no play, even one that knew {chance} in advance, "
        f"wins more than {pct(c.rate)}. So today's best is at most "
        f"{100 * max(c.rate - b.rate, 0):.1f} points below the best possible play. Against "
        f"{labels[loss]}, today's safest player ({safest.label}) avoids it in {pct(safe)} of games "
        f"and no play avoids it in more than {pct(floor)}: at most "
        f"{100 * max(floor - safe, 0):.1f} points below. Luck that no play beats loses at "
        f"least {pct(lost / n)} of games; how much of the "
        f"{100 * max(c.rate - b.rate, 0):.1f} points is luck too, the bound cannot yet say."
    )
    if penalised:
        ends = ", ".join(f"{pct(m)} for {p.objective} ({pct(low)} at the low end of its "
                         f"interval, on {len(p.best.fresh):,} games)"
                         for p in penalised
                         for m, low, _ in [mean_interval(p.best.fresh)])
        text += (f" Charging foresight for its luck (the penalised clairvoyant) with the "
                 f"value estimate built so far would not bring these upper ends below about "
                 f"{ends}.")
    return text
