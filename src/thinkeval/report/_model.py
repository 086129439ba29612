"""The report as data: every number each format shows, computed once by `build_report`.

The renderers only format these values, so Markdown, HTML and JSON cannot disagree. The JSON
format is this object dumped whole, except `browser` (the per-sample texts, HTML only), with
each section's numbers (`plugins`, computed by the section plug-ins, `report.sections`, each
with its own row types) at its top level. The report itself holds what the sections share: the
runs, tasks, budgets, notes, the judge's rows and the runs' context.

Counts are over units: a sample, or a (sample, repeat) pair of a task asked k times per
question (`repeats: k`), so a task's `total` is its questions times k and its accuracy is avg@k.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from thinkeval.report._frozen import Frozen as _Frozen
from thinkeval.report._model_samples import Browser

# 2: pairs on the samples both answered (asked, n, left_out, discordant ids; sides count errors
# and pending), completeness in runs and headline rows, the run context, simulated models.
# 3: budgets and repeats per task (a run's tasks may differ), repeated sampling (avg@k, pass@k,
# maj@k, solve rates; comparisons over questions), strict vs the judge scorer.
# 4: `scorers` (one row per scorer beside strict, model and task: `scorer`, `fixed`,
# `adaptive`, `on_cut_*`; the recording scorers', and the judge's for a judged run) replaces
# `lenient` (whose rows had `lenient_fixed`, ...).
REPORT_SCHEMA_VERSION = 4

# The accuracy a model is compared on: its fixed-budget reply, or its adaptive outcome.
Comparison = Literal["fixed", "adaptive"]


class RunInfo(_Frozen, frozen=True):
    """One run directory that went into the report."""

    name: str
    path: str  # as given on the command line, so the output does not depend on the cwd
    budgets: dict[str, tuple[int, int]]  # per task: fixed, retry
    repeats: dict[str, int]  # per task: replies per question
    models: list[str]
    tasks: list[str]
    # `Counts.complete` for every model and task: every sample has a successful fixed reply and
    # every retry candidate a successful retry (what `thinkeval verify` checks).
    complete: bool
    errors: int  # units whose counted reply (fixed, or retry of a candidate) is an error
    pending: int  # units with no reply yet in a phase they need


class JudgeRow(_Frozen, frozen=True):
    """Strict vs the judge scorer (`thinkeval judge`) on one model's finished replies to a task
    (`results.judge.judge_agreement`); accuracies over all units, as summary.json's `judge`."""

    model: str
    task: str
    judged: int  # finished replies with a judge verdict
    agreed: int  # of those, read the same way (status and answer) by strict and the judge
    disagreed: int
    not_judged: int  # finished replies without a verdict yet
    agreement: float | None  # agreed / judged
    units: int
    strict_correct: int  # adaptive outcome, strict
    judge_correct: int  # adaptive outcome, judge
    judge_fixed_correct: int
    disagreeing_ids: list[str]  # in run order, each sample once


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
    budgets: tuple[int, int]
    repeats: int
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
    judges: list[str]  # judge models whose verdicts the report reads (`thinkeval judge`)
    models: list[ModelContext]
    tasks: list[TaskContext]


class Report(_Frozen, frozen=True, kw_only=True):
    """Everything a report shows, for one or several combined run directories."""

    schema_version: int = REPORT_SCHEMA_VERSION
    thinkeval_version: str
    runs: list[RunInfo]
    budgets: dict[str, tuple[int, int]]  # per task: fixed, retry
    repeats: dict[str, int]  # per task: replies per question (1: asked once)
    models: list[str]
    tasks: list[str]
    complete: bool
    simulated: list[str]  # models whose served card says they are simulated
    seed: int
    resamples: int
    notes: list[str]  # sample-set differences and other caveats, in plain sentences
    # The circumstances of each run: shown by the context section, and read by the header
    # (run dates, simulated models), so the report holds it for all.
    context: list[RunContext]
    browser: Browser | None  # HTML only (None for `thinkeval view`): left out of the JSON format
    # Each section plug-in's numbers, by its key (`report.sections`; report.json: top level).
    plugins: dict[str, Any] = msgspec.field(default_factory=dict)
