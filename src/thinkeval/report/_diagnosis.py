"""Each run's diagnosis blocks, shared by the read model's collection and `thinkeval compare`:
read from `summary.json` when it is newer than the journal and of the current diagnosis version
(`stored_diagnosis`, else `_collect` folds them in the read model's counting pass), and a side's
loop counts for compare (`loop_counts`). The diagnosis section adds them up over combined runs
(`sections/diagnosis.py`).
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from thinkeval.diagnosis.counts import DiagnosisBlock
from thinkeval.diagnosis.reply import DIAGNOSIS_VERSION
from thinkeval.report._cells import ModelTask
from thinkeval.store.journal import journal_files
from thinkeval.store.rundir import SUMMARY_FILE


def stored_diagnosis(run_dir: Path) -> dict[tuple[str, str], DiagnosisBlock] | None:
    """The blocks `summary.json` holds, when it is newer than every journal file and of this
    diagnosis version (None: fold them in the read model's pass, `diagnosis.DiagnosisFold`)."""
    path = run_dir / SUMMARY_FILE
    journals = journal_files(run_dir)
    if not path.is_file() or not journals:
        return None
    if path.stat().st_mtime < max(j.stat().st_mtime for j in journals):
        return None
    try:
        summary = msgspec.json.decode(path.read_bytes(), type=_Stored)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    blocks = {(r.model, r.task): r.diagnosis for r in summary.results if r.diagnosis is not None}
    if any(block.version != DIAGNOSIS_VERSION for block in blocks.values()):
        return None
    return blocks


class _StoredResult(msgspec.Struct):
    model: str
    task: str
    diagnosis: DiagnosisBlock | None = None


class _Stored(msgspec.Struct):
    results: list[_StoredResult]


def loop_counts(mt: ModelTask) -> dict[str, int]:
    """A side's loops for `thinkeval compare` (`SideData.extra`): final replies that loop
    (`loops`: the retry's, since every looping fixed reply is retried) and fixed ones."""
    block = mt.run.diagnosis.get((mt.model, mt.task))
    if block is None:
        return {}
    fixed, retry = block.phases.get("fixed"), block.phases.get("retry")
    return {
        "loops": retry.labels.get("loop", 0) if retry else 0,
        "loops_fixed": fixed.labels.get("loop", 0) if fixed else 0,
    }
