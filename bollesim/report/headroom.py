"""The headroom report's findings, each sentence made from the numbers it states
(`bollesim headroom` plays the games, bollesim/cli/headroom_make.py;
tests/test_headroom.py checks the sentences against numbers computed in the test).

- The ladder: every player's rate of every outcome on the same games, with its 95% Wilson
  interval, and the clairvoyant bound beside them (bollebank/clairvoyant.py).
- The bracket: the best achievable operational-victory rate lies between the best honest
  player's and the clairvoyant's, on the same games.
- The skill measure: the relative skill of each outcome (stats/skill.py, docs/skill.md).
- The trigger sweeps: per outcome, whether the first Fire order's trigger has an effect at
  all (the best setting significantly better than the worst, exact McNemar on the same
  games) before any advice is compared.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bollesim.report.chartdata import signed_ci
from bollesim.report.document import pct_ci
from bollesim.stats import skill
from bollesim.stats.intervals import wilson
from bollesim.stats.naming import pct
from bollesim.stats.vocabulary import LABELS, RESULT

OUTCOMES = RESULT.headline
"""The outcomes of the ladder: the wins, all of them, the loss."""
MAIN, LOSS = RESULT.main, RESULT.loss
"""The main mission's win (the bracket's outcome) and the loss."""


@dataclass(frozen=True)
class Rung:
    """One player of the ladder: per outcome (successes, games); `bound` marks the
    clairvoyant, whose counts are an upper bound (a lower one for defeat)."""

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


def widest_interval(games, by: str) -> float:
    """The widest half-width of the 95% Wilson intervals of the outcomes' rates over the
    settings of `by` in a sweep's games."""
    from bollesim.stats.analysis import rates

    table = rates(games.filter(games[by].is_not_null()), by=by, outcomes=OUTCOMES)
    return max(float(((table[f"{o}_high"] - table[f"{o}_low"]) / 2).max()) for o in OUTCOMES)


def ladder_table(rungs: list[Rung]) -> list[str]:
    """The ladder as a markdown table: a row per player, a column per outcome."""
    head = "| player | " + " | ".join(LABELS[o] for o in OUTCOMES) + " |"
    lines = [head, "|---|" + "---:|" * len(OUTCOMES)]
    for r in rungs:
        cells = []
        for o in OUTCOMES:
            if o not in r.counts:
                cells.append("–")
                continue
            rate = r.rate(o)
            mark = ("≥ " if o in RESULT.minimise else "≤ ") if r.bound else ""
            cells.append(mark + pct_ci(rate.rate, rate.low, rate.high))
        lines.append(f"| {r.label} | " + " | ".join(cells) + " |")
    return lines


def best_honest(rungs: list[Rung], outcome: str) -> Rung:
    """The honest player with the best rate of an outcome (the lowest, for one to avoid)."""
    honest = [r for r in rungs if not r.bound and outcome in r.counts]
    sign = -1 if outcome in RESULT.minimise else 1
    return max(honest, key=lambda r: sign * r.rate(outcome).rate)


def bracket_sentence(best: Rung, clairvoyant: Rung, undecided: int, lost: int) -> str:
    """The bracket of the best achievable rate of the main win, on the same games, and
    what its ends mean: how many games luck decides whatever the play, between the games
    proven lost and those where no winning line was found."""
    b, c = best.rate(MAIN), clairvoyant.rate(MAIN)
    k, n = clairvoyant.counts[MAIN]
    won = k - undecided
    gap = skill.luck_share(b.rate, c.rate)
    return (
        f"On these {n:,} games the best achievable {LABELS[MAIN]} rate lies between "
        f"{pct_ci(b.rate, b.low, b.high)} ({best.label}, the best honest player) and "
        f"{pct_ci(c.rate, c.low, c.high)} (the clairvoyant: {won:,} games won by a "
        f"line found, {undecided:,} undecided within its budget and counted as won, "
        f"{lost:,} proven lost). Luck that no play beats, even one that sees the future, "
        f"decides at least the {lost:,} games proven lost ({pct(lost / n)}) and at most "
        f"the {n - won:,} with no winning line found ({pct((n - won) / n)}); the "
        f"{100 * gap:.1f} points between the two ends are games that better honest play or "
        f"only foreknowledge of the chits and dice could win: the bracket does not say "
        f"which."
    )


