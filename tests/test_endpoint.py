"""Reply normalisation across vLLM eras, SGLang and OpenAI (shapes from vllm-api.md)."""

from __future__ import annotations

import json

import pytest

from thinkeval.client.profiles import get_profile
from thinkeval.client.replies import (
    RequestFailed,
    error_message,
    normalise,
    retry_after,
)
from thinkeval.client.replies import parse_completion as parse_with_message
from thinkeval.records import Attempt, Reply, Usage
from thinkeval.store.journal import Journal, iter_attempts


def parse_completion(raw: object) -> Reply:
    reply, _ = parse_with_message(raw)
    return reply


def _http_failure(status: int, raw: bytes, retry_after_header: str | None) -> RequestFailed:
    """A non-200 reply as the vLLM profile classifies it (the wording is the profile's)."""
    return get_profile("vllm").failure(status, raw, retry_after_header)


def body(message: dict, finish: str = "stop", usage: dict | None = None) -> dict:
    return {
        "id": "chatcmpl-0123456789abcdef",
        "object": "chat.completion",
        "model": "Qwen/Qwen3-8B",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": usage or {"prompt_tokens": 12, "total_tokens": 28, "completion_tokens": 16},
    }


def test_vllm_0_10_reasoning_content() -> None:
    reply = parse_completion(
        body(
            {
                "role": "assistant",
                "content": "\n\nThe answer is 4.",
                "tool_calls": [],
                "reasoning_content": "\nOkay, 2+2=4.\n",
            }
        )
    )
    assert reply.content == "\n\nThe answer is 4."
    assert reply.reasoning == "\nOkay, 2+2=4.\n"
    assert reply.finish_reason == "stop"
    assert reply.usage.completion_tokens == 16
    assert reply.usage.reasoning_tokens is None


def test_vllm_0_13_both_names_taken_once() -> None:
    reply = parse_completion(
        body({"role": "assistant", "content": "A", "reasoning": "R", "reasoning_content": "R"})
    )
    assert (reply.content, reply.reasoning) == ("A", "R")


def test_vllm_latest_reasoning_tokens_detail() -> None:
    usage = {
        "prompt_tokens": 12,
        "total_tokens": 28,
        "completion_tokens": 16,
        "prompt_tokens_details": None,
        "completion_tokens_details": {"reasoning_tokens": 6},
    }
    reply = parse_completion(
        body({"role": "assistant", "content": "x", "reasoning": "r"}, usage=usage)
    )
    assert reply.usage.reasoning_tokens == 6


def test_truncated_inside_thinking_latest() -> None:
    reply = parse_completion(
        body({"role": "assistant", "content": None, "reasoning": "\nOkay, 2+2"}, "length")
    )
    assert reply.content is None
    assert reply.reasoning == "\nOkay, 2+2"
    assert reply.finish_reason == "length"


def test_truncated_inside_thinking_vllm_0_10_quirk() -> None:
    # 0.9-0.16: reasoning null, the raw truncated thinking in content with its <think>.
    reply = parse_completion(
        body(
            {"role": "assistant", "content": "<think>\nOkay, 2+2", "reasoning_content": None},
            "length",
        )
    )
    assert reply.content is None
    assert reply.reasoning == "\nOkay, 2+2"


def test_no_reasoning_parser_raw_think_in_content() -> None:
    reply = parse_completion(
        body({"role": "assistant", "content": "<think>\nR\n</think>\n\nThe answer is 4."})
    )
    assert reply.reasoning == "\nR\n"
    assert reply.content == "\n\nThe answer is 4."


def test_sglang_empty_string_content_and_top_level_reasoning_tokens() -> None:
    usage = {"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14, "reasoning_tokens": 9}
    reply = parse_completion(
        body({"role": "assistant", "content": "", "reasoning_content": "thinking"}, "length", usage)
    )
    assert reply.content is None
    assert reply.usage.reasoning_tokens == 9


def test_openai_reasoning_model() -> None:
    usage = {
        "prompt_tokens": 5,
        "completion_tokens": 100,
        "total_tokens": 105,
        "completion_tokens_details": {"reasoning_tokens": 100},
    }
    reply = parse_completion(body({"role": "assistant", "content": ""}, "length", usage))
    assert reply.content is None and reply.reasoning is None
    assert reply.usage.reasoning_tokens == 100


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"object": "list"}, "no 'choices'"),
        ({"choices": []}, "no 'choices'"),
        ({"choices": [{"index": 0}]}, "no 'message'"),
        ({"choices": [{"message": {"content": 5}}]}, "not a string"),
        ([1, 2], "not an object"),
    ],
)
def test_unusable_bodies(raw: object, problem: str) -> None:
    with pytest.raises(RequestFailed, match=problem) as info:
        parse_completion(raw)
    assert info.value.retryable


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            {
                "object": "error",
                "message": "The model `foo` does not exist.",
                "type": "NotFoundError",
                "param": None,
                "code": 404,
            },
            "The model `foo` does not exist.",
        ),
        (
            {
                "error": {
                    "message": "boom",
                    "type": "InternalServerError",
                    "param": None,
                    "code": 500,
                }
            },
            "boom",
        ),
        ({"error": "Unauthorized"}, "Unauthorized"),
        ({"detail": "Unsupported Media Type"}, "Unsupported Media Type"),
        ({"choices": []}, None),
    ],
)
def test_error_bodies_in_every_shape(raw: dict, message: str | None) -> None:
    assert error_message(raw) == message


