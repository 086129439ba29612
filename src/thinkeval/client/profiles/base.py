"""The server profile every flavour module specialises: how a chat request is built, how replies
and errors are read, and the facts the rest of thinkeval asks instead of testing a flavour's name.

The class attributes are a plain OpenAI-compatible server that says nothing more about itself
(`max_tokens`, no template kwargs, no reasoning controls, no load or window endpoint); each
flavour module (`vllm.py`, `sglang.py`, ...) sets what its server has and overrides a hook where
it answers differently. The replies themselves never contradict each other across flavours, so
all profiles read them with one tolerant reader (`replies.py`, vllm-api.md §7.3).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from msgspec import UNSET

from thinkeval.client.refusals import CONTEXT_STATUSES, CONTEXT_WORDING, read_refusal
from thinkeval.client.replies import (
    ErrorBody,
    RequestFailed,
    StreamAssembly,
    http_failure,
    parse_completion,
)
from thinkeval.failures import FailureKind, http_kind
from thinkeval.generation import GenerationSettings
from thinkeval.records import Reply

# A server started without its tool-call parser (vLLM's `--enable-auto-tool-choice
# --tool-call-parser`, llama.cpp's `--jinja`): every flavour's wording, since a server behind
# the wrong `api:` still says it.
_NO_TOOL_PARSER = re.compile(
    r"tool choice requires --enable-auto-tool-choice|requires --jinja", re.I
)
# The prompt's length in a context-window refusal (client/refusals.py reads the rest).
_PROMPT_TOKENS = re.compile(
    r"(?:request has|prompt contains|passed|messages?\)?[^0-9]{0,20}?)\s*(\d+)\s*(?:input )?tokens?"
    r"|(\d+) in the messages|(\d+) tokens from the input messages",
    re.I,
)
# Prometheus's standard gauge of when the process started (the Python client exports it).
_START_TIME = re.compile(rb"^process_start_time_seconds\s+([0-9.e+]+)", re.M)


@dataclass(frozen=True)
class ServerLoad:
    """What a server's load endpoint said: when its process started, and how many requests it
    holds (running and queued); None where it does not say."""

    started: float | None = None
    busy: int | None = None


def prometheus_load(raw: bytes, gauges: Sequence[str]) -> ServerLoad:
    """The start time and the sum of `gauges` (with any labels) in Prometheus text."""
    started = _START_TIME.search(raw)
    names = b"|".join(re.escape(name.encode()) for name in gauges)
    found = (
        re.findall(rb"^(?:" + names + rb")(?:\{[^}]*\})?\s+([0-9.e+]+)", raw, re.M)
        if gauges
        else []
    )
    return ServerLoad(
        started=float(started.group(1)) if started else None,
        busy=int(sum(float(n) for n in found)) if found else None,
    )


class ServerProfile:
    """A flavour of OpenAI-compatible server; the flavour modules set the attributes below."""

    name: ClassVar[str] = ""  # the `api:` value
    # The `owned_by` of its `/v1/models` cards (`detect_api`).
    card_owners: ClassVar[frozenset[str]] = frozenset()
    budget_field: ClassVar[str] = "max_tokens"
    takes_template_kwargs: ClassVar[bool] = False  # `chat_template_kwargs` (enable_thinking)
    # `return_token_ids` (vLLM 0.10.2+): what `retry: continue` resends (run/continuation.py).
    returns_token_ids: ClassVar[bool] = False
    # The request fields of a model's `reasoning:` controls (client/reasoning_controls.py):
    # its thinking budget's and its effort's; None: no such control, and a config asking for it
    # is refused.
    budget_control: ClassVar[str | None] = None
    effort_control: ClassVar[str | None] = None
    takes_top_k: ClassVar[bool] = True  # `top_k` is honoured (`thinkeval audit` checks it)
    # The server refuses `max_tokens` and speaks this profile's API instead: the flavour
    # `thinkeval check` falls back to on a `wrong_api` refusal (`profile_refusing_max_tokens`).
    refuses_max_tokens: ClassVar[bool] = False
    # Where the server counts the requests it holds, under its root (the watchdog's load
    # probe, read by `read_load`); None: it says nowhere.
    load_path: ClassVar[str | None] = None
    # The Prometheus gauges at `load_path` that count the requests it holds (`read_load`).
    load_gauges: ClassVar[tuple[str, ...]] = ()
    # Where the server states its per-request context window beyond the model card (read by
    # `read_window`); None: the card alone.
    window_path: ClassVar[str | None] = None
    # Whether the server may state its window at all (OpenAI never does).
    states_window: ClassVar[bool] = True
    # Whether a budget over the window is refused too (prompt + max_tokens > window), not only
    # a prompt over it (`thinkeval audit` sends the refusal this server can give).
    budget_counts_in_window: ClassVar[bool] = True
    # Where the server tells its own version under its root, read by `read_version`.
    version_path: ClassVar[str | None] = None

    def request(
        self,
        model: str,
        messages: Sequence[Mapping[str, Any]],
        max_tokens: int,
        generation: GenerationSettings,
        stream: bool,
        tools: Sequence[Mapping[str, Any]] = (),
    ) -> dict[str, Any]:
        """The chat request body: the generation settings, then the fields thinkeval owns
        (`tools`, a tool-calling task's functions, as every flavour takes them: OpenAI's)."""
        body: dict[str, Any] = generation.as_dict()
        body["model"] = model
        body["messages"] = list(messages)
        if tools:
            body["tools"] = list(tools)
        body[self.budget_field] = max_tokens
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    def set_budget(self, body: dict[str, Any], max_tokens: int) -> None:
        """Change the token budget of a body built by `request` (the context-window clamp)."""
        body[self.budget_field] = max_tokens

    def thinking_on(self) -> GenerationSettings:
        """The generation settings that ask a hybrid model to think, where this flavour has
        them (the probes of `check`, `audit` and a replica's fingerprint)."""
        if not self.takes_template_kwargs:
            return GenerationSettings()
        return GenerationSettings(chat_template_kwargs={"enable_thinking": True})

    def probe_generation(self) -> GenerationSettings:
        """A probe's settings: greedy, with thinking on where the flavour can ask for it."""
        return GenerationSettings(temperature=0).overridden_by(self.thinking_on())

    def generation_problems(self, generation: GenerationSettings) -> Iterator[str]:
        """What in a model's `generation` settings this flavour refuses."""
        if generation.chat_template_kwargs is not UNSET and not self.takes_template_kwargs:
            yield (
                f"chat_template_kwargs is not accepted by the {self.name} API (api: {self.name}), "
                "which refuses it as an unknown argument; its reasoning models always think "
                "(reasoning_effort sets how much). Remove it, or set api: vllm / sglang for a "
                "vLLM or SGLang server"
            )

    def parse(self, body: Any) -> tuple[Reply, dict[str, Any]]:
        """A non-streaming reply as a `Reply`, with the raw message it was read from."""
        return parse_completion(body)

    def stream(self, started: float) -> StreamAssembly:
        """A fresh assembler for one streamed reply started at `started` (perf_counter)."""
        return StreamAssembly(started)

    def failure(self, status: int, raw: bytes, retry_after: str | None) -> RequestFailed:
        """A non-200 reply as a `RequestFailed` of the kind this flavour's words say."""
        failure, error = http_failure(status, raw, retry_after)
        kind = self.kind_of(status, error, failure.message)
        if kind == failure.kind:
            return read_refusal(failure, error, raw)
        # A kind the body names (not the status alone) is about this request or this model:
        # asking again cannot help.
        failure = dataclasses.replace(failure, kind=kind, retryable=False)
        if kind == "context_overflow":
            match = _PROMPT_TOKENS.search(failure.message)
            failure.prompt_tokens = (
                next((int(g) for g in match.groups() if g), None) if match else None
            )
        elif kind == "wrong_api":
            failure.message += (
                " This server speaks the OpenAI API: set `api: openai` for this model "
                "(thinkeval check --base-url URL detects it)"
            )
        return read_refusal(failure, error, raw)

    def kind_of(self, status: int, error: ErrorBody | None, message: str) -> FailureKind:
        """What an HTTP error means, read once here from this flavour's codes and wording
        (`message`: the whole error line, also for a body that is not JSON)."""
        if (
            status == 400
            and error is not None
            and error.code == "unsupported_parameter"
            and error.param == "max_tokens"
        ):
            return "wrong_api"  # the OpenAI API refusing max_tokens: no request can succeed
        if status in CONTEXT_STATUSES and CONTEXT_WORDING.search(message):
            return "context_overflow"  # every flavour's wording, TGI's 422 too
        if status in (400, 500) and _NO_TOOL_PARSER.search(message):
            return "no_tool_parser"  # no request with tools can succeed on this server
        if status == 404 and "does not exist" in message:
            return "model_missing"  # vLLM: "The model `m` does not exist."
        return http_kind(status)

    def read_load(self, raw: bytes) -> ServerLoad:
        """What the body of `load_path` says (Prometheus text: `load_gauges`)."""
        return prometheus_load(raw, self.load_gauges)

    def card_hint(self, card: Mapping[str, Any]) -> str | None:
        """Evidence short of `card_owners` that a `/v1/models` card is this flavour's (a field
        only it sends), or None."""
        return None

    def stated_window(self, card: Mapping[str, Any]) -> tuple[int, str] | None:
        """The context window a `/v1/models` card states, and the field it was read from."""
        return None

    def read_window(self, body: Mapping[str, Any]) -> tuple[int, str] | None:
        """The per-request window the JSON at `window_path` states, and where it was read."""
        return None

    def read_version(self, body: Any) -> str | None:
        """The engine's version in the JSON at `version_path`."""
        version = body.get("version") if isinstance(body, dict) else None
        return str(version) if isinstance(version, str | int | float) else None

    def documented_reasoning_field(self, version: str | None) -> str | None:
        """The reply field this flavour's docs put the reasoning in at `version`; None: not
        documented (`thinkeval audit` then only shows the field it found)."""
        return None


def token_count(body: Mapping[str, Any], key: str) -> int | None:
    """The integer at `key` of a card or a JSON body, None when it is not one."""
    value = body.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def model_len_window(card: Mapping[str, Any]) -> tuple[int, str] | None:
    """The window vLLM's and SGLang's cards state: `max_model_len`."""
    window = token_count(card, "max_model_len")
    return None if window is None else (window, "model card max_model_len")
