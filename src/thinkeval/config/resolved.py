"""One task as a run asks it, resolved once: its spec, which of its samples, and what it runs with.

A config's task entry (`config.tasks.TaskSelection`) names a task and overrides some of its spec's
defaults; a run's `config.json` (`store.run_record.TaskRecord`) says what a run asked. Each
resolves once, when the config or the record is loaded, into a `ResolvedTask`: the runner, the
protocol, the run record and everything that reads a run share that one value, looked up by name
in a mapping (`RunConfig.task`, `RunRecord.task`), never resolved again.

>>> from thinkeval.config.tasks import TaskSelection
>>> from thinkeval.tasks import get_task
>>> task = resolve_task(TaskSelection(name="gsm8k", range="10:20"), get_task("gsm8k"), None)
>>> task.budgets, task.bounds, task.range, task.selection
((2048, 8192), (10, 20), '10:20', 'range 10:20')
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from thinkeval.config.tasks import Bounds, Retry, TaskSelection, range_text
from thinkeval.generation import GenerationSettings

if TYPE_CHECKING:
    from thinkeval.records import Sample
    from thinkeval.tasks.spec import TaskSpec


@dataclass(frozen=True)
class ResolvedTask:
    """A task's spec with the settings a run asks it with.

    `limit` or `bounds` (a range as numbers) select its samples by position in the dataset.
    A request's generation settings are layered: the task's `recommended` sampling (its spec's,
    or what a run recorded), then the model's own `generation`, then the config's task entry
    (`generation` here). `definition` is a task of your own as `config.json` records it.
    """

    spec: TaskSpec
    budgets: tuple[int, int]
    repeats: int = 1
    limit: int | None = None
    bounds: Bounds | None = None
    recommended: GenerationSettings = field(default_factory=GenerationSettings)
    generation: GenerationSettings = field(default_factory=GenerationSettings)
    retry: Retry | None = None  # None: the model's `retry`
    definition: dict[str, Any] | None = None
    # `request_generation`'s answers, by the identity of the settings it merged (kept here
    # with them, so an id is not reused while its entry lives): merged once per model.
    _merged: dict[tuple[int, int], tuple[object, object, GenerationSettings]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def range(self) -> str | None:
        """The range as a config writes it (`START:END`), or None without one."""
        return None if self.bounds is None else range_text(self.bounds)

    @property
    def selection(self) -> str:
        """Which samples it asks, in words: `limit 5`, `range 10:20` or `all`."""
        if self.limit is not None:
            return f"limit {self.limit}"
        return "all" if self.range is None else f"range {self.range}"

    def select(self, items: Iterable[Sample]) -> Iterator[Sample]:
        """Apply `limit` / `range` to the task's samples in dataset order, as they stream; a
        limit on a task with categories takes samples of every category and subject
        (`tasks.spread`), since its first samples are of one category only."""
        if self.limit is not None and self.spec.categories:
            from thinkeval.tasks.spread import spread

            return spread(items, self.limit, self.spec.categories)
        if self.limit is not None:
            return itertools.islice(items, self.limit)
        if self.bounds is not None:
            return itertools.islice(items, *self.bounds)
        return iter(items)

    def request_generation(
        self, model_generation: GenerationSettings, controls: GenerationSettings | None = None
    ) -> GenerationSettings:
        """The generation settings a request of this task sends for a model: the task's
        recommended sampling, the model's `generation`, the task entry's, then the model's
        reasoning `controls` (`ModelConfig.control_settings`) where given."""
        key = (id(model_generation), id(controls))
        known = self._merged.get(key)
        if known is not None:
            return known[2]
        merged = self.recommended.overridden_by(model_generation).overridden_by(self.generation)
        if controls is not None:
            merged = merged.overridden_by(controls)
        self._merged[key] = (model_generation, controls, merged)
        return merged


def resolve_task(
    selection: TaskSelection, spec: TaskSpec, budgets: tuple[int, int] | None
) -> ResolvedTask:
    """A config's task entry over its spec: the entry's budgets, else the config's `budgets`,
    else the spec's; the entry's repeats, else the spec's."""
    return ResolvedTask(
        spec=spec,
        budgets=selection.budgets or budgets or spec.budgets,
        repeats=selection.repeats or spec.repeats,
        limit=selection.limit,
        bounds=selection.bounds,
        recommended=spec.generation,
        generation=selection.generation_settings,
        retry=selection.retry,
        definition=selection.definition,
    )
