"""Reply shapes per server era: vLLM 0.10, 0.13 and latest, SGLang 0.5 and OpenAI.

Each profile turns a `Generation` into what that server puts on the wire: the reasoning parser's
split into reasoning and content, the non-streaming body with every field its pydantic model
dumps (nulls included), the SSE chunk sequence, error bodies and the model card. Sources and
captured examples are in the design note `vllm-api.md` (§1-§7); section numbers below refer to it.
Bodies are plain dicts serialised with orjson, because the demo pushes ~10,000 requests through
the simulator on two cores.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from thinkeval.sim.behaviour import Generation
from thinkeval.sim.text import tokenize
from thinkeval.sim.tool_calls import call_deltas, parse_hermes, parsed_calls

ErrorReply = tuple[int, dict[str, Any]]
StreamEvent = tuple[int, bytes]  # (generated tokens needed before it can be sent, SSE bytes)

_DONE = b"data: [DONE]\n\n"


class Profile:
    """The vLLM 0.10.1-0.11.0 wire format (captured from 0.10.2), base of the other eras.

    Subclasses flip the class attributes below or override the hooks that differ.
    """

    name = "vllm-0.10"
    version = "0.10.2"
    id_hex = 32  # request ids became 16 hex chars in 0.12
    reasoning_fields: tuple[str, ...] = ("reasoning_content",)
    # The 0.9-0.16 qwen3 parser needs both tags, so a reply cut inside <think> stays raw content.
    legacy_split = True
    lists_tool_calls = True  # `tool_calls: []` is omitted from 0.24
    late_fields = False  # the 0.3x extras: routed_experts, prompt_text, metrics, ...
    none_suffix = " None"  # 0.9-0.14 append `e.__cause__` to context errors
    names_param = False  # 0.14+ fill `param` on errors
    clamps_max_tokens = False  # 0.32+ clamp an oversized max_tokens instead of rejecting it
    reasoning_details = False  # usage.completion_tokens_details, 0.28+
    checks_model = True
    usage_by_default = True  # `stream_options: {}` already means include_usage for vLLM
    owned_by = "vllm"
    hides_reasoning = False
    drops_separator = False  # OpenAI content has no leading "\n\n"
    empty_content: str | None = None  # what `content` is when the parser found none
    returns_token_ids = True  # `return_token_ids` (vLLM 0.10.2+): sim/token_ids.py

    # Parsing -----------------------------------------------------------------------------

    def split(self, gen: Generation) -> tuple[str | None, str | None]:
        """(reasoning, content) of a non-streaming reply, per the era's Qwen3 parser (§2.2)."""
        reasoning = gen.reasoning_text
        content = gen.content_text
        if not gen.thinking:
            # Without thinking there is no <think> tag; the legacy parser returns the raw text.
            return None, (content if self.legacy_split else content or self.empty_content)
        if not gen.closed:
            if self.legacy_split:
                return None, "<think>" + reasoning
            return reasoning or None, self.empty_content
        return reasoning or None, content or self.empty_content

    def reasoning_tokens(self, gen: Generation) -> int:
        """Tokens inside the think block (tags excluded), as 0.28+ reports them."""
        return len(gen.reasoning)

    # Non-streaming -----------------------------------------------------------------------

    def response_id(self, request_id: str) -> str:
        """The reply's `id` for a request id (`X-Request-Id`, or one the server made up)."""
        return f"chatcmpl-{request_id}"

    def completion(
        self, rid: str, created: int, model: str, gen: Generation, prompt_tokens: int
    ) -> dict[str, Any]:
        """The full `model_dump()`-style body of a non-streaming reply (§1.1-§1.7)."""
        reasoning, content = self.split(gen)
        message: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "refusal": None,
            "annotations": None,
            "audio": None,
            "function_call": None,
        }
        if self.lists_tool_calls:
            message["tool_calls"] = []
        for field in self.reasoning_fields:
            message[field] = reasoning
        choice: dict[str, Any] = {
            "index": 0,
            "message": message,
            "logprobs": None,
            "finish_reason": gen.finish_reason,
            "stop_reason": None,
            "token_ids": None,
        }
        if self.late_fields:
            choice["routed_experts"] = None
            choice["weight_versions"] = None
        body: dict[str, Any] = {
            "id": rid,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "choices": [choice],
            "service_tier": None,
            "system_fingerprint": self.fingerprint(model),
            "usage": self.usage(gen, prompt_tokens),
            "prompt_logprobs": None,
            "prompt_token_ids": None,
        }
        if gen.tools:  # vLLM's hermes tool parser over the content
            parse_hermes(body, rid[-8:])
        if self.late_fields:
            body["prompt_text"] = None
        body["kv_transfer_params"] = None
        if self.late_fields:
            body["ec_transfer_params"] = None
            body["metrics"] = None
        return body

    def fingerprint(self, model: str) -> str | None:
        return None  # filled from 0.21

    def usage(self, gen: Generation, prompt_tokens: int) -> dict[str, Any]:
        usage: dict[str, Any] = {
            "prompt_tokens": prompt_tokens,
            "total_tokens": prompt_tokens + gen.completion_tokens,
            "completion_tokens": gen.completion_tokens,
            "prompt_tokens_details": None,
        }
        if self.reasoning_details:
            usage["completion_tokens_details"] = {"reasoning_tokens": self.reasoning_tokens(gen)}
        return usage

    def stream_usage(self, gen: Generation, prompt_tokens: int) -> dict[str, Any]:
        """The usage object of the final `choices: []` chunk (exclude_none/unset, §3.3)."""
        usage: dict[str, Any] = {
            "prompt_tokens": prompt_tokens,
            "total_tokens": prompt_tokens + gen.completion_tokens,
            "completion_tokens": gen.completion_tokens,
        }
        if self.reasoning_details:
            usage["completion_tokens_details"] = {"reasoning_tokens": self.reasoning_tokens(gen)}
        return usage

    # Streaming ---------------------------------------------------------------------------

    def stream_head(self, rid: str, created: int, model: str) -> dict[str, Any]:
        return {"id": rid, "object": "chat.completion.chunk", "created": created, "model": model}

    def delta(self, kind: str, text: str = "") -> dict[str, Any]:
        """The delta of a chunk: kind is role, reasoning, content or end (nothing to add)."""
        if kind == "role":
            return {"role": "assistant", "content": ""}
        if kind == "reasoning":
            return {field: text for field in self.reasoning_fields}
        if kind == "content":
            return {"content": text}
        if kind == "tool_calls":  # `text`: one call delta as JSON (sim/tool_calls.py)
            return {"tool_calls": [orjson.loads(text)]}
        return {}

    def choice(self, delta: dict[str, Any], kind: str, finish: str | None) -> dict[str, Any]:
        choice: dict[str, Any] = {"index": 0, "delta": delta, "logprobs": None}
        choice["finish_reason"] = finish
        if kind == "role":
            return choice
        if finish is not None:
            choice["stop_reason"] = None
        choice["token_ids"] = None
        if finish is not None and self.late_fields:
            choice["weight_versions"] = None
        return choice

    def chunk_tail(self, kind: str, include_usage: bool) -> bytes:
        """What follows `"choices":[...]` in a chunk (the explicitly set top-level nulls)."""
        if kind == "role":
            return (
                b',"prompt_token_ids":null,"prompt_text":null}'
                if self.late_fields
                else (b',"prompt_token_ids":null}')
            )
        return b',"kv_transfer_params":null}' if self.late_fields else b"}"

    def stream(
        self,
        head: dict[str, Any],
        gen: Generation,
        prompt_tokens: int,
        include_usage: bool,
        chunk_tokens: int,
    ) -> list[StreamEvent]:
        """The SSE events of a streamed reply, each tagged with the token that releases it (§3).

        Role chunk at the first token, reasoning/content deltas (lone `<think>`/`</think>` make
        none), finish on the last delta or on an empty one, optional usage chunk, `[DONE]`.
        """
        prefix = b"data: " + orjson.dumps(head)[:-1] + b',"choices":'
        events: list[StreamEvent] = []

        def emit(position: int, kind: str, text: str, finish: str | None) -> None:
            choices = [self.choice(self.delta(kind, text), kind, finish)]
            data = prefix + orjson.dumps(choices) + self.chunk_tail(kind, include_usage) + b"\n\n"
            events.append((position, data))

        emit(1, "role", "", None)
        deltas: list[tuple[int, str, str]] = []
        last = gen.completion_tokens
        finish = gen.finish_reason
        # Tools offered and calls made: the calls instead of their text, as hermes streams them.
        tools = parsed_calls(gen.content_text, head["id"][-8:]) if gen.tools else None
        for kind, tokens, start in self._segments(gen):
            if tools is not None and kind == "content":
                tokens = tokenize(tools[0] or "")
            for i in range(0, len(tokens), chunk_tokens):
                group = tokens[i : i + chunk_tokens]
                deltas.append((start + i + len(group) - 1, kind, "".join(group)))
        if tools is not None:
            deltas += [
                (last, "tool_calls", orjson.dumps(d).decode()) for d in call_deltas(tools[1])
            ]
            finish = "tool_calls" if finish == "stop" else finish
        for index, (position, kind, text) in enumerate(deltas):
            is_last = index == len(deltas) - 1 and position == last
            emit(position, kind, text, finish if is_last else None)
        if not deltas or deltas[-1][0] != last:
            emit(last, "end", "", finish)
        if include_usage:
            usage = orjson.dumps(self.stream_usage(gen, prompt_tokens))
            events.append((last, prefix + b'[],"usage":' + usage + b"}\n\n"))
        events.append((last, _DONE))
        return events

    def _segments(self, gen: Generation) -> list[tuple[str, list[str], int]]:
        """(kind, tokens, 1-based position of the first token) of the visible deltas."""
        if not gen.thinking:
            return [("content", gen.content, 1)]
        segments: list[tuple[str, list[str], int]] = []
        if gen.reasoning and not self.hides_reasoning:
            segments.append(("reasoning", gen.reasoning, 2))
        if gen.closed:
            content, start = gen.content, len(gen.reasoning) + 3
            if self.drops_separator and content and content[0] == "\n\n":
                content, start = content[1:], start + 1
            if content:
                segments.append(("content", content, start))
        return segments

    # Errors ------------------------------------------------------------------------------

    def error(self, status: int, type_: str, message: str, param: str | None = None) -> ErrorReply:
        """An error body in the era's shape (§4.2): nested with an integer code from 0.10.1."""
        shown = param if self.names_param else None
        return status, {
            "error": {"message": message, "type": type_, "param": shown, "code": status}
        }

    def not_found(self, model: str) -> ErrorReply:
        return self.error(404, "NotFoundError", f"The model `{model}` does not exist.", "model")

    def invalid_json(self, detail: str) -> ErrorReply:
        return self.error(400, "Bad Request", f"JSON decode error: {detail}")

    def missing_messages(self) -> ErrorReply:
        loc = "body.messages" if self.late_fields else "('body', 'messages')"
        message = (
            f"1 validation error:\n  {{'type': 'missing', 'loc': {loc}, 'msg': 'Field required'}}"
        )
        return self.error(400, "Bad Request", message, "body.messages")

    def invalid_max_tokens(self, value: object) -> ErrorReply:
        return self.error(
            400, "BadRequestError", f"max_tokens must be at least 1, got {value}.", "max_tokens"
        )

    def unsupported_fields(self, body: dict[str, Any]) -> ErrorReply | None:
        """The error for a request field this server refuses, or None (vLLM accepts any)."""
        return None

    def stream_options_without_stream(self) -> ErrorReply | None:
        text = "Stream options can only be defined when `stream=True`."
        if self.late_fields:
            return self.error(
                400, "BadRequestError", text + " (parameter=stream_options)", "stream_options"
            )
        return self.error(400, "Bad Request", "1 validation error:\n  Value error, " + text)

    def limit(self, prompt: int, requested: int | None, max_model_len: int) -> int | ErrorReply:
        """The generation limit for a request, or the era's context-length error (§4.3)."""
        if prompt >= max_model_len:
            return self.prompt_too_long(prompt, max_model_len)
        room = max_model_len - prompt
        if requested is None:
            return room
        if self.clamps_max_tokens:
            if requested > max_model_len:
                return self.error(
                    400,
                    "BadRequestError",
                    f"max_tokens={requested} cannot be greater than max_model_len={max_model_len}. "
                    f"Please request fewer output tokens. "
                    f"(parameter=max_tokens, value={requested})",
                    "max_tokens",
                )
            return min(requested, room)
        if requested > room:
            return self.context_overflow(prompt, requested, max_model_len)
        return requested

    def prompt_too_long(self, prompt: int, max_model_len: int) -> ErrorReply:
        if self.clamps_max_tokens:
            return self.error(
                400,
                "BadRequestError",
                f"This model's maximum context length is {max_model_len} tokens. However, your "
                f"prompt contains {prompt} input tokens, which exceeds this limit even without "
                f"any output tokens. Please reduce the length of the input prompt. "
                f"(parameter=input_tokens, value={prompt})",
                "input_tokens",
            )
        return self.error(
            400,
            "BadRequestError",
            f"This model's maximum context length is {max_model_len} tokens. However, your "
            f"request has {prompt} input tokens. Please reduce the length of the input "
            f"messages.{self.none_suffix}",
        )

    def context_overflow(self, prompt: int, requested: int, max_model_len: int) -> ErrorReply:
        return self.error(
            400,
            "BadRequestError",
            f"'max_tokens' or 'max_completion_tokens' is too large: {requested}. This model's "
            f"maximum context length is {max_model_len} tokens and your request has {prompt} "
            f"input tokens ({requested} > {max_model_len} - {prompt}).{self.none_suffix}",
        )

    def server_error(self) -> ErrorReply:
        return self.error(500, "InternalServerError", "Internal server error (simulated fault)")

    def rate_limited(self, retry_after_s: float) -> ErrorReply:
        return self.error(
            429,
            "RateLimitError",
            f"Too many requests (simulated fault); retry after {retry_after_s} s",
        )

    # Model card --------------------------------------------------------------------------

    def model_list(self, model: str, root: str, max_model_len: int, created: int) -> dict[str, Any]:
        """`GET /v1/models` with one card (§5)."""
        perm_id = hashlib.sha1(f"{model}{created}".encode()).hexdigest()[: self.id_hex]
        card = {
            "id": model,
            "object": "model",
            "created": created,
            "owned_by": self.owned_by,
            "root": root,
            "parent": None,
            "max_model_len": max_model_len,
            "permission": [
                {
                    "id": f"modelperm-{perm_id}",
                    "object": "model_permission",
                    "created": created,
                    "allow_create_engine": False,
                    "allow_sampling": True,
                    "allow_logprobs": True,
                    "allow_search_indices": False,
                    "allow_view": True,
                    "allow_fine_tuning": False,
                    "organization": "*",
                    "group": None,
                    "is_blocking": False,
                }
            ],
        }
        return {"object": "list", "data": [card]}
