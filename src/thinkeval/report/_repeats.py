"""What the sections share about tasks asked k times per question (`repeats: k`): each model and
task's questions and metrics (the read model's `QuestionsFold`), read by the repeated-sampling
section and the pairs section, and the note the headline and outcomes put under such a task.
"""

from __future__ import annotations

from thinkeval.report._cells import Collection
from thinkeval.report._model import Report
from thinkeval.results.questions import RepeatDetails


def details(data: Collection) -> dict[tuple[str, str], RepeatDetails]:
    """Per (model, task) asked more than once per question: its questions and metrics."""
    found: dict[tuple[str, str], RepeatDetails] = {}
    for run in data.runs:
        found.update(run.questions)
    return found


def units_note(report: Report, task: str) -> str | None:
    """For a task asked k times per question: what its counts count."""
    k = report.repeats[task]
    if k == 1:
        return None
    return (
        f"{task} is asked {k} times per question: these counts are over (question, repeat) "
        f"replies (questions × {k}), each through the protocol on its own, so the accuracy is "
        f"avg@{k}; pass@k, maj@k and their intervals are in Repeated sampling."
    )
