"""Compute every section of the report from the combined runs (no formatting here)."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence
from fractions import Fraction
from pathlib import Path

from thinkeval import __version__
from thinkeval.records import PHASES, RETRY_STATUSES, Attempt, Phase, Sample, Verdict
from thinkeval.report._collect import Collection, Judged, ModelTask, RunData, SampleRecord, collect
from thinkeval.report._model import (
    AttemptView,
    BestOf,
    BreakdownRow,
    Browser,
    Comparison,
    CurveRow,
    Distribution,
    HeadlineRow,
    Histogram,
    LenientRow,
    PairRow,
    PairSide,
    Question,
    Report,
    RetryRates,
    RunInfo,
    SampleView,
    UsageRow,
)
from thinkeval.results.stats import (
    budget_curve,
    paired_bootstrap,
    percentiles,
    wilson_interval,
)
from thinkeval.results.summary import Counts, Outcome, count
from thinkeval.ui.tables import cell, gain

# Budgets the curve table always shows when they lie within B2 (B1 and B2 are added).
CURVE_TABLE_BUDGETS = (512, 1024, 2048, 4096, 8192)
CURVE_GRID_STEPS = 128  # plot resolution: B2 / 128 tokens per step
HISTOGRAM_BINS = 32
CONFIDENCE = 0.95
ALL_TASKS = "all"


def build_report(run_dirs: Sequence[Path], seed: int = 0, resamples: int = 10_000) -> Report:
    """Read run directories (one, or several to combine) and compute the report.

    Reads only the run directories; never calls a model. The result depends only on the
    directories' contents, their order, `seed` and `resamples`.

    >>> report = build_report([Path("runs/qwen3-compare")])  # doctest: +SKIP
    >>> print(render_markdown(report))  # doctest: +SKIP
    """
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    data = collect([Path(d) for d in run_dirs])
    counts = {key: count(mt.results(), data.budgets) for key, mt in data.cells.items()}
    notes = _sample_set_notes(data) + _pending_notes(data, counts)
    pairs, pair_notes = _pairs(data, seed, resamples)
    curve_budgets = _curve_budgets(data.budgets)
    return Report(
        thinkeval_version=__version__,
        runs=[_run_info(run, counts) for run in data.runs],
        budgets=data.budgets,
        models=data.models,
        tasks=data.tasks,
        complete=all(_pending(c) == 0 for c in counts.values()),
        seed=seed,
        resamples=resamples,
        notes=notes + pair_notes,
        headline=[_headline(mt, counts[key]) for key, mt in _ordered(data)],
        breakdown=[row for _, mt in _ordered(data) for row in _breakdown(mt, counts, data)],
        best_of=_best_of(data, counts),
        lenient=[_lenient(mt, counts[key]) for key, mt in _ordered(data)],
        pairs=pairs,
        curve_budgets=curve_budgets,
        curves=[_curve(mt, data.budgets, curve_budgets) for _, mt in _ordered(data)],
        usage=_usage(data),
        histograms=[_histogram(mt, data.budgets) for _, mt in _ordered(data)],
        browser=_browser(data),
    )


def _ordered(data: Collection) -> list[tuple[tuple[str, str], ModelTask]]:
    """Cells task by task, models in the order given: the order of every per-task table."""
    return [((m, t), data.cells[(m, t)]) for t in data.tasks for m in data.models]


def _pending(counts: Counts) -> int:
    return counts.fixed.pending + counts.retry.pending


def _run_info(run: RunData, counts: dict[tuple[str, str], Counts]) -> RunInfo:
    return RunInfo(
        name=run.name,
        path=str(run.path),
        budgets=run.budgets,
        models=list(run.models),
        tasks=list(run.tasks),
        complete=all(_pending(counts[(m, t)]) == 0 for m in run.models for t in run.tasks),
    )


def _sample_set_notes(data: Collection) -> list[str]:
    """Say where combined runs asked different samples, and what that does to comparisons."""
    notes = []
    for task in data.tasks:
        id_sets = [frozenset(s.id for s in run.samples[task]) for run in data.runs]
        if len(set(id_sets)) <= 1:
            continue
        common = frozenset.intersection(*id_sets)
        parts = [
            f"{run.path} ({', '.join(run.models)}): {len(ids)} samples"
            for run, ids in zip(data.runs, id_sets, strict=True)
        ]
        notes.append(
            f"Sample sets differ on {task}: {'; '.join(parts)}; {len(common)} are common to all. "
            "Each model's accuracy is on its own run's samples; pairs of models from runs with "
            "different samples are compared on the samples both were asked, as their rows say."
        )
    return notes


def _pending_notes(data: Collection, counts: dict[tuple[str, str], Counts]) -> list[str]:
    notes = []
    for key, _ in _ordered(data):
        pending = _pending(counts[key])
        if pending:
            notes.append(
                f"{key[0]} on {key[1]}: {pending} sample(s) still pending (no reply recorded "
                "yet); they count as not correct. Resume the run to finish them."
            )
    return notes


def _headline(mt: ModelTask, counts: Counts) -> HeadlineRow:
    fixed, adaptive, total = counts.fixed.correct, counts.adaptive.correct, counts.total
    return HeadlineRow(
        model=mt.model,
        task=mt.task,
        total=total,
        fixed_correct=fixed,
        adaptive_correct=adaptive,
        fixed_cell=cell(fixed, total),
        adaptive_cell=cell(adaptive, total),
        gain=gain(fixed, adaptive, total),
    )


def _rates(counts: Counts) -> RetryRates:
    retry = counts.retry
    return RetryRates(
        recovery=retry.answered / retry.candidates if retry.candidates else None,
        new_correct=retry.correct / retry.candidates if retry.candidates else None,
        answered_accuracy=retry.correct / retry.answered if retry.answered else None,
    )


def _breakdown(
    mt: ModelTask, counts: dict[tuple[str, str], Counts], data: Collection
) -> list[BreakdownRow]:
    whole = counts[(mt.model, mt.task)]
    rows = [
        BreakdownRow(model=mt.model, task=mt.task, subject=None, counts=whole, rates=_rates(whole))
    ]
    # Subjects in order of first appearance, as summary.json lists them.
    subjects = dict.fromkeys(s.subset for s in mt.samples if s.subset)
    for subject in subjects:
        chosen = [s for s in mt.samples if s.subset == subject]
        sub = count(mt.results(chosen), data.budgets)
        rows.append(
            BreakdownRow(
                model=mt.model, task=mt.task, subject=subject, counts=sub, rates=_rates(sub)
            )
        )
    return rows


def _best_of(data: Collection, counts: dict[tuple[str, str], Counts]) -> list[BestOf]:
    rows = []
    for task in data.tasks:
        for phase in ("fixed", "adaptive"):
            # Exact fractions: combined runs may differ in sample count, and floats could
            # split a true tie (or join two different accuracies) by rounding.
            scored = {}
            for model in data.models:
                c = counts[(model, task)]
                if c.total:
                    correct = c.fixed.correct if phase == "fixed" else c.adaptive.correct
                    scored[model] = (Fraction(correct, c.total), correct, c.total)
            if not scored:
                continue
            best = max(value[0] for value in scored.values())
            winners = [m for m, value in scored.items() if value[0] == best]
            rows.append(
                BestOf(
                    task=task,
                    phase=phase,
                    models=winners,
                    cells=[cell(scored[m][1], scored[m][2]) for m in winners],
                )
            )
    return rows


def _lenient(mt: ModelTask, counts: Counts) -> LenientRow:
    on_cut_fixed = on_cut_adaptive = 0
    for result in mt.results():
        if result is None:
            continue
        if result.fixed is not None and _lenient_on_cut(result.fixed):
            on_cut_fixed += 1
        if result.adaptive is not None and _lenient_on_cut(result.adaptive):
            on_cut_adaptive += 1
    return LenientRow(
        model=mt.model,
        task=mt.task,
        total=counts.total,
        strict_fixed=counts.fixed.accuracy,
        lenient_fixed=counts.lenient.fixed_accuracy,
        strict_adaptive=counts.adaptive.accuracy,
        lenient_adaptive=counts.lenient.adaptive_accuracy,
        lenient_on_cut_fixed=on_cut_fixed,
        lenient_on_cut_adaptive=on_cut_adaptive,
    )


def _lenient_on_cut(outcome: Outcome) -> bool:
    return outcome.lenient_correct and outcome.status in RETRY_STATUSES


def _phase_outcome(record: SampleRecord | None, phase: Comparison) -> Outcome | None:
    if record is None:
        return None
    result = record.result()
    return result.fixed if phase == "fixed" else result.adaptive


def _pairs(data: Collection, seed: int, resamples: int) -> tuple[list[PairRow], list[str]]:
    rows: list[PairRow] = []
    notes: list[str] = []
    for task in data.tasks:
        for phase in ("fixed", "adaptive"):
            for model_a, model_b in itertools.combinations(data.models, 2):
                a, b = data.cells[(model_a, task)], data.cells[(model_b, task)]
                ids_b = {s.id for s in b.samples}
                common = [s.id for s in a.samples if s.id in ids_b]
                if not common:
                    if phase == "fixed":
                        notes.append(
                            f"{model_a} and {model_b} share no {task} samples: not compared."
                        )
                    continue
                rows.append(_pair(task, phase, a, b, common, seed, resamples))
    return rows, notes


def _pair(
    task: str,
    phase: Comparison,
    a: ModelTask,
    b: ModelTask,
    common: list[str],
    seed: int,
    resamples: int,
) -> PairRow:
    sides = []
    vectors = []
    for mt in (a, b):
        correct: list[bool] = []
        unscored = 0
        for sample_id in common:
            outcome = _phase_outcome(mt.records.get(sample_id), phase)
            # Errors and pending samples count as not correct, and are counted for the reader.
            unscored += outcome is None or outcome.status == "error"
            correct.append(outcome is not None and outcome.status == "correct")
        vectors.append(correct)
        k, n = sum(correct), len(common)
        low, high = wilson_interval(k, n, CONFIDENCE)
        sides.append(
            PairSide(
                model=mt.model,
                correct=k,
                accuracy=k / n,
                wilson_low=low,
                wilson_high=high,
                unscored=unscored,
            )
        )
    comparison = paired_bootstrap(vectors[0], vectors[1], resamples, seed, CONFIDENCE)
    on_intersection = len(common) != len(a.samples) or len(common) != len(b.samples)
    note = None
    if on_intersection:
        note = (
            f"compared on the {len(common)} samples both were asked ({a.model}: "
            f"{len(a.samples)}, {b.model}: {len(b.samples)})"
        )
    return PairRow(
        task=task,
        phase=phase,
        a=sides[0],
        b=sides[1],
        n=comparison.n,
        point_weight=100.0 / comparison.n,
        difference=comparison.difference,
        ci_low=comparison.ci_low,
        ci_high=comparison.ci_high,
        p_value=comparison.p_value,
        a_only=comparison.a_only,
        b_only=comparison.b_only,
        significant=comparison.significant,
        sentence=comparison.sentence(a.model, b.model),
        resamples=resamples,
        seed=seed,
        confidence=CONFIDENCE,
        on_intersection=on_intersection,
        note=note,
    )


def _curve_budgets(budgets: tuple[int, int]) -> list[int]:
    b1, b2 = budgets
    return sorted({b for b in CURVE_TABLE_BUDGETS if b <= b2} | {b1, b2})


def _counted(record: SampleRecord) -> list[Judged]:
    """The replies that make the sample's adaptive outcome: fixed, and retry if a candidate."""
    result = record.result()
    chosen = [record.fixed] if record.fixed else []
    if result.candidate and record.retry:
        chosen.append(record.retry)
    return chosen


