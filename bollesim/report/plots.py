"""Charts of a batch's results, each readable without a caption.

Every function takes the game and the per-game DataFrame of its games (see
bollesim.stats.analysis) and returns a matplotlib Figure. It draws into `ax` when given
one (a matplotlib Axes of your own figure), or into a new figure. Each chart has a title,
a line saying what it found (the controlled trigger chart), small print saying what was counted, axes named in words,
a legend of outcomes, and 95% Wilson intervals as whiskers. Figures are built without
pyplot (matplotlib.figure.Figure, rendered by Agg), so they work with no display, in
scripts, tests and notebooks alike; `fig.savefig(path)` writes them.

    from bollesim.report import plots
    game = bollesim.load_game("bollebank")
    plots.rates_by_trigger(game, df, "t")            # controlled: a swept trigger (a sweep)
    plots.rates_by(game, df, "first_fire_turn", policy="fire_at_turn")   # observational
    plots.policy_comparison(game, df, by="cell")     # grouped bars, one colour per cell

    fig, (a, b) = matplotlib.pyplot.subplots(1, 2, figsize=(14, 5), layout="constrained")
    plots.rates_by_trigger(game, df, "k", ax=a); plots.rates_by_trigger(game, df, "t", ax=b)

The numbers come from bollesim.report.chartdata (the same tidy frames the interactive charts
of report.html draw); `plots.draw(chart)` draws any chartdata.RateChart.
"""

from __future__ import annotations

import math
import os
import sys
import textwrap
from collections.abc import Sequence

import matplotlib

if (not os.environ.get("MPLBACKEND") and not os.environ.get("DISPLAY")
        and not os.environ.get("WAYLAND_DISPLAY") and "matplotlib.pyplot" not in sys.modules
        and "ipykernel" not in sys.modules):
    matplotlib.use("Agg")  # no display: never try an interactive backend

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib import patheffects  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import PercentFormatter  # noqa: E402

from bollesim.game.declaration import Game  # noqa: E402
from bollesim.game.result import Result  # noqa: E402
from bollesim.report import chartdata  # noqa: E402
from bollesim.report.chartdata import (  # noqa: E402
    PLAYER_COLOURS,
    SERIES_COLOURS,
    DiffChart,
    RateChart,
)
from bollesim.stats import naming  # noqa: E402


def markers(result: Result) -> dict[str, str]:
    """One marker shape per outcome of the game's result, so outcomes differ by shape as
    well as colour."""
    return {o.name: o.marker for o in result.outcomes}


def dashes(result: Result) -> dict:
    """The game's outcomes drawn with a dashed line, and their dash patterns."""
    return {o.name: o.dash for o in result.outcomes if o.dash}


SIZE = (10.0, 6.0)
"""Figure size (inches) of a chart drawn into a new figure; with a count panel, 7 high."""
TITLE_PT, FINDING_PT, NOTE_PT = 13.0, 10.0, 8.5


# -- shared pieces --------------------------------------------------------------------------


def _new_axes(ax, *, counts: bool = False, size=SIZE):
    """(figure, main axes, count axes or None): the caller's axes, or a new figure."""
    if ax is not None:
        return ax.get_figure(root=True), ax, None
    fig = Figure(figsize=(size[0], size[1] + (1.2 if counts else 0.0)), layout="constrained")
    if counts:
        top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [4, 1]})
        return fig, top, bottom
    return fig, fig.subplots(), None


def _wrap(text: str, ax, fontsize: float) -> str:
    """text wrapped to about the width of the axes, in characters."""
    fig = ax.get_figure(root=True)
    width_pt = ax.get_position().width * fig.get_figwidth() * 72.0
    chars = max(30, int(width_pt / (fontsize * 0.55)))
    return "\n".join(textwrap.fill(part, chars) for part in text.split("\n") if part)


