"""bollesim.report.plots, checked from the figures themselves.

Each chart is rendered at the size the report and the notebook use (and into an axes of
a smaller figure of the caller's) and read back: no text leaves the figure or overlaps
other text, every series of the legend is drawn where it can be seen, the labels are the
outcomes' and parameters' human names, and the plotted values equal rates computed here
from the rows with plain numpy.
"""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from test_analysis import NEVER, SYN_FIRE, make_games, synthetic_policies

from bollesim.game.registry import load_game
from bollesim.report import plots
from bollesim.report.document import CHART_DPI

GAME = load_game("bollebank")

HUMAN = {"operational": "operational victory", "tactical": "tactical victory",
         "strategic": "strategic victory", "political": "political victory", "defeat": "defeat"}


@pytest.fixture(scope="module", autouse=True)
def _synthetic_policies():
    with synthetic_policies():
        yield


@pytest.fixture(scope="module")
def games() -> pl.DataFrame:
    return make_games(n=800, seed=3)


def _texts(fig: Figure, dpi: float = CHART_DPI):
    """(text, pixel extent) of every text the renderer draws."""
    canvas = FigureCanvasAgg(fig)
    fig.set_dpi(dpi)
    canvas.draw()
    renderer = canvas.get_renderer()
    drawn = []
    for ax in fig.axes:  # only the tick labels inside the view are drawn
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks():
                if lo - 1e-9 <= tick.get_loc() <= hi + 1e-9:
                    drawn.append(tick.label1)
    ticks = {id(t) for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()}
    for t in fig.findobj(Text):
        if id(t) in ticks or not t.get_visible() or not t.get_text().strip():
            continue
        drawn.append(t)
    out = []
    for t in dict.fromkeys(drawn):
        if t.get_visible() and t.get_text().strip():
            out.append((t, t.get_window_extent(renderer)))
    return out


def assert_clean(fig: Figure) -> None:
    """No text outside the figure, no two texts overlapping."""
    texts = _texts(fig)
    width, height = fig.bbox.width, fig.bbox.height
    for t, box in texts:
        assert box.x0 >= -0.5 and box.y0 >= -0.5 and box.x1 <= width + 0.5 \
            and box.y1 <= height + 0.5, f"clipped: {t.get_text()!r} at {box}"
    for (a, ba), (b, bb) in itertools.combinations(texts, 2):
        overlap_w = min(ba.x1, bb.x1) - max(ba.x0, bb.x0)
        overlap_h = min(ba.y1, bb.y1) - max(ba.y0, bb.y0)
        assert overlap_w <= 1 or overlap_h <= 1, \
            f"{a.get_text()!r} overlaps {b.get_text()!r}"


def legend_series(ax) -> dict[str, list]:
    """{legend label: the visible artists of that series in ax (lines and markers)}."""
    legend = ax.get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    out = {}
    for label in labels:
        line = next(line for line in ax.get_lines() if line.get_label() == label)
        colour = line.get_color()
        out[label] = [x for x in ax.get_lines() if x.get_color() == colour]
    return out


def assert_series_visible(ax) -> None:
    """Every legend series is drawn inside the view, with a visible colour, and the
    outcomes' "never" markers stand side by side (whatever their rates, none hides
    another)."""
    x0, x1 = sorted(ax.get_xlim())
    y0, y1 = sorted(ax.get_ylim())
    never_points = []
    for label, lines in legend_series(ax).items():
        points = np.concatenate([np.column_stack(line.get_data()) for line in lines])
        inside = (points[:, 0] >= x0) & (points[:, 0] <= x1) & (points[:, 1] >= y0) \
            & (points[:, 1] <= y1)
        assert inside.all() and len(points), f"{label}: drawn outside the axes"
        assert all(line.get_alpha() in (None, 1) and line.get_linewidth() + line.get_markersize()
                   > 0 for line in lines), label
        singles = [line for line in lines if len(line.get_xdata()) == 1]
        never_points += [ax.transData.transform(np.column_stack(s.get_data()))[0]
                         for s in singles]
    for a, b in itertools.combinations(never_points, 2):
        assert abs(a[0] - b[0]) > 6, "two outcomes' never markers in one column"


def rates_by_value(rows: pl.DataFrame, column: str, outcome: str) -> dict:
    """{value: 100 * share of rows with the outcome}, computed with numpy."""
    values = rows[column].to_numpy()
    hits = rows[outcome].to_numpy().astype(bool)
    return {float(v): 100.0 * hits[values == v].mean() for v in np.unique(values)}


def test_trigger_chart(games):
    fig = plots.rates_by_trigger(GAME, games, "k")
    assert_clean(fig)
    ax = fig.axes[0]
    assert_series_visible(ax)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(HUMAN.values())
    assert ax.get_xlabel() == SYN_FIRE[0].label
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["8", "12", "16", "20", "24", "never"]
    rows = games.filter(pl.col("policy") == "syn_fire")
    for outcome, label in HUMAN.items():
        expected = rates_by_value(rows, "k", outcome)
        line = next(x for x in ax.get_lines() if x.get_label() == label)
        xs, ys = line.get_data()
        assert list(xs) == [8, 12, 16, 20, 24]
        np.testing.assert_allclose(ys, [expected[x] for x in xs], err_msg=label)
        never = [x for x in ax.get_lines() if x.get_color() == line.get_color()
                 and len(x.get_xdata()) == 1]
        assert never[0].get_ydata()[0] == pytest.approx(expected[NEVER])
    header = " ".join(t.get_text() for t, _ in _texts(fig))
    d = rates_by_value(rows, "k", "defeat")
    lowest, highest = min(d, key=d.get), max(d, key=d.get)
    assert f"least likely at {lowest:g} ({d[lowest]:.1f}%)" in header
    assert f"most likely at “never” ({d[highest]:.1f}%)" in header and highest == NEVER
    assert "same seeds" in header