def _curve(mt: ModelTask, budgets: tuple[int, int], table: list[int]) -> CurveRow:
    per_sample = []
    unmeasured = 0
    for sample in mt.samples:
        record = mt.records.get(sample.id)
        replies = _counted(record) if record else []
        pairs = [(j.outcome.status == "correct", j.outcome.completion_tokens) for j in replies]
        unmeasured += sum(1 for ok, tokens in pairs if ok and tokens is None)
        per_sample.append(pairs)
    b2 = budgets[1]
    grid = sorted(
        {round(b2 * i / CURVE_GRID_STEPS) for i in range(CURVE_GRID_STEPS + 1)} | set(table)
    )
    return CurveRow(
        model=mt.model,
        task=mt.task,
        total=len(mt.samples),
        correct_at=budget_curve(per_sample, table),
        grid=grid,
        grid_correct=budget_curve(per_sample, grid),
        unmeasured_correct=unmeasured,
    )


def _distribution(values: Sequence[float]) -> Distribution | None:
    if not values:
        return None
    cuts = percentiles(values, (50, 90))
    return Distribution(
        count=len(values),
        mean=sum(values) / len(values),
        p50=cuts["p50"] or 0.0,
        p90=cuts["p90"] or 0.0,
    )


def _usage(data: Collection) -> list[UsageRow]:
    rows = []
    for model in data.models:
        cells = [data.cells[(model, task)] for task in data.tasks]
        for phase in PHASES:
            for task, chosen in [(mt.task, [mt]) for mt in cells] + [(ALL_TASKS, cells)]:
                row = _usage_row(model, task, phase, chosen, data.budgets)
                if row.requests:
                    rows.append(row)
    return rows


