"""Build the report from the combined runs (no formatting here): what every section shares is
computed here (the counts per model and task, the judge's rows, the runs, their context and the
notes), and each section plug-in computes its own numbers from the read model (`report.sections`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import thinkeval.report.sections as section_plugins
from thinkeval.report._cells import Collection, ModelTask, RunData
from thinkeval.report._collect import collect
from thinkeval.report._context import run_context
from thinkeval.report._decide import decide_notes
from thinkeval.report._embed import EMBED_BUDGET_BYTES, embed
from thinkeval.report._model import JudgeRow, Report, RunInfo
from thinkeval.report._samples import Catalog
from thinkeval.report._section import SectionInputs
from thinkeval.results.counts import ScorerBlock
from thinkeval.results.summary import Counts
from thinkeval.results.tally import TaskCounts
from thinkeval.scoring.judge import NAME as JUDGE
from thinkeval.scoring.judge import PROMPT_VERSION
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
    """The report of an open collection (see `build_report`): what every section shares here,
    each section's own numbers by its plug-in (`report.sections`)."""
    counts = {(mt.model, mt.task): _counted(mt).counts for mt in data.ordered()}
    judged = judge_rows(data)
    for row in judged:  # the judge's numbers beside the recording scorers', as summary.json's
        found = counts[(row.model, row.task)]
        found.scorers[JUDGE] = ScorerBlock.of(
            row.judge_fixed_correct, row.judge_correct, found.total, PROMPT_VERSION
        )
    inputs = SectionInputs(data, catalog, seed, resamples, counts, judged)
    plugins, section_notes = {}, []
    for each in section_plugins.registry():
        if each.data is None:
            continue
        numbers = plugins[each.key] = each.data(inputs)
        if each.notes is not None:
            section_notes += each.notes(numbers)
    contexts = [run_context(run) for run in data.runs]
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
        + section_notes
        + decide_notes(data),
        context=contexts,
        browser=None if embed_bytes is None else embed(catalog, embed_bytes),
        plugins=plugins,
    )


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


def judge_rows(data: Collection) -> list[JudgeRow]:
    """Strict vs the judge per model and task, for the runs that were judged."""
    agreements = {}
    for run in data.runs:
        agreements.update(run.agreement)
    rows = []
    for task in data.tasks:
        for model in data.models:
            found = agreements.get((model, task))
            if found is None:
                continue
            rows.append(
                JudgeRow(
                    model=model,
                    task=task,
                    judged=found.judged,
                    agreed=found.agreed,
                    disagreed=len(found.disagreements),
                    not_judged=found.not_judged,
                    agreement=found.agreed / found.judged if found.judged else None,
                    units=found.units,
                    strict_correct=found.strict_correct,
                    judge_correct=found.judge_correct,
                    judge_fixed_correct=found.judge_fixed_correct,
                    disagreeing_ids=found.disagreeing_ids,
                )
            )
    return rows
