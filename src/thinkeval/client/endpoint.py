"""One OpenAI-compatible server: speaks HTTP and normalises replies.

Replies differ by server and era (vLLM `reasoning` / `reasoning_content`, null vs "" content,
flat vs nested error bodies, SGLang's `matched_stop`, OpenAI's string error codes; see
shared/design/vllm-api.md §7.3). This module turns all of them into one `Reply`, or raises a
`RequestFailed` that says whether trying again can help. Retries, limits and the journal live
above it, in `dispatch.py`.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import orjson

from thinkeval.client.http import HttpClient, HttpError, Response
from thinkeval.records import Reply, Usage

# A reply larger than this is a broken server, not an answer worth keeping.
MAX_REPLY_BYTES = 64 * 1024 * 1024
_CONTEXT_OVERFLOW = re.compile(
    r"maximum context length|too large|context length is only|exceeds the model's maximum", re.I
)
# The prompt length as each era words it in its context-overflow message.
_PROMPT_TOKENS = re.compile(
    r"(?:request has|prompt contains|passed|messages?\)?[^0-9]{0,20}?)\s*(\d+)\s*(?:input )?tokens?"
    r"|(\d+) in the messages|(\d+) tokens from the input messages",
    re.I,
)


@dataclass
class RequestFailed(Exception):
    """A request that produced no usable reply.

    `kind` is a short machine-readable cause (`connection`, `timeout`, `http_500`, `malformed`,
    `context_overflow`, ...); `retryable` says whether asking again can help.
    """

    kind: str
    message: str
    retryable: bool
    http_status: int | None = None
    retry_after_s: float | None = None
    prompt_tokens: int | None = None  # parsed from a context-overflow message, when given

    def __str__(self) -> str:
        return self.message


@dataclass
class Timed:
    """A reply with the client-side timings of the try that produced it."""

    reply: Reply
    latency_s: float
    ttft_s: float | None


def _retry_after(value: str | None) -> float | None:
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


def error_message(body: Any) -> str | None:
    """The message of an error body in any known shape, or None if `body` is no error."""
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, dict):  # vLLM >= 0.10.1, OpenAI
        return str(error.get("message") or error)
    if isinstance(error, str):  # vLLM's 401 {"error": "Unauthorized"}
        return error
    if body.get("object") == "error":  # vLLM <= 0.10.0, SGLang
        return str(body.get("message"))
    if "detail" in body:  # FastAPI's default
        return str(body["detail"])
    return None


def _http_failure(status: int, raw: bytes, retry_after: str | None) -> RequestFailed:
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        body = None
    message = error_message(body)
    if message is None:
        snippet = raw[:200].decode("utf-8", "replace").strip().replace("\n", " ")
        message = f"HTTP {status} with a non-JSON body: {snippet!r}" if snippet else ""
        message = message or f"HTTP {status}"
    else:
        message = f"HTTP {status}: {message}"
    if status == 400 and _CONTEXT_OVERFLOW.search(message):
        match = _PROMPT_TOKENS.search(message)
        prompt_tokens = next((int(g) for g in match.groups() if g), None) if match else None
        return RequestFailed("context_overflow", message, False, status, None, prompt_tokens)
    retryable = status in (408, 429) or status >= 500
    return RequestFailed(f"http_{status}", message, retryable, status, _retry_after(retry_after))


def _count(value: Any) -> int | None:
    """A token count as sent, or None when the server sent something that is not one."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _usage(raw: Any) -> Usage:
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


def normalise(content: str | None, reasoning: str | None) -> tuple[str | None, str | None]:
    """Split raw `<think>` text out of `content` when the server did not (§2.2 cases B and D).

    Without a reasoning parser, or on vLLM 0.9-0.16 when the budget ran out inside the thinking,
    the reasoning arrives inside `content`. An unclosed `<think>` means the answer is missing.
    """
    reasoning = reasoning or None
    if reasoning is None and content and content.lstrip().startswith("<think>"):
        head, sep, tail = content.partition("</think>")
        reasoning = head.lstrip().removeprefix("<think>") or None
        content = tail if sep else None
    return content or None, reasoning


def parse_completion(body: Any) -> Reply:
    """Turn a non-streaming completion body into a `Reply`; raise `RequestFailed` if unusable."""
    message = error_message(body)
    if message is not None:
        raise RequestFailed("server_error", f"error body with HTTP 200: {message}", True)
    if not isinstance(body, dict):
        raise RequestFailed("malformed", "reply is JSON but not an object", True)
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise RequestFailed("malformed", "reply has no 'choices'", True)
    choice = choices[0]
    msg = choice.get("message")
    if not isinstance(msg, dict):
        raise RequestFailed("malformed", "reply's first choice has no 'message'", True)
    content = msg.get("content")
    reasoning = msg.get("reasoning") or msg.get("reasoning_content")
    if content is not None and not isinstance(content, str):
        raise RequestFailed("malformed", "reply's message.content is not a string", True)
    if reasoning is not None and not isinstance(reasoning, str):
        reasoning = None
    content, reasoning = normalise(content, reasoning)
    return Reply(
        content=content,
        reasoning=reasoning,
        finish_reason=_text(choice.get("finish_reason")),
        usage=_usage(body.get("usage")),
        http_status=200,
        served_model=_text(body.get("model")),
    )


