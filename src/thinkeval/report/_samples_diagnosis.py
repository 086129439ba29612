"""The sample browser's diagnosis of a reply: its label, and the loop's block to highlight."""

from __future__ import annotations

import msgspec

from thinkeval.diagnosis import LABELS, diagnose
from thinkeval.records import Attempt
from thinkeval.report._model_samples import ReplyView
from thinkeval.tasks.spec import TaskSpec

# The sample index's diagnosis codes: positions in this tuple.
DIAGNOSES: tuple[str, ...] = LABELS
NO_DIAGNOSIS = -1


def diagnosis_code(attempt: Attempt, state: str | None, spec: TaskSpec, gold: str) -> int:
    """The index column's code of a reply's diagnosis (-1: it finished, or is an error).

    Only replies that did not finish (`state`) are diagnosed, from the texts the journal read
    already, so building the index reads nothing more.
    """
    if attempt.error is not None or state in (None, "finished"):
        return NO_DIAGNOSIS
    found = diagnose(
        attempt.reasoning, attempt.content, attempt.finish_reason, state,
        spec.answer, gold,
    )  # fmt: skip
    return DIAGNOSES.index(found.label) if found.label in DIAGNOSES else NO_DIAGNOSIS


def with_diagnosis(view: ReplyView, attempt: Attempt, gold: str, spec: TaskSpec) -> ReplyView:
    """`view` with the diagnosis of a reply that did not finish (a finished one unchanged)."""
    if attempt.error is not None or attempt.state == "finished":
        return view
    found = diagnose(
        attempt.reasoning, attempt.content, attempt.finish_reason, attempt.state,
        spec.answer, gold,
    )  # fmt: skip
    block = found.loop.block_text if found.loop is not None else None
    return msgspec.structs.replace(view, diagnosis=found.label, loop_block=block)
