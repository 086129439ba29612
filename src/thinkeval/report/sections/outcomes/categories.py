"""The report's per-category table (C-Eval's four categories), with the average over the
categories that the official leaderboard reports as the headline."""

from __future__ import annotations

from collections.abc import Mapping

from thinkeval.report._format import percent
from thinkeval.report.sections.outcomes.rows import BreakdownRow
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
        rows.append((model, _average_label(len(block.categories), spec.categories), "", "",
                     percent(block.fixed_average), percent(block.adaptive_average)))  # fmt: skip
    return rows


def _average_label(present: int, categories: Mapping[str, str]) -> str:
    """`average over 4 categories`, or `over 2 of 4 categories (the others have no samples)` when
    the run asked only some of them, so the average never passes for the task's headline."""
    total = len(set(categories.values()))
    if present == total:
        return f"average over {total} categories"
    return f"average over {present} of {total} categories (the others have no samples)"
