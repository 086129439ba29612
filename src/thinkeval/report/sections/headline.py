"""Section: the headline, strict accuracy fixed and adaptive per task, and the gain."""

from __future__ import annotations

from thinkeval.report._format import Block, Section, table
from thinkeval.report._model import Report
from thinkeval.report._section import ReportSection
from thinkeval.report._tables_repeats import units_note
from thinkeval.results.wording import ERRORS_EXPLAINED

INCOMPLETE_EXPLAINED = (
    "A cell marked incomplete counts samples without a reply as not correct, so its accuracy "
    f"is a lower bound and not yet a result: {ERRORS_EXPLAINED}; pending samples have no reply "
    "yet."
)


def headline_section(report: Report) -> Section:
    blocks = []
    for task in report.tasks:
        b1, b2 = report.budgets[task]
        chosen = [r for r in report.headline if r.task == task]
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


SECTION = ReportSection(key="headline", place=10, shown=headline_section)
