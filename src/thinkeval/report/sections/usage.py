"""Section: tokens and time per model, task and phase, with the token histograms."""

from __future__ import annotations

from thinkeval.report._format import Section
from thinkeval.report._model import Histogram, Report, UsageRow
from thinkeval.report._plots import histogram_plots
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.report._tables_usage import usage_section
from thinkeval.report._usage import histogram, usage


class UsageNumbers(SectionNumbers, frozen=True):
    usage: list[UsageRow]  # per model, task (and every task) and phase
    histograms: list[Histogram]  # per model and task


def usage_numbers(inputs: SectionInputs) -> UsageNumbers:
    return UsageNumbers(usage(inputs.data), [histogram(mt) for mt in inputs.data.ordered()])


def shown(report: Report) -> Section:
    return usage_section(SECTION.numbers(report).usage)


def plots(report: Report) -> str:
    return histogram_plots(report, SECTION.numbers(report).histograms)


SECTION = ReportSection(key="usage", place=90, shown=shown, data=usage_numbers, plots=plots)
