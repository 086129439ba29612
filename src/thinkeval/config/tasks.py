"""A config's task entries as written: which samples of a task to ask, and with which budgets,
repeats and generation settings (`config.resolved` turns each into the task a run asks)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Annotated, Any, Literal

import msgspec

from thinkeval.generation import GenerationSettings, generation_problems
from thinkeval.sections import Problem, Section
from thinkeval.settings import budget_problems

Retry = Literal["reask", "continue"]  # as `config.models.Retry`
_RANGE = re.compile(r"^\s*(\d*)\s*:\s*(\d*)\s*$")
Bounds = tuple[int | None, int | None]  # a range's START and END, None where left open


def parse_range(text: str) -> Bounds | None:
    """`"START:END"` -> `(START, END)`, either end open; None when it does not look like one.

    >>> parse_range("1000:1500"), parse_range(":20"), parse_range("1-2")
    ((1000, 1500), (None, 20), None)
    """
    match = _RANGE.match(text)
    if match is None:
        return None
    start, end = (int(g) if g else None for g in match.groups())
    return start, end


def range_text(bounds: Bounds) -> str:
    """`(START, END)` -> `"START:END"`, as a config writes it (`parse_range` reads it back).

    >>> range_text((1000, 1500)), range_text((None, 20))
    ('1000:1500', ':20')
    """
    start, end = bounds
    return f"{'' if start is None else start}:{'' if end is None else end}"


# dict=True: room for `bounds` and `generation_settings`, each read once (never encoded).
class TaskSelection(Section, kw_only=True, frozen=True, dict=True):
    """One task, which of its samples to run (by position in the dataset), and its settings.

    `budgets`, `repeats` and `generation` override the task's defaults (`thinkeval tasks show`);
    `generation` here wins over a model's `generation`, which wins over the task's recommended
    sampling. A task of your own comes from a task `file` (relative to the config) or is
    defined inline under `define` (docs/tasks.md); its name is the one it defines.
    """

    name: str
    file: str | None = None
    define: dict[str, Any] | None = None
    limit: Annotated[int, msgspec.Meta(gt=0)] | None = None
    range: str | None = None
    budgets: tuple[int, int] | None = None
    repeats: Annotated[int, msgspec.Meta(ge=1, le=100_000)] | None = None
    generation: dict[str, Any] = msgspec.field(default_factory=dict)
    # A task of your own, resolved from `file` or `define` when the config is loaded: what the
    # run records, and what the config's catalogue builds the spec from.
    definition: dict[str, Any] | None = None
    retry: Retry | None = None  # wins over the model's `retry`

    def problems(self) -> Iterator[Problem]:
        from thinkeval.tasks import find_task, task_names

        if self.definition is None and find_task(self.name) is None:
            yield "name", f"unknown task {self.name!r}; known tasks: {', '.join(task_names())}"
        if self.range is not None:
            bounds = self.bounds
            if bounds is None:
                yield (
                    "range",
                    (f"range must look like 'START:END' (e.g. '1000:1500'), got {self.range!r}"),
                )
            else:
                start, end = bounds
                if start is not None and end is not None and end <= start:
                    yield "range", f"range {self.range!r} is empty: END must be greater than START"
        if self.limit is not None and self.range is not None:
            yield "", "give either limit or range, not both"
        if self.budgets is not None:
            yield from (("budgets", message) for message in budget_problems(self.budgets))
        yield from generation_problems(self.generation)

    @functools.cached_property
    def generation_settings(self) -> GenerationSettings:
        """`generation` typed, read once (checked with the config: `problems`)."""
        return GenerationSettings.recorded(self.generation)

    @functools.cached_property
    def bounds(self) -> Bounds | None:
        """`range` as numbers, parsed once: None without a range (or one that is malformed,
        which `problems` refuses before anything selects)."""
        return None if self.range is None else parse_range(self.range)