def _header(ax, title: str, finding: str, note: str) -> None:
    """Title (bold), the finding and the small print above the axes, left-aligned, each
    wrapped to the axes' width; the title's pad leaves room for the lines below it."""
    lines = []
    if finding:
        lines.append((_wrap(finding, ax, FINDING_PT), FINDING_PT, "#111111"))
    if note:
        lines.append((_wrap(note, ax, NOTE_PT), NOTE_PT, "#555555"))
    offset = 4.0
    for text, size, colour in reversed(lines):
        ax.annotate(text, (0, 1), xycoords="axes fraction", xytext=(0, offset),
                    textcoords="offset points", ha="left", va="bottom", fontsize=size,
                    color=colour, linespacing=1.15)
        offset += (text.count("\n") + 1) * size * 1.2 + 3.0
    ax.set_title(_wrap(title, ax, TITLE_PT), loc="left", fontsize=TITLE_PT,
                 fontweight="bold", pad=offset + 2.0)


def _percent_axis(ax, top: float) -> None:
    """y from 0 to a round top (in percent), labelled with a % sign."""
    top = 100.0 if not math.isfinite(top) else min(100.0, max(10.0, math.ceil(top / 10.0) * 10.0))
    ax.set_ylim(0, top)
    ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    ax.grid(axis="y", alpha=0.3)
    ax.set_ylabel("share of games")


def _legend(ax, title: str) -> None:
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False,
              title=title, alignment="left")


# -- line charts ----------------------------------------------------------------------------


def _ticks(ax, finite: list[float], never_x: float | None) -> None:
    ticks = list(finite)
    if len(ticks) > 25:
        ticks = ticks[::math.ceil(len(ticks) / 20)]
    labels = [naming.fmt_value(float(t)) for t in ticks]
    if never_x is not None:
        ticks.append(never_x)
        labels.append(chartdata.NEVER_LABEL)
    ax.set_xticks(ticks, labels)


def _draw_lines(chart: RateChart, panel: str, ax, ax_n=None) -> None:
    frame, where = chartdata.x_positions(chart.frame.filter(pl.col("panel") == panel),
                                         chart.outcomes)
    top, marker_of, dash_of = 0.0, markers(chart.result), dashes(chart.result)
    for i, o in enumerate(chart.outcomes):
        rows = frame.filter(pl.col("outcome") == o)
        colour, marker = chartdata.line_colour(chart.result, o, i), marker_of.get(o, "o")
        fin = rows.filter(pl.col("x").is_not_null())
        ys, lo, hi = (fin[c].to_numpy() * 100 for c in ("rate", "low", "high"))
        ax.plot(fin["pos"].to_numpy(), ys, color=colour, marker=marker, markersize=5,
                linewidth=1.8, linestyle=dash_of.get(o, "-"), label=chart.result.labels.get(o, o),
                zorder=3)
        ax.vlines(fin["pos"].to_numpy(), lo, hi, color=colour, linewidth=1.2, zorder=2)
        never = rows.filter(pl.col("x").is_null())
        if never.height:
            x = float(never["dodged"][0])
            r, low, high = (float(never[c][0]) * 100 for c in ("rate", "low", "high"))
            ax.plot([x], [r], color=colour, marker=marker, markersize=7, linestyle="none",
                    zorder=3)
            ax.vlines([x], [low], [high], color=colour, linewidth=1.4, zorder=2)
        if rows.height:
            top = max(top, float(rows["high"].max()) * 100)
    _percent_axis(ax, top)
    if where.never_x is not None and where.finite:
        for a in (ax, ax_n):
            if a is not None:
                a.axvline((where.finite[-1] + where.never_x) / 2, color="#bbbbbb",
                          linestyle=":", linewidth=1)
    bottom = ax_n if ax_n is not None else ax
    if ax_n is not None:
        counts = frame.filter(pl.col("outcome") == chart.outcomes[0])
        ax_n.bar(counts["pos"].to_numpy(), counts["n"].to_numpy(), width=0.7 * where.step,
                 color="#999999")
        ax_n.set_ylabel("games")
        ax_n.grid(axis="y", alpha=0.3)
        ax_n.yaxis.set_major_formatter(matplotlib.ticker.StrMethodFormatter("{x:,.0f}"))
        ax.tick_params(labelbottom=False)
    _ticks(bottom, where.finite, where.never_x)
    bottom.set_xlabel(chart.x_title)


