"""The odds of one setting of the page, refined while the user waits.

An `Evaluation` plays the edited ruleset under the chosen policy and compares it, game by
game on the same seeds, with the shipped default ruleset under the same policy
(analysis.paired_comparison) and, when the page has pinned a setting A (a ruleset, policy
and parameters), with A's games on the same seeds. The game's strong player (its
declaration's `strong`), when the page plays another policy, plays the same games under
both rulesets too, so the page can say whose odds the change moved more. It also sweeps the first-Fire trigger
of a family (every setting on the same seeds, as `bollesim sweep
experiments/first_fire.toml` does) for the chart, under the edited and the shipped rules.
Its `steps()` is a generator: each step plays one piece of at most PIECE games and yields
a snapshot (a JSON-ready dict) when there is something new to show, else None. The engine
thread (worker.py) runs one step at a time, so a new change cancels the old one between
pieces.

The first snapshot comes after FIRST_GAMES games; then the games grow (MAIN_STEPS for the
comparison, CELL_STEPS per trigger setting) up to the server's cap, and every snapshot
says how many games it holds.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import polars as pl

from bollesim.game.declaration import Game, Ruleset, Trigger
from bollesim.game.policy import Policy
from bollesim.game.registry import load_game
from bollesim.game.result import Result
from bollesim.stats import analysis, paired_tests


def loss_columns(result: Result) -> tuple[str, ...]:
    """The columns also kept for the games of the page's own setting, beside the outcome
    flags (the result columns kept per game): how each defeat came and when each game
    ended (the panel on why games are lost); a text column is kept as an enum of its texts."""
    return tuple(c for c in dict.fromkeys((*result.loss_factors, result.end_turn))
                 if c not in result.flags)


PIECE = 10_000
"""Games played between two chances to cancel (about 0.3 s on two cores)."""
FIRST_GAMES = 2_000
"""Games of the first answer: a second's budget on a loaded two-core machine."""
MAIN_STEPS = (FIRST_GAMES, 10_000, 40_000, 100_000, 250_000, 500_000, 1_000_000)
"""Games of the comparison after each refinement, up to the cap."""
CELL_STEPS = (500, 2_000, 5_000, 20_000, 50_000)
"""Games per trigger setting after each refinement, up to the cap's CELL_SHARE."""
CELL_SHARE = 20


def steps_to(cap: int, steps: tuple[int, ...]) -> list[int]:
    """The refinement targets below the cap, then the cap."""
    return [s for s in steps if s < cap] + [cap]


def play(policy: Policy, params: np.ndarray, rules: Ruleset, seed: int, first: int,
         n: int, keep: tuple[str, ...] | None = None) -> pl.DataFrame:
    """Games first..first+n-1 of the policy's game: their index and the `keep` columns
    (default: its outcome flags; a text column as an enum of its declared texts, a byte a
    game)."""
    from bollesim import simulate

    result = load_game(policy.game).result
    df = simulate(policy, n, seed=seed, params=dict(zip(
        [p.name for p in policy.parameters], params.tolist(), strict=True)), rules=rules,
        first_game=first)
    return df.select("game", *[
        pl.col(c).cast(pl.Enum(result.column(c).texts)) if result.column(c).texts else pl.col(c)
        for c in (result.flags if keep is None else keep)])


@dataclass(frozen=True)
class Setting:
    """What the page compares with: a ruleset, a policy and its parameter vector."""

    rules: Ruleset
    policy: Policy
    params: np.ndarray


class Baselines:
    """The games of the settings a change is compared with (the shipped ruleset under the
    page's policy, the pinned setting A, the trigger's settings under the shipped rules),
    kept for the next change: each is played once. At most `keep` are held."""

    def __init__(self, rules: Ruleset, keep: int = 64):
        self.rules, self.keep = rules, keep
        self._games: OrderedDict[tuple, pl.DataFrame] = OrderedDict()

    def _key(self, policy: Policy, params: np.ndarray, seed: int, rules: Ruleset | None):
        return ((rules or self.rules).digest, policy.name, tuple(params.tolist()), seed)

    def extend(self, policy: Policy, params: np.ndarray, seed: int, n: int,
               rules: Ruleset | None = None) -> Iterator[None]:
        """Play up to n games of `rules` (None: the shipped ruleset), one piece a step."""
        key = self._key(policy, params, seed, rules)
        have = self._games.pop(key, None)
        have = have if have is not None else pl.DataFrame()
        self._games[key] = have
        while self._games and len(self._games) > self.keep:
            self._games.popitem(last=False)
        while have.height < n:
            piece = play(policy, params, rules or self.rules, seed, have.height,
                         min(PIECE, n - have.height))
            have = pl.concat([have, piece]) if have.height else piece
            self._games[key] = have
            yield None

    def games(self, policy: Policy, params: np.ndarray, seed: int, n: int,
              rules: Ruleset | None = None) -> pl.DataFrame:
        return self._games[self._key(policy, params, seed, rules)].head(n)


