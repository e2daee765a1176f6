"""The odds of one setting of the page, refined while the user waits.

An `Evaluation` plays the edited ruleset under the chosen policy and compares it, game by
game on the same seeds, with the shipped default ruleset under the same policy
(analysis.paired_comparison); it also sweeps the first-Fire trigger of a family (every
setting on the same seeds, as `bollesim sweep experiments/first_fire.toml` does) for the
chart. Its `steps()` is a generator: each step plays one piece of at most PIECE games and
yields a snapshot (a JSON-ready dict) when there is something new to show, else None. The
engine thread (worker.py) runs one step at a time, so a new change cancels the old one
between pieces.

The first snapshot comes after FIRST_GAMES games; then the games grow (MAIN_STEPS for the
comparison, CELL_STEPS per trigger setting) up to the server's cap, and every snapshot
says how many games it holds.
"""

from __future__ import annotations

import textwrap
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import polars as pl

from bollesim.bollebank.rules.loader import Ruleset
from bollesim.game.declaration import Trigger, declared
from bollesim.game.policy import Policy
from bollesim.stats import analysis

GAME = declared()
OUTCOME_COLUMNS = GAME.result.flags
"""The result columns kept per game (the derived outcomes come from them)."""
PIECE = 10_000
"""Games played between two chances to cancel (about 0.3 s on two cores)."""
FIRST_GAMES = 2_000
"""Games of the first answer: a second's budget on a loaded two-core machine."""
MAIN_STEPS = (FIRST_GAMES, 10_000, 40_000, 100_000, 250_000, 500_000, 1_000_000)
"""Games of the comparison after each refinement, up to the cap."""
CELL_STEPS = (500, 2_000, 5_000, 20_000, 50_000)
"""Games per trigger setting after each refinement, up to the cap's CELL_SHARE."""
CELL_SHARE = 20
SUBTITLE_WRAP = 80
"""Characters per line of the trigger chart's finding and note (the page's panel is narrow)."""


FAMILIES = GAME.triggers
"""The headline question's trigger families (the game's declaration)."""


def steps_to(cap: int, steps: tuple[int, ...]) -> list[int]:
    """The refinement targets below the cap, then the cap."""
    return [s for s in steps if s < cap] + [cap]


def play(policy: Policy, params: np.ndarray, rules: Ruleset, seed: int, first: int,
         n: int) -> pl.DataFrame:
    """Games first..first+n-1: their index and outcome columns."""
    from bollesim import simulate

    df = simulate(policy, n, seed=seed, params=dict(zip(
        [p.name for p in policy.parameters], params.tolist(), strict=True)), rules=rules,
        first_game=first)
    return df.select("game", *OUTCOME_COLUMNS)


class Baselines:
    """The default ruleset's games of each (policy, parameters, seed), kept for the next
    change: the default side of a comparison is played once. At most `keep` are held."""

    def __init__(self, rules: Ruleset, keep: int = 4):
        self.rules, self.keep = rules, keep
        self._games: OrderedDict[tuple, pl.DataFrame] = OrderedDict()

    def extend(self, policy: Policy, params: np.ndarray, seed: int, n: int) -> Iterator[None]:
        """Play the default side up to n games, one piece a step."""
        key = (policy.name, tuple(params.tolist()), seed)
        have = self._games.pop(key, None)
        have = have if have is not None else pl.DataFrame()
        self._games[key] = have
        while self._games and len(self._games) > self.keep:
            self._games.popitem(last=False)
        while have.height < n:
            piece = play(policy, params, self.rules, seed, have.height,
                         min(PIECE, n - have.height))
            have = pl.concat([have, piece]) if have.height else piece
            self._games[key] = have
            yield None

    def games(self, policy: Policy, params: np.ndarray, seed: int, n: int) -> pl.DataFrame:
        return self._games[(policy.name, tuple(params.tolist()), seed)].head(n)


