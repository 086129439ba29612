"""The config's `baseline:`: which model the others are compared with, and at what margin
(declared before the run, so it is never chosen after looking at the numbers)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

import msgspec

from thinkeval.sections import Problem, Section

Points = Annotated[float, msgspec.Meta(gt=0, le=100)]


class BaselineConfig(Section, kw_only=True, frozen=True):
    """`baseline: {model: NAME, candidates: [...], margin: 1, recovery: 0.99, margins: {...},
    max_unfinished_gap: 2, noise_floor: NAME2}`; a bare `baseline: NAME` compares every other
    model at the default margin (1 point)."""

    model: str
    candidates: list[str] = msgspec.field(default_factory=list)
    margin: Points | None = None  # percentage points
    recovery: Annotated[float, msgspec.Meta(gt=0, lt=1)] | None = None
    margins: dict[str, Points] = msgspec.field(default_factory=dict)  # per task, points
    # Points: a row whose two sides' unfinished rates differ by more is refused a verdict.
    max_unfinished_gap: Points | None = None
    # A second model entry serving the baseline again in the same deployment (an A/A copy):
    # the flips it shows against the baseline are the deployment's noise floor.
    noise_floor: str | None = None

    def problems(self) -> Iterator[Problem]:
        if self.margin is not None and self.recovery is not None:
            yield "recovery", "give either margin (points) or recovery (a ratio), not both"
        if self.model in self.candidates:
            yield "candidates", f"{self.model!r} is the baseline; it cannot be a candidate too"
        if self.noise_floor is not None and self.noise_floor in (self.model, *self.candidates):
            yield "noise_floor", f"{self.noise_floor!r} is compared; an A/A copy is a second model"


def baseline_problems(
    baseline: BaselineConfig | str | None, models: list[str]
) -> Iterator[Problem]:
    """The models `baseline:` names must be models of the config."""
    if baseline is None:
        return
    chosen = BaselineConfig(model=baseline) if isinstance(baseline, str) else baseline
    where = "baseline" if isinstance(baseline, str) else "baseline.model"
    if chosen.model not in models:
        yield where, f"{chosen.model!r} is not a model of this config ({', '.join(models)})"
    for index, name in enumerate(chosen.candidates):
        if name not in models:
            yield f"baseline.candidates[{index}]", f"{name!r} is not a model of this config"
    if chosen.noise_floor is not None and chosen.noise_floor not in models:
        yield "baseline.noise_floor", f"{chosen.noise_floor!r} is not a model of this config"
    if not isinstance(baseline, str):
        for where_in, message in baseline.problems():
            yield f"baseline.{where_in}", message