@dataclass
class Evaluation:
    """One change of the page being played, on the game the page serves."""

    game: Game
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
    pinned: Setting | None = None
    strong: Setting | None = None  # the strong player under the edited rules, if not the page's

    def steps(self) -> Iterator[dict | None]:
        """Play piece by piece; yield a snapshot whenever the page has more to show."""
        self.t0 = time.perf_counter()
        self.first_ms = None
        self.main = pl.DataFrame()
        self.strong_main = pl.DataFrame()
        self._losses: dict | None = None
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
                         min(PIECE, n - self.main.height),
                         (*self.game.result.flags, *loss_columns(self.game.result)))
            self.main = pl.concat([self.main, piece]) if self.main.height else piece
            yield None
        yield from self.baselines.extend(self.policy, self.params, self.seed, n)
        if self.strong is not None:
            while self.strong_main.height < n:
                piece = play(self.strong.policy, self.strong.params, self.rules, self.seed,
                             self.strong_main.height, min(PIECE, n - self.strong_main.height))
                self.strong_main = (pl.concat([self.strong_main, piece])
                                    if self.strong_main.height else piece)
                yield None
            yield from self.baselines.extend(self.strong.policy, self.strong.params, self.seed, n)
        if self.pinned is not None:
            a = self.pinned
            yield from self.baselines.extend(a.policy, a.params, self.seed, n, a.rules)

    def _cells_to(self, n: int) -> Iterator[None]:
        for value, params in self._family_settings():
            have = self.cells.get(value, pl.DataFrame())
            while have.height < n:
                piece = play(self.family_policy, params, self.rules, self.seed, have.height,
                             min(PIECE, n - have.height))
                have = pl.concat([have, piece]) if have.height else piece
                yield None
            self.cells[value] = have
            if self.rules.digest != self.baselines.rules.digest:  # the shipped rules' line
                yield from self.baselines.extend(self.family_policy, params, self.seed, n)

    def _family_settings(self) -> list[tuple[float, np.ndarray]]:
        """(value, parameter vector) of each setting of the trigger family."""
        which = [p.name for p in self.family_policy.parameters].index(self.family.param)
        out = []
        for value in self.family.settings(self.family_policy, self.rules):
            params = self.family_params.copy()
            params[which] = value
            out.append((value, params))
        return out

    def snapshot(self, done: bool) -> dict:
        elapsed = round(1000 * (time.perf_counter() - self.t0))
        if self.first_ms is None:
            self.first_ms = elapsed
        out = {"job": self.job, "digest": self.rules.digest, "policy": self.policy.name,
               "done": done, "games": self.main.height, "seed": self.seed,
               "elapsed_ms": elapsed, "first_ms": self.first_ms,
               "outcomes": self.outcomes(), "losses": self.losses(), "trigger": self.trigger()}
        return out

    def outcomes(self) -> list[dict]:
        """Each outcome's rate with its 95% interval on the edited ruleset, the default
        ruleset's on the same games, and their paired difference."""
        n = self.main.height
        if n == 0:
            return []
        base = self.baselines.games(self.policy, self.params, self.seed, n)
        games = self.main.select("game", *self.game.result.flags)
        rows = [{
            "outcome": r["outcome"], "label": self.game.result.labels[r["outcome"]], "n": r["n"],
            "k": round(r["rate_a"] * r["n"]), "rate": r["rate_a"], "low": r["a_low"],
            "high": r["a_high"], "base_k": round(r["rate_b"] * r["n"]),
            "base_rate": r["rate_b"], "base_low": r["b_low"], "base_high": r["b_high"],
            "diff": r["diff"], "diff_low": r["diff_low"], "diff_high": r["diff_high"],
            "p": r["p_value"], "significant": bool(r["significant"])}
            for r in _paired(self.game, games, base).iter_rows(named=True)]
        if self.pinned is not None:
            a = self.pinned
            pinned = self.baselines.games(a.policy, a.params, self.seed, n, a.rules)
            for row, r in zip(rows, _paired(self.game, games, pinned).iter_rows(named=True),
                              strict=True):
                row["pinned"] = {
                    "k": round(r["rate_b"] * r["n"]), "rate": r["rate_b"], "diff": r["diff"],
                    "diff_low": r["diff_low"], "diff_high": r["diff_high"],
                    "p": r["p_value"], "significant": bool(r["significant"])}
        if self.strong is not None:
            self._add_strong(rows, games, base, n)
        return rows

    def _add_strong(self, rows: list[dict], games: pl.DataFrame, base: pl.DataFrame,
                    n: int) -> None:
        """Each row's strong-player rates under both rulesets, its paired change, and
        whose change is the larger (analysis.larger_change, on the same games)."""
        s = self.strong
        result = self.game.result
        strong = self.strong_main.head(n).select("game", *result.flags)
        strong_base = self.baselines.games(s.policy, s.params, self.seed, n)

        def both(new, old):
            return result.with_outcomes(new).join(result.with_outcomes(old), on="game",
                                                  suffix="_shipped")

        page, other = both(games, base), both(strong, strong_base)
        for row, r in zip(rows, _paired(self.game, strong, strong_base).iter_rows(named=True),
                          strict=True):
            o = row["outcome"]
            larger = paired_tests.larger_change(*(
                frame[c].to_numpy() for frame in (page, other) for c in (o, f"{o}_shipped")))
            row["strong"] = {
                "policy": s.policy.name, "k": round(r["rate_a"] * r["n"]), "rate": r["rate_a"],
                "base_rate": r["rate_b"], "diff": r["diff"], "diff_low": r["diff_low"],
                "diff_high": r["diff_high"], "p": r["p_value"],
                "significant": bool(r["significant"]), "larger": larger}

    def losses(self) -> dict | None:
        """Why this setting's games are lost: its defeats counted by each loss column but the
        end turn (analysis.defeat_breakdown; "no loss" a defeat no loss ended, §8), and the
        charts of the defeats by turn and weapon and of the end turns of each outcome; drawn
        again only when the games grew (a chart's spec takes a quarter of a second)."""
        n = self.main.height
        if n == 0:
            return None
        if self._losses is not None and self._losses["games"] == n:
            return self._losses
        from bollesim.report import chartdata

        game, result = self.game, self.game.result
        games = self.main.with_columns(pl.col(pl.Enum).cast(pl.Utf8))
        tables = []
        for factor in result.loss_factors:
            if factor == result.end_turn:
                continue
            table = analysis.defeat_breakdown(game, games, factor)
            tables.append({"factor": factor, "title": result.title(factor), "rows": [
                {"value": result.no_loss if r[factor] is None else str(r[factor]),
                 "k": r["k"], "share": r["share"], "rate": r["rate"]}
                for r in table.iter_rows(named=True)]})
        charts = [chartdata.defeats_by_turn(game, games)] if result.loss_factors else []
        charts.append(chartdata.turns_by_outcome(game, games))
        self._losses = {"games": n, "defeats": int(games[result.loss].sum()),
                        "label": result.labels[result.loss], "tables": tables,
                        "charts": [_on_page(chart, 220) for chart in charts]}
        return self._losses

    def trigger(self) -> dict | None:
        """The trigger chart's Vega-Lite spec (chartdata.trigger, as for a sweep), with the
        shipped rules' rates as thin dotted lines (when the rules are edited) and the page's
        own setting of the trigger (when it plays the family's policy) as a vertical rule."""
        if not self.cells:
            return None
        from bollesim.report import answer, chartdata, charts

        frame = self._family_frame(self.cells)
        chart = chartdata.trigger(self.game, frame, self.family.param, policy=self.family.policy)
        drawn = _on_page(chart, 250)
        spec = drawn["spec"]
        n = min(g.height for g in self.cells.values())
        shipped = self._shipped_cells(n)
        if shipped is not None:
            lines = charts.spec(chartdata.trigger(self.game, self._family_frame(shipped),
                                                  self.family.param, policy=self.family.policy))
            spec["layer"].append({
                "data": {"values": lines["datasets"][lines["data"]["name"]]},
                "transform": [{"filter": "!datum.never"}],
                "mark": {"type": "line", "strokeDash": [1, 3], "strokeWidth": 1.6,
                         "opacity": 0.75},
                "encoding": {"x": {"field": "pos", "type": "quantitative"},
                             "y": {"field": "rate_pct", "type": "quantitative"},
                             "color": {"field": "label", "type": "nominal"}}})
        current = self._current_setting()
        rows = spec["datasets"][spec["data"]["name"]]
        at = next((r["pos"] for r in rows if current is not None and r["x"] == current), None)
        if at is not None:
            spec["layer"].append({
                "data": {"values": [{"pos": at, "text": "your setting"}]},
                "layer": [{"mark": {"type": "rule", "color": "#444444", "strokeDash": [5, 3]},
                           "encoding": {"x": {"field": "pos", "type": "quantitative"}}},
                          {"mark": {"type": "text", "align": "left", "dx": 4, "dy": 6,
                                    "baseline": "top", "color": "#444444", "fontSize": 11},
                           "encoding": {"x": {"field": "pos", "type": "quantitative"},
                                        "y": {"value": 0}, "text": {"field": "text"}}}]})
        return {"policy": self.family.policy, "param": self.family.param,
                "title": drawn["title"], "subtitle": drawn["subtitle"],
                "games_per_setting": n, "settings": len(self.cells), "finding": chart.finding,
                "spec": spec, "shipped_line": shipped is not None, "current": at,
                "answer": answer.sentences(self.game, frame, self.family.param,
                                           policy=self.family.policy)}

    def _family_frame(self, cells: dict[float, pl.DataFrame]) -> pl.DataFrame:
        return pl.concat([
            games.with_columns(pl.lit(self.family.policy).alias("policy"),
                               pl.lit(value).alias(self.family.param))
            for value, games in sorted(cells.items())])

    def _shipped_cells(self, n: int) -> dict[float, pl.DataFrame] | None:
        """The trigger's settings under the shipped rules (their first n games), or None
        when the rules are the shipped ones or a setting has fewer games so far."""
        if self.rules.digest == self.baselines.rules.digest:
            return None
        try:
            cells = {value: self.baselines.games(self.family_policy, params, self.seed, n)
                     for value, params in self._family_settings() if value in self.cells}
        except KeyError:
            return None
        return cells if all(g.height == n for g in cells.values()) else None

    def _current_setting(self) -> float | None:
        """The trigger's value the page plays, when its policy is the family's."""
        if self.policy is not self.family_policy:
            return None
        which = [p.name for p in self.policy.parameters].index(self.family.param)
        return float(self.params[which])


