"""The answer of a trigger sweep in words: which setting to play for each outcome, what it
costs in the others, which settings tie with the best, and which play the same games.

Every sentence is made from the rows (analysis.best_trigger's table and the games), so it
says what the numbers say and nothing more: a setting "ties" with the best when the exact
McNemar test on the same games finds no significant difference; settings "play the same
games" when every game's result row is the same under each of them.

    from bollesim.report import answer
    answer.sentences(game, df, "k", policy="fire_at_roe")
    # ["Fire first once the RoE is 8 or more: the fewest defeats (23.9%) and the most
    #   operational (28.3%), tactical (11.3%) and political victories (27.6%).",
    #  "Unless you play for strategic victory: then fire first once the RoE is 18 or more
    #   (19.2% against 3.5% at 8).", ...]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from bollesim.game.declaration import Game
from bollesim.stats import analysis, naming, paired_tests
from bollesim.stats.naming import pct


def game_columns(game: Game) -> tuple[str, ...]:
    """The columns that make two of the game's games the same game: outcomes, how and when
    it ended, and when the player first acted (the trigger column)."""
    result = game.result
    return tuple(c for c in (*result.flags, result.end_turn, result.end_reason, result.trigger) if c)


@dataclass(frozen=True)
class Setting:
    """A value of the swept parameter of a game's policy, as its declaration says it in words."""

    game: Game
    value: float | None  # None: never
    policy: str
    param: str

    @property
    def label(self) -> str:
        return naming.fmt_value(self.value)

    @property
    def words(self) -> str:
        """What the setting means in the game ("fire first from turn 4 on"), from the
        parameter's declared `setting`; else "<label> = value"."""
        p = naming.declared_parameter(self.game, self.policy, self.param)
        if self.value is None:
            return f"never ({self.param} = never)"
        if p is not None and p.setting:
            text = p.setting.format(self.label)
        else:
            text = f"{naming.parameter_label(self.game, self.policy, self.param)} = {self.label}"
        lowest = getattr(p, "lowest", "") if p is not None else ""
        return f"{text}, {lowest}" if lowest and self.value == p.low else text


def same_game_groups(game: Game, df: pl.DataFrame, param: str, policy: str) -> list[list[str]]:
    """Runs of neighbouring settings (in the order of their values, never last) under which
    every game ends exactly alike (game_columns() equal game by game), as lists of labels;
    only runs of two or more."""
    never = naming.never_value(game, policy, param)
    games = df.filter(pl.col("policy") == policy).with_columns(
        naming.setting(param, never).alias("_setting"))
    columns = [c for c in game_columns(game) if c in games.columns]
    keyed = (games.sort("game")
             .group_by("_setting", maintain_order=True)
             .agg(pl.struct(columns).hash().alias("_rows"))
             .sort("_setting", nulls_last=True))
    groups: list[list[str]] = []
    previous = None
    for value, rows in keyed.iter_rows():
        label = naming.fmt_value(value)
        if previous is not None and rows == previous:
            groups[-1].append(label)
        else:
            groups.append([label])
        previous = rows
    return [g for g in groups if len(g) > 1]


