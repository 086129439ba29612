"""The report's header and its first sections as titled tables of text.

The numbers are formatted in `_format`; the later sections are in `_tables_repeats`,
`_tables_pairs`, `_tables_usage` and `_tables_context`. Sections are numbered in reading order;
those with nothing to show (no task asked more than once, no judge verdicts) are left out.
"""

from __future__ import annotations

import dataclasses

from thinkeval.report._categories import HEADERS as CATEGORY_HEADERS
from thinkeval.report._categories import category_rows
from thinkeval.report._code_failures import HEADERS as CODE_HEADERS
from thinkeval.report._code_failures import table_rows as code_table_rows
from thinkeval.report._format import Block, Section, percent, table
from thinkeval.report._instructions import HEADERS as INSTRUCTION_HEADERS
from thinkeval.report._instructions import table_rows as instruction_table_rows
from thinkeval.report._model import BreakdownRow, Report
from thinkeval.report._replicas import replicas_section
from thinkeval.report._tables_censoring import censoring_blocks
from thinkeval.report._tables_compare import compare_section
from thinkeval.report._tables_context import context_section
from thinkeval.report._tables_diagnosis import diagnosis_section
from thinkeval.report._tables_pairs import pairs_section
from thinkeval.report._tables_reasoning import reasoning_section
from thinkeval.report._tables_repeats import repeated_section, units_note
from thinkeval.report._tables_scorers import scorer_sections
from thinkeval.report._tables_usage import curve_section, tokens_section, usage_section
from thinkeval.results.summary import Counts
from thinkeval.results.wording import ERRORS_EXPLAINED, missing

INCOMPLETE_EXPLAINED = (
    "A cell marked incomplete counts samples without a reply as not correct, so its accuracy "
    f"is a lower bound and not yet a result: {ERRORS_EXPLAINED}; pending samples have no reply "
    "yet."
)


def simulated_line(report: Report) -> str | None:
    """The warning that some models are simulated, or None."""
    if not report.simulated:
        return None
    names = ", ".join(report.simulated)
    return (
        f"SIMULATED MODELS: {names} (served by thinkeval sim, not real LLMs): these numbers "
        "demonstrate the protocol, not any model."
    )


def budgets_line(report: Report) -> str:
    """The budgets: one pair for all tasks, or each task's."""
    pairs = set(report.budgets.values())
    if len(pairs) == 1:
        b1, b2 = pairs.pop()
        return f"Budgets: fixed max_tokens {b1}, retry {b2}"
    each = ", ".join(f"{task} {b[0]}→{b[1]}" for task, b in report.budgets.items())
    return f"Budgets (fixed→retry max_tokens), per task: {each}"


def tasks_line(report: Report) -> str:
    """The tasks, with the repeats of those asked more than once per question."""
    named = [
        f"{task} ({k} replies per question)" if k > 1 else task
        for task, k in report.repeats.items()
    ]
    return f"Tasks: {', '.join(named)}"


def header_lines(report: Report) -> list[str]:
    """Which runs, budgets and settings the report covers, one bullet each."""
    lines = []
    simulated = simulated_line(report)
    if simulated:
        lines.append(simulated)
    dates = {c.path: (c.started, c.ended) for c in report.context}
    for run in report.runs:
        if run.complete:
            state = "complete"
        else:
            state = f"INCOMPLETE: {missing(run.errors, run.pending)}, see the notes"
        started, ended = dates.get(run.path, (None, None))
        when = f"; ran {started} to {ended}" if started and ended else ""
        lines.append(f"Run {run.name} ({run.path}, {state}): {', '.join(run.models)}{when}")
    lines.append(budgets_line(report))
    lines.append(tasks_line(report))
    lines.append(
        f"Bootstrap: {report.resamples} resamples, seed {report.seed}; "
        f"thinkeval {report.thinkeval_version}"
    )
    return lines


def sections(report: Report) -> list[Section]:
    """Every section of the report that has something to show, numbered in reading order."""
    found = [
        _headline(report),
        None if report.comparison is None else compare_section(report.comparison),
        repeated_section(report),
        _outcomes(report),
        _best_of(report),
        *scorer_sections(report),  # the judge's too, with its agreement
        pairs_section(report),
        curve_section(report),
        usage_section(report),
        tokens_section(report),
        reasoning_section(report),
        replicas_section(report),
        diagnosis_section(report),
        context_section(report),
    ]
    shown = [section for section in found if section is not None]
    return [
        dataclasses.replace(section, title=f"{number}. {section.title}")
        for number, section in enumerate(shown, 1)
    ]


def _repeated(report: Report) -> bool:
    """Some task is asked more than once per question."""
    return any(k > 1 for k in report.repeats.values())


def _headline(report: Report) -> Section:
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


def _outcomes(report: Report) -> Section:
    blocks = []
    for task in report.tasks:
        b1, b2 = report.budgets[task]
        rows = [r for r in report.breakdown if r.task == task]
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
        if any(row.task == task for row in report.instructions):
            text = "IFEval: instructions followed, prompt level (all of a prompt's) and "
            blocks.append(Block(text=text + "instruction level, strict and loose:"))
            followed = instruction_table_rows(report.instructions, task)
            blocks.append(Block(table=table(INSTRUCTION_HEADERS, followed, text_columns=2)))
        failures = code_table_rows(report.code_failures, task)
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
        blocks + censoring_blocks(report.censoring, report.tasks),
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


def _best_of(report: Report) -> Section:
    rows = []
    for best in report.best_of:
        label = ", ".join(best.models) + (" (tie)" if len(best.models) > 1 else "")
        rows.append((best.task, best.phase, label, "; ".join(best.cells)))
    warn = frozenset(i for i, best in enumerate(report.best_of) if not best.complete)
    return Section(
        "best",
        "Best model per task",
        "The model with the highest strict accuracy per task, fixed and adaptive"
        + (" (for a task asked k times per question, avg@k)" if _repeated(report) else "")
        + ". Models with "
        "exactly the same accuracy are listed together. Being best is not being significantly "
        "better: see the pairwise comparisons.",
        [
            Block(
                table=table(
                    ("task", "comparison", "best", "accuracy"), rows, text_columns=3, warn=warn
                )
            )
        ],
    )
