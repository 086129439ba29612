"""The config's `decide:`: ask the baseline and its candidates the same questions in lockstep,
in a seeded order, and stop asking a task once its verdict at the margin is settled
(`results/sequential.py`; docs/comparing.md, "Deciding with fewer questions")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Literal

import msgspec

from thinkeval.sections import Problem, Section


class DecideConfig(Section, kw_only=True, frozen=True):
    """`decide: {goal: equivalent, seed: 0, batch: 100, alpha: 0.05}`; the margin is
    `baseline:`'s (in points; `recovery` cannot be decided sequentially)."""

    goal: Literal["equivalent", "non-inferior"] = "equivalent"
    seed: int = 0  # of the order the questions are dealt in
    batch: Annotated[int, msgspec.Meta(ge=1)] = 100  # questions per task between two looks
    alpha: Annotated[float, msgspec.Meta(gt=0, lt=0.5)] = 0.05  # each one-sided error rate


def decide_problems(
    decide: DecideConfig | None, baseline: object, recovery: object
) -> Iterator[Problem]:
    """`decide:` needs a baseline to decide against, at a margin in points."""
    if decide is None:
        return
    if baseline is None:
        yield "decide", "needs a baseline (baseline: MODEL) to decide the candidates against"
    elif recovery is not None:
        yield (
            "decide",
            "decides at a margin in points: give baseline.margin instead of baseline.recovery",
        )