def _usage_row(
    model: str, task: str, phase: Phase, cells: list[ModelTask], budgets: tuple[int, int]
) -> UsageRow:
    replies = [
        judged.attempt
        for mt in cells
        for record in mt.records.values()
        if (judged := record.fixed if phase == "fixed" else record.retry) is not None
        and judged.attempt.ok
    ]
    attempts = [a for mt in cells for a in mt.attempts if a.phase == phase]
    completion = [t for a in replies if (t := a.usage.completion_tokens) is not None]
    reasoning = [t for a in replies if (t := a.usage.reasoning_tokens) is not None]
    shares = [
        a.usage.completion_tokens / a.budget
        for a in replies
        if a.usage.completion_tokens is not None and a.budget
    ]
    wall, timed = _wall(attempts)
    timed_tokens = sum(a.usage.completion_tokens or 0 for a in timed if a.ok)
    ttfts = [a.ttft_s for a in replies if a.ttft_s is not None]
    return UsageRow(
        model=model,
        task=task,
        phase=phase,
        budget=budgets[0] if phase == "fixed" else budgets[1],
        replies=len(replies),
        completion=_distribution([float(v) for v in completion]),
        reasoning=_distribution([float(v) for v in reasoning]),
        budget_share=sum(shares) / len(shares) if shares else None,
        requests=len(attempts),
        errors=sum(1 for a in attempts if not a.ok),
        wall_s=wall,
        requests_per_s=len(timed) / wall if wall else None,
        output_tokens_per_s=timed_tokens / wall if wall else None,
        latency=percentiles([a.latency_s for a in replies if a.latency_s is not None]),
        ttft=percentiles(ttfts) if ttfts else None,
    )


