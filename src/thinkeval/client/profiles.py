"""Server profiles: how each server flavour is asked, and what it answers differently.

A model's config names its flavour (`api: vllm | sglang | openai | llamacpp | ollama`, default
vllm);
`thinkeval check` detects it. The profile builds every chat request (`request`, `set_budget`) and
reads every reply and error (`parse`, `stream`, `failure`), so the protocol, the dispatcher and
`check` never spell a flavour's field names themselves.

Which budget field each flavour gets, and why:

- vLLM and SGLang get `max_tokens`. vLLM accepts `max_completion_tokens` too (and prefers it
  when both are sent, vllm-api.md §4.1), but `max_tokens` is what every era from 0.7 to 0.33
  and SGLang 0.4-0.5 take, what other OpenAI-compatible servers behind `api: vllm` (llama.cpp,
  TGI, gateways) understand, and what AISBench sends, so requests stay comparable with its runs.
- OpenAI gets `max_completion_tokens`: its reasoning models refuse `max_tokens` with a 400
  `unsupported_parameter` (§7.2), and it refuses `chat_template_kwargs` as an unknown argument,
  so a config that sets it for an openai model is refused before the run.

The replies themselves never contradict each other across flavours, so all profiles read them
with one tolerant reader (`replies.py`, §7.3).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, Literal

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

Api = Literal["vllm", "sglang", "openai", "llamacpp", "ollama"]
DEFAULT_API: Api = "vllm"
# vLLM started without `--enable-auto-tool-choice --tool-call-parser`, llama.cpp without `--jinja`.
_NO_TOOL_PARSER = re.compile(
    r"tool choice requires --enable-auto-tool-choice|requires --jinja", re.I
)
# The prompt's length in a context-window refusal (client/refusals.py reads the rest).
_PROMPT_TOKENS = re.compile(
    r"(?:request has|prompt contains|passed|messages?\)?[^0-9]{0,20}?)\s*(\d+)\s*(?:input )?tokens?"
    r"|(\d+) in the messages|(\d+) tokens from the input messages",
    re.I,
)


class ServerProfile:
    """The vLLM flavour; the other profiles change the class attributes or a hook."""

    name: ClassVar[Api] = "vllm"
    # The `owned_by` of its `/v1/models` cards (`detect_api`).
    card_owners: ClassVar[frozenset[str]] = frozenset({"vllm"})
    budget_field: ClassVar[str] = "max_tokens"
    takes_template_kwargs: ClassVar[bool] = True
    # `return_token_ids` (vLLM 0.10.2+): what `retry: continue` resends (run/continuation.py).
    returns_token_ids: ClassVar[bool] = True
    # The request fields of a model's `reasoning:` controls (client/reasoning_controls.py):
    # its thinking budget's and its effort's; None: no such control, and a config asking for it
    # is refused.
    budget_control: ClassVar[str | None] = "thinking_token_budget"  # top level, not extra_body
    effort_control: ClassVar[str | None] = "reasoning_effort"
    # Where the server counts the requests it holds, under its root (the watchdog's load
    # probe: `client/watchdog.py` reads both formats); None: it says nowhere.
    load_path: ClassVar[str | None] = "/metrics"
    # Where the server states its per-request context window beyond the model card (llama.cpp's
    # `/props`: its per-slot n_ctx, `ops/server_window.py`); None: the card alone.
    window_path: ClassVar[str | None] = None
    # Whether the server may state its window at all (OpenAI never does).
    states_window: ClassVar[bool] = True

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

    def probe_generation(self) -> GenerationSettings:
        """A probe's settings: greedy, with thinking on where the chat template takes it."""
        if not self.takes_template_kwargs:
            return GenerationSettings(temperature=0)
        return GenerationSettings(temperature=0, chat_template_kwargs={"enable_thinking": True})

    def set_budget(self, body: dict[str, Any], max_tokens: int) -> None:
        """Change the token budget of a body built by `request` (the context-window clamp)."""
        body[self.budget_field] = max_tokens

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


class SGLangProfile(ServerProfile):
    """SGLang: asked as vLLM is; replies differ only in shapes the shared reader knows."""

    name: ClassVar[Api] = "sglang"
    card_owners: ClassVar[frozenset[str]] = frozenset({"sglang"})
    returns_token_ids: ClassVar[bool] = False
    budget_control: ClassVar[str | None] = "thinking_budget"


