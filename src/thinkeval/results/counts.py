"""The outcome counts of a model on a task, and how one (sample, repeat)'s outcomes add to them.

`summary.json` holds these (`results.summary`); reports and `thinkeval status` count with them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import msgspec

from thinkeval.records import STATUSES, Attempt
from thinkeval.store.judge import Outcome, adaptive_outcome

OUTCOMES = (*STATUSES, "error")


@dataclass(slots=True)
class SampleResult:
    """The outcomes that count for one (sample, repeat) in each phase (None: nothing yet)."""

    fixed: Outcome | None = None
    retry: Outcome | None = None
    due: bool = False  # the judge's word: the fixed reply calls for the retry
    # max_tokens sent when the server's max_model_len cut it below the budget (0: not cut).
    fixed_clamped: int = 0
    retry_clamped: int = 0

    @staticmethod
    def sent_if_clamped(attempt: Attempt) -> int:
        """The max_tokens `attempt` was sent when max_model_len cut its budget, else 0."""
        return attempt.max_tokens if attempt.clamped_from is not None else 0

    @property
    def candidate(self) -> bool:
        return self.fixed is not None and self.due

    @property
    def adaptive(self) -> Outcome | None:
        """The retry outcome if the sample was retried, else the fixed one (None: pending)."""
        return adaptive_outcome(self.fixed, self.retry, self.candidate)


class OutcomeCounts(msgspec.Struct, kw_only=True):
    """How many samples ended in each outcome; `pending` ones have no reply recorded yet."""

    correct: int = 0
    wrong: int = 0
    no_answer: int = 0
    empty: int = 0
    unfinished: int = 0
    error: int = 0
    pending: int = 0
    refused: int = 0  # refused for good by the server (prompt over the window, bad parameter)


class _Clamped(OutcomeCounts, kw_only=True):
    # Replies whose max_tokens the server's max_model_len cut below the budget (the journal's
    # clamped_from), and the largest max_tokens such a reply was sent: the budget in effect.
    clamped: int = 0
    clamped_to: int | None = None


class FixedBlock(_Clamped, kw_only=True):
    budget: int
    accuracy: float = 0.0


class RetryBlock(_Clamped, kw_only=True):
    budget: int
    candidates: int = 0
    answered: int = 0  # retries that formed a legal final answer: correct + wrong


class AdaptiveBlock(OutcomeCounts, kw_only=True):
    accuracy: float = 0.0


class LenientBlock(msgspec.Struct, kw_only=True):
    fixed_accuracy: float = 0.0
    adaptive_accuracy: float = 0.0


class JudgeBlock(msgspec.Struct, kw_only=True):
    """The judge scorer's numbers (`thinkeval judge`), present once a run has been judged.

    Accuracies are over all samples, like strict's; a reply the judge has not read yet counts as
    not correct. `agreement` is the share of judged replies that strict read the same way.
    """

    fixed_accuracy: float = 0.0
    adaptive_accuracy: float = 0.0
    judged: int = 0
    not_judged: int = 0
    agreement: float = 0.0


class Counts(msgspec.Struct, kw_only=True):
    """The outcome counts of one model on one task (or one C-Eval subject).

    `total` counts (sample, repeat) pairs: the samples times the task's repeats.
    """

    total: int
    fixed: FixedBlock
    retry: RetryBlock
    adaptive: AdaptiveBlock
    lenient: LenientBlock

    @property
    def complete(self) -> bool:
        """Every sample has a reply in every phase the protocol asks for: nothing pending, and
        no transport error left (an accuracy is only a result when every sample has a reply)."""
        return not (
            self.fixed.pending or self.fixed.error or self.retry.pending or self.retry.error
        )


def _add_clamped(block: _Clamped, sent: int) -> None:
    if sent:
        block.clamped += 1
        block.clamped_to = max(block.clamped_to or 0, sent)


class Tally:
    """Counts outcomes one sample at a time; `None` stands for a sample with nothing recorded."""

    def __init__(self, budgets: tuple[int, int]) -> None:
        self.total = 0
        self.fixed = FixedBlock(budget=budgets[0])
        self.retry = RetryBlock(budget=budgets[1])
        self.adaptive = AdaptiveBlock()
        self.lenient_fixed = self.lenient_adaptive = 0

    def add(self, result: SampleResult | None) -> None:
        self.total += 1
        fixed, retry, adaptive = self.fixed, self.retry, self.adaptive
        if result is None or result.fixed is None:
            fixed.pending += 1
            adaptive.pending += 1
            return
        setattr(fixed, result.fixed.status, getattr(fixed, result.fixed.status) + 1)
        _add_clamped(fixed, result.fixed_clamped)
        self.lenient_fixed += result.fixed.lenient_correct
        if result.candidate:
            retry.candidates += 1
            if result.retry is None:
                retry.pending += 1
            else:
                setattr(retry, result.retry.status, getattr(retry, result.retry.status) + 1)
                _add_clamped(retry, result.retry_clamped)
        final = result.adaptive
        if final is None:
            adaptive.pending += 1
        else:
            setattr(adaptive, final.status, getattr(adaptive, final.status) + 1)
            self.lenient_adaptive += final.lenient_correct

    def counts(self) -> Counts:
        total = self.total
        fixed, retry, adaptive = (
            msgspec.structs.replace(self.fixed),
            msgspec.structs.replace(self.retry),
            msgspec.structs.replace(self.adaptive),
        )
        retry.answered = retry.correct + retry.wrong
        fixed.accuracy = fixed.correct / total if total else 0.0
        adaptive.accuracy = adaptive.correct / total if total else 0.0
        lenient = LenientBlock(
            fixed_accuracy=self.lenient_fixed / total if total else 0.0,
            adaptive_accuracy=self.lenient_adaptive / total if total else 0.0,
        )
        return Counts(total=total, fixed=fixed, retry=retry, adaptive=adaptive, lenient=lenient)


def count(results: Iterable[SampleResult | None], budgets: tuple[int, int]) -> Counts:
    """Count outcomes; `None` stands for a sample with nothing recorded yet."""
    tally = Tally(budgets)
    for result in results:
        tally.add(result)
    return tally.counts()
