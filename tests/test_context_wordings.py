"""Every wording servers have used for "prompt + max_tokens exceed the context window".

Each row is a message as the server's own source writes it (numbers filled in), with where
it comes from. A prompt that alone is over the window is a refusal (`prompt_over_window`,
recorded once, never asked again); prompt + budget over the window names the prompt's length
and the window, so the run can clamp the budget. Sources (repository, path, as read):

- vLLM < 0.6: vllm-project/vllm vllm/entrypoints/openai/serving_engine.py
  (`_validate_prompt_and_tokenize`, 0030b9ff): "... you requested P tokens in the messages,
  Please reduce ..." for the prompt alone, "(P in the messages, M in the completion)" else.
- vLLM 0.6-0.33: shared/design/vllm-api.md §4.2 (the eras' wordings, some captured);
  "your prompt contains at least P input tokens" from vllm/renderers/params.py.
- vLLM V1 engine: vllm-project/vllm vllm/v1/engine/processor.py (`_validate_model_input`):
  "The decoder prompt (length P) is longer than the maximum model length of N."
- vLLM renderer: "Input length (P) exceeds model's maximum context length (N)."
- SGLang: sgl-project/sglang python/sglang/srt/managers/tokenizer_manager.py.
- llama.cpp: ggml-org/llama.cpp tools/server (`exceed_context_size_error`, with and without
  `n_prompt_tokens` / `n_ctx`).
- TGI: huggingface/text-generation-inference router/src/validation.rs (`MaxTotalTokens`,
  `InputLength`), sent with HTTP 422 as {"error": ..., "error_type": "validation"}.
- OpenAI: the API's context_length_exceeded errors.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import write_config
from stub_servers import ThreadedApp, refusing_app
from thinkeval.cli import main
from thinkeval.client.profiles import get_profile
from thinkeval.store.journal import iter_attempts


def _vllm_old(message: str) -> dict[str, Any]:
    return {"object": "error", "message": message, "type": "BadRequestError", "code": 400}


def _nested(message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"message": message, "type": "BadRequestError", "code": 400, **extra}}


def _tgi(message: str) -> dict[str, Any]:
    return {"error": f"Input validation error: {message}", "error_type": "validation"}


# (where it comes from, api, HTTP status, body, prompt tokens, window, prompt alone)
WORDINGS: list[tuple[str, str, int, dict[str, Any], int | None, int | None, bool]] = [
    (
        "vLLM <0.6 prompt alone",
        "vllm",
        400,
        _vllm_old(
            "This model's maximum context length is 4096 tokens. However, you requested 5000 "
            "tokens in the messages, Please reduce the length of the messages."
        ),
        5000,
        4096,
        True,
    ),
    (
        "vLLM <=0.8 prompt + budget",
        "vllm",
        400,
        _vllm_old(
            "This model's maximum context length is 4096 tokens. However, you requested 5000 "
            "tokens (4000 in the messages, 1000 in the completion). Please reduce the length of "
            "the messages or completion."
        ),
        4000,
        4096,
        False,
    ),
    (
        "vLLM 0.9-0.10 prompt alone",
        "vllm",
        400,
        _nested(
            "This model's maximum context length is 4096 tokens. However, your request has 5000 "
            "input tokens. Please reduce the length of the input messages. None"
        ),
        5000,
        4096,
        True,
    ),
    (
        "vLLM 0.9-0.10 prompt + budget",
        "vllm",
        400,
        _nested(
            "'max_tokens' or 'max_completion_tokens' is too large: 1000. This model's maximum "
            "context length is 4096 tokens and your request has 4000 input tokens "
            "(1000 > 4096 - 4000). None"
        ),
        4000,
        4096,
        False,
    ),
    (
        "vLLM 0.11-0.17 prompt + budget",
        "vllm",
        400,
        _nested(
            "You passed 4000 input tokens and requested 1000 output tokens. However, the "
            "model's context length is only 4096 tokens, resulting in a maximum input length "
            "of 3096 tokens. Please reduce the length of the input prompt.",
            param="input_tokens",
        ),
        4000,
        4096,
        False,
    ),
    (
        "vLLM 0.18-0.31 prompt + budget",
        "vllm",
        400,
        _nested(
            "This model's maximum context length is 4096 tokens. However, you requested 1000 "
            "output tokens and your prompt contains 4000 input tokens, for a total of 5000 "
            "tokens. Please reduce the length of the input prompt or the number of requested "
            "output tokens.",
            param="input_tokens",
        ),
        4000,
        4096,
        False,
    ),
    (
        "vLLM renderers/params.py, a count it truncated",
        "vllm",
        400,
        _nested(
            "This model's maximum context length is 4096 tokens. However, you requested 1000 "
            "output tokens and your prompt contains at least 3100 input tokens, for a total of "
            "at least 4100 tokens. Please reduce the length of the input prompt or the number "
            "of requested output tokens."
        ),
        3100,
        4096,
        False,
    ),
    (
        "vLLM 0.32+ prompt alone",
        "vllm",
        400,
        _nested(
            "This model's maximum context length is 4096 tokens. However, your prompt contains "
            "5000 input tokens, which exceeds this limit even without any output tokens. Please "
            "reduce the length of the input prompt. (parameter=input_tokens, value=5000)"
        ),
        5000,
        4096,
        True,
    ),
    (
        "vLLM V1 engine processor",
        "vllm",
        400,
        _nested(
            "The decoder prompt (length 5000) is longer than the maximum model length of 4096. "
            "Make sure that `max_model_len` is no smaller than the number of text tokens."
        ),
        5000,
        4096,
        True,
    ),
    (
        "vLLM renderer",
        "vllm",
        400,
        _nested("Input length (5000) exceeds model's maximum context length (4096)."),
        5000,
        4096,
        True,
    ),
    (
        "SGLang prompt alone",
        "sglang",
        400,
        _vllm_old(
            "The input (5000 tokens) is longer than the model's context length (4096 tokens)."
        ),
        5000,
        4096,
        True,
    ),
    (
        "SGLang prompt + budget",
        "sglang",
        400,
        _vllm_old(
            "Requested token count exceeds the model's maximum context length of 4096 tokens. "
            "You requested a total of 5000 tokens: 4000 tokens from the input messages and 1000 "
            "tokens for the completion. Please reduce the number of tokens in the input "
            "messages or the completion to fit within the limit."
        ),
        4000,
        4096,
        False,
    ),
    (
        "llama.cpp with the counts",
        "llamacpp",
        400,
        {
            "error": {
                "code": 400,
                "message": "request (5000 tokens) exceeds the available context size (4096 "
                "tokens), try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 5000,
                "n_ctx": 4096,
            }
        },
        5000,
        4096,
        True,
    ),
    (
        "llama.cpp without counts",
        "llamacpp",
        400,
        {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
            }
        },
        None,
        None,
        True,
    ),
    (
        "TGI prompt + budget (422)",
        "vllm",
        422,
        _tgi(
            "`inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens "
            "and 1000 `max_new_tokens`"
        ),
        4000,
        4096,
        False,
    ),
    (
        "TGI prompt alone (422)",
        "vllm",
        422,
        _tgi("`inputs` must have less than 4096 tokens. Given: 5000"),
        5000,
        4096,
        True,
    ),
    (
        "OpenAI prompt + budget",
        "openai",
        400,
        {
            "error": {
                "message": "This model's maximum context length is 4096 tokens. However, you "
                "requested 5000 tokens (4000 in the messages, 1000 in the completion). Please "
                "reduce the length of the messages or completion.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
        4000,
        4096,
        False,
    ),
    (
        "OpenAI prompt alone",
        "openai",
        400,
        {
            "error": {
                "message": "This model's maximum context length is 4096 tokens. However, your "
                "messages resulted in 5000 tokens. Please reduce the length of the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
        5000,
        4096,
        True,
    ),
    (
        "OpenAI configured limit",
        "openai",
        400,
        {
            "error": {
                "message": "Input tokens exceed the configured limit of 272000 tokens. Your "
                "messages resulted in 300000 tokens. Please reduce the length of the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
        300000,
        272000,
        True,
    ),
]


@pytest.mark.parametrize(
    ("api", "status", "body", "prompt", "window", "alone"),
    [row[1:] for row in WORDINGS],
    ids=[row[0] for row in WORDINGS],
)
def test_every_context_window_wording_is_read(
    api: str, status: int, body: dict[str, Any], prompt: int | None, window: int | None, alone: bool
) -> None:
    failure = get_profile(api).failure(status, json.dumps(body).encode(), None)  # type: ignore[arg-type]
    assert failure.kind == "context_overflow"
    assert not failure.retryable
    assert (failure.prompt_tokens, failure.window) == (prompt, window)
    assert failure.refused == ("prompt_over_window" if alone else None)


PROMPT_ALONE = [row for row in WORDINGS if row[6] and row[1] in ("vllm", "llamacpp")]


@pytest.mark.parametrize(
    ("api", "status", "body"),
    [row[1:4] for row in PROMPT_ALONE],
    ids=[row[0] for row in PROMPT_ALONE],
)
def test_a_prompt_alone_over_the_window_over_http_is_refused_once(
    tmp_path: Path, api: str, status: int, body: dict[str, Any]
) -> None:
    """Over HTTP: each sample asked once, recorded as refused, the run exits 0, and the same
    command asks nothing again (a transport error would be asked again and again)."""
    (tmp_path / "q.jsonl").write_text(
        "".join(json.dumps({"q": f"What is {i}?", "a": i}) + "\n" for i in range(2))
    )
    task = tmp_path / "q.yaml"
    task.write_text(
        "name: q\ndata: {file: q.jsonl}\nfields: {question: q, answer: a}\n"
        "answer: {kind: number}\nbudgets: [64, 128]\n"
    )
    with ThreadedApp(refusing_app(status, body)) as server:
        model = {"name": "m", "base_url": server.base_url, "api": api, "retry_backoff_s": 0.01}
        config = write_config(
            tmp_path / "run.yaml",
            {"run": "r", "models": [model], "tasks": [{"file": str(task)}]},
        )
        out = tmp_path / "out"
        assert main(["run", str(config), "--output", str(out)]) == 0
        attempts = list(iter_attempts(out))
        assert sorted((a.sample_id, a.refused) for a in attempts) == [
            ("q/0", "prompt_over_window"),
            ("q/1", "prompt_over_window"),
        ]
        assert server.seen.requests == 2
        assert main(["run", str(config), "--output", str(out)]) == 0
        assert server.seen.requests == 2  # nothing asked again
        assert main(["verify", str(out)]) == 0
