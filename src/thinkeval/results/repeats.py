"""Metrics of repeated sampling: a task asked `k` times per question (`repeats: k`).

Every (question, repeat) goes through the protocol on its own; these metrics then look at the
`k` outcomes of each question, per phase (fixed, and adaptive: after the one retry):

* **avg@k**: the mean accuracy over all replies, with a 95% interval from a bootstrap that
  resamples *questions* (the `k` replies to one question are correlated, so resampling replies
  would make the interval too narrow).
* **pass@j** for j = 1, 2, 4, ... up to k: the chance that at least one of j replies drawn
  without replacement from the k is correct, by the unbiased estimator of Chen et al. (2021),
  averaged over questions. pass@1 equals avg@k.
* **maj@k**: whether the most frequent final answer is correct. Only replies with a legal final
  answer vote (correct or wrong); empty, unfinished, no_answer and failed replies never do, and a
  question without a vote counts as not correct. Equivalent answers are one vote (for maths,
  Math-Verify equivalence). Ties split the credit: when t answers tie for the most votes and c of
  them are correct, the question counts c / t (the expected score of breaking the tie at random).
* the **solve-rate distribution**: how many questions were solved 0, 1, ..., k times.

Pending replies (not recorded yet) count as not correct and do not vote, as in the counts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import msgspec

from thinkeval.scoring.kinds import AnswerKind

RESAMPLES = 10_000
CONFIDENCE = 0.95


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one question with `c` correct replies out of `n` (Chen et al.
    2021): 1 - C(n - c, k) / C(n, k), computed as a product so it never overflows.

    >>> pass_at_k(4, 1, 1), pass_at_k(4, 1, 2), pass_at_k(4, 0, 4), pass_at_k(4, 3, 2)
    (0.25, 0.5, 0.0, 1.0)
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def pass_ks(k: int) -> list[int]:
    """The j of pass@j reported for k repeats: powers of two below k, and k.

    >>> pass_ks(4), pass_ks(6), pass_ks(1)
    ([1, 2, 4], [1, 2, 4, 6], [1])
    """
    ks = [1 << i for i in range(k.bit_length()) if 1 << i < k]
    return [*ks, k]


def group_answers(kind: AnswerKind, answers: Sequence[str]) -> list[int]:
    """A group number per answer: equal numbers for answers `kind` finds equivalent.

    Each answer joins the first group whose first answer it matches (as the gold of the
    comparison); a comparison that times out counts as different. Pooled kinds run this in a
    scoring worker (`scoring.pool`).

    >>> from thinkeval.scoring.kinds import make_kind
    >>> group_answers(make_kind("number"), ["18", "18.0", "7", "18"])
    [0, 0, 1, 0]
    """
    groups = _groups(answers, lambda answer, first: _equivalent(kind, answer, first))
    assert groups is not None  # every comparison is decided
    return groups


def _groups(answers: Sequence[str], same: Callable[[str, str], bool | None]) -> list[int] | None:
    """Group numbers by `same(answer, first answer of a group)`; None when `same` leaves a
    comparison undecided (None)."""
    firsts: list[str] = []
    groups = []
    for answer in answers:
        for number, first in enumerate(firsts):
            decided = answer == first or same(answer, first)
            if decided is None:
                return None
            if decided:
                groups.append(number)
                break
        else:
            firsts.append(answer)
            groups.append(len(firsts) - 1)
    return groups


def _equivalent(kind: AnswerKind, answer: str, first: str) -> bool:
    try:
        return kind.matches(answer, first)
    except TimeoutError:
        return False


def majority_credit(correct: Sequence[bool], groups: Sequence[int]) -> float:
    """maj@k of one question from its voting replies: whether each is correct, and its answer
    group (`group_answers`). A group is as correct as its first reply; ties split the credit.

    >>> majority_credit([True, False, True], [0, 1, 0])
    1.0
    >>> majority_credit([True, False], [0, 1])  # a tie between a right and a wrong answer
    0.5
    >>> majority_credit([], [])  # nobody voted
    0.0
    """
    if not groups:
        return 0.0
    sizes: dict[int, int] = {}
    right: dict[int, bool] = {}
    for is_correct, group in zip(correct, groups, strict=True):
        sizes[group] = sizes.get(group, 0) + 1
        right.setdefault(group, is_correct)
    most = max(sizes.values())
    top = [group for group, size in sizes.items() if size == most]
    return sum(right[group] for group in top) / len(top)


@dataclass
class Votes:
    """The voting replies of one question in one phase: answers and whether each is correct."""

    answers: list[str] = field(default_factory=list)
    correct: list[bool] = field(default_factory=list)


@dataclass
class QuestionPhase:
    """One question in one phase: correct replies out of k, and the votes."""

    solved: int
    votes: Votes
    groups: list[int] | None = None  # filled in by `group_votes`

    @property
    def tie(self) -> bool:
        if not self.groups:
            return False
        sizes = [self.groups.count(g) for g in set(self.groups)]
        return sizes.count(max(sizes)) > 1

    @property
    def majority(self) -> float:
        if self.groups is None and self.votes.answers:
            raise ValueError("group the answers first (group_votes)")
        return majority_credit(self.votes.correct, self.groups or [])


def question_phase(outcomes: Sequence[tuple[str, str | None] | None]) -> QuestionPhase:
    """A question's phase from its k outcomes, each `(status, answer)` or None (pending)."""
    votes = Votes()
    solved = 0
    for outcome in outcomes:
        if outcome is None:
            continue
        status, answer = outcome
        solved += status == "correct"
        if status in ("correct", "wrong") and answer is not None:
            votes.answers.append(answer)
            votes.correct.append(status == "correct")
    return QuestionPhase(solved, votes)


