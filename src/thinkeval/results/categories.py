"""Per-category results of a task whose subsets fall into categories (C-Eval's STEM, Social
Science, Humanities, Other), and their average: the headline of the official leaderboard.

A category's accuracy counts its questions (every subject's, pooled); the average is the plain
mean over the categories, so each weighs the same whatever its number of questions.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from thinkeval.results.counts import Counts


class CategoryCounts(msgspec.Struct, kw_only=True):
    subjects: int
    total: int
    fixed_accuracy: float
    adaptive_accuracy: float


class CategoriesBlock(msgspec.Struct, kw_only=True):
    """The categories in the task's order, and the mean of their accuracies per phase."""

    fixed_average: float
    adaptive_average: float
    categories: dict[str, CategoryCounts]


def categories_block(
    categories: Mapping[str, str], subjects: Mapping[str, Counts] | None
) -> CategoriesBlock | None:
    """The block for `subjects` (subset -> counts) under `categories` (subset -> category)."""
    if not categories or not subjects:
        return None
    pooled: dict[str, list[int]] = {}  # category -> [subjects, total, fixed, adaptive correct]
    for subject, category in categories.items():
        counts = subjects.get(subject)
        if counts is None:
            continue
        entry = pooled.setdefault(category, [0, 0, 0, 0])
        entry[0] += 1
        entry[1] += counts.total
        entry[2] += counts.fixed.correct
        entry[3] += counts.adaptive.correct
    if not pooled:
        return None
    out = {
        name: CategoryCounts(
            subjects=n,
            total=total,
            fixed_accuracy=fixed / total if total else 0.0,
            adaptive_accuracy=adaptive / total if total else 0.0,
        )
        for name, (n, total, fixed, adaptive) in pooled.items()
    }
    return CategoriesBlock(
        fixed_average=sum(c.fixed_accuracy for c in out.values()) / len(out),
        adaptive_average=sum(c.adaptive_accuracy for c in out.values()) / len(out),
        categories=out,
    )
