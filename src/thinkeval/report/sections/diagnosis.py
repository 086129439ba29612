"""Section: why replies did not finish, with the still-thinking curves."""

from __future__ import annotations

from thinkeval.report._diagnosis import DiagnosisRow, diagnosis_rows
from thinkeval.report._format import Section
from thinkeval.report._model import Report
from thinkeval.report._plots_diagnosis import thinking_plots
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.report._tables_diagnosis import diagnosis_section


class DiagnosisNumbers(SectionNumbers, frozen=True):
    diagnosis: list[DiagnosisRow]  # per model and task


def diagnosis_numbers(inputs: SectionInputs) -> DiagnosisNumbers:
    return DiagnosisNumbers(diagnosis_rows(inputs.data))


def shown(report: Report) -> Section | None:
    return diagnosis_section(SECTION.numbers(report).diagnosis)


def plots(report: Report) -> str:
    return thinking_plots(report, SECTION.numbers(report).diagnosis)


SECTION = ReportSection(
    key="diagnosis", place=120, shown=shown, data=diagnosis_numbers, plots=plots
)
