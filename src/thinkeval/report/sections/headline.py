"""Section: the headline, strict accuracy fixed and adaptive per task, and the gain."""

from __future__ import annotations

from thinkeval.report._cells import ModelTask
from thinkeval.report._format import Block, Section, table
from thinkeval.report._frozen import Frozen
from thinkeval.report._model import Report
from thinkeval.report._repeats import units_note
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.results.summary import Counts
from thinkeval.results.wording import (
    ERRORS_EXPLAINED,
    adaptive_cell,
    clamp_note,
    fixed_cell,
    gain_cell,
)

INCOMPLETE_EXPLAINED = (
    "A cell marked incomplete counts samples without a reply as not correct, so its accuracy "
    f"is a lower bound and not yet a result: {ERRORS_EXPLAINED}; pending samples have no reply "
    "yet."
)


class HeadlineRow(Frozen, frozen=True):
    """One model on one task: fixed vs adaptive accuracy and the gain.

    With repeats the counts are over the `questions * repeats` replies, so the accuracy is
    avg@k."""

    model: str
    task: str
    questions: int
    repeats: int
    total: int
    fixed_correct: int
    adaptive_correct: int
    fixed_cell: str  # "1048/1319 = 79.45%", or "15/40 = 37.50% (incomplete: 21 errors)"
    adaptive_cell: str
    gain: str  # "+16.45 pp", "+0.00 pp (incomplete)"
    complete: bool
    fixed_errors: int
    fixed_pending: int
    adaptive_errors: int
    adaptive_pending: int
    # Where the server's max_model_len cut a budget: what was asked instead ("" when not).
    clamped: str = ""


class HeadlineNumbers(SectionNumbers, frozen=True):
    headline: list[HeadlineRow]  # per model and task, in the report's order


def headline_numbers(inputs: SectionInputs) -> HeadlineNumbers:
    counts = inputs.counts
    return HeadlineNumbers(
        [_headline(mt, counts[(mt.model, mt.task)]) for mt in inputs.data.ordered()]
    )


def _headline(mt: ModelTask, counts: Counts) -> HeadlineRow:
    return HeadlineRow(
        model=mt.model,
        task=mt.task,
        questions=len(mt.samples),
        repeats=mt.k,
        total=counts.total,
        fixed_correct=counts.fixed.correct,
        adaptive_correct=counts.adaptive.correct,
        fixed_cell=fixed_cell(counts),
        adaptive_cell=adaptive_cell(counts),
        gain=gain_cell(counts),
        complete=counts.complete,
        fixed_errors=counts.fixed.error,
        fixed_pending=counts.fixed.pending,
        adaptive_errors=counts.adaptive.error,
        adaptive_pending=counts.adaptive.pending,
        clamped=clamp_note(mt.model, mt.task, counts, *mt.budgets),
    )


def headline_section(report: Report) -> Section:
    blocks = []
    headline = SECTION.numbers(report).headline
    for task in report.tasks:
        b1, b2 = report.budgets[task]
        chosen = [r for r in headline if r.task == task]
        rows = [(r.model, r.fixed_cell, r.adaptive_cell, r.gain) for r in chosen]
        warn = frozenset(i for i, r in enumerate(chosen) if not r.complete)
        blocks.append(Block(heading=task))
        note = units_note(report, task)
        if note:
            blocks.append(Block(text=note))
        blocks.append(
            Block(
                table=table(
                    ("model", f"fixed {b1}", f"adaptive {b1}→{b2}", "gain"), rows, warn=warn
                )
            )
        )
        blocks.extend(Block(text=f"{r.clamped}.") for r in chosen if r.clamped)
    if not report.complete:
        blocks.append(Block(text=INCOMPLETE_EXPLAINED))
    return Section(
        "headline",
        "Headline",
        "Strict accuracy with one reply per sample at the task's fixed budget B1 (fixed), and "
        "after the single retry at its B2 of the samples whose fixed reply was empty or "
        "unfinished (adaptive); each table names its task's budgets. Gain is adaptive minus "
        "fixed, in percentage points.",
        blocks,
    )


SECTION = ReportSection(key="headline", place=10, shown=headline_section, data=headline_numbers)
