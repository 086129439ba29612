"""Section: tokens and time per model, task and phase, with the token histograms."""

from __future__ import annotations

from typing import Literal

import numpy as np

import thinkeval.report._svg as _svg
from thinkeval.records import PHASES, Phase
from thinkeval.report._cells import Collection, ModelTask
from thinkeval.report._format import ALL_TASKS, DASH, Block, Section, number, percent, table, tokens
from thinkeval.report._frozen import Frozen
from thinkeval.report._model import Report
from thinkeval.report._plots import PHASE_COLORS, figure
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.results.columns import ERROR
from thinkeval.results.stats import percentiles
from thinkeval.results.timing import Timing

HISTOGRAM_BINS = 32


class Distribution(Frozen, frozen=True):
    """Mean, median and 90th percentile of some per-reply quantity."""

    count: int
    mean: float
    p50: float
    p90: float


class UsageRow(Frozen, frozen=True):
    """Tokens and time of one model on one task (`task == "all"`: every task) in one phase."""

    model: str
    task: str
    phase: Literal["fixed", "retry"]
    budget: int | None  # None: task "all" over tasks asked at different budgets
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


class Histogram(Frozen, frozen=True):
    """Completion-token counts of one model on one task, in equal bins over 0 .. B2."""

    model: str
    task: str
    edges: list[int]  # len(fixed) + 1 bin edges
    fixed: list[int]
    retry: list[int]


class UsageNumbers(SectionNumbers, frozen=True):
    usage: list[UsageRow]  # per model, task (and every task) and phase
    histograms: list[Histogram]  # per model and task


def usage_numbers(inputs: SectionInputs) -> UsageNumbers:
    return UsageNumbers(usage(inputs.data), [histogram(mt) for mt in inputs.data.ordered()])


def _distribution(values: np.ndarray) -> Distribution | None:
    if not len(values):
        return None
    cuts = percentiles(values.astype(float).tolist(), (50, 90))
    return Distribution(
        count=len(values),
        mean=float(values.sum()) / len(values),
        p50=cuts["p50"] or 0.0,
        p90=cuts["p90"] or 0.0,
    )


def usage(data: Collection) -> list[UsageRow]:
    """Per model and phase, a row per task and one for all tasks, where requests were made."""
    rows = []
    for model in data.models:
        cells = [data.cells[(model, task)] for task in data.tasks]
        for phase in PHASES:
            for task, chosen in [(mt.task, [mt]) for mt in cells] + [(ALL_TASKS, cells)]:
                row = _usage_row(model, task, phase, chosen)
                if row.requests:
                    rows.append(row)
    return rows


def _usage_row(model: str, task: str, phase: Phase, cells: list[ModelTask]) -> UsageRow:
    parts = [mt.replies(phase) for mt in cells]
    ok = [r.status < ERROR for r in parts]  # counted replies without transport error
    completion = np.concatenate([r.completion[m] for r, m in zip(parts, ok, strict=True)])
    reasoning = np.concatenate([r.reasoning[m] for r, m in zip(parts, ok, strict=True)])
    budget = np.concatenate([r.budget[m] for r, m in zip(parts, ok, strict=True)])
    latency = np.concatenate([r.latency[m] for r, m in zip(parts, ok, strict=True)])
    ttft = np.concatenate([r.ttft[m] for r, m in zip(parts, ok, strict=True)])
    measured = (completion >= 0) & (budget > 0)
    shares = completion[measured] / budget[measured]
    timing = Timing.combined(mt.timing[phase] for mt in cells)
    wall = timing.wall_s
    latency, ttft = latency[~np.isnan(latency)], ttft[~np.isnan(ttft)]
    budgets = {mt.budgets[0 if phase == "fixed" else 1] for mt in cells}
    return UsageRow(
        model=model,
        task=task,
        phase=phase,
        budget=budgets.pop() if len(budgets) == 1 else None,
        replies=int(sum(int(m.sum()) for m in ok)),
        completion=_distribution(completion[completion >= 0]),
        reasoning=_distribution(reasoning[reasoning >= 0]),
        budget_share=float(shares.sum()) / len(shares) if len(shares) else None,
        requests=timing.requests,
        errors=timing.errors,
        wall_s=wall,
        requests_per_s=timing.timed / wall if wall else None,
        output_tokens_per_s=timing.timed_tokens / wall if wall else None,
        latency=percentiles(latency.tolist()),
        ttft=percentiles(ttft.tolist()) if len(ttft) else None,
    )