def skill_rows(rungs: list[Rung], beginner: str, clairvoyant: Rung) -> list[dict]:
    """Per outcome the clairvoyant bounds: the beginner's, the best honest player's and the
    clairvoyant's rates (as rates to maximise) and the relative skill with its
    conservative interval."""
    start = next(r for r in rungs if r.label == beginner)
    rows = []
    for o in OUTCOMES:
        if o not in clairvoyant.counts:
            continue
        best = best_honest(rungs, o)
        r0, rb, rc = (skill.as_good(o, r.rate(o)) for r in (start, best, clairvoyant))
        low, high = skill.relative_skill_interval(r0, rb, rc)
        rows.append({"outcome": o, "best": best.label, "beginner": r0.rate, "best_rate": rb.rate,
                     "clairvoyant": rc.rate,
                     "skill": skill.relative_skill(r0.rate, rb.rate, rc.rate),
                     "low": low, "high": high})
    return rows


def skill_table(rows: list[dict], beginner: str) -> list[str]:
    lines = [f"| outcome (as a rate to reach) | {beginner} | best honest player | clairvoyant "
             "| relative skill (interval) |", "|---|---:|---|---:|---:|"]
    for r in rows:
        name = LABELS[r["outcome"]] if r["outcome"] not in RESULT.minimise else f"no {LABELS[r['outcome']]}"
        lines.append(f"| {name} | {pct(r['beginner'])} | {r['best']}, {pct(r['best_rate'])} "
                     f"| {pct(r['clairvoyant'])} | {_share(r['skill'])} "
                     f"({_share(r['low'])} to {_share(r['high'])}) |")
    return lines


def _share(x: float) -> str:
    return "–" if x != x else f"{x:.2f}"


def skill_sentence(rows: list[dict]) -> str:
    """The main win's relative skill in words."""
    r = next(r for r in rows if r["outcome"] == MAIN)
    return (
        f"For the {LABELS[MAIN]} the best honest player closes "
        f"{_share(r['skill'])} of the distance from the random player "
        f"({pct(r['beginner'])}) to the clairvoyant ({pct(r['clairvoyant'])}): a relative "
        f"skill of at least {_share(r['skill'])} (interval {_share(r['low'])} to "
        f"{_share(r['high'])}); the rest of that distance is luck to a player who plays "
        f"as well as {r['best']}."
    )


def effect(row: dict) -> bool:
    """Whether a trigger has an effect on an outcome: its best setting is significantly
    better than its worst on the same games (a best_trigger row)."""
    return bool(row["significant_vs_worst"])


def advice_word(before: dict, after: dict) -> str:
    """'no effect' where the trigger changes nothing for either player (flat lines), 'no
    effect for X' for one of them, else 'holds' (the same best setting, or the preset's
    best tied with the other's best) or 'changes'."""
    if not effect(before) and not effect(after):
        return "no effect"
    if not effect(before):
        return "no effect for the preset"
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