def _panel_title(chart: RateChart, panel: str) -> str:
    return f"{chart.title}, policy {panel}" if chart.kind == "observed" and panel else chart.title


def draw(chart: RateChart | DiffChart, ax=None, *, counts: bool | None = None) -> Figure:
    """Draw a chartdata.RateChart: lines against x (trigger and observed charts, one
    figure column per panel) or grouped bars (comparison); or a chartdata.DiffChart:
    horizontal bars of paired differences. counts: a lower panel with the games at each x
    (default: for observed charts, when drawing a new figure)."""
    if isinstance(chart, DiffChart):
        return _draw_differences(chart, ax)
    if chart.kind == "comparison":
        return _draw_bars(chart, ax)
    panels = chart.panels or [""]
    if ax is not None and len(panels) > 1:
        raise ValueError(f"{len(panels)} panels ({', '.join(panels)}) do not fit one ax: "
                         "give policy= (or draw into a new figure)")
    counts = chart.kind == "observed" and ax is None if counts is None else counts
    if len(panels) == 1:
        fig, main, ax_n = _new_axes(ax, counts=counts)
        _draw_lines(chart, panels[0], main, ax_n)
        _header(main, _panel_title(chart, panels[0]), chart.finding, chart.note)
        _legend(main, chart.outcome_title)
        return fig
    fig = Figure(figsize=(SIZE[0], (SIZE[1] + 1.2) * len(panels)), layout="constrained")
    for sub, panel in zip(fig.subfigures(len(panels), 1), panels, strict=True):
        main, ax_n = sub.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [4, 1]}) \
            if counts else (sub.subplots(), None)
        _draw_lines(chart, panel, main, ax_n)
        _header(main, _panel_title(chart, panel), chart.finding, chart.note)
        _legend(main, chart.outcome_title)
    return fig


def rates_by(game: Game, df: pl.DataFrame, x: str, *, outcomes: Sequence[str] | None = None,
             min_games: int = 1, policy: str | None = None, counts: bool | None = None,
             ax=None) -> Figure:
    """Rate of each outcome against the values of any column x of a policy's games (one
    panel per policy when several are present and no `policy` is given); null is the
    "never" point. Observational unless x is a swept parameter: see rates_by_trigger."""
    return draw(chartdata.observed(game, df, x, policy=policy, outcomes=outcomes,
                                   min_games=min_games), ax, counts=counts)


def rates_by_trigger(game: Game, df: pl.DataFrame, param: str, *, policy: str | None = None,
                     outcomes: Sequence[str] | None = None, ax=None) -> Figure:
    """The controlled chart: outcome rates against a policy parameter swept over the
    cells of a sweep (the same seeds at every setting), with the finding on its face.

    policy: whose games (None: the one policy that has `param`). The x axis is the
    parameter's declared label; its declared `never` value is the "never" point.
    """
    return draw(chartdata.trigger(game, df, param, policy=policy, outcomes=outcomes), ax)


# -- grouped bars ---------------------------------------------------------------------------


