"""The run configuration: YAML in, validated pydantic models out.

Every mistake is reported as a `ConfigError` that names the file and the key path
(`models[1].concurrency`), never as a pydantic traceback.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import ConfigError
from .tasks import TASKS

# Request fields the protocol owns: a config may not override them.
RESERVED_GENERATION_KEYS = frozenset(
    {"model", "messages", "max_tokens", "max_completion_tokens", "stream", "stream_options", "n"}
)
_RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_RANGE = re.compile(r"^\s*(\d*)\s*:\s*(\d*)\s*$")
T = TypeVar("T")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def redact_url(url: str) -> str:
    """Return `url` with any user:password part replaced by `***`, for display and files."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, f"***@{host}", parts.path, parts.query, parts.fragment))


class TaskSelection(_Strict):
    """One task and, optionally, which of its samples to run (by position in the dataset)."""

    name: str
    limit: Annotated[int, Field(gt=0)] | None = None
    range: str | None = None

    @field_validator("name")
    @classmethod
    def _known_task(cls, name: str) -> str:
        if name not in TASKS:
            raise ValueError(f"unknown task {name!r}; known tasks: {', '.join(TASKS)}")
        return name

    @field_validator("range")
    @classmethod
    def _valid_range(cls, value: str | None) -> str | None:
        if value is None:
            return None
        match = _RANGE.match(value)
        if not match:
            raise ValueError(f"range must look like 'START:END' (e.g. '1000:1500'), got {value!r}")
        start, end = (int(g) if g else None for g in match.groups())
        if start is not None and end is not None and end <= start:
            raise ValueError(f"range {value!r} is empty: END must be greater than START")
        return value

    @model_validator(mode="after")
    def _one_selector(self) -> TaskSelection:
        if self.limit is not None and self.range is not None:
            raise ValueError("give either limit or range, not both")
        return self

    def select(self, items: Iterable[T]) -> Iterator[T]:
        """Apply `limit` / `range` to the task's samples in dataset order, as they stream."""
        if self.limit is not None:
            return itertools.islice(items, self.limit)
        if self.range is not None:
            match = _RANGE.match(self.range)
            assert match is not None  # validated above
            start, end = (int(g) if g else None for g in match.groups())
            return itertools.islice(items, start, end)
        return iter(items)


class ModelConfig(_Strict):
    """One model under evaluation and how to reach it."""

    name: str
    base_url: str | list[str]
    model: str | None = None
    api_key_env: str | None = None
    concurrency: Annotated[int, Field(gt=0, le=100_000)] = 64
    request_rate: Annotated[float, Field(gt=0)] | None = None
    timeout_s: Annotated[float, Field(gt=0)] = 3600.0
    max_retries: Annotated[int, Field(ge=0, le=1000)] = 10
    retry_backoff_s: Annotated[float, Field(ge=0)] = 1.0
    retry_backoff_max_s: Annotated[float, Field(ge=0)] = 60.0
    stream: bool = False
    generation: dict[str, Any] = {}

    @field_validator("name")
    @classmethod
    def _label(cls, name: str) -> str:
        if not _RUN_NAME.match(name):
            raise ValueError(
                f"model name {name!r} must start with a letter or digit and use only letters, "
                "digits, '.', '_' and '-' (it names files in the run directory)"
            )
        return name

    @field_validator("base_url")
    @classmethod
    def _urls(cls, value: str | list[str]) -> str | list[str]:
        urls = [value] if isinstance(value, str) else value
        if not urls:
            raise ValueError("base_url needs at least one URL")
        for url in urls:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(
                    f"base_url {redact_url(url)!r} is not an http(s) URL with a host, "
                    "e.g. http://127.0.0.1:8000/v1"
                )
        return value

    @field_validator("generation")
    @classmethod
    def _generation(cls, value: dict[str, Any]) -> dict[str, Any]:
        reserved = sorted(RESERVED_GENERATION_KEYS & value.keys())
        if reserved:
            raise ValueError(
                f"{', '.join(reserved)} cannot be set in generation: thinkeval sets them "
                "(max_tokens comes from budgets)"
            )
        if value.get("stop"):
            raise ValueError(
                "stop sequences are not sent: they cut thinking models off inside their "
                "reasoning; remove 'stop'"
            )
        return value

    @model_validator(mode="after")
    def _one_authorization(self) -> ModelConfig:
        if self.api_key_env and any(urlsplit(u).username for u in self.base_urls):
            raise ValueError(
                "base_url carries credentials and api_key_env is set: only one Authorization "
                "header can be sent; keep one of them"
            )
        return self

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
        # Surrounding whitespace is a copy-paste slip (a key read from a file keeps its newline).
        key = os.environ.get(self.api_key_env, "").strip()
        if not key:
            raise ConfigError(
                f"model {self.name!r}: environment variable {self.api_key_env} "
                "(api_key_env) is not set"
            )
        if not key.isascii() or not key.isprintable() or " " in key:
            # It goes into an HTTP header, where a line break would add headers of its own.
            raise ConfigError(
                f"model {self.name!r}: environment variable {self.api_key_env} (api_key_env) "
                "holds spaces, line breaks or non-ASCII characters; an API key cannot"
            )
        return key


