"""The sample browser's diagnosis of a reply: its label, and the loop's block to highlight.

The sample index's diagnosis columns are computed when the index is built (`Catalog`), for
the replies that did not finish only: those are read back from the journal and diagnosed
(milliseconds each, docs/diagnosis.md#cost); a finished reply costs nothing.
"""

from __future__ import annotations

import msgspec
import numpy as np

from thinkeval.diagnosis import LABELS, diagnose
from thinkeval.records import Attempt
from thinkeval.report._cells import ModelTask
from thinkeval.report._columns import RETRY_CODES, Replies
from thinkeval.report._model_samples import ReplyView
from thinkeval.tasks.spec import TaskSpec

# The sample index's diagnosis codes: positions in this tuple.
DIAGNOSES: tuple[str, ...] = LABELS
NO_DIAGNOSIS = -1


def diagnosis_code(attempt: Attempt, state: str | None, spec: TaskSpec, gold: str | None) -> int:
    """The index column's code of a reply's diagnosis (-1: it finished, or is an error).

    Only replies that did not finish (`state`) are diagnosed.
    """
    if attempt.error is not None or state in (None, "finished"):
        return NO_DIAGNOSIS
    found = diagnose(
        attempt.reasoning, attempt.content, attempt.finish_reason, state,
        spec.answer, gold,
    )  # fmt: skip
    return DIAGNOSES.index(found.label) if found.label in DIAGNOSES else NO_DIAGNOSIS


def diagnosis_column(cell: ModelTask, replies: Replies, units: np.ndarray) -> np.ndarray:
    """The diagnosis codes of `replies` at `units`: only the replies that did not finish
    (empty or unfinished, a few of a run's) are read back from the journal and diagnosed."""
    codes = np.full(len(units), NO_DIAGNOSIS, dtype=np.int32)
    spec = cell.run.record.task(cell.task).spec
    for i in np.nonzero(np.isin(replies.status[units], RETRY_CODES))[0].tolist():
        unit = int(units[i])
        attempt, position = cell.run.read(int(replies.ref[unit])), unit // cell.k
        golds = cell.samples.golds
        state = golds.state(position, attempt, spec)
        codes[i] = diagnosis_code(attempt, state, spec, golds.for_diagnosis(position))
    return codes


def with_diagnosis(
    view: ReplyView, attempt: Attempt, gold: str | None, spec: TaskSpec
) -> ReplyView:
    """`view` with the diagnosis of a reply that did not finish (a finished one unchanged)."""
    if attempt.error is not None or attempt.state == "finished":
        return view
    found = diagnose(
        attempt.reasoning, attempt.content, attempt.finish_reason, attempt.state,
        spec.answer, gold,
    )  # fmt: skip
    block = found.loop.block_text if found.loop is not None else None
    return msgspec.structs.replace(view, diagnosis=found.label, loop_block=block)
