"""The report's plots as inline SVG figures: outcome bars, solve rates, budget curves, token
histograms."""

from __future__ import annotations

from html import escape

import thinkeval.report._svg as _svg
from thinkeval.records import STATUSES
from thinkeval.report._model import BreakdownRow, CurveRow, Histogram, RepeatRow, Report

OUTCOME_COLORS = {
    "correct": "#3a9a4a",
    "wrong": "#d1493f",
    "no_answer": "#f0a33a",
    "empty": "#a3a3a3",
    "unfinished": "#8a63c4",
    "error": "#2b2b2b",
    "pending": "#d5dbe3",
}
MODEL_COLORS = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#e15759",
    "#76b7b2",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
PHASE_COLORS = {"fixed": "#4e79a7", "retry": "#f28e2b"}


def _figure(caption: str, svg: str) -> str:
    return f"<figure><figcaption>{escape(caption)}</figcaption>{svg}</figure>"


def outcome_plots(report: Report, breakdown: list[BreakdownRow]) -> str:
    figures = []
    statuses = [*STATUSES, "error", "pending"]
    for task in report.tasks:
        rows = [r for r in breakdown if r.task == task and r.subject is None]
        labels = []
        values: dict[str, list[float]] = {s: [] for s in statuses}
        for row in rows:
            for phase in ("fixed", "adaptive"):
                block = row.counts.fixed if phase == "fixed" else row.counts.adaptive
                labels.append(f"{row.model} · {phase}")
                for status in statuses:
                    values[status].append(getattr(block, status))
        layers = [_svg.Series(s, OUTCOME_COLORS[s], values[s]) for s in statuses]
        figures.append(_figure(task, _svg.stacked_bars(f"Outcomes on {task}", labels, layers)))
    return f'<div class="plots">{"".join(figures)}</div>'


def solve_rate_plots(repeated: list[RepeatRow]) -> str:
    """Per model and task asked more than once: how many questions were solved 0 .. k times,
    fixed and adaptive side by side."""
    figures = []
    for row in repeated:
        metrics = row.metrics
        series = [
            _svg.Series("fixed", PHASE_COLORS["fixed"], metrics.fixed.solved),
            _svg.Series("adaptive", PHASE_COLORS["retry"], metrics.adaptive.solved),
        ]
        svg = _svg.grouped_bars(
            f"Questions of {row.task} solved 0 to {metrics.k} times by {row.model}",
            [str(c) for c in range(metrics.k + 1)],
            series,
            x_label=f"times solved of {metrics.k}",
            y_label="questions",
        )
        figures.append(_figure(f"{row.model} · {row.task}", svg))
    return f'<div class="plots">{"".join(figures)}</div>'


def curve_plots(report: Report, found: list[CurveRow]) -> str:
    figures = []
    for task in report.tasks:
        b1, b2 = report.budgets[task]
        curves = [c for c in found if c.task == task]
        if not curves:
            continue
        series = [
            _svg.Series(
                c.model,
                MODEL_COLORS[report.models.index(c.model) % len(MODEL_COLORS)],
                [k / c.total if c.total else 0.0 for k in c.grid_correct],
            )
            for c in curves
        ]
        # Evenly spaced ticks: the table's budgets crowd together at the left of a long axis.
        ticks = [round(b2 * i / 4) for i in range(5)]
        svg = _svg.step_chart(
            f"Accuracy by budget on {task}",
            curves[0].grid,
            series,
            x_ticks=ticks,
            x_marks=[(b1, f"B1 {b1}"), (b2, f"B2 {b2}")],
        )
        figures.append(_figure(task, svg))
    return f'<div class="plots">{"".join(figures)}</div>'


def histogram_plots(report: Report, histograms: list[Histogram]) -> str:
    figures = []
    for h in histograms:
        b1, b2 = report.budgets[h.task]
        layers = [
            _svg.Series("fixed", PHASE_COLORS["fixed"], h.fixed),
            _svg.Series("retry", PHASE_COLORS["retry"], h.retry),
        ]
        svg = _svg.histogram(
            f"Completion tokens of {h.model} on {h.task}",
            h.edges,
            layers,
            x_marks=[(b1, str(b1)), (b2, str(b2))],
        )
        figures.append(_figure(f"{h.model} · {h.task}", svg))
    return f'<div class="plots">{"".join(figures)}</div>'
