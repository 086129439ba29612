"""The report's reasoning-controls rows: per model and task, the thinking budget and the
reasoning effort asked, the reasoning lengths observed and whether they kept to the budget
(the check is `results.reasoning`'s fold, in the read model's pass as in summary.json's)."""

from __future__ import annotations

from thinkeval.report._cells import Collection
from thinkeval.report._frozen import Frozen
from thinkeval.results.reasoning import ReasoningBlock, verdict


class ReasoningRow(Frozen, frozen=True):
    """One model on one task: the controls asked, the lengths observed and the verdict."""

    model: str
    task: str
    budget: int | None
    budget_field: str | None
    effort: str | None
    check: str  # respected, ignored, unchecked, effort_only
    replies: int
    over: int
    counted: int  # lengths the server counted; the rest estimated from the text
    p50: float | None
    p90: float | None
    max: int | None
    verdict: str  # the one-line verdict `thinkeval run` prints


def reasoning_rows(data: Collection) -> list[ReasoningRow]:
    """A row per model with reasoning controls and task, in the report's order."""
    rows = []
    for cell in data.ordered():
        model = next((m for m in cell.run.record.models if m.name == cell.model), None)
        if model is None or model.reasoning is None:
            continue
        block = cell.run.reasoning.get((cell.model, cell.task)) or ReasoningBlock(
            budget=model.reasoning.budget,
            effort=model.reasoning.effort,
            check="unchecked" if model.reasoning.budget is not None else "effort_only",
        )
        rows.append(
            ReasoningRow(
                model=cell.model,
                task=cell.task,
                budget=block.budget,
                budget_field=block.budget_field,
                effort=block.effort,
                check=block.check,
                replies=block.replies,
                over=block.over,
                counted=block.counted,
                p50=block.p50,
                p90=block.p90,
                max=block.max,
                verdict=verdict(block),
            )
        )
    return rows
