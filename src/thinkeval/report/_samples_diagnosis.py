"""The sample browser's diagnosis of a reply: its label, and the loop's block to highlight.

The sample index's diagnosis columns are computed when the index is built (`Catalog`), for
the replies that did not finish only: those the counting pass diagnosed are read from its
`RunData.diagnosed`, the others read back from the journal and diagnosed (milliseconds each,
docs/diagnosis.md#cost); a finished reply costs nothing. What the index
found is kept (`Diagnosed`: a label and a loop's block per reply), so a reply's view in the
HTML file or the viewer shows it without diagnosing the reply again.
"""

from __future__ import annotations

import msgspec
import numpy as np

from thinkeval.diagnosis import LABELS, Diagnosis, diagnose
from thinkeval.records import Attempt
from thinkeval.report._cells import ModelTask, RunData
from thinkeval.report._model_samples import ReplyView
from thinkeval.results.columns import RETRY_CODES, ReplyColumns
from thinkeval.tasks.spec import TaskSpec

# The sample index's diagnosis codes: positions in this tuple.
DIAGNOSES: tuple[str, ...] = LABELS
NO_DIAGNOSIS = -1


# At most this many replies' diagnoses are kept for their views (a few hundred bytes each);
# past it a view diagnoses its reply again.
KEPT_DIAGNOSES = 65_536
# A reply in the index: its run, journal reference and state as the index read it.
_Key = tuple[RunData, int, str | None]


class Diagnosed:
    """The diagnoses the index made, by reply: (label, the loop's block or None)."""

    def __init__(self) -> None:
        self.kept: dict[_Key, tuple[str | None, str | None]] = {}

    def keep(self, key: _Key, found: Diagnosis) -> None:
        self.keep_label(key, found.label, found.loop.block_text if found.loop else None)

    def keep_label(self, key: _Key, label: str | None, block: str | None) -> None:
        if len(self.kept) < KEPT_DIAGNOSES:
            self.kept[key] = (label, block)


def _diagnose(attempt: Attempt, state: str | None, spec: TaskSpec, gold: str | None) -> Diagnosis:
    return diagnose(
        attempt.reasoning, attempt.content, attempt.finish_reason, state,
        spec.answer, gold,
    )  # fmt: skip


def _code(found: Diagnosis) -> int:
    return DIAGNOSES.index(found.label) if found.label in DIAGNOSES else NO_DIAGNOSIS


def diagnosis_column(
    cell: ModelTask, replies: ReplyColumns, units: np.ndarray, diagnosed: Diagnosed | None = None
) -> np.ndarray:
    """The diagnosis codes of `replies` at `units`: only the replies that did not finish
    (empty or unfinished, a few of a run's) are read back from the journal and diagnosed,
    and kept in `diagnosed`."""
    codes = np.full(len(units), NO_DIAGNOSIS, dtype=np.int32)
    spec = cell.run.record.task(cell.task).spec
    for i in np.nonzero(np.isin(replies.status[units], RETRY_CODES))[0].tolist():
        unit, ref = int(units[i]), int(replies.ref[units[i]])
        if (folded := cell.run.diagnosed.get(ref)) is not None:  # diagnosed in the pass
            state, label, block = folded
            if state not in (None, "finished"):
                codes[i] = DIAGNOSES.index(label) if label in DIAGNOSES else NO_DIAGNOSIS
                if diagnosed is not None:
                    diagnosed.keep_label((cell.run, ref, state), label, block)
            continue
        attempt, position, golds = cell.run.read(ref), unit // cell.k, cell.samples.golds
        state = golds.state(position, attempt, spec)
        if attempt.error is not None or state in (None, "finished"):
            continue
        found = _diagnose(attempt, state, spec, golds.for_diagnosis(position))
        codes[i] = _code(found)
        if diagnosed is not None:
            diagnosed.keep((cell.run, ref, state), found)
    return codes


def with_diagnosis(
    view: ReplyView,
    attempt: Attempt,
    gold: str | None,
    spec: TaskSpec,
    diagnosed: Diagnosed | None = None,
    where: tuple[RunData, int] | None = None,
) -> ReplyView:
    """`view` with the diagnosis of a reply that did not finish (a finished one unchanged):
    the index's, kept in `diagnosed` for the reply at `where` (its run and journal reference)
    when it read the same state, else diagnosed here."""
    if attempt.error is not None or attempt.state == "finished":
        return view
    kept = None
    if diagnosed is not None and where is not None:
        kept = diagnosed.kept.get((*where, attempt.state))
    if kept is None:
        found = _diagnose(attempt, attempt.state, spec, gold)
        kept = found.label, found.loop.block_text if found.loop is not None else None
    return msgspec.structs.replace(view, diagnosis=kept[0], loop_block=kept[1])