def _on_page(chart, height: int) -> dict:
    """A chartdata chart's Vega-Lite spec (charts.spec) as the page draws it (charts.on_page:
    the column's width, its legend below, its title and subtitle as text), `height` high."""
    from bollesim.report import charts

    spec, title, subtitle = charts.on_page(charts.spec(chart))
    spec["height"] = height
    return {"spec": spec, "title": title, "subtitle": subtitle, "finding": chart.finding}


def _paired(game: Game, games: pl.DataFrame, other: pl.DataFrame) -> pl.DataFrame:
    """analysis.paired_comparison of the game's `games` (side a) with `other` (side b),
    game by game."""
    both = pl.concat([games.with_columns(pl.lit(1).alias("cell")),
                      other.with_columns(pl.lit(0).alias("cell"))])
    return paired_tests.paired_comparison(game, both, {"cell": 1}, {"cell": 0})


def example_game(rules: Ruleset, policy: Policy, params: np.ndarray, seed: int, outcome: str,
                 search: int) -> int | None:
    """The first game of the page's seeds whose result is `outcome`, among `search` games."""
    result = load_game(policy.game).result
    done = 0
    while done < search:
        games = result.with_outcomes(play(policy, params, rules, seed, done,
                                          min(PIECE, search - done)))
        hits = games.filter(pl.col(outcome))["game"]
        if hits.len():
            return int(hits[0])
        done += games.height
    return None
