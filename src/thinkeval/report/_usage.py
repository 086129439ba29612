"""Accuracy by budget, tokens and time, and token histograms, from the report's columns.

Each task has its own budgets, so each is read against its own; with repeats, every (sample,
repeat) is one reply among the task's units.
"""

from __future__ import annotations

import numpy as np

from thinkeval.records import PHASES, Phase
from thinkeval.report._cells import Collection, ModelTask
from thinkeval.report._model import CurveRow, Distribution, Histogram, UsageRow
from thinkeval.results.columns import CORRECT, ERROR, ReplyColumns
from thinkeval.results.stats import budget_curve, percentiles
from thinkeval.results.timing import Timing

# Budgets the curve table always shows when they lie within B2 (B1 and B2 are added).
CURVE_TABLE_BUDGETS = (512, 1024, 2048, 4096, 8192)
CURVE_GRID_STEPS = 128  # plot resolution: B2 / 128 tokens per step
HISTOGRAM_BINS = 32
ALL_TASKS = "all"


def curve_budgets(budgets: tuple[int, int]) -> list[int]:
    b1, b2 = budgets
    return sorted({b for b in CURVE_TABLE_BUDGETS if b <= b2} | {b1, b2})


def _tokens(replies: ReplyColumns, position: int) -> int | None:
    tokens = int(replies.completion[position])
    return None if tokens < 0 else tokens


def curve(mt: ModelTask, table: list[int]) -> CurveRow:
    """Per budget, the units with a strictly correct counted reply within that many tokens."""
    candidate = mt.candidate
    per_sample: list[list[tuple[bool, int | None]]] = []
    for unit in range(mt.units):
        replies = [mt.fixed] if mt.fixed.status[unit] < ERROR else []
        if candidate[unit] and mt.retry.status[unit] < ERROR:
            replies.append(mt.retry)
        per_sample.append([(bool(r.status[unit] == CORRECT), _tokens(r, unit)) for r in replies])
    unmeasured = sum(1 for pairs in per_sample for ok, tokens in pairs if ok and tokens is None)
    b2 = mt.budgets[1]
    grid = sorted(
        {round(b2 * i / CURVE_GRID_STEPS) for i in range(CURVE_GRID_STEPS + 1)} | set(table)
    )
    return CurveRow(
        model=mt.model,
        task=mt.task,
        total=mt.units,
        correct_at=budget_curve(per_sample, table),
        grid=grid,
        grid_correct=budget_curve(per_sample, grid),
        unmeasured_correct=unmeasured,
    )


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