def test_observed_chart_is_per_policy_and_says_so(games):
    fig = plots.rates_by(GAME, games, "first_fire_turn", policy="syn_fire", min_games=20)
    assert_clean(fig)
    ax, ax_n = fig.axes
    assert_series_visible(ax)
    words = " ".join(t.get_text() for t, _ in _texts(fig)).replace("\n", " ")
    assert "Observational" in words and "survived" in words and "syn_fire" in words
    assert ax_n.get_xlabel() == "turn of the first Fire order"
    rows = games.filter(pl.col("policy") == "syn_fire").drop_nulls("first_fire_turn")
    expected = rates_by_value(rows, "first_fire_turn", "defeat")
    counts = dict(zip(*np.unique(rows["first_fire_turn"].to_numpy(), return_counts=True),
                      strict=True))
    line = next(x for x in ax.get_lines() if x.get_label() == "defeat")
    xs, ys = line.get_data()
    assert set(xs) == {x for x in counts if counts[x] >= 20}
    np.testing.assert_allclose(ys, [expected[x] for x in xs])
    bars = {round(p.get_x() + p.get_width() / 2, 6): p.get_height() for p in ax_n.patches}
    assert all(bars[float(x)] == counts[x] for x in xs)
    both = plots.rates_by(GAME, games, "first_fire_turn", min_games=20)  # two policies: two panels, never pooled
    assert len(both.subfigs) == 2
    assert_clean(both)
    with pytest.raises(ValueError, match="policy="):
        plots.rates_by(GAME, games, "first_fire_turn", min_games=20, ax=Figure().subplots())


@pytest.mark.parametrize("by", ["cell", "policy"])
def test_comparison_chart(games, by):
    fig = plots.policy_comparison(GAME, games, by=by)
    assert_clean(fig)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    if by == "cell":
        assert labels[0] == "syn_fire k=8 (800 games)" and labels[-1] == "syn_hold (800 games)"
        assert "7 cells" in ax.texts[-1].get_text() or any("7 cells" in t.get_text()
                                                           for t in ax.texts)
    else:
        assert labels == ["syn_fire (4,800 games)", "syn_hold (800 games)"]
        assert any("2 policies" in t.get_text() for t in ax.texts)
    ticks = [t.get_text().replace("\n", " ") for t in ax.get_xticklabels()]
    assert ticks == list(HUMAN.values())
    groups = sorted(games[by].unique().to_list())
    bars = ax.patches
    assert len(bars) == len(groups) * len(HUMAN)
    for s, group in enumerate(groups):
        rows = games.filter(pl.col(by) == group)
        for j, outcome in enumerate(HUMAN):
            share = 100.0 * rows[outcome].to_numpy().mean()
            assert bars[s * len(HUMAN) + j].get_height() == pytest.approx(share), (group, outcome)


def test_into_a_callers_axes(games):
    fig = Figure(figsize=(14, 5), layout="constrained")
    left, right = fig.subplots(1, 2)
    assert plots.rates_by_trigger(GAME, games, "k", ax=left) is fig
    plots.policy_comparison(GAME, games, ax=right)
    assert left.get_xlabel() == SYN_FIRE[0].label and right.get_legend() is not None
    assert_clean(fig)


def test_difference_chart_draws_each_paired_difference(games):
    """The bars of a paired-differences chart (compare, sensitivity) read back from the
    figure: one per outcome, top to bottom, each as long as B - A computed from the rows."""
    from bollesim.report import chartdata
    from bollesim.stats import paired_tests

    a, b = 0, 3
    table = paired_tests.paired_comparison(GAME, games, b, a, list(HUMAN)).select(
        "outcome", "n", "rate_a", "rate_b", "diff", "diff_low", "diff_high", "significant")
    fig = plots.draw(chartdata.compared(GAME, table, "A", "B"))
    assert_clean(fig)
    ax = fig.axes[0]
    side = {c: games.filter(pl.col("cell") == c).sort("game") for c in (a, b)}
    assert side[a]["game"].to_list() == side[b]["game"].to_list()  # paired game by game
    want = [100.0 * (side[b][o].to_numpy().mean() - side[a][o].to_numpy().mean())
            for o in HUMAN]
    assert any(abs(w) > 1 for w in want)  # the oracle sees differences worth drawing
    down = -1.0 if ax.yaxis_inverted() else 1.0  # screen order: top first

    def top_first(items, y):
        return sorted(items, key=lambda item: -down * y(item))

    bars = top_first(ax.patches, lambda p: p.get_y())
    assert [bar.get_width() for bar in bars] == pytest.approx(want)
    ticks = top_first(ax.get_yticklabels(), lambda t: t.get_position()[1])
    assert [t.get_text() for t in ticks] == [GAME.result.labels[o] for o in HUMAN]
    for (start, end), w in zip(ax.collections[0].get_segments(), want, strict=True):
        assert start[0] <= w <= end[0]  # each bar inside its interval's line