class OpenAIProfile(ServerProfile):
    """The OpenAI API: `max_completion_tokens`, no `chat_template_kwargs`."""

    name: ClassVar[Api] = "openai"
    card_owners: ClassVar[frozenset[str]] = frozenset({"openai", "system", "openai-internal"})
    budget_field: ClassVar[str] = "max_completion_tokens"
    takes_template_kwargs: ClassVar[bool] = False
    returns_token_ids: ClassVar[bool] = False
    budget_control: ClassVar[str | None] = None  # reasoning_effort only
    load_path: ClassVar[str | None] = None
    states_window: ClassVar[bool] = False

    def kind_of(self, status: int, error: ErrorBody | None, message: str) -> FailureKind:
        """OpenAI names its causes in `error.code`; the shared wording covers the rest."""
        code = None if error is None else error.code
        if code == "model_not_found":
            return "model_missing"
        if code == "context_length_exceeded":
            return "context_overflow"
        return super().kind_of(status, error, message)


class LlamaCppProfile(ServerProfile):
    """llama.cpp's `llama-server`: asked as vLLM is (`max_tokens`, `chat_template_kwargs`);
    its context window is per slot (`/props`), and a prompt over it is refused with
    "request (N tokens) exceeds the available context size (M tokens)"."""

    name: ClassVar[Api] = "llamacpp"
    card_owners: ClassVar[frozenset[str]] = frozenset({"llamacpp"})
    budget_control: ClassVar[str | None] = "reasoning_budget_tokens"
    load_path: ClassVar[str | None] = "/slots"  # a busy flag per slot
    window_path: ClassVar[str | None] = "/props"


class OllamaProfile(ServerProfile):
    """Ollama's OpenAI-compatible `/v1`: `max_tokens`, `reasoning_effort` for thinking models
    (`none` turns thinking off), the reasoning in the message's `reasoning` field. Its cards say
    `owned_by: library` and state no window (a prompt over its `num_ctx` is cut, not refused);
    it has no thinking budget, token ids or load metrics, and drops fields it does not know."""

    name: ClassVar[Api] = "ollama"
    card_owners: ClassVar[frozenset[str]] = frozenset({"library"})
    takes_template_kwargs: ClassVar[bool] = False
    returns_token_ids: ClassVar[bool] = False
    budget_control: ClassVar[str | None] = None
    load_path: ClassVar[str | None] = None
    states_window: ClassVar[bool] = False

    def generation_problems(self, generation: GenerationSettings) -> Iterator[str]:
        if generation.chat_template_kwargs is not UNSET:
            yield (
                "chat_template_kwargs is dropped unread by Ollama's OpenAI API (api: ollama); "
                "set reasoning.effort instead (none turns thinking off), or remove it"
            )

    def kind_of(self, status: int, error: ErrorBody | None, message: str) -> FailureKind:
        """Ollama says a model it does not have is "not found, try pulling it first"."""
        if status == 404 and "try pulling it" in message:
            return "model_missing"
        return super().kind_of(status, error, message)


PROFILES: dict[Api, ServerProfile] = {
    profile.name: profile
    for profile in (
        ServerProfile(),
        SGLangProfile(),
        OpenAIProfile(),
        LlamaCppProfile(),
        OllamaProfile(),
    )
}


def get_profile(api: Api) -> ServerProfile:
    """The profile for an `api:` value."""
    return PROFILES[api]


def profile_named(api: str) -> ServerProfile | None:
    """The profile called `api`, None for a name no flavour has."""
    return next((profile for profile in PROFILES.values() if profile.name == api), None)


def detect_api(card: Mapping[str, Any]) -> tuple[Api | None, str]:
    """The flavour a `/v1/models` card reveals, and the evidence; None when it says nothing.

    A card owned as a profile's `card_owners` say is that flavour's, unless a flavour whose
    cards state no window sends one: vLLM's cards say `owned_by: vllm` and carry
    `max_model_len`; OpenAI's say `openai`, `system` or `openai-internal` and carry no context
    length (§5, §7).
    """
    owner = card.get("owned_by")
    shown = f"owned_by: {owner}" if isinstance(owner, str) else "no owned_by"
    for profile in PROFILES.values():
        if owner in profile.card_owners and (profile.states_window or "max_model_len" not in card):
            return profile.name, shown
    if "max_model_len" in card:
        return "vllm", f"{shown}, but max_model_len as vLLM sends it"
    meta = card.get("meta")
    if isinstance(meta, dict) and "n_ctx" in meta:
        return "llamacpp", f"{shown}, but meta.n_ctx as llama.cpp sends it"
    return None, shown


def card_window(card: Mapping[str, Any]) -> int | None:
    """The context window a `/v1/models` card states: vLLM's and SGLang's `max_model_len`,
    llama.cpp's `meta.n_ctx` (OpenAI's cards state none)."""
    length = card.get("max_model_len")
    if isinstance(length, int) and not isinstance(length, bool):
        return length
    meta = card.get("meta")
    n_ctx = meta.get("n_ctx") if isinstance(meta, dict) else None
    return n_ctx if isinstance(n_ctx, int) and not isinstance(n_ctx, bool) else None
