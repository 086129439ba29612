"""The sample browser's code failures: why a code task's wrong program failed (failed_test,
crash, timeout, memory), as an index column to filter on and a badge with the excerpt of
stderr or stdout the verdict quotes.

The reason is the start of the strict verdict's rule (`scoring.kinds.code`), as the report's
code table reads it (`sections/outcomes/code_failures.py`, which takes `REASONS` from here):
only wrong replies of code tasks are read back from the journal, and a verdict recorded by an
older scorer is scored again. Long golds (a LiveCodeBench problem's tests) are shortened in the
index (`_golds.shown_gold`); the whole gold stays in the run's samples file.
"""

from __future__ import annotations

import msgspec
import numpy as np

from thinkeval.records import Verdict
from thinkeval.report._cells import ModelTask
from thinkeval.report._golds import shown_gold
from thinkeval.report._model_samples import ReplyView
from thinkeval.results.columns import CODE, ReplyColumns

NO_REASON = -1
__all__ = ["shown_gold"]  # kept here too, where the browser's code columns are

# Why a wrong program failed: the start of the strict verdict's rule (`scoring.kinds.code`).
REASONS = ("failed_test", "crash", "timeout", "memory")


def is_code(cell: ModelTask) -> bool:
    """Whether the cell's task judges programs (answer kind `code`)."""
    return cell.run.record.catalogue.get(cell.task).answer.name == "code"


def split_reason(verdict: Verdict | None) -> tuple[str, str] | None:
    """(reason, detail) of a wrong code verdict's rule (`crash: exit 1; stderr: ...`), or None."""
    if verdict is None or verdict.status != "wrong" or not verdict.rule:
        return None
    reason, _, detail = verdict.rule.partition(":")
    return (reason, detail.strip()) if reason in REASONS else None


def code_column(cell: ModelTask, replies: ReplyColumns, units: np.ndarray) -> np.ndarray:
    """The reason codes (into `REASONS`) of `replies` at `units`; -1 where the reply is not a
    wrong program. Only a code task's wrong replies are read back from the journal."""
    codes = np.full(len(units), NO_REASON, dtype=np.int32)
    if not is_code(cell):
        return codes
    spec = cell.run.record.catalogue.get(cell.task)
    for i in np.nonzero(replies.status[units] == CODE["wrong"])[0].tolist():
        unit = int(units[i])
        ref = int(replies.ref[unit])
        if not ref:
            continue
        scored = cell.samples.golds.scored(unit // cell.k, cell.run.read(ref), spec)
        found = split_reason(scored.strict)
        if found is not None:
            codes[i] = REASONS.index(found[0])
    return codes


def with_code_failure(view: ReplyView) -> ReplyView:
    """`view` with its code failure's reason and excerpt, when its strict verdict has one."""
    found = split_reason(_verdict(view))
    if found is None:
        return view
    return msgspec.structs.replace(view, code_reason=found[0], code_detail=found[1])


def _verdict(view: ReplyView) -> Verdict | None:
    strict = view.strict
    if strict is None:
        return None
    return Verdict(strict.status, strict.answer, strict.rule)  # type: ignore[arg-type]
