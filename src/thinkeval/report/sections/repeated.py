"""Section: repeated sampling (avg@k, pass@k, maj@k, solve rates) of tasks asked k times."""

from __future__ import annotations

from thinkeval.report._format import Section
from thinkeval.report._model import RepeatRow, Report
from thinkeval.report._plots import solve_rate_plots
from thinkeval.report._repeats import details, repeat_rows
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.report._tables_repeats import repeated_section


class RepeatedNumbers(SectionNumbers, frozen=True):
    repeated: list[RepeatRow]  # per model and task asked more than once per question


def repeated_numbers(inputs: SectionInputs) -> RepeatedNumbers:
    return RepeatedNumbers(repeat_rows(inputs.data, details(inputs.data), inputs.counts))


def shown(report: Report) -> Section | None:
    return repeated_section(report, SECTION.numbers(report).repeated)


def plots(report: Report) -> str:
    return solve_rate_plots(SECTION.numbers(report).repeated)


SECTION = ReportSection(key="repeated", place=30, shown=shown, data=repeated_numbers, plots=plots)