def headline(rungs: list[Rung], baseline: str, compare) -> str:
    """The headline: the highest rate of the main win against the best simple preset, and
    the lowest loss rate among the players whose main-win rate is not below that preset's
    (no headline for a player that wins nothing).
    compare(a, b, outcome) -> (a's rate - b's, its 95% interval, significant, games) on
    the games both played."""
    base = next(r for r in rungs if r.label == baseline)
    most = best_honest(rungs, MAIN)
    b, m = base.rate(MAIN), most.rate(MAIN)
    if most.label == baseline:
        first = (f"The highest {LABELS[MAIN]} rate: {baseline}, "
                 f"{pct_ci(b.rate, b.low, b.high)}, the best simple preset.")
    else:
        d = compare(most.label, baseline, MAIN)
        first = (f"The highest {LABELS[MAIN]} rate: {most.label}, "
                 f"{pct_ci(m.rate, m.low, m.high)}, against the best simple preset "
                 f"{baseline}: {signed_ci(*d[:3])} points on the same {d[4]:,} games, "
                 f"{_separated(d)}.")
    eligible = [r for r in rungs if not r.bound and LOSS in r.counts
                and (r.label == baseline or not _worse(compare(r.label, baseline, MAIN)))]
    safest = min(eligible, key=lambda r: r.rate(LOSS).rate)
    s, bd = safest.rate(LOSS), base.rate(LOSS)
    if safest.label == baseline:
        second = (f"No player with at least its {LABELS[MAIN]} rate has a lower {LABELS[LOSS]} "
                  f"rate than the preset ({pct_ci(bd.rate, bd.low, bd.high)}).")
    else:
        d = compare(safest.label, baseline, LOSS)
        second = (f"Of the players with at least the preset's {LABELS[MAIN]} rate, the "
                  f"lowest {LABELS[LOSS]} rate: {safest.label}, {pct_ci(s.rate, s.low, s.high)}: "
                  f"{signed_ci(*d[:3])} points against the preset on the same {d[4]:,} "
                  f"games, {_separated(d)}.")
    return f"{first} {second}"


def _separated(diff) -> str:
    return "separated" if diff[3] else "not separated at these counts"


def _worse(diff) -> bool:
    """Significantly below on the same games."""
    return diff[3] and diff[0] < 0


@dataclass(frozen=True)
class Penalised:
    """The penalised clairvoyant measured on the first games of one outcome, as a rate to
    reach (no defeat for defeat): per game, the penalised value of the line it found (a
    lower bound on that game's penalised bound) and of the same line on fresh inner
    samples; the plain clairvoyant's successes on the same games; V's base policy and
    its inner samples per option."""

    outcome: str
    found: np.ndarray
    fresh: np.ndarray
    plain: int
    base: str
    rollouts: int


def mean_interval(x: np.ndarray) -> tuple[float, float, float]:
    """The mean and its 95% normal interval."""
    m = float(np.mean(x))
    half = 1.96 * float(np.std(x, ddof=1)) / len(x) ** 0.5 if len(x) > 1 else float("inf")
    return m, m - half, m + half


def _points(m: float, low: float, high: float) -> str:
    return f"{100 * m:.1f} ({100 * low:.1f} to {100 * high:.1f})"


def penalised_sentence(p: Penalised) -> str:
    """What the penalised clairvoyant says beside the plain one on the same games."""
    n = len(p.found)
    found, bias = mean_interval(p.found), mean_interval(p.found - p.fresh)
    plain = p.plain / n
    looser = found[1] > plain
    why = ("so with this V and these samples it is looser than the plain one" if looser else
           "and a line found gives only a lower estimate of the penalised bound (its exact "
           "max needs the whole tree searched), so it cannot replace the plain one")
    return (
        f"For {p.outcome}, on the first {n:,} games, the penalised clairvoyant (V: the "
        f"rollouts of {p.base}, {p.rollouts} inner samples per option) is at least "
        f"{_points(*found)}% per game, {'above' if looser else 'against'} the plain "
        f"clairvoyant's {pct(plain)} on the same games. The noise of its inner samples, "
        f"which its max over lines picks up, adds {_points(*bias)} points (the same lines "
        f"on fresh samples), {why}: the best bound of the optimum is the plain "
        f"clairvoyant's."
    )


def designer_sentence(best: Rung, clairvoyant: Rung, lost: int) -> str:
    """The bracket in a designer's words: how far today's best player is at most from the
    best possible play, and the share of games luck decides whatever the play."""
    b, c = best.rate(MAIN), clairvoyant.rate(MAIN)
    n = clairvoyant.counts[MAIN][1]
    return (
        f"In words: today's best player ({best.label}) reaches {LABELS[MAIN]} in "
        f"{pct(b.rate)} of games; no play, even one that knew the chits and dice in advance, "
        f"wins more than {pct(c.rate)}. So today's best is at most "
        f"{100 * max(c.rate - b.rate, 0):.1f} points below the best possible play. Luck "
        f"that no play beats loses at least {pct(lost / n)} of games; how much of the "
        f"{100 * max(c.rate - b.rate, 0):.1f} points is luck too, the bound cannot yet say."
    )
