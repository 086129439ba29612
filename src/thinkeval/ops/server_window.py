"""The context window a server gives each request, as `thinkeval check` shows it.

Each flavour's profile says where to look and reads it: the model card (`stated_window`:
vLLM's `max_model_len`), a JSON endpoint beyond it (`window_path`, `read_window`: llama.cpp's
per-slot `/props`), or nowhere (`states_window`: OpenAI's cards state none).
With `--tasks`, `check` measures each task's longest prompt with one request of one token and
warns when prompt + B2 cannot fit the window.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

import aiohttp
import orjson

from thinkeval.client.profiles import Api, get_profile, stated_window
from thinkeval.client.replies import RequestFailed
from thinkeval.generation import GenerationSettings
from thinkeval.records import Sample
from thinkeval.urls import api_url

if TYPE_CHECKING:
    from thinkeval.client.endpoint import Endpoint

PROPS_TIMEOUT_S = 10.0


async def window_props(
    session: aiohttp.ClientSession, base_url: str, headers: dict[str, str], path: str
) -> dict[str, Any] | None:
    """The JSON at `path` under the server's root (a profile's `window_path`), or None when the
    server has none (or it is unreadable)."""
    url = api_url(base_url, path, origin=True)
    timeout = aiohttp.ClientTimeout(total=PROPS_TIMEOUT_S)
    try:
        async with session.get(url, headers=headers, timeout=timeout) as resp:
            if resp.status != 200:
                return None
            body = orjson.loads(await resp.read())
    except (TimeoutError, aiohttp.ClientError, orjson.JSONDecodeError):
        return None
    return body if isinstance(body, dict) else None


def window_of(
    api: Api | None, card: dict[str, Any], props: dict[str, Any] | None
) -> tuple[int | None, str]:
    """The per-request window and where it was read, e.g. `(2048, "/props: 4 slots of 2048")`:
    what the profile reads at its `window_path` (`props`), else what the card states."""
    profile = get_profile(api) if api is not None else None
    read = profile.read_window(props) if profile is not None and props is not None else None
    stated = read or stated_window(card)
    if stated is None:
        states = profile is None or profile.states_window
        return None, "not stated" if states else "not stated by the server"
    return stated


def longest(samples: Iterable[Sample]) -> Sample | None:
    """The sample whose messages are longest in UTF-8 bytes (a stand-in for tokens)."""
    best, size = None, -1
    for sample in samples:
        length = sum(len(str(m.get("content", "")).encode()) for m in sample.messages)
        length += sum(len(str(tool)) for tool in sample.tools)  # a tool's schema is prompt too
        if length > size:
            best, size = sample, length
    return best


async def prompt_tokens(endpoint: Endpoint, model: str, sample: Sample) -> int | None:
    """The prompt tokens of `sample` at this server, from one request of one token (its usage,
    or the refusal that names them when the prompt alone is over the window)."""
    profile = endpoint.profile
    body = profile.request(model, sample.messages, 1, GenerationSettings(), False, sample.tools)
    try:
        timed = await endpoint.chat(body)
    except RequestFailed as exc:
        return exc.prompt_tokens
    return timed.reply.usage.prompt_tokens


def fit_warning(task: str, tokens: int, window: int, budgets: tuple[int, int]) -> str | None:
    """What `check` says when the task's longest prompt and its B2 do not fit the window."""
    b1, b2 = budgets
    if tokens >= window:
        return (
            f"{task}: the longest prompt is {tokens} tokens, over the {window}-token window: "
            "runs record it as refused (prompt_over_window) and never ask it"
        )
    if tokens + b2 > window:
        return (
            f"{task}: the longest prompt is {tokens} tokens; with B2 {b2} it needs "
            f"{tokens + b2} > the {window}-token window: such retries are clamped to "
            f"{window - tokens} (recorded as clamped_from)"
            + (f"; even B1 {b1} does not fit" if tokens + b1 > window else "")
        )
    return None


class _Checked(Protocol):
    """What `fit_warnings` reads of a check report."""

    model: str | None
    max_model_len: int | None
    budgets: tuple[int, int]


async def fit_warnings(endpoint: Endpoint, report: _Checked, tasks: dict[str, Sample]) -> list[str]:
    """A warning for each task whose longest prompt and B2 do not fit the window."""
    window, warnings = report.max_model_len, []
    for task, sample in tasks.items():
        if report.model is None or window is None:
            break
        tokens = await prompt_tokens(endpoint, report.model, sample)
        warning = None if tokens is None else fit_warning(task, tokens, window, report.budgets)
        if warning is not None:
            warnings.append(warning)
    return warnings


class _Windowed(Protocol):
    """What `read_window` fills in a check report."""

    api: Api | None
    max_model_len: int | None
    window_source: str | None


async def read_window(endpoint: Endpoint, report: _Windowed, card: dict[str, Any]) -> None:
    """The window of one request at this server, and where it was read (`window_of`)."""
    props = None
    path = get_profile(report.api).window_path if report.api is not None else None
    if path is not None:
        props = await window_props(endpoint.session, endpoint.root, endpoint.headers, path)
    report.max_model_len, report.window_source = window_of(report.api, card, props)
