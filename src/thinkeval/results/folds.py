"""What the summary folds from the replies that count, in its counting pass.

Counting already reads back, per (sample, repeat) and phase, the one attempt that counts
(`store.judge`), so anything else measured over those replies (the diagnosis, the reasoning
check) is folded there too: no second pass over the journals and nothing kept per sample to
find which attempt counts. A pooled kind's task can be counted twice (its stale verdicts are
scored again in the workers first), so a fold can `discard` what it saw of one task.
"""

from __future__ import annotations

from typing import Protocol

from thinkeval.records import Attempt

__all__ = ["Folds", "ReplyFold"]


class ReplyFold(Protocol):
    """Sees each reply that counts, with its sample's gold."""

    def add(self, attempt: Attempt, gold: str | None = None) -> None: ...

    def discard(self, task: str) -> None: ...


class Folds:
    """Several folds fed as one."""

    def __init__(self, *folds: ReplyFold) -> None:
        self.folds = folds

    def add(self, attempt: Attempt, gold: str | None = None) -> None:
        for folded in self.folds:
            folded.add(attempt, gold)

    def discard(self, task: str) -> None:
        for folded in self.folds:
            folded.discard(task)
