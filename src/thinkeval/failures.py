"""Why a request produced no usable reply: the one closed set of failure kinds.

Each failure is classified once, where the reply (or its absence) is read: the endpoint for
transport failures, the server profile for an HTTP error (`client/profiles/`, which knows how
its flavour words a missing model or a prompt over the context window). Everything after that
(retries, endpoint health, the protocol, `thinkeval check`, the journal's `error_kind`) reads
the kind and never the error's text. A new kind is one line here, with the comment saying when
it applies, plus the place that classifies it.
"""

from __future__ import annotations

from typing import Literal, get_args

FailureKind = Literal[
    "connection",  # no connection, or it broke before the reply ended
    "timeout",  # no complete reply in time (HTTP 408 too)
    "tls",  # the TLS handshake failed: an untrusted certificate, or plain HTTP behind https
    "wrong_base_url",  # /models answers 404 but /v1/models answers: the URL lacks /v1
    "malformed",  # an answer that is not the API's shape (not JSON, no choices, ...)
    "too_large",  # a reply past the size cap
    "server_error",  # HTTP 5xx, or an error body or stream event with HTTP 200
    "rate_limited",  # HTTP 429
    "refused",  # any other HTTP error: this request is refused as sent
    "model_missing",  # the server answers that the model does not exist (redeployed, a typo)
    "context_overflow",  # the prompt and the budget are over the model's context window
    "wrong_api",  # the server speaks another API than the model's `api:` (OpenAI's 400)
    "no_tool_parser",  # a request with tools, to a server started without tool-call parsing
    # The server could not deliver the model's finished output in its template's format
    # (llama.cpp's "does not match the expected peg-native format"): the model's reply, with
    # no readable answer; recorded as one (`Attempt.unparsed`), never asked again.
    "unparsed_output",
    "imported",  # a failure another harness recorded (AISBench), its cause unknown
    "abandoned",  # a watchdog gave up on the request in flight (client/watchdog.py), asked again
]

FAILURE_KINDS: frozenset[str] = frozenset(get_args(FailureKind))
_BY_NAME: dict[str, FailureKind] = {kind: kind for kind in get_args(FailureKind)}


def http_kind(status: int) -> FailureKind:
    """The kind of an HTTP error by its status alone, before a profile reads its body."""
    if status == 408:
        return "timeout"
    if status == 429:
        return "rate_limited"
    return "server_error" if status >= 500 else "refused"


def legacy_kind(recorded: str, http_status: int | None) -> FailureKind:
    """The kind of an `error_kind` journalled before the kinds were typed (`http_500` with its
    status, AISBench's `aisbench_failed`)."""
    if (kind := _BY_NAME.get(recorded)) is not None:
        return kind
    if recorded == "aisbench_failed":
        return "imported"
    return "server_error" if http_status is None else http_kind(http_status)