@pytest.mark.parametrize(
    ("status", "retryable"),
    [
        (400, False),
        (401, False),
        (404, False),
        (408, True),
        (429, True),
        (500, True),
        (502, True),
        (503, True),
    ],
)
def test_http_status_retry_policy(status: int, retryable: bool) -> None:
    failure = _http_failure(status, b'{"error": {"message": "x"}}', None)
    assert failure.retryable is retryable
    assert failure.http_status == status


@pytest.mark.parametrize(
    ("message", "prompt_tokens"),
    [
        (
            "This model's maximum context length is 40960 tokens. However, you requested 41000 "
            "tokens (1000 in the messages, 40000 in the completion). Please reduce the length of "
            "the messages or completion.",
            1000,
        ),
        (
            "'max_tokens' or 'max_completion_tokens' is too large: 40000. This model's maximum "
            "context length is 40960 tokens and your request has 1000 input tokens "
            "(40000 > 40960 - 1000). None",
            1000,
        ),
        (
            "You passed 1000 input tokens and requested 40000 output tokens. However, the model's "
            "context length is only 40960 tokens, resulting in a maximum input length of 960 "
            "tokens. Please reduce the length of the input prompt.",
            1000,
        ),
        (
            "This model's maximum context length is 40960 tokens. However, you requested 40000 "
            "output tokens and your prompt contains 1000 input tokens, for a total of 41000 "
            "tokens. Please reduce the length of the input prompt or the number of requested "
            "output tokens.",
            1000,
        ),
        (
            "Requested token count exceeds the model's maximum context length of 40960 tokens. "
            "You requested a total of 41000 tokens: 1000 tokens from the input messages and "
            "40000 tokens for the completion.",
            1000,
        ),
    ],
)
def test_context_overflow_in_every_era(message: str, prompt_tokens: int) -> None:
    raw = json.dumps({"error": {"message": message, "type": "BadRequestError", "code": 400}})
    failure = _http_failure(400, raw.encode(), None)
    assert failure.kind == "context_overflow"
    assert not failure.retryable
    assert failure.prompt_tokens == prompt_tokens


def test_html_error_page_is_named() -> None:
    failure = _http_failure(502, b"<html><body><h1>502 Bad Gateway</h1></body></html>", None)
    assert failure.retryable
    assert "non-JSON body" in failure.message and "502 Bad Gateway" in failure.message


def test_retry_after_seconds_and_dates() -> None:
    assert retry_after("2") == 2.0
    assert retry_after("0.05") == 0.05
    assert retry_after(None) is None
    assert retry_after("soon") is None
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past


def test_normalise_keeps_plain_replies() -> None:
    assert normalise("  ", None) == ("  ", None)
    assert normalise("", "r") == (None, "r")
    assert normalise("<think>unclosed", None) == (None, "unclosed")


def test_fields_of_the_wrong_type_are_dropped_so_the_journal_reads_back(tmp_path) -> None:
    raw = body(
        {"role": "assistant", "content": "The answer is 4"},
        finish=5,  # type: ignore[arg-type]
        usage={"prompt_tokens": "12", "completion_tokens": 3.5, "reasoning_tokens": True},
    )
    raw["model"] = 123
    reply = parse_completion(raw)
    assert (reply.served_model, reply.finish_reason) == (None, None)
    assert reply.usage == Usage()
    attempt = Attempt(
        model="m",
        task="gsm8k",
        sample_id="gsm8k/0",
        phase="fixed",
        budget=8,
        max_tokens=8,
        content=reply.content,
        finish_reason=reply.finish_reason,
        usage=reply.usage,
    )
    with Journal(tmp_path) as journal:
        journal.append(attempt)
    assert list(iter_attempts(tmp_path)) == [attempt]
