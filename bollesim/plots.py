"""Charts of a batch's results, each readable without a caption.

Every function takes the per-game DataFrame (see bollesim.analysis) and returns a
matplotlib Figure: a title saying what is plotted, axis labels with units, a legend, and
95% Wilson intervals drawn as shaded bands or whiskers. Figures are built without pyplot
(matplotlib.figure.Figure, rendered by Agg), so they work with no display, in scripts,
tests and notebooks alike; `fig.savefig(path)` writes them.

    from bollesim import plots
    plots.rates_by_first_fire_turn(df)            # victory chances by turn of the first Fire
    plots.rates_by_first_fire_roe(df)             # ... by RoE at the first Fire
    plots.rates_by_trigger(df, "k")               # ... by a policy parameter (a sweep)
    plots.policy_comparison(df)                   # grouped bars, one colour per policy
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence

import matplotlib

if (not os.environ.get("MPLBACKEND") and not os.environ.get("DISPLAY")
        and not os.environ.get("WAYLAND_DISPLAY") and "matplotlib.pyplot" not in sys.modules
        and "ipykernel" not in sys.modules):
    matplotlib.use("Agg")  # no display: never try an interactive backend

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import PercentFormatter  # noqa: E402

from bollesim import analysis as A  # noqa: E402

COLOURS = {  # Okabe-Ito, safe for colour-blind readers
    "operational": "#0072B2",
    "tactical": "#009E73",
    "strategic": "#E69F00",
    "political": "#CC79A7",
    "perfect": "#000000",
    "defeat": "#D55E00",
    "no_result": "#999999",
}
"""One colour per outcome, the same in every chart."""

STYLES = {"perfect": {"linewidth": 2.6}, "defeat": {"linestyle": "--"},
          "no_result": {"linestyle": ":"}}
BAND_ALPHA = 0.15
SERIES_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
                  "#000000", "#999999", "#882255", "#44AA99", "#117733"]
INTERVAL_NOTE = "shaded: 95% Wilson interval"


def _games(n: int) -> str:
    return f"{n:,} game" + ("" if n == 1 else "s")


def _policies_note(df: pl.DataFrame) -> str:
    if "policy" not in df.columns or df.height == 0:
        return ""
    names = df["policy"].unique(maintain_order=True).to_list()
    return "policy " + names[0] if len(names) == 1 else f"{len(names)} policies"


def _percent_axis(ax, top: float) -> None:
    """y from 0 to a round top (in percent), labelled with a % sign."""
    top = 100.0 if not math.isfinite(top) else min(100.0, max(10.0, math.ceil(top / 10.0) * 10.0))
    ax.set_ylim(0, top)
    ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    ax.grid(axis="y", alpha=0.3)


def _positions(values: list) -> tuple[np.ndarray, float | None, list[float]]:
    """x positions for group values: finite ones where they are, "never" (None) one step
    to the right of the last. Returns (positions, never position or None, finite values)."""
    finite = sorted(v for v in values if v is not None)
    has_never = any(v is None for v in values)
    if finite:
        step = float(np.median(np.diff(finite))) if len(finite) > 1 else 1.0
        never_x = finite[-1] + 1.5 * step if has_never else None
    else:
        never_x = 0.0 if has_never else None
    pos = np.array([never_x if v is None else v for v in values], dtype=np.float64)
    return pos, never_x, finite


def _set_ticks(ax, finite: list[float], never_x: float | None, never_label: str) -> None:
    ticks = list(finite)
    if len(ticks) > 25:
        every = math.ceil(len(ticks) / 20)
        ticks = ticks[::every]
    labels = [A.fmt_value(float(t)) for t in ticks]
    if never_x is not None:
        ticks.append(never_x)
        labels.append(never_label)
    ax.set_xticks(ticks, labels)


def _separate_never(axes, finite: list[float], never_x: float | None) -> None:
    """A dotted line between the last value and the "never" point, on every panel."""
    if never_x is not None and finite:
        for ax in axes:
            ax.axvline((finite[-1] + never_x) / 2, color="#bbbbbb", linestyle=":", linewidth=1)


def rates_by(df: pl.DataFrame, x: str, *, outcomes: Sequence[str] = A.HEADLINE,
             title: str | None = None, xlabel: str | None = None, min_games: int = 1,
             counts: bool = False, never: float | None = None, never_label: str = "never",
             note: str = "") -> Figure:
    """Rate of each outcome (one line each, 95% Wilson band) against the values of column x.

    x: any numeric column; its null, NaN and ±inf values (and the value `never`, if
    given) are drawn as one separate point at the right, labelled `never_label`, with
    whiskers instead of a band. Values of x
    with fewer than `min_games` games are left out (and the subtitle says so).
    counts: add a lower panel with the number of games at each value.
    Legend: one entry per outcome, labelled as in analysis.LABELS.
    """
    frame = df.with_columns(A.never_as_null(x, never).cast(pl.Float64).alias(x))
    table = A.rates(frame, by=x, outcomes=outcomes)
    dropped = table.filter(pl.col("n") < min_games)
    table = table.filter(pl.col("n") >= min_games)
    fig = Figure(figsize=(10, 7 if counts else 6), layout="constrained")
    if counts:
        ax, ax_n = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [4, 1]})
    else:
        ax, ax_n = fig.subplots(), None
    values = table[x].to_list()
    pos, never_x, finite = _positions(values)
    is_never = np.array([v is None for v in values], dtype=bool)
    top = 0.0
    for o in outcomes:
        rate = table[f"{o}_rate"].to_numpy() * 100
        low = table[f"{o}_low"].to_numpy() * 100
        high = table[f"{o}_high"].to_numpy() * 100
        if len(high):
            top = max(top, float(np.nanmax(high)))
        colour = COLOURS.get(o, "#444444")
        style = STYLES.get(o, {})
        fin = ~is_never
        order = np.argsort(pos[fin], kind="stable")
        xs, ys = pos[fin][order], rate[fin][order]
        ax.plot(xs, ys, marker="o", markersize=4, color=colour, label=A.LABELS.get(o, o),
                linewidth=style.get("linewidth", 1.8), linestyle=style.get("linestyle", "-"))
        ax.fill_between(xs, low[fin][order], high[fin][order], color=colour, alpha=BAND_ALPHA,
                        linewidth=0)
        if is_never.any():
            i = int(np.flatnonzero(is_never)[0])
            ax.errorbar([pos[i]], [rate[i]], yerr=[[rate[i] - low[i]], [high[i] - rate[i]]],
                        fmt="s", color=colour, markersize=6, capsize=4, linewidth=1.5)
    _percent_axis(ax, top)
    ax.set_ylabel("share of games (%)")
    n_total = int(table["n"].sum())
    sub = [s for s in (_policies_note(df), _games(n_total), INTERVAL_NOTE) if s]
    if never_x is not None:
        sub.append(f"'{' '.join(never_label.split())}': square with whiskers")
    if dropped.height:
        sub.append(f"{dropped.height} values with < {min_games} games not drawn "
                   f"({_games(int(dropped['n'].sum()))})")
    if note:
        sub.append(note)
    ax.set_title(" · ".join(sub), fontsize=9, color="#444444")
    fig.suptitle(title or f"Outcome rates by {x}", fontsize=14, fontweight="bold")
    fig.legend(loc="outside right upper", title="outcome", frameon=False)
    target = ax_n if ax_n is not None else ax
    if ax_n is not None:
        ax_n.bar(pos, table["n"].to_numpy(), width=0.7 * _bar_step(pos), color="#999999")
        ax_n.set_ylabel("games")
        ax_n.grid(axis="y", alpha=0.3)
        ax.tick_params(labelbottom=False)
    _separate_never([a for a in (ax, ax_n) if a is not None], finite, never_x)
    _set_ticks(target, finite, never_x, never_label)
    target.set_xlabel(xlabel or x)
    return fig


def _bar_step(pos: np.ndarray) -> float:
    u = np.unique(pos[np.isfinite(pos)])
    return float(np.min(np.diff(u))) if len(u) > 1 else 1.0


def rates_by_first_fire_turn(df: pl.DataFrame, *, outcomes: Sequence[str] = A.HEADLINE,
                             min_games: int = 20, **kwargs) -> Figure:
    """Outcome rates against the turn of the first Fire order; games that never fired are
    the "never" point. A lower panel counts the games at each turn. Observational: the
    policy chose when to fire, so a turn's games are not a random sample."""
    kwargs.setdefault("title", "Outcome rates by the turn of the first Fire order")
    kwargs.setdefault("xlabel", "turn of the first Fire order (game turn)")
    kwargs.setdefault("never_label", "never\nfired")
    return rates_by(df, "first_fire_turn", outcomes=outcomes, min_games=min_games, counts=True,
                    **kwargs)


