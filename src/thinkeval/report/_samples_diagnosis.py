"""The sample browser's diagnosis of a reply: its label, and the loop's block to highlight."""

from __future__ import annotations

import msgspec

from thinkeval.diagnosis import diagnose
from thinkeval.records import Attempt
from thinkeval.report._model_samples import ReplyView
from thinkeval.tasks.spec import TaskSpec


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
