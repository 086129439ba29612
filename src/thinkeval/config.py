"""The run configuration: YAML in, validated frozen structs out.

msgspec checks keys and types (the first wrong one); `problems()` then checks what types cannot
say, and lists every such problem at once. Each is reported as a `ConfigError` that names the
file and the key path (`models[1].concurrency`), never as a traceback.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, TypeVar
from urllib.parse import urlsplit

import msgspec
import yaml

from thinkeval.client.profiles import DEFAULT_API, Api, get_profile
from thinkeval.errors import ConfigError
from thinkeval.records import decode_error_parts
from thinkeval.urls import endpoint_key, redact_url, url_problem

# Request fields the protocol owns: a config may not override them.
RESERVED_GENERATION_KEYS = frozenset(
    {"model", "messages", "max_tokens", "max_completion_tokens", "stream", "stream_options", "n"}
)
_RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_RANGE = re.compile(r"^\s*(\d*)\s*:\s*(\d*)\s*$")
T = TypeVar("T")
# A problem found after the types check out: (key path relative to its object, message).
Problem = tuple[str, str]


class Section(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """A config section: unknown keys and wrong types are refused when the YAML is converted."""

    def problems(self) -> Iterator[Problem]:
        """Every mistake the types cannot express, with the key path relative to the section."""
        return iter(())


class TaskSelection(Section, kw_only=True, frozen=True):
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
    generation: dict[str, Any] = {}

    def problems(self) -> Iterator[Problem]:
        from thinkeval.tasks import find_task, task_names

        if find_task(self.name) is None:
            yield "name", f"unknown task {self.name!r}; known tasks: {', '.join(task_names())}"
        if self.range is not None:
            match = _RANGE.match(self.range)
            if not match:
                yield "range", (
                    f"range must look like 'START:END' (e.g. '1000:1500'), got {self.range!r}"
                )
            else:
                start, end = (int(g) if g else None for g in match.groups())
                if start is not None and end is not None and end <= start:
                    yield "range", f"range {self.range!r} is empty: END must be greater than START"
        if self.limit is not None and self.range is not None:
            yield "", "give either limit or range, not both"
        if self.budgets is not None:
            yield from (("budgets", message) for message in budget_problems(self.budgets))
        yield from (("generation", message) for message in generation_problems(self.generation))

    def bounds(self) -> tuple[int | None, int | None]:
        """`range`'s START and END (None where left open, or without a range)."""
        match = _RANGE.match(self.range or "")
        if match is None:
            return None, None
        start, end = (int(g) if g else None for g in match.groups())
        return start, end

    def select(self, items: Iterable[T]) -> Iterator[T]:
        """Apply `limit` / `range` to the task's samples in dataset order, as they stream."""
        if self.limit is not None:
            return itertools.islice(items, self.limit)
        if self.range is not None:
            return itertools.islice(items, *self.bounds())
        return iter(items)


def budget_problems(budgets: tuple[int, int]) -> Iterator[str]:
    """What is wrong with a (fixed, retry) budget pair."""
    fixed, adaptive = budgets
    if fixed <= 0:
        yield "the fixed budget must be a positive number of tokens"
    elif adaptive <= fixed:
        yield (
            f"budgets must increase: the retry budget {adaptive} is not larger than the "
            f"fixed budget {fixed}"
        )


def generation_problems(generation: dict[str, Any]) -> Iterator[str]:
    """Generation settings thinkeval cannot pass on."""
    reserved = sorted(RESERVED_GENERATION_KEYS & generation.keys())
    if reserved:
        yield (
            f"{', '.join(reserved)} cannot be set in generation: thinkeval sets them "
            "(max_tokens comes from budgets)"
        )
    if generation.get("stop"):
        yield (
            "stop sequences are not sent: they cut thinking models off inside their "
            "reasoning; remove 'stop'"
        )
    seed = generation.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        yield f"seed must be an integer, got {seed!r}"


class TaskSettings(msgspec.Struct, kw_only=True, frozen=True):
    """What one task runs with, resolved from the config and the task's defaults.

    A request's generation settings are layered: the task's `recommended` sampling, then the
    model's own `generation`, then the config's task entry (`generation` here).
    """

    name: str
    budgets: tuple[int, int]
    repeats: int = 1
    recommended: dict[str, Any] = {}
    generation: dict[str, Any] = {}

    def request_generation(self, model_generation: dict[str, Any]) -> dict[str, Any]:
        """The generation settings a request of this task sends for a model."""
        return {**self.recommended, **model_generation, **self.generation}