def rates_by_first_fire_roe(df: pl.DataFrame, *, outcomes: Sequence[str] = A.HEADLINE,
                            min_games: int = 20, **kwargs) -> Figure:
    """Outcome rates against the RoE track value when the first Fire order was given;
    games that never fired are the "never" point. A lower panel counts the games."""
    kwargs.setdefault("title", "Outcome rates by the RoE at the first Fire order")
    kwargs.setdefault("xlabel", "RoE at the first Fire order (RoE track value)")
    kwargs.setdefault("never_label", "never\nfired")
    return rates_by(df, "first_fire_roe", outcomes=outcomes, min_games=min_games, counts=True,
                    **kwargs)


def rates_by_trigger(df: pl.DataFrame, param: str, *, policy: str | None = None,
                     outcomes: Sequence[str] = A.HEADLINE, meaning: str | None = None,
                     never: float | str | None = "auto", **kwargs) -> Figure:
    """Outcome rates against a policy parameter swept over cells (common random numbers).

    Only the games of `policy` (default: the policies that have `param`) are used; a
    null, NaN or infinite value, or the value `never` ("auto": the one the parameter's
    declaration names, e.g. "(25: never)"), is the "never" point. If other parameters of
    the policy vary too, the rates are averaged over them (the subtitle says so).
    `meaning`, the parameter's one-line description (None: from its declaration), goes
    into the x label.
    """
    if policy is not None:
        df = df.filter(pl.col("policy") == policy)
    elif "policy" in df.columns:
        owners = df.filter(pl.col(param).is_not_null())["policy"].unique().sort().to_list()
        df = df.filter(pl.col("policy").is_in(owners))
        policy = owners[0] if len(owners) == 1 else " / ".join(owners)
    never = A._resolve_never(never, policy, param)
    if meaning is None:
        declared = A.declared_parameter(policy, param)
        meaning = getattr(declared, "doc", "") if declared is not None else ""
    others = [p for p in A.swept_parameters(df).get(policy or "", []) if p != param]
    note = f"averaged over {', '.join(others)}" if others else ""
    kwargs.setdefault("title", f"Outcome rates by the {param} setting"
                      + (f" of {policy}" if policy else ""))
    kwargs.setdefault("xlabel", f"{policy + ' ' if policy else ''}parameter {param}"
                      + (f" ({meaning})" if meaning else " (parameter value)"))
    return rates_by(df, param, outcomes=outcomes, note=note, never=never, **kwargs)


