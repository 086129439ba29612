"""The run configuration: YAML (or flags) in, validated frozen structs out.

msgspec checks keys and types (the first wrong one); `problems()` then checks what types cannot
say, and lists every such problem at once. Each is reported as a `ConfigError` that names the
file and the key path (`models[1].concurrency`), never as a traceback. The sections live in
`config/tasks.py` (task entries) and `config/models.py` (models and endpoints); the reading
machinery in `sections.py`. Each task entry resolves once into the task a run asks
(`config/resolved.py`: `RunConfig.task`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from thinkeval.client.profiles import profile_named
from thinkeval.config.compare import BaselineConfig, baseline_problems
from thinkeval.config.decide import DecideConfig, decide_problems
from thinkeval.config.models import (
    EndpointConfig,
    ModelConfig,
    base_url_problem,
    continue_problem,
    read_api_key,
)
from thinkeval.config.prompts import PromptVariant, prompts_problems
from thinkeval.config.resolved import ResolvedTask, resolve_task
from thinkeval.config.sweep import SweepConfig, sweep_problems
from thinkeval.config.tasks import TaskSelection
from thinkeval.errors import ConfigError
from thinkeval.sections import (
    Problem,
    Section,
    convert_checked,
    describe_conversion_error,
    read_yaml,
)
from thinkeval.settings import RESERVED_GENERATION_KEYS, budget_problems, generation_problems
from thinkeval.urls import endpoint_key, redact_url

if TYPE_CHECKING:
    from thinkeval.tasks.catalogue import Catalogue

__all__ = [
    "RESERVED_GENERATION_KEYS",
    "BaselineConfig",
    "DecideConfig",
    "EndpointConfig",
    "ModelConfig",
    "Problem",
    "PromptVariant",
    "ResolvedTask",
    "RunConfig",
    "Section",
    "SweepConfig",
    "TaskSelection",
    "base_url_problem",
    "budget_problems",
    "convert_checked",
    "describe_conversion_error",
    "generation_problems",
    "load_config",
    "parse_config",
    "read_api_key",
    "read_yaml",
    "redact_url",
]

# The run name becomes a directory: it must not be able to escape the output folder.
_RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def _default_tasks() -> list[TaskSelection]:
    from thinkeval.tasks import default_tasks

    return [TaskSelection(name=spec.name) for spec in default_tasks()]


# dict=True: room for the catalogue and the resolved tasks, each built once (never encoded).
class RunConfig(Section, kw_only=True, frozen=True, dict=True):
    """A whole evaluation: which models, which tasks, which budgets.

    `budgets`, when given, is every task's budget pair unless the task sets its own; when left
    out, each task uses its default (2048 → 8192 for the seed's benchmarks).
    """

    run: str
    data_dir: str | None = None
    budgets: tuple[int, int] | None = None
    tasks: list[TaskSelection] = msgspec.field(default_factory=_default_tasks)
    models: list[ModelConfig]
    endpoints: list[EndpointConfig] = msgspec.field(default_factory=list)
    # The model the others are compared with, and the margin (config/compare.py).
    baseline: BaselineConfig | str | None = None
    # Ask in lockstep and stop once the comparison is decided (config/decide.py).
    decide: DecideConfig | None = None
    # Named prompt variants (config/prompts.py) and `thinkeval sweep`'s grid (config/sweep.py).
    prompts: dict[str, PromptVariant] = msgspec.field(default_factory=dict)
    sweep: SweepConfig | None = None

    def problems(self) -> Iterator[Problem]:
        """Every mistake the types cannot express, each with the key path it is about."""
        # The run name becomes a directory: it must not be able to escape the output folder.
        if not _RUN_NAME.match(self.run) or self.run in (".", ".."):
            yield (
                "run",
                (
                    f"run name {self.run!r} must start with a letter or digit and use only "
                    "letters, digits, '.', '_' and '-'"
                ),
            )
        if self.budgets is not None:
            yield from (("budgets", message) for message in budget_problems(self.budgets))
        for key, items in (("tasks", self.tasks), ("models", self.models)):
            if not items:
                yield key, f"list at least one {key[:-1]}"
            names = [item.name for item in items]
            for name in sorted({n for n in names if names.count(n) > 1}):
                yield key, f"{key[:-1]} {name!r} is listed twice"
            for index, item in enumerate(items):
                for where, message in item.problems():
                    yield f"{key}[{index}]" + (f".{where}" if where else ""), message
        # A task's generation settings reach every model: each model's API must accept them.
        for index, selection in enumerate(self.tasks):
            if not selection.generation:
                continue
            for model in self.models:
                profile = profile_named(model.api)  # an unknown one is a problem of its own
                for message in (
                    profile.generation_problems(selection.generation_settings) if profile else ()
                ):
                    yield f"tasks[{index}].generation", f"for model {model.name!r}: {message}"
        for index, selection in enumerate(self.tasks):
            for model in self.models:
                if profile_named(model.api) is None:
                    continue
                problem = continue_problem(model, selection.retry or model.retry)
                if selection.retry is not None and problem is not None:
                    yield f"tasks[{index}].retry", f"for model {model.name!r}: {problem}"
        yield from self._endpoint_problems()
        yield from baseline_problems(self.baseline, [model.name for model in self.models])
        recovery = self.baseline.recovery if isinstance(self.baseline, BaselineConfig) else None
        yield from decide_problems(self.decide, self.baseline, recovery)
        yield from prompts_problems(self.prompts)
        if self.sweep is not None:
            yield from ((f"sweep.{where}", message) for where, message in self.sweep.problems())
        yield from sweep_problems(self.sweep, self.models, self.prompts)

    def _endpoint_problems(self) -> Iterator[Problem]:

        used = {endpoint_key(url) for model in self.models for url in model.base_urls}
        seen: set[str] = set()
        for index, endpoint in enumerate(self.endpoints):
            key = endpoint_key(endpoint.base_url)
            if key not in used:
                yield (
                    f"endpoints[{index}].base_url",
                    (f"{redact_url(endpoint.base_url)!r} is not the base_url of any model"),
                )
            elif key in seen:
                yield (
                    f"endpoints[{index}].base_url",
                    (f"{redact_url(endpoint.base_url)!r} is listed twice"),
                )
            seen.add(key)

    @functools.cached_property
    def catalogue(self) -> Catalogue:
        """The tasks this config can name: the built-in ones and its own (`tasks.catalogue`)."""
        from thinkeval.tasks.catalogue import recorded_catalogue

        own = {t.name: t.definition for t in self.tasks if t.definition is not None}
        return recorded_catalogue(own, "config")

    @functools.cached_property
    def resolved(self) -> Mapping[str, ResolvedTask]:
        """Each task as the run asks it, by name in the config's order, resolved once
        (`config.resolved`): the task entry's settings, else the config's budgets, else the
        task spec's defaults."""
        return {
            t.name: resolve_task(t, self.catalogue.get(t.name), self.budgets) for t in self.tasks
        }

    def endpoint_caps(self) -> dict[str, int]:
        """The `max_in_flight` the config sets per base URL."""
        return {endpoint.base_url: endpoint.max_in_flight for endpoint in self.endpoints}

    def task(self, name: str) -> ResolvedTask:
        """The task `name` as the run asks it (`resolved`)."""
        task = self.resolved.get(name)
        if task is None:
            raise ConfigError(
                f"no task named {name!r} in the config; tasks: {', '.join(self.resolved)}"
            )
        return task

    def model_named(self, name: str) -> ModelConfig:
        for model in self.models:
            if model.name == name:
                return model
        raise ConfigError(
            f"no model named {name!r} in the config; models: "
            f"{', '.join(m.name for m in self.models)}"
        )

    def public_dict(self) -> dict[str, Any]:
        """The resolved config as stored in the run directory: no secrets, URLs redacted."""
        # Through JSON, so it compares equal to what config.json holds (tuples become lists).
        data: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(self))
        for model in data["models"]:
            urls = model["base_url"]
            model["base_url"] = (
                redact_url(urls) if isinstance(urls, str) else [redact_url(u) for u in urls]
            )
        for endpoint in data["endpoints"]:
            endpoint["base_url"] = redact_url(endpoint["base_url"])
        return data


