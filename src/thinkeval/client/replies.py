"""What servers send back, turned into one `Reply` or one `RequestFailed`.

Replies differ by server and era (vLLM `reasoning` / `reasoning_content`, null vs "" content,
flat vs nested error bodies, SGLang's top-level `reasoning_tokens`, OpenAI's string error codes;
shared/design/vllm-api.md §7.3). The shapes never contradict each other, so one tolerant reader
serves every server profile (`profiles/`), which adds only what a flavour says differently.
Nothing here does I/O: the endpoint feeds it bytes and decoded events.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import orjson

from thinkeval.failures import FailureKind, http_kind
from thinkeval.records import Reply, ToolCall, Usage


@dataclass(kw_only=True)
class RequestFailed(Exception):
    """A request that produced no usable reply.

    `kind` is its cause, one of `thinkeval.failures.FailureKind`, classified where the reply (or
    its absence) was read; `retryable` says whether asking again can help.
    """

    kind: FailureKind
    message: str
    retryable: bool
    http_status: int | None = None
    retry_after_s: float | None = None
    prompt_tokens: int | None = None  # parsed from a context-overflow message, when given
    # Why the client gave up waiting (client/watchdog.py AbandonReason), for kind `abandoned`.
    abandoned: str | None = None
    # A refusal asking again cannot change (client/refusals.py): the attempt is final.
    refused: str | None = None
    window: int | None = None  # the context window a refusal named

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class ErrorBody:
    """An error reply's parts, in any of the known shapes (§4.2, §7.1, §7.2)."""

    message: str
    code: str | int | None = None  # OpenAI: "unsupported_parameter"; vLLM: the HTTP status
    param: str | None = None


def error_body(body: Any) -> ErrorBody | None:
    """The error in `body`, or None if `body` is no error."""
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, dict):  # vLLM >= 0.10.1, OpenAI
        param = error.get("param")
        return ErrorBody(
            str(error.get("message") or error),
            error.get("code") if isinstance(error.get("code"), str | int) else None,
            param if isinstance(param, str) else None,
        )
    if isinstance(error, str):  # vLLM's 401 {"error": "Unauthorized"}
        return ErrorBody(error)
    if body.get("object") == "error":  # vLLM <= 0.10.0, SGLang
        return ErrorBody(str(body.get("message")), body.get("code"))
    if "detail" in body:  # FastAPI's default
        return ErrorBody(str(body["detail"]))
    return None


def error_message(body: Any) -> str | None:
    """The message of an error body in any known shape, or None if `body` is no error."""
    error = error_body(body)
    return None if error is None else error.message


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date), or None."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def http_failure(
    status: int, raw: bytes, retry_after_header: str | None
) -> tuple[RequestFailed, ErrorBody | None]:
    """A non-200 reply as a `RequestFailed` of the kind its status alone says, and the error
    body it was read from, for the server profile to classify by its flavour's words."""
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        body = None
    error = error_body(body)
    if error is None:
        snippet = raw[:200].decode("utf-8", "replace").strip().replace("\n", " ")
        message = f"HTTP {status} with a non-JSON body: {snippet!r}" if snippet else ""
        message = message or f"HTTP {status}"
    else:
        message = f"HTTP {status}: {error.message}"
    retryable = status in (408, 429) or status >= 500
    failure = RequestFailed(
        kind=http_kind(status),
        message=message,
        retryable=retryable,
        http_status=status,
        retry_after_s=retry_after(retry_after_header),
    )
    return failure, error


def _count(value: Any) -> int | None:
    """A token count as sent, or None when the server sent something that is not one."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def parse_usage(raw: Any) -> Usage:
    """`usage` with reasoning tokens from `completion_tokens_details` or SGLang's top level."""
    if not isinstance(raw, dict):
        return Usage()
    details = raw.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    if reasoning is None:
        reasoning = raw.get("reasoning_tokens")  # SGLang's top-level field
    return Usage(
        prompt_tokens=_count(raw.get("prompt_tokens")),
        completion_tokens=_count(raw.get("completion_tokens")),
        reasoning_tokens=_count(reasoning),
    )


def reasoning_in_content(content: str | None, reasoning: str | None) -> bool:
    """Whether the reasoning came inside `content` (no reasoning parser, or a pre-0.17 one on a
    reply cut while thinking): `normalise` moves it, the reply records that it did."""
    return not reasoning and bool(content) and (content or "").lstrip().startswith("<think>")


def normalise(content: str | None, reasoning: str | None) -> tuple[str | None, str | None]:
    """Split raw `<think>` text out of `content` when the server did not (§2.2 cases B and D).

    Without a reasoning parser, or on vLLM 0.9-0.16 when the budget ran out inside the thinking,
    the reasoning arrives inside `content`. An unclosed `<think>` means the answer is missing.
    """
    reasoning = reasoning or None
    if reasoning_in_content(content, reasoning):
        assert content is not None
        head, sep, tail = content.partition("</think>")
        reasoning = head.lstrip().removeprefix("<think>") or None
        content = tail if sep else None
    return content or None, reasoning


