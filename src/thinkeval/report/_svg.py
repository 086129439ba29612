"""A small inline-SVG plotter: step lines, stacked bars and histograms, no dependencies.

The output is inline `<svg>` markup for an HTML5 page (no xmlns needed, nothing fetched).
Every label is escaped, and coordinates are printed with fixed decimals, so the same data
always gives the same bytes. Colours are presentation attributes, not `style=`, so the page's
Content-Security-Policy can forbid inline styles.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

FONT = 12  # px; axis labels and legends
CHAR_WIDTH = 7.2  # px per character at FONT, roughly: SVG text cannot be measured server-side
_MARGIN_LEFT = 48
_MARGIN_RIGHT = 16
_MARGIN_TOP = 12
_MARGIN_BOTTOM = 40


@dataclass(frozen=True)
class Series:
    """One line or one stack layer: a name for the legend, a colour and its values."""

    name: str
    color: str
    values: Sequence[float]


def _f(value: float) -> str:
    return f"{value:.1f}"


def _text_width(labels: Iterable[str]) -> int:
    """A generous estimate of the widest label's width in px."""
    return round(CHAR_WIDTH * max((len(label) for label in labels), default=0))


def _text(x: float, y: float, label: str, anchor: str = "middle", extra: str = "") -> str:
    return (
        f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" font-size="{FONT}"{extra}>'
        f"{escape(label)}</text>"
    )


def _open(width: int, height: int, label: str) -> str:
    return (
        f'<svg class="plot" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{escape(label)}"><title>{escape(label)}</title>'
    )


def _legend(series: Sequence[Series], x: float, y: float) -> list[str]:
    """A vertical legend of colour swatches and names starting at (x, y)."""
    parts = []
    for i, item in enumerate(series):
        top = y + i * (FONT + 6)
        parts.append(
            f'<rect x="{_f(x)}" y="{_f(top)}" width="{FONT}" height="{FONT}" fill="{item.color}"/>'
        )
        parts.append(_text(x + FONT + 6, top + FONT - 2, item.name, anchor="start"))
    return parts


def _legend_row(series: Sequence[Series], x: float, y: float) -> list[str]:
    """The same legend laid out left to right from (x, y)."""
    parts = []
    for item in series:
        parts.append(
            f'<rect x="{_f(x)}" y="{y}" width="{FONT}" height="{FONT}" fill="{item.color}"/>'
        )
        parts.append(_text(x + FONT + 4, y + FONT - 2, item.name, anchor="start"))
        x += FONT + 14 + CHAR_WIDTH * len(item.name)
    return parts


def step_chart(
    title: str,
    x: Sequence[float],
    series: Sequence[Series],
    x_ticks: Sequence[float],
    y_max: float = 1.0,
    x_marks: Sequence[tuple[float, str]] = (),
    width: int = 600,
    height: int = 300,
) -> str:
    """Lines that step up at each x (a cumulative count), y as a percentage of `y_max`.

    `x_marks` draws labelled dashed verticals, e.g. at the two budgets. The legend sits on the
    right; the chart grows wider for long names instead of cutting them off.
    """
    legend_width = _text_width(item.name for item in series) + FONT + 16
    width += max(0, legend_width - 170)
    plot_w = width - _MARGIN_LEFT - _MARGIN_RIGHT - legend_width
    plot_h = height - _MARGIN_TOP - _MARGIN_BOTTOM
    x_max = max(x) if x else 1.0
    x_max = x_max or 1.0

    def sx(value: float) -> float:
        return _MARGIN_LEFT + plot_w * value / x_max

    def sy(value: float) -> float:
        return _MARGIN_TOP + plot_h * (1.0 - (value / y_max if y_max else 0.0))

    parts = [_open(width, height, title)]
    parts += _axes(plot_w, plot_h)
    for step in range(0, 101, 20):
        y = sy(y_max * step / 100)
        parts.append(
            f'<line x1="{_f(_MARGIN_LEFT)}" y1="{_f(y)}" x2="{_f(_MARGIN_LEFT + plot_w)}" '
            f'y2="{_f(y)}" stroke="#e3e3e3"/>'
        )
        parts.append(_text(_MARGIN_LEFT - 6, y + 4, f"{step}%", anchor="end"))
    for tick in x_ticks:
        parts.append(_text(sx(tick), _MARGIN_TOP + plot_h + 16, f"{tick:g}"))
    for position, label in x_marks:
        px = sx(position)
        parts.append(
            f'<line x1="{_f(px)}" y1="{_f(_MARGIN_TOP)}" x2="{_f(px)}" '
            f'y2="{_f(_MARGIN_TOP + plot_h)}" stroke="#888" stroke-dasharray="4 3"/>'
        )
        parts.append(_text(px - 3, _MARGIN_TOP + 12, label, anchor="end"))
    parts.append(
        _text(_MARGIN_LEFT + plot_w / 2, height - 6, "max_tokens (completion-token budget)")
    )
    for item in series:
        points = []
        previous_y: float | None = None
        for xv, yv in zip(x, item.values, strict=True):
            px, py = sx(xv), sy(yv)
            if previous_y is not None:
                points.append(f"{_f(px)},{_f(previous_y)}")  # hold the level, then step
            points.append(f"{_f(px)},{_f(py)}")
            previous_y = py
        parts.append(
            f'<polyline points="{" ".join(points)}" fill="none" stroke="{item.color}" '
            f'stroke-width="2"><title>{escape(item.name)}</title></polyline>'
        )
    parts += _legend(series, width - legend_width + 8, _MARGIN_TOP)
    parts.append("</svg>")
    return "".join(parts)


