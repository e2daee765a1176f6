"""Interactive charts: Vega-Lite specs built with altair from the tidy frames of chartdata.

`rates_spec(result, frame, ...)` turns a tidy rate frame of a game's outcomes (its
result; chartdata.RateChart.frame: panel, x, x_label, outcome, label, n, k, rate, low,
high) into a Vega-Lite spec (a dict, JSON-ready):
hovering a point shows its rate, 95% interval and game counts; clicking an outcome in the
legend shows it alone (shift-click adds more); the intervals are whiskers. `spec(chart)`
does it for a chartdata.RateChart with its title, finding and note. Page assembly is
elsewhere (bollesim.report.balance, `page_script`), so any page can embed these specs.

    from bollesim.report import chartdata, charts
    spec = charts.spec(chartdata.trigger(game, df, "t"))   # a dict
    charts.png(spec)                                    # PNG bytes, no browser needed

The colours are chartdata's, as in bollesim.report.plots.
"""

from __future__ import annotations

import copy
import json
import textwrap
from functools import cache

import polars as pl

from bollesim import kept
from bollesim.game.result import Result
from bollesim.report.chartdata import (
    NEVER_LABEL,
    PLAYER_COLOURS,
    SERIES_COLOURS,
    DiffChart,
    RateChart,
    SwingChart,
    line_colour,
    x_positions,
)


def shapes(result: Result) -> dict[str, str]:
    """One point shape per outcome of the game's result (Vega-Lite's names)."""
    return {o.name: o.shape for o in result.outcomes}


def dashes(result: Result) -> dict[str, list]:
    """The game's outcomes drawn with a dashed line, and their dash patterns (Vega-Lite's)."""
    return {o.name: list(o.dash[1]) for o in result.outcomes if o.dash}


WIDTH, HEIGHT = 760, 380
WRAP = 110  # characters per subtitle line