def _and(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _aim(game: Game, outcome: str) -> str:
    """What a player plays for: "operational victory", "avoiding defeat"."""
    label = game.result.labels[outcome]
    return f"avoiding {label}" if outcome in game.result.minimise else label


def _rate(game: Game, outcome: str, rate: float) -> str:
    """"28.3%" for what a player wants, "defeat in 23.9%" for what he avoids."""
    result = game.result
    return f"{result.labels[outcome]} in {pct(rate)}" if outcome in result.minimise else pct(rate)


def _span(labels: list[str], param: str, order: Sequence[str] | None = None) -> str:
    """Settings in words: "t = 1 to 3", "k = 19 to 24 and never", "t = 4"; runs of three or
    more neighbours (in `order`, default `labels` itself) are given by their ends."""
    order = list(order or labels)
    runs: list[list[str]] = []
    for label in sorted(labels, key=order.index):
        if runs and order.index(label) == order.index(runs[-1][-1]) + 1:
            runs[-1].append(label)
        else:
            runs.append([label])
    parts: list[str] = []
    for r in runs:
        if len(r) > 2 and r[-1] == naming.fmt_value(None):
            parts += [f"{r[0]} to {r[-2]}", r[-1]] if len(r) > 3 else r
        else:
            parts += [f"{r[0]} to {r[-1]}"] if len(r) > 2 else r
    return f"{param} = {_and(parts)}"


def sentences(game: Game, df: pl.DataFrame, param: str, *, policy: str,
              outcomes: Sequence[str] | None = None,
              best: pl.DataFrame | None = None) -> list[str]:
    """The answer of one swept parameter of one policy, in a few sentences (see the module
    docstring). The main setting is the best for defeat when defeat is an outcome, else
    for the first outcome; each other outcome whose best is elsewhere, and not tied with
    the main setting, is a trade-off. `best`: analysis.best_trigger of the same games when
    the caller has it (its rows of `outcomes`, default the result's flags, are used)."""
    result = game.result
    outcomes = result.flags if outcomes is None else outcomes
    if best is None:
        best = paired_tests.best_trigger(game, df, param, policy=policy, outcomes=outcomes)
    best = {r["outcome"]: r for r in best.iter_rows(named=True) if r["outcome"] in outcomes}
    never = naming.never_value(game, policy, param)
    games = df.filter(pl.col("policy") == policy).with_columns(
        naming.setting(param, never).alias("_setting"))
    table = analysis.rates(game, games, by="_setting", outcomes=outcomes)
    rate = {(naming.fmt_value(v), o): table[f"{o}_rate"][i]
            for i, v in enumerate(table["_setting"].to_list()) for o in outcomes}
    same = same_game_groups(game, df, param, policy)
    merged = {label for g in same for label in g[1:]}

    main_outcome = result.loss if result.loss in best else outcomes[0]
    main = best[main_outcome]["best_label"]

    def tied_with_main(o: str) -> bool:
        return best[o]["best_label"] == main or main in (best[o]["tied"] or [])

    def words(o: str) -> str:
        text = Setting(game, best[o]["best"], policy, param).words
        group = next((g for g in same if best[o]["best_label"] in g), None)
        return text + (f" ({_span(group, param)}: the same games)" if group else "")

    served = sorted((o for o in outcomes if tied_with_main(o)), key=lambda o: o != main_outcome)
    head = words(main_outcome)
    out = [f"{head[:1].upper()}{head[1:]}: the best for "
           f"{_and([f'{_aim(game, o)} ({_rate(game, o, rate[(main, o)])})' for o in served])}."]
    loss = result.loss if result.loss in outcomes else None
    for o in outcomes:
        if not tied_with_main(o):
            there = best[o]["best_label"]
            cost = (f"; {game.result.labels[loss]} there {pct(rate[(there, loss)])} against "
                    f"{pct(rate[(main, loss)])}" if loss and o != loss else "")
            out.append(f"Unless you play for {_aim(game, o)}: then {words(o)} "
                       f"({pct(best[o]['best_rate'])} against {pct(rate[(main, o)])} at {main}"
                       f"{cost}){_acted(game, games, best[o]['best'])}.")
    order = [naming.fmt_value(v) for v in table["_setting"].to_list()]
    ties: dict[tuple, list[str]] = {}  # (best, the settings tied with it): outcomes
    for o in outcomes:
        tied = tuple(t for t in (best[o]["tied"] or []) if t not in merged)
        if tied:
            ties.setdefault((best[o]["best_label"], tied), []).append(o)
    for (label, tied), aims in ties.items():
        verb = "ties" if len(tied) == 1 else "tie"
        out.append(f"For {_and([_aim(game, o) for o in aims])}, {_span(list(tied), param, order)} "
                   f"{verb} with the best, {label} (no significant difference on the same games).")
    for g in same:
        out.append(f"{_span(g, param)} play the same games: no game ends otherwise under any "
                   "of them.")
    held = _held_fixed(game, games, param, policy)
    if held:
        out.append(f"All of this for a player with {_and(held)}, {policy}'s other parameters at "
                   "their defaults.")
    return out


def _acted(game: Game, games: pl.DataFrame, value: float | None) -> str:
    """": the player gave a Fire order in 3.1% of its games" when fewer than half of the
    setting's games acted at all (the trigger column is null in the others): a setting so
    late that it is nearly, or quite, the same as never."""
    result = game.result
    if not result.trigger or result.trigger not in games.columns or value is None:
        return ""
    rows = games.filter(pl.col("_setting") == value)
    share = rows[result.trigger].is_not_null().mean() if rows.height else 1.0
    if share >= 0.5:
        return ""
    same = ": the same as never" if share == 0 else ": nearly the same as never" if share < 0.1 else ""
    return f", though the player {result.acted} in only {pct(share)} of its games{same}"


def _held_fixed(game: Game, games: pl.DataFrame, param: str, policy: str) -> list[str]:
    """The policy's other parameters that all these games hold at one value other than
    its default, in words: "stop_at_tanks = 0 (stop drawing pairs ...; the default is 3)"."""
    out = []
    for name in naming.param_columns(game, games):
        p = naming.declared_parameter(game, policy, name)
        if name in (param, "_setting") or p is None:
            continue
        values = games[name].unique().to_list()
        if len(values) == 1 and values[0] is not None and p.value(values[0]) != p.default:
            out.append(f"{name} = {p.text(values[0])} ({p.doc}; the default is {p.text(p.default)})")
    return out


def swept(game: Game, games: pl.DataFrame) -> list[tuple[str, pl.DataFrame, str, str]]:
    """(ruleset, its games, policy, parameter) for every parameter a policy sweeps; in a
    sweep that varies the ruleset, for each ruleset apart (the settings of one ruleset are
    compared on the same seeds; ruleset "" when the sweep has one)."""
    rulesets = (games["ruleset"].unique(maintain_order=True).to_list()
                if "ruleset" in games.columns else [""])
    out = []
    for ruleset in rulesets:
        rows = games.filter(pl.col("ruleset") == ruleset) if len(rulesets) > 1 else games
        out += [(ruleset if len(rulesets) > 1 else "", naming.own_cells(rows, policy, param, params),
                 policy, param)
                for policy, params in naming.swept_parameters(game, rows).items() for param in params]
    return out


def answers(game: Game, games: pl.DataFrame) -> list[tuple[str, list[str]]]:
    """(heading, sentences) of every swept parameter of a run or sweep of the game: the
    words `bollesim sweep` prints and the report opens with."""
    out = []
    for ruleset, rows, policy, param in swept(game, games):
        label = naming.parameter_label(game, policy, param)
        under = f" under {ruleset}" if ruleset else ""
        out.append((f"{label[:1].upper()}{label[1:]} ({policy} {param}{under})",
                    sentences(game, rows, param, policy=policy)))
    return out
