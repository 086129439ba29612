"""A run config from command-line flags, lm-eval style: a server URL, tasks, and little else.

`thinkeval run --base-url URL --tasks gsm8k,boolq --limit 20` builds the same `RunConfig` a
YAML file would give: one model (the id the server serves, unless `--model` names one), the
tasks with the limit, the budgets and generation settings. Like the OpenAI SDK, the server and
key may come from `OPENAI_BASE_URL` and `OPENAI_API_KEY`; the key itself is never stored, only
the name of the variable holding it.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from thinkeval.config import RunConfig, base_url_problem, parse_config
from thinkeval.errors import ConfigError
from thinkeval.sections import load_yaml

BASE_URL_ENV = "OPENAI_BASE_URL"
API_KEY_ENV = "OPENAI_API_KEY"
_LABEL = re.compile(r"[^A-Za-z0-9._-]+")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")

# Reads the model ids a server lists: (base_url, api_key_env) -> ids.
ListModels = Callable[[str, str | None], Awaitable[list[str]]]


@dataclass(frozen=True)
class RunFlags:
    """What `thinkeval run` takes instead of a config file (None: not given)."""

    base_url: str | None = None
    model: str | None = None
    tasks: tuple[str, ...] = ()
    limit: int | None = None
    budgets: tuple[int, int] | None = None
    concurrency: int | None = None
    generation: dict[str, Any] = field(default_factory=dict)
    api_key_env: str | None = None
    name: str | None = None
    data_dir: str | None = None
    retry: str | None = None  # `reask` or `continue`: the model's `retry`


def parse_generation(items: Iterable[str]) -> dict[str, Any]:
    """`--gen KEY=VALUE` settings: values are YAML scalars (`0.6`, `true`, `null`, `[1, 2]`);
    dotted keys build nested mappings.

    >>> parse_generation(["temperature=0.6", "chat_template_kwargs.enable_thinking=true"])
    {'temperature': 0.6, 'chat_template_kwargs': {'enable_thinking': True}}
    """
    settings: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        path = key.strip().split(".")
        if not sep or not all(_KEY.match(part) for part in path):
            raise ConfigError(
                f"--gen {item!r}: expected KEY=VALUE, e.g. temperature=0.6 or "
                "chat_template_kwargs.enable_thinking=true"
            )
        try:
            value = load_yaml(text, "the value") if text.strip() else ""
        except ConfigError as exc:
            raise ConfigError(f"--gen {item!r}: {exc}") from None
        where = settings
        for depth, part in enumerate(path[:-1]):
            inner = where.setdefault(part, {})
            if not isinstance(inner, dict):
                raise ConfigError(
                    f"--gen {item!r}: {'.'.join(path[: depth + 1])} was already set to a value"
                )
            where = inner
        if isinstance(where.get(path[-1]), dict) or path[-1] in where:
            raise ConfigError(f"--gen {item!r}: {key.strip()} is set twice")
        where[path[-1]] = value
    return settings


def model_label(model_id: str) -> str:
    """A name for files and reports from a served model id.

    >>> model_label("Qwen/Qwen3-8B")
    'Qwen-Qwen3-8B'
    """
    return _LABEL.sub("-", model_id).strip("-._")[:60] or "model"


def resolve_base_url(flags: RunFlags, environ: Mapping[str, str], flag: str = "--base-url") -> str:
    """`--base-url`, else `OPENAI_BASE_URL`; one line naming the flag when it is unusable."""
    url = flags.base_url if flags.base_url is not None else environ.get(BASE_URL_ENV)
    if url is None:
        raise ConfigError(
            "give a config file (thinkeval run CONFIG) or a server: --base-url URL or "
            f"{BASE_URL_ENV} (e.g. http://127.0.0.1:8000/v1)"
        )
    problem = base_url_problem(url)
    if problem is not None:
        where = flag if flags.base_url is not None else BASE_URL_ENV
        raise ConfigError(f"{where}: {problem}")
    return url


def api_key_env(flags: RunFlags, environ: Mapping[str, str]) -> str | None:
    """The variable holding the API key: `--api-key-env`, else `OPENAI_API_KEY` when set."""
    if flags.api_key_env:
        return flags.api_key_env
    return API_KEY_ENV if environ.get(API_KEY_ENV, "").strip() else None


def choose_model(flags: RunFlags, served: list[str], base_url: str) -> str:
    """The model id to ask: `--model`, else the only one the server lists."""
    if flags.model:
        return flags.model
    if len(served) == 1:
        return served[0]
    if not served:
        raise ConfigError(f"{base_url} lists no model in /v1/models; name one with --model ID")
    raise ConfigError(
        f"{base_url} serves {len(served)} models ({', '.join(served)}); choose one with --model ID"
    )


def run_name(flags: RunFlags, model_id: str, config: dict[str, Any]) -> str:
    """`--name`, else `<model>-<tasks>-<digest>`: the same flags name the same run (so the same
    command resumes it), different tasks, limits, budgets, generation or retry a new one."""
    if flags.name:
        return flags.name
    meaning = {key: config.get(key) for key in ("budgets", "tasks")}
    meaning["model"] = model_id
    meaning["generation"] = config["models"][0].get("generation")
    if flags.retry is not None:  # another protocol, another run (left out: the names it had)
        meaning["retry"] = flags.retry
    digest = hashlib.sha256(msgspec.json.encode(meaning, order="sorted")).hexdigest()[:8]
    names = [task["name"] for task in config.get("tasks", [])] or ["default"]
    tasks = "-".join(names) if len(names) <= 3 else f"{len(names)}tasks"
    return f"{model_label(model_id)}-{tasks}-{digest}"


async def config_from_flags(
    flags: RunFlags,
    list_models: ListModels,
    environ: Mapping[str, str] | None = None,
    source: str = "command line",
) -> RunConfig:
    """The `RunConfig` the flags describe; the server is asked for its model ids only when
    `--model` is not given. Problems are `ConfigError`s naming the flag (`source` names where
    the flags came from: the command line, or the Python API's keywords)."""
    environ = os.environ if environ is None else environ
    if flags.limit is not None and (isinstance(flags.limit, bool) or flags.limit < 1):
        # 0 would otherwise read as "no limit" and run the whole dataset.
        where = "limit=" if source != "command line" else "--limit"
        raise ConfigError(f"{where} must be at least 1, got {flags.limit!r}")
    api = source != "command line"
    base_url = resolve_base_url(flags, environ, "base_url=" if api else "--base-url")
    key_env = api_key_env(flags, environ)
    served = [] if flags.model else await list_models(base_url, key_env)
    model_id = choose_model(flags, served, base_url)
    model: dict[str, Any] = {"name": model_label(model_id), "base_url": base_url}
    if model["name"] != model_id:
        model["model"] = model_id
    if key_env:
        model["api_key_env"] = key_env
    if flags.concurrency is not None:
        model["concurrency"] = flags.concurrency
    if flags.generation:
        model["generation"] = flags.generation
    if flags.retry is not None:
        model["retry"] = flags.retry
    data: dict[str, Any] = {"run": "", "models": [model]}
    if flags.tasks:
        data["tasks"] = [
            {"name": task, **({"limit": flags.limit} if flags.limit is not None else {})}
            for task in flags.tasks
        ]
    elif flags.limit is not None:
        from thinkeval.tasks import default_tasks

        data["tasks"] = [{"name": spec.name, "limit": flags.limit} for spec in default_tasks()]
    if flags.budgets is not None:
        data["budgets"] = list(flags.budgets)
    if flags.data_dir:
        data["data_dir"] = os.path.abspath(flags.data_dir)
    data["run"] = run_name(flags, model_id, data)
    return parse_config(data, source)
