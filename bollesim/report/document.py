"""The document model of the reports (balance report, compare, sensitivity, optimise): a
Report is a list of blocks (headings, paragraphs, tables, charts) built once and rendered
twice, as one self-contained HTML page and as Markdown with its charts as PNG files
(write_pages); every file is written atomically (a temporary name, then os.replace)."""

from __future__ import annotations

import html
import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from bollesim.files import atomic_write
from bollesim.report.chartdata import DiffChart, RateChart, SwingChart
from bollesim.stats.naming import p_text, pct  # noqa: F401  p_text: the reports' name for it

CHART_DPI = 110


@dataclass
class Chart:
    name: str        # file stem: report-<name>.png
    figure: object   # matplotlib Figure
    alt: str         # what the chart shows, one sentence
    data: RateChart | DiffChart | SwingChart  # the numbers and words drawn
    png: bytes = b""


@dataclass
class Report:
    title: str
    blocks: list[tuple] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)

    def h(self, level: int, text: str) -> None:
        self.blocks.append(("h", level, text))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def ul(self, items: list[str]) -> None:
        if items:
            self.blocks.append(("ul", items))

    def table(self, header: list[str], rows: list[list[str]],
              right: set[int] | None = None, total: bool = False) -> None:
        """A table; `right`: the columns aligned right (numbers); `total`: the last row
        sums up the others (it stays last when the reader sorts the table)."""
        self.blocks.append(("table", header, rows, right or set(), total))

    def chart(self, name: str, figure, alt: str, data: RateChart | DiffChart | SwingChart) -> None:
        chart = Chart(slug(name), figure, alt, data)
        self.charts.append(chart)
        self.blocks.append(("chart", chart))


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "chart"


def pct_ci(rate: float, low: float, high: float) -> str:
    """"41.2% (40.3–42.1)": a rate and its 95% interval (two decimals below 1%)."""
    if rate is None or math.isnan(rate):
        return "–"
    digits = 2 if 0 < 100 * rate < 1 or 100 * high < 1 else 1
    return f"{pct(rate)} ({100 * low:.{digits}f}–{100 * high:.{digits}f})"


def points(diff: float) -> str:
    """A difference of two rates in percentage points: 0.077 -> "7.7 points"."""
    v = 100.0 * abs(diff)
    text = f"{v:.2f}" if 0 < v < 1 else f"{v:.1f}"
    return f"{text} point" + ("" if text == "1.0" else "s")


def inline_html(text: str) -> str:
    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222;
       max-width: 1150px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
