"""The report's per-category table (C-Eval's four categories), with the average over the
categories that the official leaderboard reports as the headline."""

from __future__ import annotations

from thinkeval.report._format import percent
from thinkeval.report._model import BreakdownRow
from thinkeval.results.categories import categories_block
from thinkeval.tasks import find_task

HEADERS = ("model", "category", "subjects", "samples", "fixed accuracy", "adaptive accuracy")


def category_rows(task: str, subjects: list[BreakdownRow]) -> list[tuple[str, ...]]:
    """One row per model and category, then each model's average over the categories."""
    spec = find_task(task)
    if spec is None or not spec.categories:
        return []
    rows: list[tuple[str, ...]] = []
    for model in dict.fromkeys(row.model for row in subjects):
        counts = {r.subject or "": r.counts for r in subjects if r.model == model}
        block = categories_block(spec.categories, counts)
        if block is None:
            continue
        for name, c in block.categories.items():
            rows.append((model, name, str(c.subjects), str(c.total),
                         percent(c.fixed_accuracy), percent(c.adaptive_accuracy)))  # fmt: skip
        rows.append((model, "average over categories", "", "",
                     percent(block.fixed_average), percent(block.adaptive_average)))  # fmt: skip
    return rows