def _draw_bars(chart: RateChart, ax, values: bool | None = None) -> Figure:
    groups = chart.frame.select("x", "x_label", "n").unique(maintain_order=True)
    n_series, n_groups = groups.height, len(chart.outcomes)
    width = max(9.0, min(15.0, 4.0 + n_groups * (0.32 * n_series + 0.5)))
    fig, ax, _ = _new_axes(ax, size=(width, SIZE[1]))
    values = n_series <= 4 if values is None else values
    bar = 0.8 / max(n_series, 1)
    centres = np.arange(n_groups, dtype=np.float64)
    top = 0.0
    for s, group in enumerate(groups.iter_rows(named=True)):
        rows = chart.frame.filter(pl.col("x") == group["x"])
        rate, low, high = (rows[c].to_numpy() * 100 for c in ("rate", "low", "high"))
        top = max(top, float(np.nanmax(high)) if len(high) else 0.0)
        xs = centres - 0.4 + bar * (s + 0.5)
        ax.bar(xs, rate, width=bar * 0.92, color=SERIES_COLOURS[s % len(SERIES_COLOURS)],
               label=f"{group['x_label']} ({chartdata._games(int(group['n']))})",
               yerr=[rate - low, high - rate], capsize=3, error_kw={"linewidth": 1})
        if values:
            for x, r, h in zip(xs, rate, high, strict=True):
                ax.text(x, h + 0.8, f"{r:.1f}", ha="center", va="bottom", fontsize=7)
    _percent_axis(ax, top * 1.08)
    ax.set_xticks(centres, [chart.result.labels.get(o, o).replace(" ", "\n", 1)
                            for o in chart.outcomes])
    ax.set_xlabel(chart.outcome_title)
    _header(ax, chart.title, chart.finding, chart.note)
    _legend(ax, chart.x_title)
    return fig


def policy_comparison(game: Game, df: pl.DataFrame, by: str = "policy", *,
                      outcomes: Sequence[str] | None = None, labels: dict | None = None,
                      values: bool | None = None, ax=None) -> Figure:
    """Grouped bars: one group per outcome, one bar per policy (or cell, by="cell"), with
    95% Wilson whiskers. by="cell" labels cells "policy param=value" (analysis.cell_labels);
    `labels` maps group values to other names. values: print each rate above its bar
    (default: when there are at most 4 bars per group). Legend: one entry per bar series.
    """
    return _draw_bars(chartdata.comparison(game, df, by, outcomes=outcomes, labels=labels), ax,
                      values)


# -- paired differences ---------------------------------------------------------------------


def _draw_differences(chart: DiffChart, ax) -> Figure:
    """Horizontal bars from 0 to each row's difference (in points), the first row at the
    top, each with its 95% interval, coloured by what it does for the player."""
    frame = chart.frame
    height = max(3.5, 0.34 * frame.height + 2.2)
    longest = max((len(s) for s in frame["shown"].to_list()), default=0)
    width = SIZE[0] + 0.07 * max(0, longest - 24)  # long row labels widen the figure, not squeeze the bars
    fig, ax, _ = _new_axes(ax, size=(width, height))
    ys = np.arange(frame.height, dtype=np.float64)
    diff, low, high = (frame[c].to_numpy() * 100 for c in ("diff", "low", "high"))
    colours = [PLAYER_COLOURS[e] for e in frame["for_player"].to_list()]
    ax.barh(ys, diff, height=0.62, color=colours, zorder=2)
    ax.hlines(ys, low, high, color="#333333", linewidth=1.2, zorder=3,
              path_effects=[patheffects.withStroke(linewidth=3, foreground="white")])
    ax.axvline(0, color="#555555", linewidth=1)
    span = float(np.nanmax(np.abs(np.concatenate([low, high, [0.1]])))) * 1.25
    ax.set_xlim(-span, span)
    for y, d, h, lo in zip(ys, diff, high, low, strict=True):
        x, align = (h, "left") if d >= 0 else (lo, "right")
        ax.text(x + (0.01 if d >= 0 else -0.01) * span, y, f" {d:+.1f} ", va="center",
                ha=align, fontsize=8)
    ax.set_yticks(ys, frame["shown"].to_list())
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:+g}" if v else "0"))
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel(chart.x_title)
    _header(ax, chart.title, chart.finding, chart.note)
    return fig