def policy_comparison(df: pl.DataFrame, by: str = "policy", *,
                      outcomes: Sequence[str] = A.HEADLINE, labels: dict | None = None,
                      title: str | None = None, values: bool | None = None) -> Figure:
    """Grouped bars: one group per outcome, one bar per policy (or cell, by="cell"), with
    95% Wilson whiskers. by="cell" labels cells "policy param=value" (analysis.cell_labels);
    `labels` maps group values to other names. values: print each rate above its bar
    (default: when there are at most 4 bars per group). Legend: one entry per bar series.
    """
    table = A.rates(df, by=by, outcomes=outcomes)
    keys = table[by].to_list()
    if labels is None and by == "cell" and "policy" in df.columns:
        labels = dict(A.cell_labels(df).select("cell", "label").iter_rows())
    names = [str((labels or {}).get(k, k)) for k in keys]
    n_series, n_groups = len(keys), len(outcomes)
    values = n_series <= 4 if values is None else values
    fig = Figure(figsize=(min(15, max(9, 3 + n_groups * (0.3 * n_series + 0.4))), 6),
                 layout="constrained")
    ax = fig.subplots()
    width = 0.8 / max(n_series, 1)
    centres = np.arange(n_groups, dtype=np.float64)
    top = 0.0
    for s, (key, name) in enumerate(zip(keys, names, strict=True)):
        row = table.filter(pl.col(by).eq_missing(key))
        rate = np.array([row[f"{o}_rate"][0] for o in outcomes]) * 100
        low = np.array([row[f"{o}_low"][0] for o in outcomes]) * 100
        high = np.array([row[f"{o}_high"][0] for o in outcomes]) * 100
        top = max(top, float(np.nanmax(high)) if len(high) else 0.0)
        xs = centres - 0.4 + width * (s + 0.5)
        ax.bar(xs, rate, width=width * 0.92, color=SERIES_COLOURS[s % len(SERIES_COLOURS)],
               label=f"{name} ({_games(int(row['n'][0]))})",
               yerr=[rate - low, high - rate], capsize=3, error_kw={"linewidth": 1})
        if values:
            for x, r, h in zip(xs, rate, high, strict=True):
                ax.text(x, h + 0.8, f"{r:.1f}", ha="center", va="bottom", fontsize=7)
    _percent_axis(ax, top * 1.08)
    ax.set_xticks(centres, [A.LABELS.get(o, o) for o in outcomes])
    ax.set_xlabel("outcome")
    ax.set_ylabel("share of games (%)")
    kind = "cell" if by == "cell" else by
    ax.set_title(f"{n_series} {kind}{'s' if n_series != 1 else ''}, same seeds in each · "
                 "whiskers: 95% Wilson interval", fontsize=9, color="#444444")
    fig.suptitle(title or f"Outcome rates by {kind}", fontsize=14, fontweight="bold")
    fig.legend(loc="outside right upper", title=kind, frameon=False)
    return fig
