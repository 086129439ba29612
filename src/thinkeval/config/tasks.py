"""A config's task entries: which samples of a task to ask, and with which budgets, repeats and
generation settings."""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Literal, TypeVar

import msgspec

from thinkeval.sections import Problem, Section
from thinkeval.settings import budget_problems, generation_problems

Retry = Literal["reask", "continue"]  # as `config.models.Retry`
_RANGE = re.compile(r"^\s*(\d*)\s*:\s*(\d*)\s*$")
T = TypeVar("T")
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


# dict=True: room for `bounds`, the range parsed once per selection (never encoded).
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
        yield from (("generation", message) for message in generation_problems(self.generation))

    @functools.cached_property
    def bounds(self) -> Bounds | None:
        """`range` as numbers, parsed once: None without a range (or one that is malformed,
        which `problems` refuses before anything selects)."""
        return None if self.range is None else parse_range(self.range)

    def select(self, items: Iterable[T]) -> Iterator[T]:
        """Apply `limit` / `range` to the task's samples in dataset order, as they stream."""
        if self.limit is not None:
            return itertools.islice(items, self.limit)
        if self.bounds is not None:
            return itertools.islice(items, *self.bounds)
        return iter(items)


class TaskSettings(msgspec.Struct, kw_only=True, frozen=True):
    """What one task runs with, resolved from the config and the task's defaults.

    A request's generation settings are layered: the task's `recommended` sampling, then the
    model's own `generation`, then the config's task entry (`generation` here).
    """

    name: str
    budgets: tuple[int, int]
    repeats: int = 1
    recommended: dict[str, Any] = {}
    generation: dict[str, Any] = msgspec.field(default_factory=dict)
    retry: Retry | None = None  # None: the model's `retry`

    def request_generation(self, model_generation: dict[str, Any]) -> dict[str, Any]:
        """The generation settings a request of this task sends for a model."""
        return {**self.recommended, **model_generation, **self.generation}
