"""The report's diagnosis rows: each model and task's `DiagnosisBlock`.

Read from `summary.json` when it is newer than the journal and of the current diagnosis
version, else folded in the read model's counting pass (`_collect`, never calling a model);
combined runs add up.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from thinkeval.diagnosis.counts import DiagnosisBlock, PhaseDiagnosis
from thinkeval.diagnosis.reply import DIAGNOSIS_VERSION
from thinkeval.report._cells import Collection, ModelTask
from thinkeval.report._frozen import Frozen
from thinkeval.store.journal import journal_files
from thinkeval.store.rundir import SUMMARY_FILE


class DiagnosisRow(Frozen, frozen=True):
    """One model on one task."""

    model: str
    task: str
    block: DiagnosisBlock


def diagnosis_rows(data: Collection) -> list[DiagnosisRow]:
    """One row per model and task that has replies, in the report's order."""
    merged: dict[tuple[str, str], DiagnosisBlock] = {}
    for run in data.runs:
        for key, block in run.diagnosis.items():
            merged[key] = _add(merged[key], block) if key in merged else block
    return [
        DiagnosisRow(model=mt.model, task=mt.task, block=merged[(mt.model, mt.task)])
        for mt in data.ordered()
        if (mt.model, mt.task) in merged
    ]


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


def _add(one: DiagnosisBlock, other: DiagnosisBlock) -> DiagnosisBlock:
    phases = dict(one.phases)
    for name, phase in other.phases.items():
        mine = phases.get(name)
        phases[name] = phase if mine is None else _add_phase(mine, phase)
    counts = {f.check: f for f in one.findings}
    for finding in other.findings:
        if finding.check in counts:
            counts[finding.check].count += finding.count
        else:
            counts[finding.check] = finding
    return DiagnosisBlock(phases=phases, findings=list(counts.values()))


def _add_phase(one: PhaseDiagnosis, other: PhaseDiagnosis) -> PhaseDiagnosis:
    def plus(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
        return {k: a.get(k, 0) + b.get(k, 0) for k in {**a, **b}}

    length = max(len(one.reasoning_bins), len(other.reasoning_bins))
    bins = [0] * length
    for source in (one.reasoning_bins, other.reasoning_bins):
        for i, count in enumerate(source):
            bins[i] += count
    return PhaseDiagnosis(
        replies=plus(one.replies, other.replies),
        labels=plus(one.labels, other.labels),
        found=one.found + other.found,
        found_correct=one.found_correct + other.found_correct,
        reasoning_bins=bins,
        still_thinking=one.still_thinking + other.still_thinking,
        examples={
            k: (one.examples.get(k, []) + other.examples.get(k, []))[:5]
            for k in {**one.examples, **other.examples}
        },
    )


def still_thinking(bins: list[int], bin_tokens: int) -> tuple[list[float], list[float]]:
    """(token counts, share of replies whose reasoning is longer): the reasoning-length
    survival curve, one point per bin edge.

    >>> still_thinking([1, 1, 2], 100)
    ([0.0, 100.0, 200.0, 300.0], [1.0, 0.75, 0.5, 0.0])
    """
    total = sum(bins)
    x = [float(i * bin_tokens) for i in range(len(bins) + 1)]
    left, shares = total, [1.0 if total else 0.0]
    for count in bins:
        left -= count
        shares.append(left / total if total else 0.0)
    return x, shares


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
