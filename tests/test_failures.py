"""Failure kinds: classified once where the reply is read, by the server profile where the
wording is the flavour's; typed on the attempt; journals from before the kinds still read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import msgspec
import orjson
import pytest

from thinkeval.client.profiles import get_profile
from thinkeval.client.replies import RequestFailed
from thinkeval.failures import FAILURE_KINDS, FailureKind, legacy_kind
from thinkeval.records import Attempt
from thinkeval.store.journal import JOURNAL_DIR, iter_attempts


def _body(**error: Any) -> bytes:
    return json.dumps({"error": error}).encode()


@pytest.mark.parametrize(
    ("status", "kind", "retryable"),
    [
        (500, "server_error", True),
        (502, "server_error", True),
        (429, "rate_limited", True),
        (408, "timeout", True),
        (401, "refused", False),
        (400, "refused", False),
        (404, "refused", False),  # a 404 that does not say the model is missing
    ],
)
def test_an_http_error_is_classified_by_its_status(status: int, kind: str, retryable: bool) -> None:
    failure = get_profile("vllm").failure(status, _body(message="Not Found", code=status), "3")
    assert (failure.kind, failure.retryable, failure.http_status) == (kind, retryable, status)


def test_a_missing_model_is_read_in_each_flavour_s_words() -> None:
    vllm = orjson.dumps({"object": "error", "message": "The model `q` does not exist.",
                         "type": "NotFoundError", "code": 404})  # fmt: skip
    for api in ("vllm", "sglang"):
        failure = get_profile(api).failure(404, vllm, None)  # type: ignore[arg-type]
        assert failure.kind == "model_missing" and not failure.retryable
    # OpenAI names the cause in its code, whatever the message says.
    openai = _body(message="No such model: q", type="invalid_request_error", code="model_not_found")
    assert get_profile("openai").failure(404, openai, None).kind == "model_missing"
    assert get_profile("vllm").failure(404, openai, None).kind == "refused"


def test_a_prompt_over_the_context_window_is_its_own_kind_with_the_prompt_length() -> None:
    vllm = _body(
        message="This model's maximum context length is 4096 tokens. However, you requested "
        "5000 tokens (4000 in the messages, 1000 in the completion).",
        type="BadRequestError", code=400,
    )  # fmt: skip
    failure = get_profile("vllm").failure(400, vllm, None)
    assert (failure.kind, failure.retryable, failure.prompt_tokens) == (
        "context_overflow",
        False,
        4000,
    )
    openai = _body(message="Input too long.", code="context_length_exceeded")
    assert get_profile("openai").failure(400, openai, None).kind == "context_overflow"


def test_a_failure_is_built_by_keyword_with_a_known_kind() -> None:
    with pytest.raises(TypeError):
        RequestFailed("connection", "refused", True)  # type: ignore[misc]
    failure = RequestFailed(kind="connection", message="refused", retryable=True)
    assert failure.kind in FAILURE_KINDS and str(failure) == "refused"
    assert set(get_args(FailureKind)) == FAILURE_KINDS


def test_journals_from_before_the_typed_kinds_still_read(tmp_path: Path) -> None:
    common = {"model": "m", "task": "gsm8k", "phase": "fixed", "budget": 8, "max_tokens": 8}
    old = [
        {**common, "sample_id": "a", "error": "HTTP 500: boom", "error_kind": "http_500",
         "http_status": 500},
        {**common, "sample_id": "b", "error": "HTTP 429", "error_kind": "http_429",
         "http_status": 429},
        {**common, "sample_id": "c", "error": "failed", "error_kind": "aisbench_failed"},
        {**common, "sample_id": "d", "error": "refused", "error_kind": "connection"},
    ]  # fmt: skip
    (tmp_path / JOURNAL_DIR).mkdir()
    lines = b"".join(orjson.dumps(line) + b"\n" for line in old)
    (tmp_path / JOURNAL_DIR / "w.jsonl").write_bytes(lines)
    read = list(iter_attempts(tmp_path))
    kinds = [a.error_kind for a in read]
    assert kinds == ["server_error", "rate_limited", "imported", "connection"]
    assert legacy_kind("http_404", 404) == "refused"


def test_an_unknown_kind_is_refused() -> None:
    raw = {"model": "m", "task": "t", "sample_id": "s", "phase": "fixed", "budget": 1,
           "max_tokens": 1, "error": "x", "error_kind": "gremlins"}  # fmt: skip
    with pytest.raises(msgspec.ValidationError, match="error_kind"):
        msgspec.convert(raw, Attempt)
