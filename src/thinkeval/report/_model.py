"""The report as data: every number each format shows, computed once by `build_report`.

The renderers only format these values, so Markdown, HTML and JSON cannot disagree. The JSON
format is this object dumped whole, except `browser` (the per-sample texts, HTML only).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from thinkeval.results.summary import Counts

# 2: pairs on the samples both answered (asked, n, left_out, discordant ids; sides count errors
# and pending), completeness in runs and headline rows, the run context, simulated models.
REPORT_SCHEMA_VERSION = 2

# The accuracy a model is compared on: its fixed-budget reply, or its adaptive outcome.
Comparison = Literal["fixed", "adaptive"]


class _Frozen(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """An immutable part of the report."""


class RunInfo(_Frozen, frozen=True):
    """One run directory that went into the report."""

    name: str
    path: str  # as given on the command line, so the output does not depend on the cwd
    budgets: tuple[int, int]
    models: list[str]
    tasks: list[str]
    # `Counts.complete` for every model and task: every sample has a successful fixed reply and
    # every retry candidate a successful retry (what `thinkeval verify` checks).
    complete: bool
    errors: int  # samples whose counted reply (fixed, or retry of a candidate) is an error
    pending: int  # samples with no reply yet in a phase they need


class HeadlineRow(_Frozen, frozen=True):
    """One model on one task: fixed vs adaptive accuracy and the gain."""

    model: str
    task: str
    total: int
    fixed_correct: int
    adaptive_correct: int
    fixed_cell: str  # "1048/1319 = 79.45%", or "15/40 = 37.50% (incomplete: 21 errors)"
    adaptive_cell: str
    gain: str  # "+16.46 pp", "+0.00 pp (incomplete)"
    complete: bool
    fixed_errors: int
    fixed_pending: int
    adaptive_errors: int
    adaptive_pending: int


class RetryRates(_Frozen, frozen=True):
    """What the single retry at B2 achieved for the retry candidates (None: no candidates)."""

    recovery: float | None  # legal final answer formed (retry correct + wrong) / candidates
    new_correct: float | None  # retry correct / candidates
    answered_accuracy: float | None  # retry correct / answered


class BreakdownRow(_Frozen, frozen=True):
    """Outcome counts of one model on one task, or on one C-Eval subject (`subject` set)."""

    model: str
    task: str
    subject: str | None
    counts: Counts  # the same object `summary.json` holds for this model and task
    rates: RetryRates


class BestOf(_Frozen, frozen=True):
    """The most accurate model(s) of a task in one comparison; ties are listed together."""

    task: str
    phase: Comparison
    models: list[str]
    cells: list[str]  # one "correct/total = x%" per listed model, marked when incomplete
    complete: bool  # every listed model's accuracy is complete


class LenientRow(_Frozen, frozen=True):
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


class PairSide(_Frozen, frozen=True):
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


class PairRow(_Frozen, frozen=True):
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


class CurveRow(_Frozen, frozen=True):
    """Accuracy one model would have had on a task at each completion-token budget."""

    model: str
    task: str
    total: int
    correct_at: list[int]  # aligned with Report.curve_budgets
    grid: list[int]  # budgets for the plot, 0 .. B2
    grid_correct: list[int]
    unmeasured_correct: int  # correct replies without reported completion tokens: left out


class Distribution(_Frozen, frozen=True):
    """Mean, median and 90th percentile of some per-reply quantity."""

    count: int
    mean: float
    p50: float
    p90: float


class UsageRow(_Frozen, frozen=True):
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


class Histogram(_Frozen, frozen=True):
    """Completion-token counts of one model on one task, in equal bins over 0 .. B2."""

    model: str
    task: str
    edges: list[int]  # len(fixed) + 1 bin edges
    fixed: list[int]
    retry: list[int]


# A long text as the page shows it: whole, or (first part, characters left out, last part).
Text = str | tuple[str, int, str]


class Judgement(_Frozen, frozen=True, array_like=True):
    """A scorer's verdict on one reply: status, extracted answer, the rule that matched."""

    status: str
    answer: str | None
    rule: str | None


class ReplyView(_Frozen, frozen=True, omit_defaults=True):
    """One counted reply as the sample browser shows it (short keys: the page holds thousands)."""

    phase: Literal["fixed", "retry"] = msgspec.field(name="ph")
    budget: int = msgspec.field(name="b")
    max_tokens: int = msgspec.field(name="mt")
    finish_reason: str | None = msgspec.field(default=None, name="f")
    completion_tokens: int | None = msgspec.field(default=None, name="ct")
    reasoning_tokens: int | None = msgspec.field(default=None, name="rt")
    latency_s: float | None = msgspec.field(default=None, name="lat")
    ttft_s: float | None = msgspec.field(default=None, name="ttft")
    error: str | None = msgspec.field(default=None, name="e")
    strict: Judgement | None = msgspec.field(default=None, name="s")
    lenient: Judgement | None = msgspec.field(default=None, name="n")
    content: Text | None = msgspec.field(default=None, name="c")
    reasoning: Text | None = msgspec.field(default=None, name="r")
    reasoning_chars: int = msgspec.field(default=0, name="rl")  # before shortening