def parse_config(data: Any, source: str = "<config>") -> RunConfig:
    """Validate an already-parsed YAML document; every problem names `file: key.path`."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the config must be a YAML mapping of keys to values")
    tasks = data.get("tasks")
    if isinstance(tasks, list):  # `tasks: [gsm8k, {name: boolq, limit: 5}]`
        from thinkeval.tasks.user import resolve_entry

        entries = [{"name": t} if isinstance(t, str) else t for t in tasks]
        base = Path(source).parent if source != "<config>" else Path.cwd()
        data = {
            **data,
            "tasks": [
                resolve_entry(entry, base, f"{source}: tasks[{i}]")
                if isinstance(entry, dict)
                else entry
                for i, entry in enumerate(entries)
            ],
        }
    _check_prompts(data.get("prompts"), source)
    return convert_checked(data, RunConfig, source)


def _check_prompts(prompts: Any, source: str) -> None:
    """Each `prompts:` entry's type errors under its own name (msgspec says `prompts[...]`)."""
    if not isinstance(prompts, dict):
        return
    for name, entry in prompts.items():
        try:
            msgspec.convert(entry, PromptVariant)
        except msgspec.ValidationError as exc:
            problem = describe_conversion_error(exc)
            where = "" if problem.startswith("(top level)") else "."
            problem = problem.replace("(top level)", "")
            raise ConfigError(f"{source}: prompts.{name}{where}{problem}") from None


def load_config(path: str | Path) -> RunConfig:
    """Read and validate a YAML run config.

    >>> load_config("examples/compare.yaml").budgets
    (2048, 8192)
    """
    path = Path(path)
    return parse_config(read_yaml(path, "config"), str(path))
