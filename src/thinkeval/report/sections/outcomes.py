"""Section: every sample's strict verdict per model and task, the retry of the candidates, per
subject and category, IFEval's four numbers and why code tasks' wrong programs failed."""

from __future__ import annotations

from thinkeval.report._categories import HEADERS as CATEGORY_HEADERS
from thinkeval.report._categories import category_rows
from thinkeval.report._cells import ModelTask
from thinkeval.report._censoring import CensoringRow, censoring_rows
from thinkeval.report._code_failures import HEADERS as CODE_HEADERS
from thinkeval.report._code_failures import CodeFailuresRow, code_failure_rows
from thinkeval.report._code_failures import table_rows as code_table_rows
from thinkeval.report._format import Block, Section, percent, table
from thinkeval.report._instructions import HEADERS as INSTRUCTION_HEADERS
from thinkeval.report._instructions import InstructionsRow, instruction_rows
from thinkeval.report._instructions import table_rows as instruction_table_rows
from thinkeval.report._model import BreakdownRow, Report, RetryRates
from thinkeval.report._plots import outcome_plots
from thinkeval.report._repeats import units_note
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.report._tables_censoring import censoring_blocks
from thinkeval.results.summary import Counts


class OutcomesNumbers(SectionNumbers, frozen=True):
    breakdown: list[BreakdownRow]  # per model and task, then per subject
    instructions: list[InstructionsRow]  # IFEval's four numbers (`instructions` tasks)
    code_failures: list[CodeFailuresRow]  # why the wrong programs of code tasks failed
    # Accuracy bounds with unfinished replies counted wrong, then right; empty when every
    # reply finished by the last budget.
    censoring: list[CensoringRow]


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


def _outcome_cells(c: Counts) -> tuple[str, ...]:
    f = c.fixed
    return (
        str(c.total),
        str(f.correct),
        str(f.wrong),
        str(f.no_answer),
        str(f.empty),
        str(f.unfinished),
        str(f.error),
        str(f.pending),
        str(c.retry.candidates),
    )


def _retry_cells(row: BreakdownRow) -> tuple[str, ...]:
    r = row.counts.retry
    return (
        str(r.candidates),
        str(r.answered),
        str(r.correct),
        str(r.wrong),
        str(r.no_answer),
        str(r.unfinished + r.empty),
        str(r.error),
        str(r.pending),
        percent(row.rates.recovery),
        percent(row.rates.new_correct),
        percent(row.rates.answered_accuracy),
    )


def outcomes_section(report: Report) -> Section:
    numbers = SECTION.numbers(report)
    blocks = []
    for task in report.tasks:
        b1, b2 = report.budgets[task]
        rows = [r for r in numbers.breakdown if r.task == task]
        whole = [r for r in rows if r.subject is None]
        blocks.append(Block(heading=task))
        note = units_note(report, task)
        if note:
            blocks.append(Block(text=note))
        blocks.append(Block(text=f"Fixed phase at {b1} (strict verdicts):"))
        blocks.append(
            Block(
                table=table(
                    (
                        "model",
                        "samples" if report.repeats[task] == 1 else "replies",
                        "correct",
                        "wrong",
                        "no_answer",
                        "empty",
                        "unfinished",
                        "error",
                        "pending",
                        "retry candidates",
                    ),
                    [(r.model, *_outcome_cells(r.counts)) for r in whole],
                    warn=_incomplete_rows(whole),
                )
            )
        )
        blocks.append(Block(text=f"Retry at {b2} of the candidates:"))
        blocks.append(
            Block(
                table=table(
                    (
                        "model",
                        "candidates",
                        "answered",
                        "correct",
                        "wrong",
                        "no_answer",
                        "still unfinished or empty",
                        "error",
                        "pending",
                        "recovery",
                        "new correct",
                        "accuracy when answered",
                    ),
                    [(r.model, *_retry_cells(r)) for r in whole],
                    warn=_incomplete_rows(whole),
                )
            )
        )
        subjects = [r for r in rows if r.subject is not None]
        if subjects:
            blocks.append(
                Block(
                    text="Per subject: the fixed phase's verdicts, then the retry of its "
                    "candidates and the adaptive accuracy."
                )
            )
            blocks.append(
                Block(
                    table=table(
                        (
                            "model",
                            "subject",
                            "samples",
                            "fixed correct",
                            "fixed wrong",
                            "fixed no_answer",
                            "fixed empty",
                            "fixed unfinished",
                            "fixed error",
                            "retry candidates",
                            "retry answered",
                            "retry correct",
                            "adaptive correct",
                        ),
                        [_subject_cells(r) for r in subjects],
                        text_columns=2,
                        warn=_incomplete_rows(subjects),
                    )
                )
            )
        if any(row.task == task for row in numbers.instructions):
            text = "IFEval: instructions followed, prompt level (all of a prompt's) and "
            blocks.append(Block(text=text + "instruction level, strict and loose:"))
            followed = instruction_table_rows(numbers.instructions, task)
            blocks.append(Block(table=table(INSTRUCTION_HEADERS, followed, text_columns=2)))
        failures = code_table_rows(numbers.code_failures, task)
        if failures:
            text = "Code: why the wrong programs failed (each counts as wrong), fixed and adaptive:"
            blocks.append(Block(text=text))
            blocks.append(Block(table=table(CODE_HEADERS, failures, text_columns=2)))
        if subjects:
            by_category = category_rows(task, subjects)
            if by_category:
                text = "Per category (questions pooled), and the average over the categories:"
                blocks.append(Block(text=text))
                blocks.append(Block(table=table(CATEGORY_HEADERS, by_category, text_columns=2)))
    return Section(
        "outcomes",
        "Outcomes",
        "Every sample's strict verdict: correct, wrong (a final answer that does not match), "
        "no_answer (finished without a legal final answer), empty (no content), unfinished (cut "
        "off by max_tokens); error counts transport failures left after the client's retries, "
        "pending what has no reply yet. Retry candidates are the fixed replies that were empty "
        "or unfinished. Answered means the retry formed a legal final answer (correct + wrong). "
        "Recovery = answered / candidates; new correct = retry correct / candidates; accuracy "
        "when answered = retry correct / answered.",
        blocks + censoring_blocks(numbers.censoring, report.tasks),
    )


def _subject_cells(row: BreakdownRow) -> tuple[str, ...]:
    c = row.counts
    f = c.fixed
    return (
        row.model,
        row.subject or "",
        str(c.total),
        f"{f.correct} ({percent(f.accuracy)})",
        str(f.wrong),
        str(f.no_answer),
        str(f.empty),
        str(f.unfinished),
        str(f.error),
        str(c.retry.candidates),
        str(c.retry.answered),
        str(c.retry.correct),
        f"{c.adaptive.correct} ({percent(c.adaptive.accuracy)})",
    )


def _incomplete_rows(rows: list[BreakdownRow]) -> frozenset[int]:
    return frozenset(i for i, r in enumerate(rows) if not r.counts.complete)


def plots(report: Report) -> str:
    return outcome_plots(report, SECTION.numbers(report).breakdown)


SECTION = ReportSection(
    key="outcomes", place=40, shown=outcomes_section, data=outcomes_numbers, plots=plots
)