def _axes(plot_w: float, plot_h: float) -> list[str]:
    bottom = _MARGIN_TOP + plot_h
    return [
        f'<line x1="{_MARGIN_LEFT}" y1="{_f(bottom)}" x2="{_f(_MARGIN_LEFT + plot_w)}" '
        f'y2="{_f(bottom)}" stroke="#444"/>',
        f'<line x1="{_MARGIN_LEFT}" y1="{_MARGIN_TOP}" x2="{_MARGIN_LEFT}" y2="{_f(bottom)}" '
        'stroke="#444"/>',
    ]


def stacked_bars(
    title: str,
    labels: Sequence[str],
    layers: Sequence[Series],
    width: int = 760,
) -> str:
    """Horizontal bars, one per label, each split into `layers` as shares of its total."""
    label_width = max(120, _text_width(labels) + 16)
    width += max(0, label_width - 220)
    bar_h, gap = 18, 8
    legend_h = FONT + 10
    height = _MARGIN_TOP + len(labels) * (bar_h + gap) + legend_h + 24
    plot_w = width - label_width - _MARGIN_RIGHT
    parts = [_open(width, height, title)]
    for row, label in enumerate(labels):
        y = _MARGIN_TOP + row * (bar_h + gap)
        parts.append(_text(label_width - 8, y + bar_h - 5, label, anchor="end"))
        total = sum(layer.values[row] for layer in layers)
        x = float(label_width)
        for layer in layers:
            value = layer.values[row]
            if not value or not total:
                continue
            w = plot_w * value / total
            share = 100.0 * value / total
            parts.append(
                f'<rect x="{_f(x)}" y="{y}" width="{_f(w)}" height="{bar_h}" '
                f'fill="{layer.color}"><title>{escape(label)}: {escape(layer.name)} '
                f"{value:g} ({share:.1f}%)</title></rect>"
            )
            x += w
    legend_y = _MARGIN_TOP + len(labels) * (bar_h + gap) + 8
    parts += _legend_row(layers, float(label_width), legend_y)
    parts.append("</svg>")
    return "".join(parts)