def histogram(mt: ModelTask) -> Histogram:
    """Completion tokens of the counted replies, fixed and retry, in equal bins over 0 .. B2."""
    b2 = mt.budgets[1]
    edges = [round(b2 * i / HISTOGRAM_BINS) for i in range(HISTOGRAM_BINS + 1)]
    bins = {}
    for phase in PHASES:
        tokens = mt.replies(phase).completion
        tokens = tokens[tokens >= 0]
        # searchsorted(right) - 1 puts a value on an edge into the bin it opens; B2 itself (and
        # anything beyond, should a server overshoot) goes into the last bin.
        index = np.clip(np.searchsorted(edges, tokens, side="right") - 1, 0, HISTOGRAM_BINS - 1)
        bins[phase] = np.bincount(index, minlength=HISTOGRAM_BINS).tolist()
    return Histogram(
        model=mt.model, task=mt.task, edges=edges, fixed=bins["fixed"], retry=bins["retry"]
    )


def _budget(row: UsageRow) -> str:
    return "mixed" if row.budget is None else str(row.budget)


def _dist_cells(row: UsageRow) -> tuple[str, ...]:
    c = row.completion
    r = row.reasoning
    completion = (number(c.mean), tokens(c.p50), tokens(c.p90)) if c else (DASH,) * 3
    if r is None:
        reasoning: tuple[str, ...] = ("not reported",) * 3
    else:
        reasoning = (number(r.mean), tokens(r.p50), tokens(r.p90))
    return (
        row.model,
        row.task,
        _budget(row),
        str(row.replies),
        *completion,
        *reasoning,
        percent(row.budget_share),
    )


def _time_cells(row: UsageRow) -> tuple[str, ...]:
    lat = row.latency
    ttft = row.ttft
    ttft_cells = (
        tuple(number(ttft[k], 2) for k in ("p50", "p90", "p99")) if ttft else ("not streamed",) * 3
    )
    return (
        row.model,
        row.task,
        str(row.requests),
        str(row.errors),
        number(row.wall_s),
        number(row.requests_per_s, 2),
        number(row.output_tokens_per_s, 0),
        *(number(lat[k], 2) for k in ("p50", "p90", "p99")),
        *ttft_cells,
    )


def usage_section(usage: list[UsageRow]) -> Section:
    blocks = []
    for phase in ("fixed", "retry"):
        rows = [r for r in usage if r.phase == phase]
        if not rows:
            continue
        blocks.append(Block(heading=f"{phase} phase"))
        blocks.append(
            Block(
                table=table(
                    (
                        "model",
                        "task",
                        "max_tokens",
                        "replies",
                        "completion mean",
                        "completion p50",
                        "completion p90",
                        "reasoning mean",
                        "reasoning p50",
                        "reasoning p90",
                        "share of budget",
                    ),
                    [_dist_cells(r) for r in rows],
                    text_columns=2,
                )
            )
        )
        blocks.append(
            Block(
                table=table(
                    (
                        "model",
                        "task",
                        "requests",
                        "errors",
                        "wall s",
                        "requests/s",
                        "output tokens/s",
                        "latency p50 s",
                        "latency p90 s",
                        "latency p99 s",
                        "TTFT p50 s",
                        "TTFT p90 s",
                        "TTFT p99 s",
                    ),
                    [_time_cells(r) for r in rows],
                    text_columns=2,
                )
            )
        )
    return Section(
        "usage",
        "Tokens and time",
        "Token statistics are over the replies that count (one per sample, or (sample, repeat), "
        "and phase, without transport errors), each task at its own max_tokens ('mixed' for "
        "task 'all' over tasks asked at different budgets); reasoning tokens only where the "
        "server reported usage.reasoning_tokens. Share of budget is the mean of completion "
        "tokens / max_tokens. Time counts every recorded request: wall time runs from the first "
        "request sent to the last reply (started_at + latency_s), requests/s and output "
        "tokens/s divide by it. "
        "Task 'all' is the model's whole phase; tasks that ran concurrently overlap in time. "
        "TTFT (time to first token) exists only for streamed runs.",
        blocks,
    )


def histogram_plots(report: Report, histograms: list[Histogram]) -> str:
    figures = []
    for h in histograms:
        b1, b2 = report.budgets[h.task]
        layers = [
            _svg.Series("fixed", PHASE_COLORS["fixed"], h.fixed),
            _svg.Series("retry", PHASE_COLORS["retry"], h.retry),
        ]
        svg = _svg.histogram(
            f"Completion tokens of {h.model} on {h.task}",
            h.edges,
            layers,
            x_marks=[(b1, str(b1)), (b2, str(b2))],
        )
        figures.append(figure(f"{h.model} · {h.task}", svg))
    return f'<div class="plots">{"".join(figures)}</div>'


def shown(report: Report) -> Section:
    return usage_section(SECTION.numbers(report).usage)


def plots(report: Report) -> str:
    return histogram_plots(report, SECTION.numbers(report).histograms)


SECTION = ReportSection(key="usage", place=90, shown=shown, data=usage_numbers, plots=plots)
