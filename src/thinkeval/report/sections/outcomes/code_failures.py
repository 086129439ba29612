"""The report's code table: why the wrong programs of code tasks (HumanEval, LiveCodeBench)
failed, per model, task and phase: a failed test, a crash, a time-out or a memory-out.

The reason is the start of the strict verdict's rule (`scoring.kinds.code`), read from the
journal as the sample browser reads it; a verdict recorded by an older scorer is scored again
(a long gold's recorded verdicts count where they are current: `_golds`).
"""

from __future__ import annotations

import numpy as np

from thinkeval.report._cells import Collection, ModelTask
from thinkeval.report._frozen import Frozen
from thinkeval.report._samples_code import REASONS
from thinkeval.results.columns import CODE

HEADERS = ("model", "phase", "wrong", *REASONS)


class CodeFailuresRow(Frozen, frozen=True):
    """The wrong verdicts of one model on one code task in one phase, by reason."""

    model: str
    task: str
    phase: str  # "fixed" or "adaptive"
    wrong: int
    failed_test: int = 0
    crash: int = 0
    timeout: int = 0
    memory: int = 0


def code_failure_rows(data: Collection) -> list[CodeFailuresRow]:
    """A row per model, code task and phase (fixed, adaptive); none without code tasks."""
    rows = []
    for cell in data.ordered():
        if cell.run.record.task(cell.task).spec.answer.name != "code":
            continue
        for phase in ("fixed", "adaptive"):
            rows.append(_row(cell, phase))
    return rows


def _row(cell: ModelTask, phase: str) -> CodeFailuresRow:
    spec = cell.run.record.task(cell.task).spec
    counts = dict.fromkeys(REASONS, 0)
    wrong = np.nonzero(cell.status(phase) == CODE["wrong"])[0]
    for unit in wrong:
        retried = phase == "adaptive" and bool(cell.candidate[unit])
        replies = cell.retry if retried else cell.fixed
        ref = int(replies.ref[unit])
        if not ref:
            continue
        strict = cell.samples.golds.scored(int(unit) // cell.k, cell.run.read(ref), spec).strict
        reason = (strict.rule or "").partition(":")[0] if strict is not None else ""
        if reason in counts:
            counts[reason] += 1
    return CodeFailuresRow(
        model=cell.model, task=cell.task, phase=phase, wrong=len(wrong), **counts
    )


def table_rows(rows: list[CodeFailuresRow], task: str) -> list[tuple[str, ...]]:
    """The table's cells for `task`."""
    return [
        (r.model, r.phase, str(r.wrong), str(r.failed_test), str(r.crash), str(r.timeout),
         str(r.memory))
        for r in rows
        if r.task == task
    ]  # fmt: skip