def histogram(
    title: str,
    edges: Sequence[int],
    layers: Sequence[Series],
    x_marks: Sequence[tuple[float, str]] = (),
    width: int = 420,
    height: int = 220,
) -> str:
    """Bins between consecutive `edges`, the layers stacked; y is the count."""
    plot_w = width - _MARGIN_LEFT - _MARGIN_RIGHT
    plot_h = height - _MARGIN_TOP - _MARGIN_BOTTOM - FONT - 6
    bins = len(edges) - 1
    totals = [sum(layer.values[i] for layer in layers) for i in range(bins)]
    y_max = max(totals, default=0) or 1
    x_min, x_max = edges[0], edges[-1] or 1
    span = (x_max - x_min) or 1

    def sx(value: float) -> float:
        return _MARGIN_LEFT + plot_w * (value - x_min) / span

    parts = [_open(width, height, title)]
    parts += _axes(plot_w, plot_h)
    parts.append(_text(_MARGIN_LEFT - 6, _MARGIN_TOP + 4, f"{y_max:g}", anchor="end"))
    parts.append(_text(_MARGIN_LEFT - 6, _MARGIN_TOP + plot_h + 4, "0", anchor="end"))
    for i in range(bins):
        base = 0.0
        for layer in layers:
            value = layer.values[i]
            if not value:
                continue
            h = plot_h * value / y_max
            top = _MARGIN_TOP + plot_h * (1 - (base + value) / y_max)
            parts.append(
                f'<rect x="{_f(sx(edges[i]) + 0.5)}" y="{_f(top)}" '
                f'width="{_f(max(sx(edges[i + 1]) - sx(edges[i]) - 1, 0.5))}" height="{_f(h)}" '
                f'fill="{layer.color}"><title>{edges[i]}–{edges[i + 1]} tokens, '
                f"{escape(layer.name)}: {value:g}</title></rect>"
            )
            base += value
    for position, label in x_marks:
        px = sx(position)
        parts.append(
            f'<line x1="{_f(px)}" y1="{_f(_MARGIN_TOP)}" x2="{_f(px)}" '
            f'y2="{_f(_MARGIN_TOP + plot_h)}" stroke="#888" stroke-dasharray="4 3"/>'
        )
        parts.append(_text(px, _MARGIN_TOP + plot_h + 16, label))
    parts.append(_text(_MARGIN_LEFT + plot_w / 2, _MARGIN_TOP + plot_h + 30, "completion tokens"))
    legend_y = height - FONT - 4
    parts += _legend_row(layers, float(_MARGIN_LEFT), legend_y)
    parts.append("</svg>")
    return "".join(parts)


def grouped_bars(
    title: str,
    categories: Sequence[str],
    series: Sequence[Series],
    x_label: str,
    y_label: str,
    width: int = 420,
    height: int = 220,
) -> str:
    """Vertical bars: one group per category, one bar per series side by side; y is the count.

    Many categories (k = 64 repeats gives 65) thin the bars and label every n-th category.
    """
    plot_w = width - _MARGIN_LEFT - _MARGIN_RIGHT
    plot_h = height - _MARGIN_TOP - _MARGIN_BOTTOM - FONT - 6
    y_max = max((v for item in series for v in item.values), default=0) or 1
    group = plot_w / max(len(categories), 1)
    bar = max((group - 2) / max(len(series), 1), 0.5)
    every = max(1, round(len(categories) * CHAR_WIDTH * 3 / plot_w))
    parts = [_open(width, height, title)]
    parts += _axes(plot_w, plot_h)
    parts.append(_text(_MARGIN_LEFT - 6, _MARGIN_TOP + 4, f"{y_max:g}", anchor="end"))
    parts.append(_text(_MARGIN_LEFT - 6, _MARGIN_TOP + plot_h + 4, "0", anchor="end"))
    for i, category in enumerate(categories):
        left = _MARGIN_LEFT + group * i + 1
        for j, item in enumerate(series):
            value = item.values[i]
            if not value:
                continue
            h = plot_h * value / y_max
            parts.append(
                f'<rect x="{_f(left + bar * j)}" y="{_f(_MARGIN_TOP + plot_h - h)}" '
                f'width="{_f(bar)}" height="{_f(h)}" fill="{item.color}"><title>'
                f"{escape(x_label)} {escape(category)}, {escape(item.name)}: {value:g} "
                f"{escape(y_label)}</title></rect>"
            )
        if i % every == 0:
            parts.append(_text(left + group / 2 - 1, _MARGIN_TOP + plot_h + 16, category))
    parts.append(_text(_MARGIN_LEFT + plot_w / 2, _MARGIN_TOP + plot_h + 30, x_label))
    parts += _legend_row(series, float(_MARGIN_LEFT), height - FONT - 4)
    parts.append("</svg>")
    return "".join(parts)