class RunConfig(_Strict):
    """A whole evaluation: which models, which tasks, which budgets."""

    run: str
    data_dir: str | None = None
    budgets: tuple[int, int] = (2048, 8192)
    tasks: list[TaskSelection] = Field(
        default_factory=lambda: [TaskSelection(name=name) for name in TASKS]
    )
    models: list[ModelConfig]

    @field_validator("run")
    @classmethod
    def _run_name(cls, name: str) -> str:
        # The run name becomes a directory: it must not be able to escape the output folder.
        if not _RUN_NAME.match(name) or name in (".", ".."):
            raise ValueError(
                f"run name {name!r} must start with a letter or digit and use only letters, "
                "digits, '.', '_' and '-'"
            )
        return name

    @field_validator("budgets")
    @classmethod
    def _budgets(cls, budgets: tuple[int, int]) -> tuple[int, int]:
        fixed, adaptive = budgets
        if fixed <= 0:
            raise ValueError("the fixed budget must be a positive number of tokens")
        if adaptive <= fixed:
            raise ValueError(
                f"budgets must increase: the retry budget {adaptive} is not larger than the "
                f"fixed budget {fixed}"
            )
        return budgets

    @field_validator("tasks", mode="before")
    @classmethod
    def _task_names(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"name": item} if isinstance(item, str) else item for item in value]
        return value

    @model_validator(mode="after")
    def _unique(self) -> RunConfig:
        for kind, names in (
            ("model", [m.name for m in self.models]),
            ("task", [t.name for t in self.tasks]),
        ):
            dupes = sorted({n for n in names if names.count(n) > 1})
            if dupes:
                raise ValueError(f"{kind} {dupes[0]!r} is listed twice")
        if not self.models:
            raise ValueError("models: list at least one model")
        if not self.tasks:
            raise ValueError("tasks: list at least one task")
        return self

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
        data = self.model_dump(mode="json")
        for model in data["models"]:
            urls = model["base_url"]
            model["base_url"] = (
                redact_url(urls) if isinstance(urls, str) else [redact_url(u) for u in urls]
            )
        return data


def _error_path(loc: tuple[Any, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part in ("str", "list[str]", "function-after[_label(), str]"):
            continue  # pydantic's union branch names say nothing to a user
        else:
            path += f".{part}" if path else str(part)
    return path or "(top level)"


def describe_validation_error(source: str, error: ValidationError) -> str:
    """One line per problem: `file: key.path: what is wrong`."""
    lines = []
    seen: set[str] = set()
    for item in error.errors():
        path = _error_path(tuple(item["loc"]))
        if item["type"] == "extra_forbidden":
            message = "unknown key (check the spelling; see docs/configuration.md)"
        elif item["type"] == "missing":
            message = "required key is missing"
        else:
            message = str(item["msg"]).removeprefix("Value error, ")
        line = f"{source}: {path}: {message}"
        if line not in seen:
            seen.add(line)
            lines.append(line)
    return "\n".join(lines)


def parse_config(data: Any, source: str = "<config>") -> RunConfig:
    """Validate an already-parsed YAML document."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the config must be a YAML mapping of keys to values")
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(source, exc)) from None


def load_config(path: str | Path) -> RunConfig:
    """Read and validate a YAML run config.

    >>> load_config("examples/compare.yaml").budgets
    (2048, 8192)
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the config: {exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path}:{where}: not valid YAML: {problem}") from None
    return parse_config(data, str(path))
