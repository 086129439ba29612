"""Section: the run against the baseline it names (`baseline:`), by `thinkeval compare`'s rules."""

from __future__ import annotations

from thinkeval.report._format import Section
from thinkeval.report._model import Report
from thinkeval.report._section import ReportSection
from thinkeval.report._tables_compare import compare_section


def baseline_section(report: Report) -> Section | None:
    return None if report.comparison is None else compare_section(report.comparison)


SECTION = ReportSection(key="compare", place=20, shown=baseline_section)