def _wall(attempts: Iterable[Attempt]) -> tuple[float | None, list[Attempt]]:
    """Wall time from the first send to the last reply, and the attempts it covers.

    An attempt's end is `started_at + latency_s`; `started_at` marks the first try, so an
    attempt retried by the client ends a little later than this says.
    """
    timed = [a for a in attempts if a.started_at > 0 and a.latency_s is not None]
    if not timed:
        return None, []
    start = min(a.started_at for a in timed)
    end = max(a.started_at + (a.latency_s or 0.0) for a in timed)
    return (end - start if end > start else None), timed


def _histogram(mt: ModelTask, budgets: tuple[int, int]) -> Histogram:
    b2 = budgets[1]
    edges = [round(b2 * i / HISTOGRAM_BINS) for i in range(HISTOGRAM_BINS + 1)]
    bins = {"fixed": [0] * HISTOGRAM_BINS, "retry": [0] * HISTOGRAM_BINS}
    for record in mt.records.values():
        for judged in (record.fixed, record.retry):
            tokens = judged.outcome.completion_tokens if judged else None
            if judged is None or tokens is None:
                continue
            # bisect_right - 1 puts a value on an edge into the bin it opens; B2 itself (and
            # anything beyond, should a server overshoot) goes into the last bin.
            index = min(max(bisect.bisect_right(edges, tokens) - 1, 0), HISTOGRAM_BINS - 1)
            bins[judged.attempt.phase][index] += 1
    return Histogram(
        model=mt.model, task=mt.task, edges=edges, fixed=bins["fixed"], retry=bins["retry"]
    )


def _browser(data: Collection) -> Browser:
    questions: list[Question] = []
    samples: list[SampleView] = []
    for task in data.tasks:
        # Every sample any run asked, in the first run's order, then the others' extra ones.
        seen: dict[str, Sample] = {}
        for run in data.runs:
            for sample in run.samples[task]:
                seen.setdefault(sample.id, sample)
        asked = {m: frozenset(s.id for s in data.cells[(m, task)].samples) for m in data.models}
        for sample in seen.values():
            questions.append(_question(sample))
            samples.extend(
                _sample_view(data.cells[(model, task)], sample.id)
                for model in data.models
                if sample.id in asked[model]
            )
    return Browser(questions=questions, samples=samples)


def _question(sample: Sample) -> Question:
    messages = list(sample.messages)
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=None)
    if last_user is None:
        prompt, before = "", messages
    else:
        prompt, before = messages[last_user].get("content", ""), messages[:last_user]
    return Question(
        task=sample.task,
        sample_id=sample.id,
        subset=sample.subset,
        gold=sample.gold,
        prompt=prompt,
        exemplars=[{"role": m.get("role", ""), "content": m.get("content", "")} for m in before],
    )


def _verdict(verdict: Verdict | None) -> tuple[str, str | None, str | None] | None:
    return None if verdict is None else (verdict.status, verdict.answer, verdict.rule)


def _sample_view(mt: ModelTask, sample_id: str) -> SampleView:
    record = mt.records.get(sample_id)
    outcome = _phase_outcome(record, "adaptive")
    views = []
    for judged in (record.fixed, record.retry) if record else ():
        if judged is None:
            continue
        a = judged.attempt
        views.append(
            AttemptView(
                phase=a.phase,
                budget=a.budget,
                max_tokens=a.max_tokens,
                finish_reason=a.finish_reason,
                completion_tokens=a.usage.completion_tokens,
                reasoning_tokens=a.usage.reasoning_tokens,
                latency_s=a.latency_s,
                ttft_s=a.ttft_s,
                error=a.error,
                strict=_verdict(judged.strict),
                lenient=_verdict(judged.lenient),
                content=a.content,
                reasoning=a.reasoning,
            )
        )
    return SampleView(
        model=mt.model,
        task=mt.task,
        sample_id=sample_id,
        final=outcome.status if outcome else "pending",
        lenient_final=bool(outcome and outcome.lenient_correct),
        attempts=views,
    )