class Endpoint:
    """One base URL of an OpenAI-compatible server, sharing the caller's connection pool.

    >>> endpoint = Endpoint(client, "http://127.0.0.1:8000/v1", api_key=None, timeout_s=600)
    >>> timed = await endpoint.chat({"model": "m", "messages": [...], "max_tokens": 2048})
    """

    def __init__(
        self,
        client: HttpClient,
        base_url: str,
        api_key: str | None,
        timeout_s: float,
        stream: bool = False,
    ) -> None:
        self.client = client
        self.base_url = base_url.rstrip("/")
        self._chat_url = f"{self.base_url}/chat/completions"
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self.timeout_s = timeout_s
        self.stream = stream
        self.outstanding = 0  # requests in flight, for least-loaded endpoint choice

    async def models(self) -> list[dict[str, Any]]:
        """The `/v1/models` cards (id, root, max_model_len, ...)."""
        try:
            async with (
                asyncio.timeout(self.timeout_s),
                self.client.request("GET", f"{self.base_url}/models", self._headers) as resp,
            ):
                raw = await resp.read(MAX_REPLY_BYTES)
                if resp.status != 200:
                    raise _http_failure(resp.status, raw, resp.headers.get("retry-after"))
        except HttpError as exc:
            raise RequestFailed("connection", str(exc), True) from None
        except TimeoutError:
            raise RequestFailed("timeout", "GET /models timed out", True) from None
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise RequestFailed("malformed", "/models reply is not JSON", True) from None
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise RequestFailed("malformed", "/models reply has no 'data' list", False)
        return [card for card in data if isinstance(card, dict)]

    async def chat(self, body: dict[str, Any]) -> Timed:
        """Send one chat completion; return the normalised reply or raise `RequestFailed`."""
        payload = orjson.dumps(body)
        started = time.perf_counter()
        self.outstanding += 1
        try:
            async with (
                asyncio.timeout(self.timeout_s),
                self.client.request("POST", self._chat_url, self._headers, payload) as resp,
            ):
                if resp.status != 200:
                    raw = await resp.read(64 * 1024)
                    raise _http_failure(resp.status, raw, resp.headers.get("retry-after"))
                if self.stream:
                    reply, ttft = await _read_stream(resp, started)
                else:
                    raw = await _read_capped(resp)
                    try:
                        parsed = orjson.loads(raw)
                    except orjson.JSONDecodeError:
                        snippet = raw[:120].decode("utf-8", "replace")
                        raise RequestFailed(
                            "malformed", f"reply is not valid JSON: {snippet!r}", True, 200
                        ) from None
                    reply, ttft = parse_completion(parsed), None
        except HttpError as exc:
            raise RequestFailed("connection", str(exc), True) from None
        except TimeoutError:
            raise RequestFailed(
                "timeout", f"no complete reply within {self.timeout_s:g} s", True
            ) from None
        finally:
            self.outstanding -= 1
        return Timed(reply, time.perf_counter() - started, ttft)


async def _read_capped(resp: Response) -> bytes:
    if resp.content_length is not None and resp.content_length > MAX_REPLY_BYTES:
        raise RequestFailed(
            "too_large",
            f"reply larger than {MAX_REPLY_BYTES} bytes ({resp.content_length} bytes) refused",
            False,
        )
    raw = await resp.read(MAX_REPLY_BYTES + 1)
    if len(raw) > MAX_REPLY_BYTES:
        raise RequestFailed("too_large", f"reply larger than {MAX_REPLY_BYTES} bytes", False)
    return raw


async def _read_stream(resp: Response, started: float) -> tuple[Reply, float | None]:
    """Reassemble an SSE stream (§3): deltas, the finish chunk, the usage chunk, `[DONE]`."""
    content: list[str] = []
    reasoning: list[str] = []
    finish_reason: str | None = None
    usage: Any = None
    served: str | None = None
    ttft: float | None = None
    size = 0
    done = False
    async for line in resp.lines():
        size += len(line)
        if size > MAX_REPLY_BYTES:
            raise RequestFailed("too_large", f"stream larger than {MAX_REPLY_BYTES} bytes", False)
        if not line.startswith(b"data:"):
            continue  # blank separators and ": keep-alive" comments
        data = line[5:].strip()
        if data == b"[DONE]":
            done = True
            break
        try:
            event = orjson.loads(data)
        except orjson.JSONDecodeError:
            raise RequestFailed("malformed", "stream event is not valid JSON", True, 200) from None
        message = error_message(event)
        if message is not None:
            raise RequestFailed("server_error", f"error event in stream: {message}", True, 200)
        if not isinstance(event, dict):
            continue
        served = _text(event.get("model")) or served
        if event.get("usage"):
            usage = event["usage"]
        choices = event.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta")
            delta = delta if isinstance(delta, dict) else {}
            # vLLM 0.11.1-0.15 sends the same text under both names: take one, not both.
            piece = _text(delta.get("reasoning")) or _text(delta.get("reasoning_content"))
            if piece:
                reasoning.append(piece)
            text_piece = _text(delta.get("content"))
            if text_piece:
                content.append(text_piece)
            if ttft is None and (piece or text_piece):
                ttft = time.perf_counter() - started
            finish_reason = _text(choice.get("finish_reason")) or finish_reason
    if not done and finish_reason is None:
        raise RequestFailed("connection", "stream ended before [DONE]", True, 200)
    text, thought = normalise("".join(content) or None, "".join(reasoning) or None)
    reply = Reply(
        content=text,
        reasoning=thought,
        finish_reason=finish_reason,
        usage=_usage(usage),
        http_status=200,
        served_model=served,
    )
    return reply, ttft