def _default_tasks() -> list[TaskSelection]:
    from thinkeval.tasks import default_tasks

    return [TaskSelection(name=spec.name) for spec in default_tasks()]


class ModelConfig(Section, kw_only=True, frozen=True):
    """One model under evaluation and how to reach it."""

    name: str
    base_url: str | list[str]
    model: str | None = None
    api_key_env: str | None = None
    concurrency: Annotated[int, msgspec.Meta(gt=0, le=100_000)] = 64
    request_rate: Annotated[float, msgspec.Meta(gt=0)] | None = None
    timeout_s: Annotated[float, msgspec.Meta(gt=0)] = 3600.0
    max_retries: Annotated[int, msgspec.Meta(ge=0, le=1000)] = 10
    retry_backoff_s: Annotated[float, msgspec.Meta(ge=0)] = 1.0
    retry_backoff_max_s: Annotated[float, msgspec.Meta(ge=0)] = 60.0
    stream: bool = False
    # Stop the model when every request has failed with a connection error this long.
    unreachable_after_s: Annotated[float, msgspec.Meta(gt=0)] | None = 60.0
    generation: dict[str, Any] = {}
    api: Api = DEFAULT_API  # the server's flavour: how requests are built (client/profiles.py)

    def problems(self) -> Iterator[Problem]:
        if not _RUN_NAME.match(self.name):
            yield "name", (
                f"model name {self.name!r} must start with a letter or digit and use only "
                "letters, digits, '.', '_' and '-' (it names files in the run directory)"
            )
        if not self.base_urls:
            yield "base_url", "base_url needs at least one URL"
        for url in self.base_urls:
            problem = base_url_problem(url)
            if problem is not None:
                yield "base_url", problem
        yield from (("generation", message) for message in generation_problems(self.generation))
        for message in get_profile(self.api).generation_problems(self.generation):
            yield "generation", message
        if self.api_key_env and any(urlsplit(u).username for u in self.base_urls):
            yield "", (
                "base_url carries credentials and api_key_env is set: only one Authorization "
                "header can be sent; keep one of them"
            )

    @property
    def served_model(self) -> str:
        """The model id sent in requests."""
        return self.model or self.name

    @property
    def base_urls(self) -> list[str]:
        return [self.base_url] if isinstance(self.base_url, str) else list(self.base_url)

    def api_key(self) -> str | None:
        """Read the API key from the environment; it is never stored."""
        if self.api_key_env is None:
            return None
        return read_api_key(
            self.api_key_env,
            f"model {self.name!r}: environment variable {self.api_key_env} (api_key_env)",
        )


def base_url_problem(url: str) -> str | None:
    """`base_url 'URL' has no scheme: ...`: what is wrong with a server URL; None if usable."""
    problem = url_problem(url)
    return None if problem is None else f"base_url {redact_url(url)!r} {problem}"


def read_api_key(variable: str, named: str) -> str:
    """The API key held by environment `variable`; `named` says where it was asked for."""
    # Surrounding whitespace is a copy-paste slip (a key read from a file keeps its newline).
    key = os.environ.get(variable, "").strip()
    if not key:
        raise ConfigError(f"{named} is not set")
    if not key.isascii() or not key.isprintable() or " " in key:
        # It goes into an HTTP header, where a line break would add headers of its own.
        raise ConfigError(
            f"{named} holds spaces, line breaks or non-ASCII characters; an API key cannot"
        )
    return key


class EndpointConfig(Section, kw_only=True, frozen=True):
    """A server several models share, and the most requests it may have in flight from all."""

    base_url: str
    max_in_flight: Annotated[int, msgspec.Meta(gt=0, le=100_000)]


