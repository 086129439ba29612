"""llama.cpp's `llama-server` (`api: llamacpp`): asked as vLLM is (`max_tokens`,
`chat_template_kwargs`), its thinking budget `reasoning_budget_tokens`, the reasoning in
`reasoning_content`.

Its context window is per slot: the card's `meta.n_ctx` is the whole context, `/props` says one
slot's (`default_generation_settings.n_ctx`) and how many slots share it (`total_slots`), and its
`build_info`. It takes any `max_tokens` and stops at the slot's end, so only a prompt over the
window is refused: "request (N tokens) exceeds the available context size (M tokens)". `/slots`
lists the slots with an `is_processing` flag each: the requests it holds.

With `--jinja`, it parses the model's finished output into content, reasoning and tool calls by
the chat template's format; output that does not parse is answered with HTTP 500 (an error event
in a stream) instead of a reply: `unparsed_output`, the model's reply without a readable answer.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import orjson

from thinkeval.client.profiles.base import ServerLoad, ServerProfile, token_count
from thinkeval.client.replies import ErrorBody, RequestFailed, StreamAssembly
from thinkeval.failures import FailureKind

# common/chat.cpp's `common_chat_parse` (build 11434) throws this when the finished output does
# not parse in the template's format (`common_chat_format_name`: Content-only, peg-simple,
# peg-native, peg-gemma4, ...); tools/server answers it as a 500 `server_error`, or as an error
# event once a stream has begun.
UNPARSED_WORDING = re.compile(
    r"The model produced output that does not match the expected [\w-]+ format"
)


def unparsed(failure: RequestFailed) -> RequestFailed:
    """`failure` as `unparsed_output` (never retried: the same output would come back) where
    llama.cpp's words say the output did not parse, else as it was."""
    if failure.kind != "server_error" or not UNPARSED_WORDING.search(failure.message):
        return failure
    return dataclasses.replace(failure, kind="unparsed_output", retryable=False)


class _LlamaCppStream(StreamAssembly):
    """A stream whose error event may say that the finished output did not parse."""

    def add(self, event: Any) -> None:
        try:
            super().add(event)
        except RequestFailed as failure:
            raise unparsed(failure) from None


class LlamaCppProfile(ServerProfile):
    """llama.cpp's llama-server."""

    name: ClassVar[str] = "llamacpp"
    card_owners: ClassVar[frozenset[str]] = frozenset({"llamacpp"})
    takes_template_kwargs: ClassVar[bool] = True
    budget_control: ClassVar[str | None] = "reasoning_budget_tokens"
    effort_control: ClassVar[str | None] = "reasoning_effort"
    load_path: ClassVar[str | None] = "/slots"
    window_path: ClassVar[str | None] = "/props"
    budget_counts_in_window: ClassVar[bool] = False
    version_path: ClassVar[str | None] = "/props"

    def kind_of(self, status: int, error: ErrorBody | None, message: str) -> FailureKind:
        if status == 500 and UNPARSED_WORDING.search(message):
            return "unparsed_output"
        return super().kind_of(status, error, message)

    def stream(self, started: float) -> StreamAssembly:
        return _LlamaCppStream(started)

    def read_load(self, raw: bytes) -> ServerLoad:
        """The busy slots of `/slots` (a JSON list; it tells no start time)."""
        try:
            slots = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return ServerLoad()
        if not isinstance(slots, list):
            return ServerLoad()
        return ServerLoad(
            busy=sum(1 for s in slots if isinstance(s, dict) and s.get("is_processing"))
        )

    def card_hint(self, card: Mapping[str, Any]) -> str | None:
        meta = card.get("meta")
        return (
            "meta.n_ctx as llama.cpp sends it"
            if isinstance(meta, dict) and "n_ctx" in meta
            else None
        )

    def stated_window(self, card: Mapping[str, Any]) -> tuple[int, str] | None:
        meta = card.get("meta")
        window = token_count(meta, "n_ctx") if isinstance(meta, dict) else None
        return None if window is None else (window, "model card meta.n_ctx")

    def read_window(self, body: Mapping[str, Any]) -> tuple[int, str] | None:
        """One slot's window from `/props`, e.g. `(2048, "/props: 4 slots of 2048 tokens")`."""
        settings = body.get("default_generation_settings")
        n_ctx = token_count(settings, "n_ctx") if isinstance(settings, dict) else None
        if n_ctx is None or n_ctx <= 0:
            return None
        slots = body.get("total_slots")
        shown = f"{slots} slots of {n_ctx}" if isinstance(slots, int) else f"n_ctx {n_ctx}"
        return n_ctx, f"/props: {shown} tokens"

    def read_version(self, body: Any) -> str | None:
        build = body.get("build_info") if isinstance(body, dict) else None
        return f"llama.cpp {build}" if isinstance(build, str) and build else None

    def documented_reasoning_field(self, version: str | None) -> str | None:
        return "reasoning_content"


PROFILE = LlamaCppProfile()
