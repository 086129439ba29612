"""The task registry: every built-in spec (one module each in `tasks/builtin/`) plus the tasks a
user registers (from task files), by name.

>>> get_task("gsm8k").answer.name
'number'
>>> [spec.name for spec in default_tasks()]
['boolq', 'ceval', 'gsm8k']
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from functools import cache

import thinkeval.tasks.builtin as builtin
from thinkeval.errors import DatasetError
from thinkeval.tasks.spec import TaskSpec

_REGISTERED: dict[str, TaskSpec] = {}


@cache
def _builtin() -> dict[str, TaskSpec]:
    specs: dict[str, TaskSpec] = {}
    for module_info in sorted(pkgutil.iter_modules(builtin.__path__), key=lambda m: m.name):
        spec = _spec_in(f"{builtin.__name__}.{module_info.name}")
        if spec.name in specs:
            raise TypeError(
                f"{builtin.__name__}.{module_info.name}: task {spec.name!r} is defined twice"
            )
        specs[spec.name] = spec
    return specs


def _spec_in(module_name: str) -> TaskSpec:
    spec = getattr(importlib.import_module(module_name), "SPEC", None)
    if not isinstance(spec, TaskSpec):
        raise TypeError(f"{module_name} defines no SPEC = TaskSpec(...)")
    return spec


@cache
def _builtin_named(name: str) -> TaskSpec | None:
    """The built-in task `name`, importing only its own module where the module has the task's
    name (as every built-in's does): a run loads the tasks it runs, not every benchmark."""
    module_name = f"{builtin.__name__}.{name}"
    # Only a plain module name: "__init__" or "../x" must not import something else.
    plain = name.isidentifier() and not name.startswith("_")
    if plain and importlib.util.find_spec(module_name) is not None:
        spec = _spec_in(module_name)
        if spec.name == name:
            return spec
    return _builtin().get(name)


def is_builtin(name: str) -> bool:
    """Whether `name` is a built-in task's (a task of your own may not take it)."""
    return _builtin_named(name) is not None


def register(spec: TaskSpec) -> None:
    """Make `spec` available by name; a user task may not take a built-in task's name."""
    if spec.name in _builtin():
        raise DatasetError(f"task {spec.name!r} is built in; give your task another name")
    _REGISTERED[spec.name] = spec


def all_tasks() -> list[TaskSpec]:
    """Every known task: the built-in ones by name, then the registered ones by name."""
    return [*_builtin().values(), *sorted(_REGISTERED.values(), key=lambda s: s.name)]


def task_names() -> list[str]:
    return [spec.name for spec in all_tasks()]


def default_tasks() -> list[TaskSpec]:
    """The tasks a config without a `tasks` list runs."""
    return [spec for spec in all_tasks() if spec.suite == "default"]


def find_task(name: str) -> TaskSpec | None:
    """The spec called `name`, or None."""
    return _REGISTERED.get(name) or _builtin_named(name)


def get_task(name: str) -> TaskSpec:
    """The spec called `name`; `DatasetError` lists the known tasks otherwise."""
    spec = find_task(name)
    if spec is None:
        raise DatasetError(f"unknown task {name!r}; known tasks: {', '.join(task_names())}")
    return spec