def _fields(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with the fields the spec reads: the rate and interval in percent, and
    the interval as text for the tooltip."""
    return frame.with_columns(
        (pl.col("rate") * 100).round(2).alias("rate_pct"),
        (pl.col("low") * 100).round(2).alias("low_pct"),
        (pl.col("high") * 100).round(2).alias("high_pct"),
        pl.format("{}–{}%", (pl.col("low") * 100).round(1),
                  (pl.col("high") * 100).round(1)).alias("interval"),
        pl.col("x").is_null().alias("never"),
    )


def _subtitle(*texts: str) -> list[str]:
    return [line for text in texts if text for line in textwrap.wrap(text, WRAP)]


def rates_spec(result: Result, frame: pl.DataFrame, *, title: str = "", x_title: str = "", finding: str = "",
               note: str = "", kind: str = "trigger", outcome_title: str = "outcome") -> dict:
    """A Vega-Lite spec of a tidy rate frame: lines against x (kind "trigger" or
    "observed"; the "never" point unjoined) or grouped bars (kind "comparison", one bar
    per x_label in each outcome's group)."""
    import altair as alt

    data = _fields(frame)
    outcomes = data["outcome"].unique(maintain_order=True).to_list()
    labels = data["label"].unique(maintain_order=True).to_list()
    pick = alt.selection_point(fields=["label"], bind="legend", name="pick")
    tooltip = [alt.Tooltip("label:N", title=outcome_title),
               alt.Tooltip("x_label:N", title=x_title or "x"),
               alt.Tooltip("rate_pct:Q", title="rate (%)"),
               alt.Tooltip("interval:N", title="95% interval"),
               alt.Tooltip("k:Q", title="games with it", format=","),
               alt.Tooltip("n:Q", title="games", format=",")]
    y = alt.Y("rate_pct:Q", title="share of games (%)", scale=alt.Scale(domainMin=0))
    opacity = alt.condition(pick, alt.value(1.0), alt.value(0.12))
    base = alt.Chart(data)
    if kind == "comparison":
        groups = data["x_label"].unique(maintain_order=True).to_list()
        colour = alt.Color("x_label:N", title=x_title, sort=groups, scale=alt.Scale(
            domain=groups, range=[SERIES_COLOURS[i % len(SERIES_COLOURS)]
                                  for i in range(len(groups))]))
        pick = alt.selection_point(fields=["x_label"], bind="legend", name="pick")
        opacity = alt.condition(pick, alt.value(1.0), alt.value(0.12))
        x = alt.X("label:N", title=outcome_title, sort=labels, axis=alt.Axis(labelAngle=0))
        offset = alt.XOffset("x_label:N", sort=groups)
        bars = base.mark_bar().encode(x=x, xOffset=offset, y=y, color=colour, opacity=opacity,
                                      tooltip=tooltip)
        whiskers = base.mark_rule(color="#333333").encode(
            x=x, xOffset=offset, y="low_pct:Q", y2="high_pct:Q", opacity=opacity)
        chart = alt.layer(bars, whiskers).add_params(pick)
    else:
        data, where = x_positions(data, outcomes)
        base = alt.Chart(data)
        ticks = where.finite if len(where.finite) <= 25 else \
            where.finite[::-(-len(where.finite) // 20)]
        ticks = ticks + ([where.never_x] if where.never_x is not None else [])
        never = f"datum.value == {where.never_x} ? '{NEVER_LABEL}' : " \
            if where.never_x is not None else ""
        axis = alt.Axis(values=ticks, labelExpr=never + "format(datum.value, '~g')",
                        grid=False)
        lo = (where.finite[0] if where.finite else 0.0) - 0.5 * where.step
        last = where.never_x if where.never_x is not None else \
            (where.finite[-1] if where.finite else 0.0)
        hi = last + 0.6 * where.step
        scale = alt.Scale(domain=[lo, hi], nice=False, zero=False)
        colour = alt.Color("label:N", title=outcome_title, sort=labels, scale=alt.Scale(
            domain=labels, range=[line_colour(result, o, i) for i, o in enumerate(outcomes)]))
        shape_of, dash_of = shapes(result), dashes(result)
        shape = alt.Shape("label:N", sort=labels, scale=alt.Scale(
            domain=labels, range=[shape_of.get(o, "circle") for o in outcomes]))
        dash = alt.StrokeDash("label:N", sort=labels, scale=alt.Scale(
            domain=labels, range=[dash_of.get(o, [1, 0]) for o in outcomes]))
        lines = base.transform_filter("!datum.never").mark_line(strokeWidth=2).encode(
            x=alt.X("pos:Q", title=x_title, scale=scale, axis=axis), y=y, color=colour,
            strokeDash=dash, opacity=opacity)
        x = alt.X("dodged:Q", title=x_title, scale=scale, axis=axis)
        whiskers = base.mark_rule(strokeWidth=1.5).encode(
            x=x, y="low_pct:Q", y2="high_pct:Q", color=colour, opacity=opacity)
        points = base.mark_point(filled=True, size=70).encode(
            x=x, y=y, color=colour, shape=shape, opacity=opacity, tooltip=tooltip)
        chart = alt.layer(lines, whiskers, points).add_params(pick)
    chart = chart.properties(width=WIDTH, height=HEIGHT, title=alt.TitleParams(
        title, subtitle=_subtitle(finding, note), anchor="start", fontSize=16,
        subtitleFontSize=12, subtitleColor="#444444"))
    return chart.configure_legend(labelFontSize=12, titleFontSize=12).to_dict()


def spec(chart: RateChart | DiffChart | SwingChart) -> dict:
    """The Vega-Lite spec of a chartdata.RateChart (its panels, if several, stacked),
    DiffChart or SwingChart."""
    if isinstance(chart, DiffChart):
        return difference_spec(chart)
    if isinstance(chart, SwingChart):
        return swing_spec(chart)
    title = chart.title
    if chart.kind == "observed" and len(chart.panels) == 1 and chart.panels[0]:
        title += f", policy {chart.panels[0]}"
    return rates_spec(chart.result, chart.frame, title=title, x_title=chart.x_title, finding=chart.finding,
                      note=chart.note, kind=chart.kind, outcome_title=chart.outcome_title)


def difference_spec(chart: DiffChart) -> dict:
    """Horizontal bars of paired differences (points), the frame's first row at the top,
    with 95% interval whiskers and a zero rule; hovering a bar shows both rates, the
    difference, its interval and the games; colour: better or worse for the player."""
    import altair as alt

    data = chart.frame.with_columns(
        (pl.col("diff") * 100).round(2).alias("diff_pts"),
        (pl.col("low") * 100).round(2).alias("low_pts"),
        (pl.col("high") * 100).round(2).alias("high_pts"),
        (pl.col("rate_a") * 100).round(2).alias("a_pct"),
        (pl.col("rate_b") * 100).round(2).alias("b_pct"),
        pl.format("{} to {}", (pl.col("low") * 100).round(1),
                  (pl.col("high") * 100).round(1)).alias("interval"),
        pl.when(pl.col("significant")).then(pl.lit("yes")).otherwise(pl.lit("no"))
        .alias("sig"))
    rows = data["shown"].to_list()
    y = alt.Y("shown:N", sort=rows, title=None)
    colour = alt.Color("for_player:N", title="for the player", scale=alt.Scale(
        domain=list(PLAYER_COLOURS), range=list(PLAYER_COLOURS.values())))
    tooltip = [alt.Tooltip("row:N", title="row"), alt.Tooltip("meaning:N", title="meaning"),
               alt.Tooltip("a_pct:Q", title="from (%)"),
               alt.Tooltip("b_pct:Q", title="to (%)"),
               alt.Tooltip("diff_pts:Q", title="difference (points)"),
               alt.Tooltip("interval:N", title="95% interval (points)"),
               alt.Tooltip("sig:N", title="significant"),
               alt.Tooltip("n:Q", title="games", format=",")]
    base = alt.Chart(data)
    bars = base.mark_bar().encode(
        x=alt.X("diff_pts:Q", title=chart.x_title), y=y, color=colour, tooltip=tooltip)
    whiskers = base.mark_rule(color="#333333").encode(x="low_pts:Q", x2="high_pts:Q", y=y)
    zero = alt.Chart(pl.DataFrame({"zero": [0.0]})).mark_rule(color="#555555").encode(
        x="zero:Q")
    layered = alt.layer(bars, whiskers, zero).properties(
        width=WIDTH, height=max(120, 22 * len(rows)), title=alt.TitleParams(
            chart.title, subtitle=_subtitle(chart.finding, chart.note), anchor="start",
            fontSize=16, subtitleFontSize=12, subtitleColor="#444444"))
    return layered.to_dict()


def swing_spec(chart: SwingChart) -> dict:
    """Stacked bars of each kind of event's swing per game, by turn; hovering a bar shows
    its kind, turn, swing and how many events it sums; clicking the legend shows one kind."""
    import altair as alt

    data = chart.frame.with_columns(pl.col("swing").round(4))
    series = list(chart.series)
    pick = alt.selection_point(fields=["series"], bind="legend", name="pick")
    colour = alt.Color("series:N", title="kind of event", sort=series, scale=alt.Scale(
        domain=series, range=[SERIES_COLOURS[i % len(SERIES_COLOURS)]
                              for i in range(len(series))]))
    bars = alt.Chart(data).mark_bar().encode(
        x=alt.X("turn:O", title=chart.x_title, axis=alt.Axis(labelAngle=0)),
        y=alt.Y("swing:Q", title="swing per game (probability)", stack="zero"),
        color=colour, order=alt.Order("order:Q"),
        opacity=alt.condition(pick, alt.value(1.0), alt.value(0.12)),
        tooltip=[alt.Tooltip("series:N", title="kind of event"),
                 alt.Tooltip("turn:O", title=chart.x_title),
                 alt.Tooltip("swing:Q", title="swing per game"),
                 alt.Tooltip("events:Q", title="events", format=",")],
    ).transform_calculate(order=f"indexof({json.dumps(series)}, datum.series)").add_params(pick)
    return bars.properties(width=WIDTH, height=HEIGHT, title=alt.TitleParams(
        chart.title, subtitle=_subtitle(chart.finding, chart.note), anchor="start",
        fontSize=16, subtitleFontSize=12, subtitleColor="#444444")).configure_legend(
        labelFontSize=12, titleFontSize=12, labelLimit=0).to_dict()


def on_page(spec: dict) -> tuple[dict, str, str]:
    """A spec as a page draws it on any screen: as wide as its element (the legend below
    the plot), its title and subtitle apart, as text the page wraps (a Vega title never
    does). Returns (spec, title, subtitle); `spec` is left as it is, for its PNG."""
    spec = copy.deepcopy(spec)
    spec.update(width="container", autosize={"type": "fit", "contains": "padding"})
    spec.setdefault("config", {}).setdefault("legend", {}).update(orient="bottom", columns=2)
    title = spec.pop("title", {})
    return spec, title.get("text", ""), " ".join(title.get("subtitle", []))


def figure(name: str, spec: dict, alt: str) -> tuple[str, dict]:
    """The <figure id=NAME> of a chart on a page (on_page: its title and subtitle as text
    above it, `alt` as its caption) and the spec to draw into its element, vis-NAME."""
    import html

    spec, title, subtitle = on_page(spec)
    alt = html.escape(alt)
    return (f'<figure id="{name}"><p class="chart-title"><strong>{html.escape(title)}</strong>'
            f'<br>{html.escape(subtitle)}</p><div class="chart" id="vis-{name}" role="img" '
            f'aria-label="{alt}"></div><figcaption>{alt}</figcaption></figure>', spec)


def png(vega_lite: dict, scale: float = 1.0) -> bytes:
    """The spec rendered to PNG without a browser (vl-convert)."""
    import vl_convert

    return vl_convert.vegalite_to_png(vega_lite, scale=scale)


@cache
def javascript() -> str:
    """Vega, Vega-Lite and vega-embed in one script, to inline in a page that works offline.
    vl-convert takes a second or two to bundle them, so the bundle is kept (bollesim.kept)
    under the name of vl-convert's version, which decides what it holds."""
    import vl_convert

    return kept.text("vega", f"vl-convert-{vl_convert.__version__}.js",
                     vl_convert.javascript_bundle)


def page_script(specs: dict[str, dict]) -> str:
    """The <script> elements that draw `specs` ({element id: spec}) into a page: the
    libraries inlined, then one vegaEmbed call per chart; each view is kept in
    window.bollesimViews[id] once drawn (window.bollesimReady resolves when all are)."""
    payload = json.dumps(specs, separators=(",", ":")).replace("</", "<\\/")
    library = javascript().replace("</script", "<\\/script")
    return (f"<script>{library}</script>\n<script>\n"
            f"const bollesimSpecs = {payload};\n"
            "window.bollesimViews = {};\n"
            "window.bollesimReady = Promise.all(Object.entries(bollesimSpecs).map(([id, spec]) =>\n"
            "  vegaEmbed('#' + id, spec, {actions: false, renderer: 'svg'})\n"
            "    .then(result => { window.bollesimViews[id] = result.view; })));\n"
            "</script>")