@dataclass
class Evaluation:
    job: int
    rules: Ruleset
    policy: Policy
    params: np.ndarray
    seed: int
    family: Trigger
    family_policy: Policy
    family_params: np.ndarray
    max_games: int
    baselines: Baselines

    def steps(self) -> Iterator[dict | None]:
        """Play piece by piece; yield a snapshot whenever the page has more to show."""
        self.t0 = time.perf_counter()
        self.first_ms = None
        self.main = pl.DataFrame()
        self.cells: dict[float, pl.DataFrame] = {}
        mains = steps_to(self.max_games, MAIN_STEPS)
        cells = steps_to(max(CELL_STEPS[0], self.max_games // CELL_SHARE), CELL_STEPS)
        for i in range(max(len(mains), len(cells))):
            if i < len(mains):
                yield from self._main_to(mains[i])
                yield self.snapshot(done=False)
            if i < len(cells):
                yield from self._cells_to(cells[i])
                yield self.snapshot(done=False)
        yield self.snapshot(done=True)

    def _main_to(self, n: int) -> Iterator[None]:
        while self.main.height < n:
            piece = play(self.policy, self.params, self.rules, self.seed, self.main.height,
                         min(PIECE, n - self.main.height))
            self.main = pl.concat([self.main, piece]) if self.main.height else piece
            yield None
        yield from self.baselines.extend(self.policy, self.params, self.seed, n)

    def _cells_to(self, n: int) -> Iterator[None]:
        names = [p.name for p in self.family_policy.parameters]
        which = names.index(self.family.param)
        for value in self.family.settings(self.family_policy, self.rules):
            params = self.family_params.copy()
            params[which] = value
            have = self.cells.get(value, pl.DataFrame())
            while have.height < n:
                piece = play(self.family_policy, params, self.rules, self.seed, have.height,
                             min(PIECE, n - have.height))
                have = pl.concat([have, piece]) if have.height else piece
                yield None
            self.cells[value] = have

    def snapshot(self, done: bool) -> dict:
        elapsed = round(1000 * (time.perf_counter() - self.t0))
        if self.first_ms is None:
            self.first_ms = elapsed
        out = {"job": self.job, "done": done, "games": self.main.height, "seed": self.seed,
               "elapsed_ms": elapsed, "first_ms": self.first_ms,
               "outcomes": self.outcomes(), "trigger": self.trigger()}
        return out

    def outcomes(self) -> list[dict]:
        """Each outcome's rate with its 95% interval on the edited ruleset, the default
        ruleset's on the same games, and their paired difference."""
        n = self.main.height
        if n == 0:
            return []
        base = self.baselines.games(self.policy, self.params, self.seed, n)
        both = pl.concat([self.main.with_columns(pl.lit(1).alias("cell")),
                          base.with_columns(pl.lit(0).alias("cell"))])
        table = analysis.paired_comparison(both, {"cell": 1}, {"cell": 0})
        rows = []
        for r in table.iter_rows(named=True):
            rows.append({
                "outcome": r["outcome"], "label": analysis.LABELS[r["outcome"]], "n": r["n"],
                "k": round(r["rate_a"] * r["n"]), "rate": r["rate_a"], "low": r["a_low"],
                "high": r["a_high"], "base_k": round(r["rate_b"] * r["n"]),
                "base_rate": r["rate_b"], "base_low": r["b_low"], "base_high": r["b_high"],
                "diff": r["diff"], "diff_low": r["diff_low"], "diff_high": r["diff_high"],
                "p": r["p_value"], "significant": bool(r["significant"])})
        return rows

    def trigger(self) -> dict | None:
        """The trigger chart's Vega-Lite spec (chartdata.trigger, as for a sweep)."""
        if not self.cells:
            return None
        from bollesim.report import answer, chartdata, charts

        frame = pl.concat([
            games.with_columns(pl.lit(self.family.policy).alias("policy"),
                               pl.lit(value).alias(self.family.param))
            for value, games in sorted(self.cells.items())])
        chart = chartdata.trigger(frame, self.family.param, policy=self.family.policy)
        spec = charts.spec(chart)
        spec.update(width="container", height=250, autosize={"type": "fit", "contains": "padding"})
        title = spec.get("title", {})
        title.update(fontSize=13, subtitle=textwrap.wrap(" ".join(title.get("subtitle", [])),
                                                         SUBTITLE_WRAP))
        return {"policy": self.family.policy, "param": self.family.param,
                "games_per_setting": min(g.height for g in self.cells.values()),
                "settings": len(self.cells), "finding": chart.finding, "spec": spec,
                "answer": answer.sentences(frame, self.family.param, policy=self.family.policy)}


def example_game(rules: Ruleset, policy: Policy, params: np.ndarray, seed: int, outcome: str,
                 search: int) -> int | None:
    """The first game of the page's seeds whose result is `outcome`, among `search` games."""
    done = 0
    while done < search:
        games = analysis.with_outcomes(play(policy, params, rules, seed, done, min(PIECE, search - done)))
        hits = games.filter(pl.col(outcome))["game"]
        if hits.len():
            return int(hits[0])
        done += games.height
    return None
