"""What the summary folds from the replies that count, in its counting pass.

Counting already reads back, per (sample, repeat) and phase, the one attempt that counts
(`store.protocol_rules`), so anything else measured over those replies (the read model's columns,
the diagnosis, the reasoning check) is folded there too: no second pass over the journals and
nothing kept per sample to find which attempt counts. A pooled kind's task can be counted twice (its
stale verdicts are scored again in the workers first), so a fold can `discard` what it saw of one
task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from thinkeval.records import Attempt, ReplyState
from thinkeval.store.protocol_rules import Outcome

__all__ = ["CountedReply", "Folds", "ReplyFold"]


@dataclass(frozen=True, slots=True)
class CountedReply:
    """One reply that counts, as the counting pass read and judged it."""

    attempt: Attempt
    gold: str
    outcome: Outcome
    ref: int  # where it lies in the journals (`store.counted.Journals.read`)
    unit: int  # position of its sample in the samples file * repeats + its repeat
    state: ReplyState | None  # `store.protocol_rules.attempt_state`; None: an error
    due: bool  # a fixed reply the judge of the protocol retries at B2


class ReplyFold(Protocol):
    """Sees each reply that counts."""

    def add(self, reply: CountedReply) -> None: ...

    def discard(self, task: str) -> None: ...


class Folds:
    """Several folds fed as one."""

    def __init__(self, *folds: ReplyFold) -> None:
        self.folds = folds

    def add(self, reply: CountedReply) -> None:
        for folded in self.folds:
            folded.add(reply)

    def discard(self, task: str) -> None:
        for folded in self.folds:
            folded.discard(task)