def group_votes(kind: AnswerKind, phases: Sequence[QuestionPhase]) -> None:
    """Group every question's answers by equivalence (pooled kinds in parallel, in workers,
    unless the kind's `quick_matches` settles every comparison of a question)."""
    if kind.pooled:
        from thinkeval.scoring.pool import missing, shared_pool

        for phase in phases:
            phase.groups = _groups(phase.votes.answers, kind.quick_matches)
        todo = [p for p in phases if p.groups is None and len(set(p.votes.answers)) > 1]
        results = shared_pool().map(group_answers, [(kind, p.votes.answers) for p in todo])
        for phase, result in zip(todo, results, strict=True):
            # A question whose answers could not be compared in time groups by exact text.
            phase.groups = _by_text(phase.votes.answers) if missing(result) else result
        for phase in phases:
            if phase.groups is None:
                phase.groups = _by_text(phase.votes.answers)
    else:
        for phase in phases:
            phase.groups = group_answers(kind, phase.votes.answers)


def _by_text(answers: Sequence[str]) -> list[int]:
    numbers: dict[str, int] = {}
    return [numbers.setdefault(answer, len(numbers)) for answer in answers]


# Summary blocks --------------------------------------------------------------------------------


class Interval(msgspec.Struct, kw_only=True):
    """An estimate and its 95% interval (bootstrap over questions)."""

    value: float
    low: float
    high: float


class PhaseRepeats(msgspec.Struct, kw_only=True):
    """One phase of a repeated task: avg@k, pass@j, maj@k, and how often questions were solved.

    `pass_at` is keyed by j ("1", "2", "4", ...); `solved[c]` counts the questions solved in
    exactly c of the k repeats; `no_vote` counts questions where no reply had a final answer;
    `ties` counts questions whose majority was a tie (credit split).
    """

    avg: Interval
    pass_at: dict[str, Interval]
    maj: Interval
    solved: list[int]
    no_vote: int
    ties: int


class RepeatsBlock(msgspec.Struct, kw_only=True):
    """The repeated-sampling metrics of one model on one task (`repeats` > 1)."""

    k: int
    questions: int
    confidence: float = CONFIDENCE
    resamples: int = RESAMPLES
    fixed: PhaseRepeats
    adaptive: PhaseRepeats


def per_question_values(k: int, phase: Sequence[QuestionPhase]) -> list[list[float]]:
    """One row per question: avg, pass@j for each j of `pass_ks(k)`, maj."""
    return [
        [q.solved / k, *(pass_at_k(k, q.solved, j) for j in pass_ks(k)), q.majority] for q in phase
    ]


def phase_repeats(k: int, phase: Sequence[QuestionPhase], seed: int = 0) -> PhaseRepeats:
    """avg@k, pass@j, maj@k with intervals, and the solve-rate distribution of one phase."""
    from thinkeval.results.stats import cluster_bootstrap

    if not phase:
        raise ValueError("no questions: repeated-sampling metrics need at least one")
    result = cluster_bootstrap(per_question_values(k, phase), RESAMPLES, seed, CONFIDENCE)
    intervals = [
        Interval(value=m, low=lo, high=hi)
        for m, lo, hi in zip(result.means, result.lows, result.highs, strict=True)
    ]
    solved = [0] * (k + 1)
    for question in phase:
        solved[question.solved] += 1
    return PhaseRepeats(
        avg=intervals[0],
        pass_at={str(j): interval for j, interval in zip(pass_ks(k), intervals[1:-1], strict=True)},
        maj=intervals[-1],
        solved=solved,
        no_vote=sum(not q.votes.answers for q in phase),
        ties=sum(q.tie for q in phase),
    )


def compare_per_question(a: Sequence[float], b: Sequence[float], seed: int = 0) -> Interval:
    """Model A minus model B on the same questions (per-question accuracies, e.g. solved / k),
    with a paired bootstrap interval that resamples questions, never single replies.

    >>> compare_per_question([1.0, 0.5, 0.75], [0.5, 0.5, 0.25]).value
    0.3333333333333333
    """
    from thinkeval.results.stats import cluster_bootstrap

    if len(a) != len(b):
        raise ValueError(f"a has {len(a)} questions but b has {len(b)}: compare the same ones")
    result = cluster_bootstrap([[x - y] for x, y in zip(a, b, strict=True)], RESAMPLES, seed)
    return Interval(value=result.means[0], low=result.lows[0], high=result.highs[0])
