"""Section: every sample's strict verdict per model and task, the retry of the candidates, per
subject and category, IFEval's four numbers and why code tasks' wrong programs failed, closed
by the accuracy bounds of replies still unfinished.

A package: its rows and numbers (`rows`), its tables (`tables`, with `categories`,
`instructions`, `code_failures` and `censoring_tables`), the numbers of IFEval
(`instructions`), code tasks (`code_failures`) and censoring (`censoring`), and its plots
(`plots`).
"""

from __future__ import annotations

from thinkeval.report._cells import ModelTask
from thinkeval.report._format import Section
from thinkeval.report._model import Report
from thinkeval.report._section import ReportSection, SectionInputs
from thinkeval.report.sections.outcomes.censoring import censoring_rows
from thinkeval.report.sections.outcomes.code_failures import code_failure_rows
from thinkeval.report.sections.outcomes.instructions import instruction_rows
from thinkeval.report.sections.outcomes.plots import outcome_plots
from thinkeval.report.sections.outcomes.rows import BreakdownRow, OutcomesNumbers, RetryRates
from thinkeval.report.sections.outcomes.tables import outcomes_section
from thinkeval.results.summary import Counts


def outcomes_numbers(inputs: SectionInputs) -> OutcomesNumbers:
    data, counts = inputs.data, inputs.counts
    return OutcomesNumbers(
        breakdown=[row for mt in data.ordered() for row in _breakdown(mt, counts)],
        instructions=instruction_rows(data),
        code_failures=code_failure_rows(data),
        censoring=censoring_rows(counts),
    )


def _rates(counts: Counts) -> RetryRates:
    retry = counts.retry
    return RetryRates(
        recovery=retry.answered / retry.candidates if retry.candidates else None,
        new_correct=retry.correct / retry.candidates if retry.candidates else None,
        answered_accuracy=retry.correct / retry.answered if retry.answered else None,
    )


def _breakdown(mt: ModelTask, counts: dict[tuple[str, str], Counts]) -> list[BreakdownRow]:
    whole = counts[(mt.model, mt.task)]
    rows = [
        BreakdownRow(model=mt.model, task=mt.task, subject=None, counts=whole, rates=_rates(whole))
    ]
    # Subjects in order of first appearance, as summary.json lists them.
    assert mt.counted is not None, "counted in the read model's pass"
    for subject, sub in (mt.counted.subjects or {}).items():
        rows.append(
            BreakdownRow(
                model=mt.model, task=mt.task, subject=subject, counts=sub, rates=_rates(sub)
            )
        )
    return rows


def shown(report: Report) -> Section:
    return outcomes_section(report, SECTION.numbers(report))


def plots(report: Report) -> str:
    return outcome_plots(report, SECTION.numbers(report).breakdown)


SECTION = ReportSection(key="outcomes", place=40, shown=shown, data=outcomes_numbers, plots=plots)
