"""Compute every section of the report from the combined runs (no formatting here)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np

import thinkeval.report.sections as section_plugins
from thinkeval.report._cells import Collection, ModelTask, RunData
from thinkeval.report._censoring import censoring_rows
from thinkeval.report._code_failures import code_failure_rows
from thinkeval.report._collect import collect
from thinkeval.report._compare import baseline_comparison
from thinkeval.report._context import run_context
from thinkeval.report._decide import decide_notes, is_decided
from thinkeval.report._diagnosis import diagnosis_rows
from thinkeval.report._embed import EMBED_BUDGET_BYTES, embed
from thinkeval.report._instructions import instruction_rows
from thinkeval.report._model import (
    BestOf,
    BreakdownRow,
    HeadlineRow,
    Report,
    RetryRates,
    RunInfo,
    ScorerRow,
)
from thinkeval.report._pairs import pairs
from thinkeval.report._repeats import details, judge_rows, repeat_pairs, repeat_rows
from thinkeval.report._replicas import replica_rows
from thinkeval.report._samples import Catalog
from thinkeval.report._section import SectionInputs
from thinkeval.report._tokens import token_rows
from thinkeval.report._usage import curve, curve_budgets, histogram, usage
from thinkeval.results.columns import RETRY_CODES
from thinkeval.results.counts import ScorerBlock
from thinkeval.results.summary import Counts
from thinkeval.results.tally import TaskCounts
from thinkeval.results.wording import adaptive_cell, clamp_note, fixed_cell, gain_cell
from thinkeval.scoring.judge import NAME as JUDGE
from thinkeval.scoring.judge import PROMPT_VERSION
from thinkeval.scoring.scorers import STRICT, recording_scorers
from thinkeval.version import __version__


def build_report(
    run_dirs: Sequence[Path],
    seed: int = 0,
    resamples: int = 10_000,
    embed_bytes: int | None = EMBED_BUDGET_BYTES,
) -> Report:
    """Read run directories (one, or several to combine) and compute the report.

    Reads only the run directories; never calls a model. The result depends only on the
    directories' contents, their order, `seed`, `resamples` and `embed_bytes` (the most sample
    data the HTML file may embed; None embeds none, as `thinkeval view` serves samples itself).

    >>> report = build_report([Path("runs/qwen3-compare")])  # doctest: +SKIP
    >>> print(render_markdown(report))  # doctest: +SKIP
    """
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    with collect([Path(d) for d in run_dirs]) as data:
        return report_of(data, Catalog(data), seed, resamples, embed_bytes)


def report_of(
    data: Collection, catalog: Catalog, seed: int, resamples: int, embed_bytes: int | None
) -> Report:
    """The report of an open collection (see `build_report`)."""
    counts = {(mt.model, mt.task): _counted(mt).counts for mt in data.ordered()}
    judged = judge_rows(data)
    for row in judged:  # the judge's numbers beside the recording scorers', as summary.json's
        found = counts[(row.model, row.task)]
        found.scorers[JUDGE] = ScorerBlock.of(
            row.judge_fixed_correct, row.judge_correct, found.total, PROMPT_VERSION
        )
    pair_rows, pair_notes = pairs(catalog, seed, resamples)
    repeats = details(data)
    repeated_pairs, repeat_notes = repeat_pairs(data, repeats)
    contexts = [run_context(run) for run in data.runs]
    tables = {task: curve_budgets(data.budgets[task]) for task in data.tasks}
    return Report(
        thinkeval_version=__version__,
        runs=[_run_info(run, counts) for run in data.runs],
        budgets=data.budgets,
        repeats=data.repeats,
        models=data.models,
        tasks=data.tasks,
        complete=all(c.complete for c in counts.values()),
        simulated=[m.model for context in contexts for m in context.models if m.simulated],
        seed=seed,
        resamples=resamples,
        notes=_sample_set_notes(data)
        + _missing_notes(data, counts)
        + pair_notes
        + repeat_notes
        + decide_notes(data),
        headline=[_headline(mt, counts[(mt.model, mt.task)]) for mt in data.ordered()],
        repeated=repeat_rows(data, repeats, counts),
        breakdown=[row for mt in data.ordered() for row in _breakdown(mt, counts)],
        best_of=_best_of(data, counts),
        scorers=[
            _scorer_row(name, mt, counts[(mt.model, mt.task)])
            for name in (*(s.name for s in recording_scorers() if s is not STRICT), JUDGE)
            for mt in data.ordered()
            if name in counts[(mt.model, mt.task)].scorers
        ],
        judge=judged,
        pairs=pair_rows,
        repeat_pairs=repeated_pairs,
        curve_budgets=tables,
        curves=[curve(mt, tables[mt.task]) for mt in data.ordered()],
        usage=usage(data),
        tokens=token_rows(data),
        histograms=[histogram(mt) for mt in data.ordered()],
        diagnosis=diagnosis_rows(data),
        context=contexts,
        browser=None if embed_bytes is None else embed(catalog, embed_bytes),
        instructions=instruction_rows(data),
        code_failures=code_failure_rows(data),
        replicas=replica_rows(data),
        comparison=None if is_decided(data) else baseline_comparison(data),
        censoring=censoring_rows(counts),
        plugins=_plugin_numbers(SectionInputs(data, catalog, seed, resamples)),
    )


def _plugin_numbers(inputs: SectionInputs) -> dict[str, object]:
    """What each section plug-in computes itself from the read model, by its key."""
    return {
        each.key: each.data(inputs) for each in section_plugins.registry() if each.data is not None
    }


def _counted(mt: ModelTask) -> TaskCounts:
    """What the read model's counting pass counted for this model and task: the counts
    `summary.json` holds, per subject too, from the same `Tally`."""
    assert mt.counted is not None, "counted in the read model's pass"
    return mt.counted


def _run_info(run: RunData, counts: dict[tuple[str, str], Counts]) -> RunInfo:
    mine = [counts[(m, t)] for m in run.models for t in run.tasks]
    return RunInfo(
        name=run.name,
        path=str(run.path),
        budgets=run.budgets,
        repeats=run.repeats,
        models=list(run.models),
        tasks=list(run.tasks),
        complete=all(c.complete for c in mine),
        errors=sum(c.fixed.error + c.retry.error for c in mine),
        pending=sum(c.fixed.pending + c.retry.pending for c in mine),
    )


def _sample_set_notes(data: Collection) -> list[str]:
    """Say where combined runs asked different samples, and what that does to comparisons."""
    notes = []
    for task in data.tasks:
        id_sets = [frozenset(run.samples[task].ids) for run in data.runs]
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


def _missing_notes(data: Collection, counts: dict[tuple[str, str], Counts]) -> list[str]:
    """One note per model and task whose accuracy is incomplete, saying why and what to do."""
    notes = []
    for mt in data.ordered():
        c = counts[(mt.model, mt.task)]
        if c.complete:
            continue
        fixed, retry = c.fixed, c.retry
        asked = "replies" if mt.k > 1 else "samples"
        parts = [
            f"{fixed.error} of {c.total} fixed replies failed" if fixed.error else "",
            f"{fixed.pending} of {c.total} {asked} not asked yet" if fixed.pending else "",
            f"{retry.error} of {retry.candidates} retries failed" if retry.error else "",
            f"{retry.pending} of {retry.candidates} retries not asked yet" if retry.pending else "",
        ]
        last = mt.timing["fixed"].last_error or mt.timing["retry"].last_error
        example = f" (last error: {last})" if (fixed.error or retry.error) and last else ""
        notes.append(
            f"{mt.model} on {mt.task}: incomplete, {'; '.join(p for p in parts if p)}{example}. "
            "A failed request is not an answer; failed and not yet asked samples count as not "
            "correct, so its accuracies are lower bounds, and pairwise comparisons use only the "
            "samples both models answered. Run the same command again to ask them."
        )
    return notes


def _headline(mt: ModelTask, counts: Counts) -> HeadlineRow:
    return HeadlineRow(
        model=mt.model,
        task=mt.task,
        questions=len(mt.samples),
        repeats=mt.k,
        total=counts.total,
        fixed_correct=counts.fixed.correct,
        adaptive_correct=counts.adaptive.correct,
        fixed_cell=fixed_cell(counts),
        adaptive_cell=adaptive_cell(counts),
        gain=gain_cell(counts),
        complete=counts.complete,
        fixed_errors=counts.fixed.error,
        fixed_pending=counts.fixed.pending,
        adaptive_errors=counts.adaptive.error,
        adaptive_pending=counts.adaptive.pending,
        clamped=clamp_note(mt.model, mt.task, counts, *mt.budgets),
    )


def _rates(counts: Counts) -> RetryRates:
    retry = counts.retry
    return RetryRates(
        recovery=retry.answered / retry.candidates if retry.candidates else None,
        new_correct=retry.correct / retry.candidates if retry.candidates else None,
        answered_accuracy=retry.correct / retry.answered if retry.answered else None,
    )


def _breakdown(mt: ModelTask, counts: dict[tuple[str, str], Counts]) -> list[BreakdownRow]:
    whole = counts[(mt.model, mt.task)]
    rows = [
        BreakdownRow(model=mt.model, task=mt.task, subject=None, counts=whole, rates=_rates(whole))
    ]
    # Subjects in order of first appearance, as summary.json lists them.
    for subject, sub in (_counted(mt).subjects or {}).items():
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
                    shown = fixed_cell(c) if phase == "fixed" else adaptive_cell(c)
                    scored[model] = (Fraction(correct, c.total), shown)
            if not scored:
                continue
            best = max(value[0] for value in scored.values())
            winners = [m for m, value in scored.items() if value[0] == best]
            rows.append(
                BestOf(
                    task=task,
                    phase=phase,
                    models=winners,
                    cells=[scored[m][1] for m in winners],
                    complete=all(counts[(m, task)].complete for m in winners),
                )
            )
    return rows


def _scorer_row(scorer: str, mt: ModelTask, counts: Counts) -> ScorerRow:
    """Strict beside `scorer`; 'on cut': `scorer` correct although strictly empty or
    unfinished (units: with repeats, each (sample, repeat)). The judge reads finished replies
    only: it has none on cut."""
    block = counts.scorers.get(scorer, ScorerBlock())
    if scorer not in mt.fixed.names:  # the judge: not a column of the replies
        on_cut_fixed = on_cut_adaptive = 0
    else:
        cut_fixed = np.isin(mt.fixed.status, RETRY_CODES)  # strictly empty or unfinished
        cut_adaptive = np.isin(mt.adaptive_status(), RETRY_CODES)
        on_cut_fixed = int((cut_fixed & mt.fixed.correct_by(scorer)).sum())
        on_cut_adaptive = int((cut_adaptive & mt.adaptive_correct(scorer)).sum())
    return ScorerRow(
        scorer=scorer,
        model=mt.model,
        task=mt.task,
        total=counts.total,
        strict_fixed=counts.fixed.accuracy,
        fixed=block.fixed_accuracy,
        strict_adaptive=counts.adaptive.accuracy,
        adaptive=block.adaptive_accuracy,
        on_cut_fixed=on_cut_fixed,
        on_cut_adaptive=on_cut_adaptive,
    )
