"""The reasoning-length plot: per model and task, the share of replies still thinking at each
token count, fixed and retry phase (the survival curve of the reasoning length)."""

from __future__ import annotations

import thinkeval.report._svg as _svg
from thinkeval.report._diagnosis import DiagnosisRow, still_thinking
from thinkeval.report._model import Report
from thinkeval.report._plots import PHASE_COLORS, figure


def thinking_plots(report: Report, diagnosis: list[DiagnosisRow]) -> str:
    figures = []
    for row in diagnosis:
        b1, b2 = report.budgets[row.task]
        series, grid = [], None
        longest = max((len(p.reasoning_bins) for p in row.block.phases.values()), default=0)
        longest = max(longest, -(-b2 // row.block.bin_tokens))  # the axis reaches B2
        for phase, counted in row.block.phases.items():
            bins = counted.reasoning_bins + [0] * (longest - len(counted.reasoning_bins))
            grid, shares = still_thinking(bins, row.block.bin_tokens)
            series.append(_svg.Series(f"{phase} still thinking", PHASE_COLORS[phase], shares))
        if grid is None:
            continue
        svg = _svg.step_chart(
            f"Share of replies still thinking, {row.model} on {row.task}",
            grid,
            series,
            x_ticks=[round(grid[-1] * i / 4) for i in range(5)],
            x_marks=[(b1, f"B1 {b1}"), (b2, f"B2 {b2}")],
        )
        figures.append(figure(f"{row.model} · {row.task}", svg))
    return f'<div class="plots">{"".join(figures)}</div>'
