"""The pairs section's rows: two models compared on the samples both answered, or on avg@k over
the questions both answered in every repeat."""

from __future__ import annotations

from thinkeval.report._frozen import Frozen
from thinkeval.report._model import Comparison


class PairSide(Frozen, frozen=True):
    """One model's side of a pairwise comparison, on the compared samples only."""

    model: str
    correct: int
    accuracy: float
    wilson_low: float
    wilson_high: float
    # Samples both were asked that this model has no answer for (an `error`, or nothing yet):
    # left out of the comparison, so that a failed request is never scored as a wrong answer.
    errors: int
    pending: int


class PairRow(Frozen, frozen=True):
    """Model `a` against model `b` on the samples both answered, in one comparison."""

    task: str
    phase: Comparison
    a: PairSide
    b: PairSide
    asked: int  # samples both were asked
    n: int  # samples both answered (verdicts on both sides): the compared samples
    left_out: int  # asked - n: an error or no reply yet on at least one side
    point_weight: float  # 100 / n: percentage points one question is worth
    difference: float  # accuracy a - accuracy b, as a proportion
    ci_low: float
    ci_high: float
    p_value: float
    a_only: int
    b_only: int
    a_only_ids: list[str]  # the discordant samples: a right and b wrong
    b_only_ids: list[str]  # b right and a wrong
    significant: bool  # on the compared samples
    sentence: str
    resamples: int
    seed: int
    confidence: float
    on_intersection: bool  # the two models were asked different sample sets
    note: str | None


class RepeatSide(Frozen, frozen=True):
    """One model's side of a comparison over questions, on the compared questions only."""

    model: str
    solved: int  # correct replies over the compared questions' k repeats
    replies: int  # compared questions times k
    avg: float  # solved / replies: avg@k on the compared questions
    # Units of the questions both were asked that have no answer (an error, or nothing yet).
    errors: int
    pending: int


class RepeatPairRow(Frozen, frozen=True):
    """Model `a` against model `b` on a task asked k times per question: avg@k difference with a
    paired bootstrap interval that resamples questions (`results.questions.compare_models`)."""

    task: str
    phase: Comparison
    k: int
    a: RepeatSide
    b: RepeatSide
    asked: int  # questions both were asked
    n: int  # questions both answered in every repeat: the compared questions
    left_out: int  # asked - n
    difference: float  # avg@k of a - avg@k of b on the compared questions
    ci_low: float
    ci_high: float
    # Questions one model solved in more of its k repeats than the other; with k = 1 these are
    # McNemar's discordant samples, and the exact test on them is the sign test over questions.
    a_more: int
    b_more: int
    a_more_ids: list[str]
    b_more_ids: list[str]
    p_value: float
    significant: bool  # the interval excludes 0 and p < 0.05
    sentence: str
    resamples: int
    seed: int
    confidence: float
