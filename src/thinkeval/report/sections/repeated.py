"""Section: repeated sampling (avg@k, pass@k, maj@k, solve rates) of tasks asked k times.

A task asked k times per question (`repeats: k`) gets summary.json's `repeated` block per model
(`results.questions.QuestionsFold`, folded in the read model's pass: avg@k, pass@j, maj@k with
intervals that resample questions, the solve-rate distribution, no-vote and tie counts).
"""

from __future__ import annotations

import thinkeval.report._svg as _svg
from thinkeval.report._cells import Collection
from thinkeval.report._format import Block, Section, interval, percent, table
from thinkeval.report._frozen import Frozen
from thinkeval.report._model import Report
from thinkeval.report._plots import PHASE_COLORS, figure
from thinkeval.report._repeats import details
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.results.counts import Counts
from thinkeval.results.questions import RepeatDetails
from thinkeval.results.repeats import Interval, PhaseRepeats, RepeatsBlock


class RepeatRow(Frozen, frozen=True):
    """Repeated sampling of one model on one task: summary.json's `repeated` block."""

    model: str
    task: str
    metrics: RepeatsBlock  # avg@k, pass@j, maj@k with intervals; solve rates; no vote, ties
    complete: bool  # every (question, repeat) has its replies (else metrics are lower bounds)


class RepeatedNumbers(SectionNumbers, frozen=True):
    repeated: list[RepeatRow]  # per model and task asked more than once per question


def repeated_numbers(inputs: SectionInputs) -> RepeatedNumbers:
    return RepeatedNumbers(repeat_rows(inputs.data, details(inputs.data), inputs.counts))


def repeat_rows(
    data: Collection,
    found: dict[tuple[str, str], RepeatDetails],
    counts: dict[tuple[str, str], Counts],
) -> list[RepeatRow]:
    """summary.json's `repeated` block of every model on every task asked more than once."""
    rows = []
    for task in data.tasks:
        for model in data.models:
            detail = found.get((model, task))
            if detail is not None and detail.metrics is not None:
                complete = counts[(model, task)].complete
                rows.append(RepeatRow(model=model, task=task, metrics=detail.metrics,
                                      complete=complete))  # fmt: skip
    return rows


def _with_interval(value: Interval) -> str:
    return f"{percent(value.value)} {interval(value.low, value.high)}"


def _phase_cells(metrics: PhaseRepeats) -> tuple[str, ...]:
    """avg@k, pass@j for j > 1 (pass@1 is avg@k), maj@k, the counts behind maj@k, solve rates."""
    return (
        _with_interval(metrics.avg),
        *(_with_interval(value) for j, value in metrics.pass_at.items() if j != "1"),
        _with_interval(metrics.maj),
        str(metrics.no_vote),
        str(metrics.ties),
        " / ".join(str(count) for count in metrics.solved),
    )


def repeated_section(report: Report, repeated: list[RepeatRow]) -> Section | None:
    """avg@k, pass@j, maj@k and the solve rates of every task asked more than once."""
    if not repeated:
        return None
    blocks = []
    for task in report.tasks:
        rows = [r for r in repeated if r.task == task]
        if not rows:
            continue
        first = rows[0].metrics
        k = first.k
        blocks.append(Block(heading=f"{task}: {k} replies per question"))
        cells: list[tuple[str, ...]] = []
        warn: set[int] = set()
        for row in rows:
            phases = (("fixed", row.metrics.fixed), ("adaptive", row.metrics.adaptive))
            for phase, metrics in phases:
                if not row.complete:
                    warn.add(len(cells))
                cells.append((row.model, phase, str(row.metrics.questions), *_phase_cells(metrics)))
        columns = (
            "model",
            "phase",
            "questions",
            f"avg@{k} [95% CI]",
            *(f"pass@{j} [95% CI]" for j in first.fixed.pass_at if j != "1"),
            f"maj@{k} [95% CI]",
            "no vote",
            "ties",
            f"questions solved 0, 1, …, {k} times",
        )
        blocks.append(Block(table=table(columns, cells, text_columns=2, warn=frozenset(warn))))
    return Section(
        "repeated",
        "Repeated sampling",
        "For each task asked k times per question, per model and phase (fixed, and adaptive: "
        "after the one retry of each (question, repeat) that was empty or unfinished): avg@k, "
        "the mean accuracy over all k replies of every question; pass@j, the chance that at "
        "least one of j replies is correct (the unbiased estimator of Chen et al. 2021; pass@1 "
        "equals avg@k, so it is not repeated); maj@k, whether the most common final answer is "
        "correct (only replies with a final answer vote, equivalent answers count as one, a "
        "question nobody voted on counts as wrong: 'no vote'; a tie splits the credit: "
        "'ties'); and how many questions "
        "were solved 0, 1, …, k times. The 95% intervals come from a bootstrap that resamples "
        "questions (10,000 resamples, seed 0, as in summary.json), since the k replies to one "
        "question are not independent. The numbers are summary.json's repeated block. A "
        "highlighted row is incomplete: replies with errors or not asked yet count as wrong.",
        blocks,
    )


def solve_rate_plots(repeated: list[RepeatRow]) -> str:
    """Per model and task asked more than once: how many questions were solved 0 .. k times,
    fixed and adaptive side by side."""
    figures = []
    for row in repeated:
        metrics = row.metrics
        series = [
            _svg.Series("fixed", PHASE_COLORS["fixed"], metrics.fixed.solved),
            _svg.Series("adaptive", PHASE_COLORS["retry"], metrics.adaptive.solved),
        ]
        svg = _svg.grouped_bars(
            f"Questions of {row.task} solved 0 to {metrics.k} times by {row.model}",
            [str(c) for c in range(metrics.k + 1)],
            series,
            x_label=f"times solved of {metrics.k}",
            y_label="questions",
        )
        figures.append(figure(f"{row.model} · {row.task}", svg))
    return f'<div class="plots">{"".join(figures)}</div>'


def shown(report: Report) -> Section | None:
    return repeated_section(report, SECTION.numbers(report).repeated)


def plots(report: Report) -> str:
    return solve_rate_plots(SECTION.numbers(report).repeated)


SECTION = ReportSection(key="repeated", place=30, shown=shown, data=repeated_numbers, plots=plots)
