"""A config's models: how to reach each server, and the in-flight caps of shared servers."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import msgspec

from thinkeval.client.profiles import DEFAULT_API, Api, api_names, get_profile, profile_named
from thinkeval.client.reasoning_controls import ReasoningControls
from thinkeval.client.replicas import DEFAULT_ROUTE, Route
from thinkeval.config.prompts import PromptVariant
from thinkeval.errors import ConfigError
from thinkeval.generation import GenerationSettings, generation_problems
from thinkeval.sections import Problem, Section
from thinkeval.urls import redact_url, url_problem

# How a reply cut off in the fixed phase is retried (docs/protocol.md): asked again from scratch
# at the second budget, or continued from the tokens it already generated.
Retry = Literal["reask", "continue"]
DEFAULT_RETRY: Retry = "reask"
# Model names become file names in the run directory.
_RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


# dict=True: room for the typed generation settings and controls, read once (never encoded).
class ModelConfig(Section, kw_only=True, frozen=True, dict=True):
    """One model under evaluation and how to reach it."""

    name: str
    base_url: str | list[str]
    model: str | None = None
    api_key_env: str | None = None
    concurrency: Annotated[int, msgspec.Meta(gt=0, le=100_000)] = 64
    request_rate: Annotated[float, msgspec.Meta(gt=0)] | None = None
    # One request's limit; null (default): one that fits its budget (client/in_flight.py).
    timeout_s: Annotated[float, msgspec.Meta(gt=0)] | None = None
    max_retries: Annotated[int, msgspec.Meta(ge=0, le=1000)] = 10
    retry_backoff_s: Annotated[float, msgspec.Meta(ge=0)] = 1.0
    retry_backoff_max_s: Annotated[float, msgspec.Meta(ge=0)] = 60.0
    # A server's Retry-After is honoured up to this; longer ones are capped, and said.
    retry_after_max_s: Annotated[float, msgspec.Meta(ge=0)] = 300.0
    stream: bool = False
    # Watchdogs over requests in flight (client/watchdog.py, docs/operations.md); null: off.
    stream_idle_s: Annotated[float, msgspec.Meta(gt=0)] | None = 600.0
    probe_interval_s: Annotated[float, msgspec.Meta(gt=0)] | None = 15.0
    deadline_factor: Annotated[float, msgspec.Meta(gt=0)] | None = 4.0
    deadline_min_s: Annotated[float, msgspec.Meta(ge=0)] = 600.0
    # Stop the model when every request has failed with a connection error this long.
    unreachable_after_s: Annotated[float, msgspec.Meta(gt=0)] | None = 60.0
    # As written (and recorded in config.json); typed as `generation_settings`.
    generation: dict[str, Any] = msgspec.field(default_factory=dict)
    # The server's flavour: how requests are built (a module of client/profiles/), checked
    # against the profiles found there.
    api: Api = DEFAULT_API
    retry: Retry = DEFAULT_RETRY  # a task's own `retry` wins
    prompt: PromptVariant | None = None  # asked with another system message or template
    # A thinking budget and a reasoning effort, sent as the flavour's fields
    # (client/reasoning_controls.py).
    reasoning: ReasoningControls | None = None
    # Several base_urls: which replica a request goes to (client/replicas.py), and whether
    # replicas that differ (model, engine version, window, parser) may run together.
    route: Route = DEFAULT_ROUTE
    allow_mixed_fleet: bool = False

    def problems(self) -> Iterator[Problem]:
        if not _RUN_NAME.match(self.name):
            yield (
                "name",
                (
                    f"model name {self.name!r} must start with a letter or digit and use only "
                    "letters, digits, '.', '_' and '-' (it names files in the run directory)"
                ),
            )
        if not self.base_urls:
            yield "base_url", "base_url needs at least one URL"
        for url in self.base_urls:
            problem = base_url_problem(url)
            if problem is not None:
                yield "base_url", problem
        yield from generation_problems(self.generation)
        profile = profile_named(self.api)
        if profile is None:
            yield "api", f"unknown api {self.api!r}: one of {', '.join(api_names())}"
        else:
            for message in profile.generation_problems(self.generation_settings):
                yield "generation", message
            problem = continue_problem(self, self.retry)
            if problem is not None:
                yield "retry", problem
            if self.reasoning is not None:
                for key, message in self.reasoning.problems_for(self.api):
                    yield f"reasoning.{key}", message
        if self.prompt is not None:
            yield from ((f"prompt.{where}", message) for where, message in self.prompt.problems())
        if self.api_key_env and any(urlsplit(u).username for u in self.base_urls):
            yield (
                "",
                (
                    "base_url carries credentials and api_key_env is set: only one Authorization "
                    "header can be sent; keep one of them"
                ),
            )

    @functools.cached_property
    def generation_settings(self) -> GenerationSettings:
        """`generation` typed, read once: checked with the config (`problems`), as recorded
        when read back from a run's `config.json`."""
        return GenerationSettings.recorded(self.generation)

    @functools.cached_property
    def control_settings(self) -> GenerationSettings:
        """The request fields of the `reasoning:` controls, as settings a request merges last."""
        controls = {} if self.reasoning is None else self.reasoning.fields(self.api)
        return GenerationSettings.recorded(controls)

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


def continue_problem(model: ModelConfig, retry: Retry) -> str | None:
    """Why `model` cannot run `retry` (`continue` needs the token ids only vLLM returns)."""
    if retry != "continue":
        return None
    if not get_profile(model.api).returns_token_ids:
        return (
            f"retry: continue needs token ids (`return_token_ids`, vLLM 0.10.2+), which the "
            f"{model.api} API (api: {model.api}) does not return; use retry: reask"
        )
    if model.stream:
        return "retry: continue needs non-streamed replies (the token ids); set stream: false"
    if model.reasoning is not None and model.reasoning.budget is not None:
        # The continuation is a plain completion of the generated tokens: no request field
        # tells the server how much of the thinking budget the fixed reply already spent.
        return (
            "retry: continue cannot keep reasoning.budget (the continuation, a completion of the "
            "tokens already generated, carries no thinking budget, so a reply cut while "
            "thinking would reason past it); use retry: reask"
        )
    return None


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