def parse_completion(body: Any) -> tuple[Reply, dict[str, Any]]:
    """A non-streaming completion body as a `Reply`, and the raw message it was read from.

    Raises `RequestFailed` when the body is unusable. The raw message lets `thinkeval check`
    say which field carried the reasoning before normalisation hides the difference.
    """
    message = error_message(body)
    if message is not None:
        raise RequestFailed(
            kind="server_error", message=f"error body with HTTP 200: {message}", retryable=True
        )
    if not isinstance(body, dict):
        raise RequestFailed(
            kind="malformed", message="reply is JSON but not an object", retryable=True
        )
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise RequestFailed(kind="malformed", message="reply has no 'choices'", retryable=True)
    choice = choices[0]
    msg = choice.get("message")
    if not isinstance(msg, dict):
        raise RequestFailed(
            kind="malformed", message="reply's first choice has no 'message'", retryable=True
        )
    content = msg.get("content")
    reasoning = msg.get("reasoning") or msg.get("reasoning_content")
    if content is not None and not isinstance(content, str):
        raise RequestFailed(
            kind="malformed", message="reply's message.content is not a string", retryable=True
        )
    if reasoning is not None and not isinstance(reasoning, str):
        reasoning = None
    moved = reasoning_in_content(content, reasoning)
    content, reasoning = normalise(content, reasoning)
    reply = Reply(
        reasoning_in_content=moved,
        content=content,
        reasoning=reasoning,
        finish_reason=_text(choice.get("finish_reason")),
        usage=parse_usage(body.get("usage")),
        http_status=200,
        served_model=_text(body.get("model")),
        prompt_token_ids=token_ids(body.get("prompt_token_ids")),
        token_ids=token_ids(choice.get("token_ids")),
        tool_calls=tool_calls(msg.get("tool_calls")),
    )
    return reply, msg


def tool_calls(value: Any) -> list[ToolCall] | None:
    """`message.tool_calls` as `ToolCall`s; None when there are none (vLLM sends `[]` up to
    0.23 and leaves the key out from 0.24, §2.1). A call without a function name is no call;
    arguments that are not a string (a server that sent them parsed) are kept as JSON."""
    calls = []
    for raw in value if isinstance(value, list) else ():
        function = raw.get("function") if isinstance(raw, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            continue
        assert isinstance(function, dict)
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = orjson.dumps(arguments if arguments is not None else {}).decode()
        calls.append(ToolCall(name=name, arguments=arguments, id=_text(raw.get("id"))))
    return calls or None


def token_ids(value: Any) -> list[int] | None:
    """A list of token ids as `return_token_ids` sends it; None for anything else."""
    if isinstance(value, list) and all(
        isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in value
    ):
        return value
    return None


class StreamAssembly:
    """Reassembles an SSE stream's events (§3): deltas, the finish chunk, the usage chunk.

    Feed each decoded `data:` event to `add`; `reply()` once the stream ended.
    """

    def __init__(self, started: float) -> None:
        self.started = started
        self.ttft: float | None = None
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._finish_reason: str | None = None
        self._usage: Any = None
        self._served: str | None = None
        # index -> the call's id, name and argument pieces, as the deltas bring them (§3).
        self._calls: dict[int, dict[str, Any]] = {}

    @property
    def finished(self) -> bool:
        """Whether a finish_reason arrived (a stream cut before `[DONE]` may still be whole)."""
        return self._finish_reason is not None

    def add(self, event: Any) -> None:
        """Take one event; raise `RequestFailed` for an error event."""
        message = error_message(event)
        if message is not None:
            raise RequestFailed(
                kind="server_error",
                message=f"error event in stream: {message}",
                retryable=True,
                http_status=200,
            )
        if not isinstance(event, dict):
            return
        self._served = _text(event.get("model")) or self._served
        if event.get("usage"):
            self._usage = event["usage"]
        choices = event.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta")
            delta = delta if isinstance(delta, dict) else {}
            # vLLM 0.11.1-0.15 sends the same text under both names: take one, not both.
            piece = _text(delta.get("reasoning")) or _text(delta.get("reasoning_content"))
            if piece:
                self._reasoning.append(piece)
            text_piece = _text(delta.get("content"))
            if text_piece:
                self._content.append(text_piece)
            self._add_calls(delta.get("tool_calls"))
            if self.ttft is None and (piece or text_piece or self._calls):
                self.ttft = time.perf_counter() - self.started
            self._finish_reason = _text(choice.get("finish_reason")) or self._finish_reason

    def _add_calls(self, deltas: Any) -> None:
        """A delta's tool-call pieces: the first of a call brings its id and name, the rest
        pieces of its arguments string, all under the call's `index`."""
        for raw in deltas if isinstance(deltas, list) else ():
            if not isinstance(raw, dict) or not isinstance(raw.get("index", 0), int):
                continue
            call = self._calls.setdefault(raw.get("index", 0), {"id": None, "name": "", "args": []})
            call["id"] = _text(raw.get("id")) or call["id"]
            function = raw.get("function")
            if isinstance(function, dict):
                call["name"] += _text(function.get("name")) or ""
                call["args"].append(_text(function.get("arguments")) or "")

    def reply(self) -> Reply:
        """The whole reply, normalised as a non-streaming one would be."""
        raw_text, raw_thought = "".join(self._content) or None, "".join(self._reasoning) or None
        text, thought = normalise(raw_text, raw_thought)
        return Reply(
            reasoning_in_content=reasoning_in_content(raw_text, raw_thought),
            content=text,
            reasoning=thought,
            finish_reason=self._finish_reason,
            usage=parse_usage(self._usage),
            http_status=200,
            served_model=self._served,
            tool_calls=tool_calls(
                [
                    {
                        "id": c["id"],
                        "function": {"name": c["name"], "arguments": "".join(c["args"])},
                    }
                    for _, c in sorted(self._calls.items())
                ]
            ),
        )
