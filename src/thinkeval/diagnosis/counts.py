"""A run's diagnosis counts per model, task and phase, folded from its journal.

For each (model, task, phase) the replies that count (the first successful attempt of each
sample and repeat) are diagnosed: every empty, unfinished or `repetition` reply in full, a
finished one only for its reasoning length (cheap: the server's `reasoning_tokens`, else the
pieces of its reasoning), so the distribution of reasoning lengths covers every reply. The
lengths are kept as a histogram in `BIN`-token bins, from which the report draws the share
of replies still thinking at each token count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from thinkeval.diagnosis.checks import Finding, FindingCounter
from thinkeval.diagnosis.pieces import count as count_pieces
from thinkeval.diagnosis.reply import DIAGNOSIS_VERSION, Diagnosis, diagnose, reply_label
from thinkeval.records import PHASES, Attempt
from thinkeval.scoring.kinds.base import AnswerKind

if TYPE_CHECKING:
    from thinkeval.results.folds import CountedReply

BIN = 256  # tokens per bin of the reasoning-length histogram


class PhaseDiagnosis(msgspec.Struct, kw_only=True):
    """One phase's counts: reply labels (with `repetition` apart), diagnosis labels of the
    replies that did not finish, answers found in the reasoning, reasoning lengths."""

    replies: dict[str, int] = msgspec.field(default_factory=dict)
    labels: dict[str, int] = msgspec.field(default_factory=dict)
    found: int = 0  # found_then_lost replies ...
    found_correct: int = 0  # ... whose buried answer equals the gold
    reasoning_bins: list[int] = msgspec.field(default_factory=list)  # BIN-token histogram
    still_thinking: int = 0  # replies cut before their reasoning ended
    examples: dict[str, list[str]] = msgspec.field(default_factory=dict)  # label -> ids


class DiagnosisBlock(msgspec.Struct, kw_only=True):
    """The diagnosis of one model on one task: per phase, and the deployment findings."""

    version: str = DIAGNOSIS_VERSION
    bin_tokens: int = BIN
    phases: dict[str, PhaseDiagnosis] = msgspec.field(default_factory=dict)
    findings: list[Finding] = msgspec.field(default_factory=list)


class _Cell:
    def __init__(self) -> None:
        self.phases = {phase: PhaseDiagnosis() for phase in PHASES}
        self.checks = FindingCounter()


def reasoning_length(attempt: Attempt, diagnosis: Diagnosis | None) -> int:
    """Reasoning tokens as the server counted them, else its pieces."""
    if attempt.usage.reasoning_tokens is not None:
        return attempt.usage.reasoning_tokens
    if diagnosis is not None:
        return diagnosis.reasoning_pieces
    return count_pieces(attempt.reasoning or "")


# A reply the fold diagnosed, by its journal reference: its state, label and loop block (the
# report's sample index reads these instead of diagnosing the reply a second time).
Kept = dict[int, tuple[str | None, str | None, str | None]]
# At most this many replies are kept (a few hundred bytes each); past it the index diagnoses.
KEPT_REPLIES = 65_536


class DiagnosisFold:
    """The diagnosis blocks folded one reply at a time: `add` each reply that counts (the
    summary's counting pass hands them over, so nothing is kept per sample), `discard` a task
    whose pass is taken again, then `blocks`. With `kept`, the labels of the replies it
    diagnosed are kept there by journal reference."""

    def __init__(self, kinds: dict[str, AnswerKind], kept: Kept | None = None) -> None:
        self.kinds = kinds
        self.cells: dict[tuple[str, str], _Cell] = {}
        self.kept = kept

    def add(self, reply: CountedReply) -> None:
        found = self.add_attempt(reply.attempt, reply.gold)
        if found is not None and self.kept is not None and len(self.kept) < KEPT_REPLIES:
            block = found.loop.block_text if found.loop is not None else None
            self.kept[reply.ref] = (reply.state, found.label, block)

    def add_attempt(self, attempt: Attempt, gold: str | None = None) -> Diagnosis | None:
        """Fold one reply that counts (its gold: the sample's, else the one it recorded); its
        diagnosis when it did not finish."""
        if attempt.error is not None:
            return None
        cell = self.cells.setdefault((attempt.model, attempt.task), _Cell())
        kind = self.kinds.get(attempt.task)
        return _add(cell, attempt, kind, attempt.gold if gold is None else gold)

    def discard(self, task: str) -> None:
        for where in [where for where in self.cells if where[1] == task]:
            del self.cells[where]

    def blocks(self) -> dict[tuple[str, str], DiagnosisBlock]:
        return {
            where: DiagnosisBlock(
                phases={p: c for p, c in cell.phases.items() if c.replies},
                findings=cell.checks.findings(),
            )
            for where, cell in self.cells.items()
        }


def _add(
    cell: _Cell, attempt: Attempt, kind: AnswerKind | None, gold: str | None
) -> Diagnosis | None:
    phase = cell.phases[attempt.phase]
    label = reply_label(attempt.state, attempt.finish_reason)
    phase.replies[label] = phase.replies.get(label, 0) + 1
    diagnosis = None
    if label != "finished":
        diagnosis = diagnose(
            attempt.reasoning,
            attempt.content,
            attempt.finish_reason,
            attempt.state,
            kind,
            gold,
        )
        assert diagnosis.label is not None
        phase.labels[diagnosis.label] = phase.labels.get(diagnosis.label, 0) + 1
        examples = phase.examples.setdefault(diagnosis.label, [])
        if len(examples) < 5:
            examples.append(attempt.sample_id)
        if diagnosis.label == "found_then_lost":
            phase.found += 1
            phase.found_correct += diagnosis.found_correct is True
        if diagnosis.content_pieces == 0 and diagnosis.has_reasoning:
            phase.still_thinking += 1
    else:
        # Cheap for finished replies: only what the checks need (think tags, reasoning).
        diagnosis = Diagnosis(
            version=DIAGNOSIS_VERSION,
            reply="finished",
            has_reasoning=bool((attempt.reasoning or "").strip()),
            think_in_content="<think>" in (attempt.content or "")
            or "</think>" in (attempt.content or ""),
        )
        if not attempt.reasoning and diagnosis.think_in_content:
            diagnosis.has_reasoning = True  # it came back, in the wrong field
    bin_index = reasoning_length(attempt, diagnosis if label != "finished" else None) // BIN
    bins = phase.reasoning_bins
    bins.extend([0] * (bin_index + 1 - len(bins)))
    bins[bin_index] += 1
    cell.checks.add(attempt, diagnosis)
    return diagnosis if label != "finished" else None
