"""Section: the most accurate model(s) per task, fixed and adaptive."""

from __future__ import annotations

from thinkeval.report._format import Block, Section, table
from thinkeval.report._model import Report
from thinkeval.report._section import ReportSection


def _repeated(report: Report) -> bool:
    """Some task is asked more than once per question."""
    return any(k > 1 for k in report.repeats.values())


def best_section(report: Report) -> Section:
    rows = []
    for best in report.best_of:
        label = ", ".join(best.models) + (" (tie)" if len(best.models) > 1 else "")
        rows.append((best.task, best.phase, label, "; ".join(best.cells)))
    warn = frozenset(i for i, best in enumerate(report.best_of) if not best.complete)
    return Section(
        "best",
        "Best model per task",
        "The model with the highest strict accuracy per task, fixed and adaptive"
        + (" (for a task asked k times per question, avg@k)" if _repeated(report) else "")
        + ". Models with "
        "exactly the same accuracy are listed together. Being best is not being significantly "
        "better: see the pairwise comparisons.",
        [
            Block(
                table=table(
                    ("task", "comparison", "best", "accuracy"), rows, text_columns=3, warn=warn
                )
            )
        ],
    )


SECTION = ReportSection(key="best", place=50, shown=best_section)