h1 { border-bottom: 2px solid #0072B2; padding-bottom: .2em; }
h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: .8em 0; font-size: .88em; }
th, td { border: 1px solid #ddd; padding: .3em .6em; vertical-align: top; }
th { background: #f3f6f9; text-align: left; }
td.num { text-align: right; }  /* a rate and its interval may wrap apart: no table is clipped */
tr:nth-child(even) td { background: #fafafa; }
code { background: #f3f3f3; padding: 0 .25em; border-radius: 3px; font-size: .92em; }
figure { margin: 1.2em 0; }
.chart { width: 100%; min-height: 420px; }  /* charts.on_page: as wide as the page */
.chart-title { margin: 0 0 .3em; font-size: .9em; color: #444; }
.chart-title strong { color: #222; font-size: 1.1em; }
figcaption { color: #555; font-size: .9em; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th::after { content: " ↕"; color: #aaa; font-size: .85em; }
table.sortable th[aria-sort=ascending]::after { content: " ▲"; color: #0072B2; }
table.sortable th[aria-sort=descending]::after { content: " ▼"; color: #0072B2; }
#vg-tooltip-element { font-size: 13px; }
"""


SORT_SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(th => {
  th.tabIndex = 0;
  const sort = () => {
    const table = th.closest("table"), body = table.tBodies[0], column = th.cellIndex;
    const down = th.getAttribute("aria-sort") === "ascending";
    table.querySelectorAll("th").forEach(h => h.removeAttribute("aria-sort"));
    th.setAttribute("aria-sort", down ? "descending" : "ascending");
    const key = row => {
      const text = row.cells[column].textContent.trim();
      const number = text.replace(/,/g, "").match(/^[+-]?\\d+(\\.\\d+)?/);
      return number ? parseFloat(number[0]) : text;
    };
    const compare = (a, b) => {
      const x = key(a), y = key(b);
      if (typeof x === "number" && typeof y === "number") return x - y;
      if (typeof x !== typeof y) return typeof x === "number" ? -1 : 1;
      return x.localeCompare(y, undefined, {numeric: true});
    };
    const rows = Array.from(body.rows), total = rows.filter(r => r.classList.contains("total"));
    rows.filter(r => !total.includes(r)).sort((a, b) => (down ? -1 : 1) * compare(a, b))
      .concat(total).forEach(r => body.appendChild(r));
  };
  th.addEventListener("click", sort);
  th.addEventListener("keydown", e => { if (e.key === "Enter") sort(); });
});
"""


def render_html(rep: Report) -> str:
    """One self-contained HTML page that works offline: inline CSS, interactive charts
    (Vega-Lite, its JavaScript inlined; hover a point for its rate, interval and games,
    click the legend to show one outcome), tables sorted by a click on their header."""
    from bollesim.report import charts

    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{html.escape(rep.title)}</title>", f"<style>{CSS}</style>", "</head>",
             "<body>"]
    specs = {}
    for block in rep.blocks:
        kind = block[0]
        if kind == "h":
            parts.append(f"<h{block[1]}>{inline_html(block[2])}</h{block[1]}>")
        elif kind == "p":
            parts.append(f"<p>{inline_html(block[1])}</p>")
        elif kind == "ul":
            items = "".join(f"<li>{inline_html(i)}</li>" for i in block[1])
            parts.append(f"<ul>{items}</ul>")
        elif kind == "table":
            _, header, rows, right, total = block
            head = "".join(f"<th>{inline_html(h)}</th>" for h in header) if any(header) else ""
            body = "".join(
                ('<tr class="total">' if total and r == len(rows) - 1 else "<tr>")
                + "".join(f'<td{" class=num" if i in right else ""}>{inline_html(c)}</td>'
                          for i, c in enumerate(row)) + "</tr>"
                for r, row in enumerate(rows))
            parts.append(f'<div class="scroll"><table{" class=sortable" if head else ""}>'
                         + (f"<thead><tr>{head}</tr></thead>" if head else "")
                         + f"<tbody>{body}</tbody></table></div>")
        elif kind == "chart":
            chart = block[1]
            figure, specs[f"vis-{chart.name}"] = charts.figure(
                chart.name, charts.spec(chart.data), chart.alt)
            parts.append(figure)
    if specs:
        parts.append(charts.page_script(specs))
    parts += [f"<script>{SORT_SCRIPT}</script>", "</body>", "</html>", ""]
    return "\n".join(parts)


_CODE_SPAN = re.compile(r"(`[^`]*`)")


def md_text(text: str) -> str:
    """Text for Markdown: HTML special characters as entities outside code spans (no raw
    HTML from a spec or manifest reaches report.md; inside a code span Markdown shows
    them as they are, so `R&D` stays R&D), newlines as spaces (no stray block), `|`
    escaped."""
    parts = _CODE_SPAN.split(str(text))
    out = "".join(part if i % 2 else html.escape(part, quote=False) for i, part in enumerate(parts))
    return out.replace("\n", " ").replace("|", "\\|")


def md_paragraph(text: str) -> str:
    """md_text, with a leading block marker (#, >, -, +, =, "1.") escaped: a paragraph stays
    a paragraph whatever a spec's description starts with."""
    out = md_text(text).lstrip()
    return "\\" + out if re.match(r"([#>+=-]|\d+[.)])", out) else out


def render_markdown(rep: Report, chart_files: dict[str, str]) -> str:
    """Markdown with the charts as image links to the PNG files (names in chart_files)."""
    out: list[str] = []
    for block in rep.blocks:
        kind = block[0]
        if kind == "h":
            out += ["#" * block[1] + " " + md_text(block[2]), ""]
        elif kind == "p":
            out += [md_paragraph(block[1]), ""]
        elif kind == "ul":
            out += [f"- {md_paragraph(i)}" for i in block[1]] + [""]
        elif kind == "table":
            _, header, rows, right, _ = block
            out.append("| " + " | ".join(md_text(h) for h in header) + " |")
            out.append("|" + "|".join(" ---: " if i in right else " --- "
                                      for i in range(len(header))) + "|")
            out += ["| " + " | ".join(md_text(c) for c in row) + " |" for row in rows]
            out.append("")
        elif kind == "chart":
            chart = block[1]
            alt = md_text(chart.alt).replace("[", "(").replace("]", ")")
            out += [f"![{alt}]({chart_files[chart.name]})", "", f"*{alt}*", ""]
    return "\n".join(out)


def chart_png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=CHART_DPI, facecolor="white")
    return buffer.getvalue()


def pages(rep: Report, stem: str, tables: dict[str, pl.DataFrame] | None = None) -> dict[str, bytes]:
    """The files of a Report, {name: bytes} in the order write_pages writes them:
    STEM-<chart>.png for every chart, the CSV files of `tables` ({file name: frame}),
    STEM.md (linking the PNGs) and STEM.html (self-contained)."""
    files: dict[str, bytes] = {}
    names: dict[str, str] = {}
    for chart in rep.charts:
        chart.png = chart_png(chart.figure)
        names[chart.name] = f"{stem}-{chart.name}.png"
        files[names[chart.name]] = chart.png
    for name, frame in (tables or {}).items():
        buffer = io.BytesIO()
        frame.write_csv(buffer, float_precision=6)
        files[name] = buffer.getvalue()
    files[f"{stem}.md"] = render_markdown(rep, names).encode("utf-8")
    files[f"{stem}.html"] = render_html(rep).encode("utf-8")
    return files


def write_pages(rep: Report, out: str | Path, stem: str,
                tables: dict[str, pl.DataFrame] | None = None) -> dict:
    """Write a Report's `pages` into the folder `out` (created if missing), each file
    atomically. Returns {"html": Path, "markdown": Path, "charts": [Path, ...], "tables":
    [Path, ...]}."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = pages(rep, stem, tables)
    for name, data in files.items():
        atomic_write(out / name, data)
    return {"html": out / f"{stem}.html", "markdown": out / f"{stem}.md",
            "charts": [out / f"{stem}-{c.name}.png" for c in rep.charts],
            "tables": [out / name for name in tables or {}]}
