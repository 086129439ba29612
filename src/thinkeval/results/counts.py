"""The outcome counts of a model on a task, and how one (sample, repeat)'s outcomes add to them.

`summary.json` holds these (`results.summary`); reports and `thinkeval status` count with them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import msgspec

from thinkeval.records import STATUSES, Attempt
from thinkeval.scoring.scorers import recording_scorers
from thinkeval.store.protocol_rules import Outcome, adaptive_outcome

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
    """The lenient scorer's accuracies, as summaries before version 4 wrote them: kept for
    older readers (the same numbers as `scorers["lenient"]`)."""

    fixed_accuracy: float = 0.0
    adaptive_accuracy: float = 0.0


class ScorerBlock(msgspec.Struct, kw_only=True):
    """One scorer's numbers: replies it counts correct in the fixed phase and after the
    adaptive one, over all (sample, repeat) pairs; `version` is the scorer's. Every recording
    scorer has one, and the judge (`judge`, its prompt version) once the run has been judged."""

    fixed_correct: int = 0
    fixed_accuracy: float = 0.0
    adaptive_correct: int = 0
    adaptive_accuracy: float = 0.0
    version: str | None = None  # None: read from a summary written before scorers were keyed

    @classmethod
    def of(cls, fixed: int, adaptive: int, total: int, version: str | None) -> ScorerBlock:
        """The block of `fixed` and `adaptive` correct replies out of `total`."""
        return cls(
            fixed_correct=fixed,
            fixed_accuracy=fixed / total if total else 0.0,
            adaptive_correct=adaptive,
            adaptive_accuracy=adaptive / total if total else 0.0,
            version=version,
        )


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
    # Per recording scorer, by name, in registry order (strict's too: the same as `fixed` and
    # `adaptive` say). Summaries before version 4 had only `lenient`: read into this.
    scorers: dict[str, ScorerBlock] = msgspec.field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.scorers:
            total = self.total
            self.scorers = {
                "strict": ScorerBlock(
                    fixed_correct=self.fixed.correct,
                    fixed_accuracy=self.fixed.accuracy,
                    adaptive_correct=self.adaptive.correct,
                    adaptive_accuracy=self.adaptive.accuracy,
                ),
                "lenient": ScorerBlock(
                    fixed_correct=round(self.lenient.fixed_accuracy * total),
                    fixed_accuracy=self.lenient.fixed_accuracy,
                    adaptive_correct=round(self.lenient.adaptive_accuracy * total),
                    adaptive_accuracy=self.lenient.adaptive_accuracy,
                ),
            }

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
        # Per recording scorer (registry order): correct replies, fixed phase and adaptive.
        self.scorers = recording_scorers()
        self.correct_fixed = [0] * len(self.scorers)
        self.correct_adaptive = [0] * len(self.scorers)

    def add(self, result: SampleResult | None) -> None:
        self.total += 1
        fixed, retry, adaptive = self.fixed, self.retry, self.adaptive
        if result is None or result.fixed is None:
            fixed.pending += 1
            adaptive.pending += 1
            return
        setattr(fixed, result.fixed.status, getattr(fixed, result.fixed.status) + 1)
        _add_clamped(fixed, result.fixed_clamped)
        by_scorer = self.correct_fixed
        for i, correct in enumerate(result.fixed.correct):
            if correct:
                by_scorer[i] += 1
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
            by_scorer = self.correct_adaptive
            for i, correct in enumerate(final.correct):
                if correct:
                    by_scorer[i] += 1

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
        scorers = {
            scorer.name: ScorerBlock.of(fixed_correct, adaptive_correct, total, scorer.version)
            for scorer, fixed_correct, adaptive_correct in zip(
                self.scorers, self.correct_fixed, self.correct_adaptive, strict=True
            )
        }
        known = scorers.get("lenient", ScorerBlock())
        lenient = LenientBlock(
            fixed_accuracy=known.fixed_accuracy, adaptive_accuracy=known.adaptive_accuracy
        )
        return Counts(
            total=total,
            fixed=fixed,
            retry=retry,
            adaptive=adaptive,
            lenient=lenient,
            scorers=scorers,
        )


def count(results: Iterable[SampleResult | None], budgets: tuple[int, int]) -> Counts:
    """Count outcomes; `None` stands for a sample with nothing recorded yet."""
    tally = Tally(budgets)
    for result in results:
        tally.add(result)
    return tally.counts()