class RunConfig(Section, kw_only=True, frozen=True):
    """A whole evaluation: which models, which tasks, which budgets.

    `budgets`, when given, is every task's budget pair unless the task sets its own; when left
    out, each task uses its default (2048 → 8192 for the seed's benchmarks).
    """

    run: str
    data_dir: str | None = None
    budgets: tuple[int, int] | None = None
    tasks: list[TaskSelection] = msgspec.field(default_factory=_default_tasks)
    models: list[ModelConfig]
    endpoints: list[EndpointConfig] = []

    def problems(self) -> Iterator[Problem]:
        """Every mistake the types cannot express, each with the key path it is about."""
        # The run name becomes a directory: it must not be able to escape the output folder.
        if not _RUN_NAME.match(self.run) or self.run in (".", ".."):
            yield "run", (
                f"run name {self.run!r} must start with a letter or digit and use only letters, "
                "digits, '.', '_' and '-'"
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
                for message in get_profile(model.api).generation_problems(selection.generation):
                    yield f"tasks[{index}].generation", f"for model {model.name!r}: {message}"
        yield from self._endpoint_problems()

    def _endpoint_problems(self) -> Iterator[Problem]:

        used = {endpoint_key(url) for model in self.models for url in model.base_urls}
        seen: set[str] = set()
        for index, endpoint in enumerate(self.endpoints):
            key = endpoint_key(endpoint.base_url)
            if key not in used:
                yield f"endpoints[{index}].base_url", (
                    f"{redact_url(endpoint.base_url)!r} is not the base_url of any model"
                )
            elif key in seen:
                yield f"endpoints[{index}].base_url", (
                    f"{redact_url(endpoint.base_url)!r} is listed twice"
                )
            seen.add(key)

    def endpoint_caps(self) -> dict[str, int]:
        """The `max_in_flight` the config sets per base URL."""
        return {endpoint.base_url: endpoint.max_in_flight for endpoint in self.endpoints}

    def settings(self, task: str) -> TaskSettings:
        """The budgets, repeats and generation `task` runs with: the task entry's, else the
        config's budgets, else the task spec's defaults."""
        from thinkeval.tasks import get_task

        selection = next(t for t in self.tasks if t.name == task)
        spec = get_task(task)
        return TaskSettings(
            name=task,
            budgets=selection.budgets or self.budgets or spec.budgets,
            repeats=selection.repeats or spec.repeats,
            recommended=dict(spec.generation),
            generation=dict(selection.generation),
        )

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


# msgspec's wording for a key problem, and ours; the key itself follows in backquotes.
_KEY_PROBLEMS = (
    ("Object contains unknown field ", "unknown key (check the spelling: {docs})"),
    ("Object missing required field ", "required key is missing"),
)


def describe_conversion_error(
    error: msgspec.ValidationError, docs: str = "docs/configuration.md"
) -> str:
    """`key.path: what is wrong` for the first unknown key, missing key or wrong type; an
    unknown key points at `docs`."""
    path, message = decode_error_parts(error)
    for wording, meaning in _KEY_PROBLEMS:
        if message.startswith(wording):
            key = message.removeprefix(wording).strip("`")
            meaning = meaning.format(docs=docs)
            return f"{path}.{key}: {meaning}" if path else f"{key}: {meaning}"
    return f"{path or '(top level)'}: {message}"


def parse_config(data: Any, source: str = "<config>") -> RunConfig:
    """Validate an already-parsed YAML document; every problem names `file: key.path`."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the config must be a YAML mapping of keys to values")
    tasks = data.get("tasks")
    if isinstance(tasks, list):  # `tasks: [gsm8k, {name: boolq, limit: 5}]`
        from thinkeval.tasks.user import register_entry

        entries = [{"name": t} if isinstance(t, str) else t for t in tasks]
        base = Path(source).parent if source != "<config>" else Path.cwd()
        data = {
            **data,
            "tasks": [
                register_entry(entry, base, f"{source}: tasks[{i}]") if isinstance(entry, dict)
                else entry
                for i, entry in enumerate(entries)
            ],
        }
    return convert_checked(data, RunConfig, source)


Checked = TypeVar("Checked", bound=Section)


def convert_checked(
    data: Any, kind: type[Checked], source: str, docs: str = "docs/configuration.md"
) -> Checked:
    """`data` as a `kind` section, its types and then its `problems()` checked; every mistake
    is a `ConfigError` line `source: key.path: what is wrong` (unknown keys point at `docs`)."""
    try:
        value = msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"{source}: {describe_conversion_error(exc, docs)}") from None
    problems = [f"{source}: {path}: {message}" for path, message in value.problems()]
    if problems:
        raise ConfigError("\n".join(problems))
    return value


def load_config(path: str | Path) -> RunConfig:
    """Read and validate a YAML run config.

    >>> load_config("examples/compare.yaml").budgets
    (2048, 8192)
    """
    path = Path(path)
    return parse_config(read_yaml(path, "config"), str(path))


def read_yaml(path: Path, what: str) -> Any:
    """The YAML document in `path` (`what` names it in errors: "config", "task file")."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: {what} file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the {what}: {exc}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path}:{where}: not valid YAML: {problem}") from None
