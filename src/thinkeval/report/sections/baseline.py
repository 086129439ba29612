"""Section: the run against the baseline it names (`baseline:`), by `thinkeval compare`'s rules."""

from __future__ import annotations

from thinkeval.report._compare import baseline_comparison
from thinkeval.report._decide import is_decided
from thinkeval.report._format import Section
from thinkeval.report._model import Report
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.report._tables_compare import compare_section
from thinkeval.results.compare_model import CompareResult


class BaselineNumbers(SectionNumbers, frozen=True):
    comparison: CompareResult | None  # None: no run names a baseline, or a decide run


def baseline_numbers(inputs: SectionInputs) -> BaselineNumbers:
    data = inputs.data
    return BaselineNumbers(None if is_decided(data) else baseline_comparison(data))


def baseline_section(report: Report) -> Section | None:
    found = SECTION.numbers(report).comparison
    return None if found is None else compare_section(found)


SECTION = ReportSection(key="compare", place=20, shown=baseline_section, data=baseline_numbers)
