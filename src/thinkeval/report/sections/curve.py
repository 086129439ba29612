"""Section: the accuracy each model would have had at each completion-token budget."""

from __future__ import annotations

from thinkeval.report._format import Section
from thinkeval.report._model import CurveRow, Report
from thinkeval.report._plots import curve_plots
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.report._tables_usage import curve_section
from thinkeval.report._usage import curve, curve_budgets


class CurveNumbers(SectionNumbers, frozen=True):
    curve_budgets: dict[str, list[int]]  # per task: the budgets its table shows
    curves: list[CurveRow]  # per model and task


def curve_numbers(inputs: SectionInputs) -> CurveNumbers:
    data = inputs.data
    budgets = {task: curve_budgets(data.budgets[task]) for task in data.tasks}
    return CurveNumbers(budgets, [curve(mt, budgets[mt.task]) for mt in data.ordered()])


def shown(report: Report) -> Section:
    numbers = SECTION.numbers(report)
    return curve_section(report, numbers.curve_budgets, numbers.curves)


def plots(report: Report) -> str:
    return curve_plots(report, SECTION.numbers(report).curves)


SECTION = ReportSection(key="curve", place=80, shown=shown, data=curve_numbers, plots=plots)
