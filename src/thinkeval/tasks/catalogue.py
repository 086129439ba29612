"""The catalogue: the task specs one config or one run can name, passed down with it.

A catalogue holds the built-in specs (found through `registry`, each imported when first named)
and the config's or the run's own tasks (task files, inline definitions), with the resolved
definitions a run records in `config.json`. Loading a config or reading a run builds one and
changes no process state: two runs that each define a task `quiz` read side by side.

>>> BUILTIN.get("gsm8k").answer.name
'number'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson

from thinkeval.errors import DatasetError
from thinkeval.tasks.registry import find_task, task_names
from thinkeval.tasks.spec import TaskSpec


@dataclass(frozen=True)
class Catalogue:
    """Task specs by name: the config's or the run's own first, then the built-in ones."""

    own: Mapping[str, TaskSpec] = field(default_factory=dict)
    definitions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def find(self, name: str) -> TaskSpec | None:
        """The spec called `name`, or None."""
        return self.own.get(name) or find_task(name)

    def get(self, name: str) -> TaskSpec:
        """The spec called `name`; `DatasetError` lists the known tasks otherwise."""
        spec = self.find(name)
        if spec is None:
            raise DatasetError(f"unknown task {name!r}; known tasks: {', '.join(self.names())}")
        return spec

    def names(self) -> list[str]:
        """Every task it can name: the built-in ones, then its own, each by name."""
        known = task_names()
        return [*known, *sorted(name for name in self.own if name not in known)]

    def definition(self, name: str) -> Mapping[str, Any] | None:
        """The recorded definition of its own task `name`; None for a built-in task."""
        return self.definitions.get(name)


BUILTIN = Catalogue()


def recorded_catalogue(definitions: Mapping[str, Mapping[str, Any]], where: str) -> Catalogue:
    """The catalogue of a run (or a config) from the definitions of its own tasks, as
    `config.json` records them; the same definitions give the same specs (built once)."""
    if not definitions:
        return BUILTIN
    return _built(orjson.dumps(dict(definitions), option=orjson.OPT_SORT_KEYS), where)


@lru_cache(maxsize=64)
def _built(definitions: bytes, where: str) -> Catalogue:
    from thinkeval.tasks.user import recorded_spec

    recorded: dict[str, dict[str, Any]] = orjson.loads(definitions)
    own = {name: recorded_spec(name, definition, where) for name, definition in recorded.items()}
    return Catalogue(own, recorded)
