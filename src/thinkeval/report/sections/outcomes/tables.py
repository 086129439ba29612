"""The outcomes section's tables: per task, the fixed phase's verdicts, the retry of its
candidates, per subject, IFEval's numbers, code failures and per category, then the censoring
bounds."""

from __future__ import annotations

from thinkeval.report._format import Block, Section, percent, table
from thinkeval.report._model import Report
from thinkeval.report._repeats import units_note
from thinkeval.report.sections.outcomes.categories import HEADERS as CATEGORY_HEADERS
from thinkeval.report.sections.outcomes.categories import category_rows
from thinkeval.report.sections.outcomes.censoring_tables import censoring_blocks
from thinkeval.report.sections.outcomes.code_failures import HEADERS as CODE_HEADERS
from thinkeval.report.sections.outcomes.code_failures import table_rows as code_table_rows
from thinkeval.report.sections.outcomes.instructions import HEADERS as INSTRUCTION_HEADERS
from thinkeval.report.sections.outcomes.instructions import table_rows as instruction_table_rows
from thinkeval.report.sections.outcomes.rows import BreakdownRow, OutcomesNumbers
from thinkeval.results.summary import Counts


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


def outcomes_section(report: Report, numbers: OutcomesNumbers) -> Section:
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
