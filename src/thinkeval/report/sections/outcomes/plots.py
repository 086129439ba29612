"""The outcomes section's plots: per task, each model's verdicts as stacked bars."""

from __future__ import annotations

import thinkeval.report._svg as _svg
from thinkeval.records import STATUSES
from thinkeval.report._model import Report
from thinkeval.report._plots import figure
from thinkeval.report.sections.outcomes.rows import BreakdownRow

OUTCOME_COLORS = {
    "correct": "#3a9a4a",
    "wrong": "#d1493f",
    "no_answer": "#f0a33a",
    "empty": "#a3a3a3",
    "unfinished": "#8a63c4",
    "error": "#2b2b2b",
    "pending": "#d5dbe3",
}


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
        figures.append(figure(task, _svg.stacked_bars(f"Outcomes on {task}", labels, layers)))
    return f'<div class="plots">{"".join(figures)}</div>'
