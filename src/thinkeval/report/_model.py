"""The report as data: every number each format shows, computed once by `build_report`.

The renderers only format these values, so Markdown, HTML and JSON cannot disagree. The JSON
format is this object dumped whole, except `browser` (the per-sample texts, HTML only).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from thinkeval.results.summary import Counts

REPORT_SCHEMA_VERSION = 1

# The accuracy a model is compared on: its fixed-budget reply, or its adaptive outcome.
Comparison = Literal["fixed", "adaptive"]


class _Frozen(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """An immutable part of the report."""


class RunInfo(_Frozen):
    """One run directory that went into the report."""

    name: str
    path: str  # as given on the command line, so the output does not depend on the cwd
    budgets: tuple[int, int]
    models: list[str]
    tasks: list[str]
    complete: bool  # nothing pending: every sample has its fixed reply and every retry is done


class HeadlineRow(_Frozen):
    """One model on one task: fixed vs adaptive accuracy and the gain."""

    model: str
    task: str
    total: int
    fixed_correct: int
    adaptive_correct: int
    fixed_cell: str  # "1048/1319 = 79.45%"
    adaptive_cell: str
    gain: str  # "+16.46 pp"


class RetryRates(_Frozen):
    """What the single retry at B2 achieved for the retry candidates (None: no candidates)."""

    recovery: float | None  # legal final answer formed (retry correct + wrong) / candidates
    new_correct: float | None  # retry correct / candidates
    answered_accuracy: float | None  # retry correct / answered


class BreakdownRow(_Frozen):
    """Outcome counts of one model on one task, or on one C-Eval subject (`subject` set)."""

    model: str
    task: str
    subject: str | None
    counts: Counts  # the same object `summary.json` holds for this model and task
    rates: RetryRates


class BestOf(_Frozen):
    """The most accurate model(s) of a task in one comparison; ties are listed together."""

    task: str
    phase: Comparison
    models: list[str]
    cells: list[str]  # one "correct/total = x%" per listed model


class LenientRow(_Frozen):
    """The strict verdicts beside the lenient scorer's (what AISBench reports by default)."""

    model: str
    task: str
    total: int
    strict_fixed: float
    lenient_fixed: float
    strict_adaptive: float
    lenient_adaptive: float
    # Samples the lenient scorer counts correct although the strict verdict is `empty` or
    # `unfinished`: answers read out of a cut-off reply or out of the reasoning.
    lenient_on_cut_fixed: int
    lenient_on_cut_adaptive: int


class PairSide(_Frozen):
    """One model's side of a pairwise comparison, on the compared samples only."""

    model: str
    correct: int
    accuracy: float
    wilson_low: float
    wilson_high: float
    unscored: int  # compared samples with an `error` outcome or still pending: count as wrong


class PairRow(_Frozen):
    """Model `a` against model `b` on the samples both answered, one comparison."""

    task: str
    phase: Comparison
    a: PairSide
    b: PairSide
    n: int
    point_weight: float  # 100 / n: percentage points one question is worth
    difference: float  # accuracy a - accuracy b, as a proportion
    ci_low: float
    ci_high: float
    p_value: float
    a_only: int
    b_only: int
    significant: bool
    sentence: str
    resamples: int
    seed: int
    confidence: float
    on_intersection: bool  # the two models were asked different sample sets
    note: str | None


class CurveRow(_Frozen):
    """Accuracy one model would have had on a task at each completion-token budget."""

    model: str
    task: str
    total: int
    correct_at: list[int]  # aligned with Report.curve_budgets
    grid: list[int]  # budgets for the plot, 0 .. B2
    grid_correct: list[int]
    unmeasured_correct: int  # correct replies without reported completion tokens: left out


class Distribution(_Frozen):
    """Mean, median and 90th percentile of some per-reply quantity."""

    count: int
    mean: float
    p50: float
    p90: float


class UsageRow(_Frozen):
    """Tokens and time of one model on one task (`task == "all"`: every task) in one phase."""

    model: str
    task: str
    phase: Literal["fixed", "retry"]
    budget: int
    replies: int  # counted replies without transport error
    completion: Distribution | None
    reasoning: Distribution | None  # None: the server did not report usage.reasoning_tokens
    budget_share: float | None  # mean completion_tokens / budget
    requests: int  # every recorded attempt, errors and superseded attempts included
    errors: int
    wall_s: float | None  # max(started_at + latency_s) - min(started_at)
    requests_per_s: float | None
    output_tokens_per_s: float | None
    latency: dict[str, float | None]  # p50, p90, p99 seconds
    ttft: dict[str, float | None] | None  # None: the run did not stream


class Histogram(_Frozen):
    """Completion-token counts of one model on one task, in equal bins over 0 .. B2."""

    model: str
    task: str
    edges: list[int]  # len(fixed) + 1 bin edges
    fixed: list[int]
    retry: list[int]


class AttemptView(_Frozen):
    """One counted reply as the sample browser shows it (texts whole; the page shortens)."""

    phase: Literal["fixed", "retry"]
    budget: int
    max_tokens: int
    finish_reason: str | None
    completion_tokens: int | None
    reasoning_tokens: int | None
    latency_s: float | None
    ttft_s: float | None
    error: str | None
    strict: tuple[str, str | None, str | None] | None  # status, answer, rule
    lenient: tuple[str, str | None, str | None] | None
    content: str | None
    reasoning: str | None


class Question(_Frozen):
    """One sample as asked: the last user message and the turns before it (exemplars)."""

    task: str
    sample_id: str
    subset: str | None
    gold: str
    prompt: str
    exemplars: list[dict[str, str]]


class SampleView(_Frozen):
    """One model's outcome on one sample, with its counted replies."""

    model: str
    task: str
    sample_id: str
    final: str  # adaptive strict outcome: a verdict status, "error" or "pending"
    lenient_final: bool  # lenient scorer counts the adaptive outcome correct
    attempts: list[AttemptView]


class Browser(_Frozen):
    """The per-sample data behind the HTML sample browser."""

    questions: list[Question]
    samples: list[SampleView]


class Report(_Frozen, kw_only=True):
    """Everything a report shows, for one or several combined run directories."""

    schema_version: int = REPORT_SCHEMA_VERSION
    thinkeval_version: str
    runs: list[RunInfo]
    budgets: tuple[int, int]
    models: list[str]
    tasks: list[str]
    complete: bool
    seed: int
    resamples: int
    notes: list[str]  # sample-set differences and other caveats, in plain sentences
    headline: list[HeadlineRow]
    breakdown: list[BreakdownRow]
    best_of: list[BestOf]
    lenient: list[LenientRow]
    pairs: list[PairRow]
    curve_budgets: list[int]
    curves: list[CurveRow]
    usage: list[UsageRow]
    histograms: list[Histogram]
    browser: Browser  # HTML only: left out of the JSON format