class QuestionView(_Frozen, frozen=True, omit_defaults=True):
    """What the browser shows of a sample beyond the index: the prompt and its exemplars."""

    prompt: Text = msgspec.field(name="p")
    exemplars: str | None = msgspec.field(default=None, name="x")  # key into `exemplars`


class SampleIndex(_Frozen, frozen=True):
    """The sample browser's columns: what it filters, sorts and pages on, without any text.

    Questions are (task, sample) pairs; rows are one model's outcome on one question. Verdict
    columns hold codes into `statuses` (a verdict, "error", or "pending"), finish reasons codes
    into `finishes` (-1: none), subjects codes into `subjects` (-1: none). A row is keyed by its
    model and question (a later repeat number would be a third key column).
    """

    models: list[str]
    tasks: list[str]
    subjects: list[str]
    statuses: list[str]
    finishes: list[str]
    question_id: list[str]
    question_task: list[int]
    question_subject: list[int]
    question_gold: list[str]
    row_question: list[int]
    row_model: list[int]
    row_fixed: list[int]  # fixed verdict code
    row_final: list[int]  # adaptive verdict code
    row_fixed_finish: list[int]
    row_retry_finish: list[int]  # -1: no retry reply
    row_due: list[int]  # 1: the fixed reply called for the retry at B2 (the judge's word)
    row_lenient: list[int]  # bit 1: lenient correct at the fixed budget; bit 2: adaptive
    row_tokens: list[int]  # completion tokens of the counted replies, summed (-1: not reported)
    row_latency_ms: list[int]  # their latency, summed, in milliseconds (-1: not timed)


class EmbedPart(_Frozen, frozen=True):
    """One kind of sample the HTML file embeds: how many there are and how many it holds."""

    kind: str
    total: int
    embedded: int


class Browser(_Frozen, frozen=True):
    """The per-sample data the HTML file embeds: an index of the chosen rows and their texts."""

    index: SampleIndex
    questions: list[QuestionView]  # aligned with index.question_id
    rows: list[list[ReplyView]]  # aligned with index.row_question: the counted replies
    exemplars: dict[str, list[dict[str, str]]]
    parts: list[EmbedPart]  # what was chosen, in order of priority
    total_questions: int
    total_rows: int
    budget_bytes: int
    limits: dict[str, tuple[int, int]]  # text kind -> (first, last) characters kept

    @property
    def complete(self) -> bool:
        """Every sample of the runs is embedded."""
        return len(self.index.row_question) == self.total_rows


class ModelContext(_Frozen, frozen=True):
    """How one model was asked: its endpoint, settings and served card."""

    model: str
    served_as: str  # the model id sent in requests
    endpoints: list[str]  # credentials redacted
    generation: dict[str, Any]
    settings: dict[str, Any]  # stream, concurrency, rate, timeout, retries
    card: dict[str, Any] | None  # models/<model>.json as seen at the start; None: not recorded
    simulated: bool  # the card says it came from `thinkeval sim`


class TaskContext(_Frozen, frozen=True):
    """Where one task's samples came from, and how they were asked and scored."""

    task: str
    samples: int
    selection: str  # "all", "limit 500", "range 1000:1500"
    generation: dict[str, Any]  # the task's own sampling settings and the config's for it
    samples_sha256: str  # of samples/<task>.jsonl: exactly what was asked
    source: str  # "unknown" where the run did not record it
    version: str
    scoring: str  # the answer kind and its version, as recorded
    scorers: str  # the scorer versions this report scores with ("strict 1/number-1, ...")
    digest: str  # of the prompts asked (ids, messages, golds)


class RunContext(_Frozen, frozen=True):
    """The circumstances of one run: when, with what, against which servers."""

    name: str
    path: str
    started: str | None  # UTC, from the journal's timestamps
    ended: str | None
    thinkeval_version: str  # that wrote config.json; "unknown" where it did not say
    data_dir: str | None
    scorer_versions: list[str]  # recorded with the replies' verdicts ("strict 1/number-1")
    models: list[ModelContext]
    tasks: list[TaskContext]


class Report(_Frozen, frozen=True, kw_only=True):
    """Everything a report shows, for one or several combined run directories."""

    schema_version: int = REPORT_SCHEMA_VERSION
    thinkeval_version: str
    runs: list[RunInfo]
    budgets: tuple[int, int]
    models: list[str]
    tasks: list[str]
    complete: bool
    simulated: list[str]  # models whose served card says they are simulated
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
    context: list[RunContext]
    browser: Browser | None  # HTML only (None for `thinkeval view`): left out of the JSON format
