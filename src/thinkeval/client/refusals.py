"""Refusals that asking again cannot change, read from each server flavour's 400 wording.

Two kinds of 400 are permanent for a given request:

- `prompt_over_window`: the prompt alone is longer than the context window. Each server and era
  words it differently (the table with the sources is tests/test_context_wordings.py): vLLM
  "maximum context length is N tokens ... your prompt contains P input tokens", before 0.6
  "you requested P tokens in the messages", its V1 engine "The decoder prompt (length P) is
  longer than the maximum model length of N" and its renderer "Input length (P) exceeds model's
  maximum context length (N)"; SGLang "The input (P tokens) is longer than the model's context
  length (N tokens)"; OpenAI "maximum context length is N tokens. However, your messages
  resulted in P tokens"; llama.cpp "request (P tokens) exceeds the available context size (N
  tokens)" (its body also carries `n_prompt_tokens` and `n_ctx`; older ones say no numbers,
  but llama.cpp only ever refuses the prompt alone); TGI (HTTP 422) "`inputs` must have less
  than N tokens. Given: P". When only prompt + budget overflows, the run clamps the budget
  instead.
- `invalid_parameter`: a 400 that names a parameter (`param` in the body, or vLLM's
  "(parameter=X, value=Y)"), other than the context-length ones.

Such a request is recorded once as a refusal (an outcome of its own, neither an answer nor a
transport error) and never asked again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import orjson

if TYPE_CHECKING:
    from thinkeval.client.replies import ErrorBody, RequestFailed

# TGI refuses with 422 (validation) where the others say 400.
CONTEXT_STATUSES = frozenset({400, 422})
RefusalReason = Literal["prompt_over_window", "invalid_parameter"]

CONTEXT_WORDING = re.compile(
    r"maximum context length|too large|context length is only|exceeds the model's maximum"
    r"|exceeds the available context size|longer than the model's context length"
    r"|context_length_exceeded|cannot be greater than max_model_len"
    r"|longer than the maximum model length|`inputs` tokens \+ `max_new_tokens` must be"
    r"|`inputs` must have less than \d+ tokens|messages resulted in \d+ tokens"
    r"|exceed the configured limit of \d+ tokens",
    re.I,
)
# Wordings that by themselves say the prompt alone is over the window, numbers or not.
_PROMPT_ALONE = re.compile(
    r"tokens in the messages, Please reduce"  # vLLM < 0.6
    r"|prompt \(length \d+\) is longer than the maximum model length"  # vLLM V1 engine
    r"|Input length \(\d+\) exceeds model's maximum context length"  # vLLM renderer
    r"|exceeds this limit even without any output tokens"  # vLLM 0.32+
    r"|exceeds the available context size"  # llama.cpp: never counts the budget
    r"|`inputs` must have less than \d+ tokens"  # TGI
    r"|However, your messages resulted in \d+ tokens\. Please"  # OpenAI
    r"|exceed the configured limit of \d+ tokens",  # OpenAI (newer)
    re.I,
)
_WINDOW = (
    re.compile(r"maximum context length (?:is|of) (\d+) tokens", re.I),
    re.compile(r"maximum context length \((\d+)\)", re.I),  # vLLM renderer
    re.compile(r"maximum model length of (\d+)", re.I),  # vLLM V1 engine
    re.compile(r"context length is only (\d+) tokens", re.I),
    re.compile(r"available context size \((\d+) tokens\)", re.I),
    re.compile(r"model's context length \((\d+) tokens\)", re.I),
    re.compile(r"greater than max_model_len=(\d+)", re.I),  # vLLM 0.32+: budget over the window
    re.compile(r"`max_new_tokens` must be <= (\d+)", re.I),  # TGI, prompt + budget
    re.compile(r"`inputs` must have less than (\d+) tokens", re.I),  # TGI, the prompt alone
    re.compile(r"configured limit of (\d+) tokens", re.I),  # OpenAI
)
_PROMPT = (
    re.compile(r"request \((\d+) tokens\) exceeds", re.I),  # llama.cpp
    re.compile(r"The input \((\d+) tokens\)", re.I),  # SGLang
    re.compile(r"(\d+) tokens from the input messages", re.I),  # SGLang, prompt + budget
    re.compile(r"\((\d+) in the messages", re.I),  # OpenAI, vLLM <= 0.8
    re.compile(r"you requested (\d+) tokens in the messages", re.I),  # vLLM < 0.6, prompt alone
    re.compile(
        r"(?:request has|prompt contains|You passed) (?:at least )?(\d+) input tokens", re.I
    ),
    re.compile(r"prompt \(length (\d+)\)", re.I),  # vLLM V1 engine
    re.compile(r"Input length \((\d+)\)", re.I),  # vLLM renderer
    re.compile(r"Given: (\d+) `inputs` tokens", re.I),  # TGI, prompt + budget
    re.compile(r"must have less than \d+ tokens\. Given: (\d+)", re.I),  # TGI, the prompt alone
    re.compile(r"messages resulted in (\d+) tokens", re.I),  # OpenAI
)
_NAMED_PARAMETER = re.compile(r"\(parameter=([A-Za-z_.]+)")
# Parameters the context checks name: those refusals are context refusals, not these.
_CONTEXT_PARAMETERS = frozenset({"input_tokens", "messages", "max_tokens", "max_completion_tokens"})


@dataclass(frozen=True)
class ContextRefusal:
    """What a context-length 400 said: the prompt's tokens and the window, where it said them."""

    prompt_tokens: int | None
    window: int | None
    worded_alone: bool = False  # the wording itself says the prompt alone does not fit

    @property
    def prompt_alone(self) -> bool:
        """The prompt by itself does not fit: no budget can make the request fit."""
        return self.worded_alone or (
            self.prompt_tokens is not None
            and self.window is not None
            and self.prompt_tokens >= self.window
        )


def _first(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return int(match.group(1))
    return None


def context_refusal(message: str, body: Any = None) -> ContextRefusal | None:
    """The context refusal `message` (and its body) words, or None if it is none."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("type") == "exceed_context_size_error":
        prompt, window = error.get("n_prompt_tokens"), error.get("n_ctx")  # llama.cpp
        if isinstance(prompt, int) and isinstance(window, int):
            return ContextRefusal(prompt, window)
    if not CONTEXT_WORDING.search(message):
        return None
    return ContextRefusal(
        _first(_PROMPT, message), _first(_WINDOW, message), bool(_PROMPT_ALONE.search(message))
    )


def invalid_parameter(message: str, param: str | None) -> str | None:
    """The parameter a 400 refuses, or None when it names none (or a context-length one)."""
    match = _NAMED_PARAMETER.search(message)
    named = match.group(1) if match else param
    if not named or named in _CONTEXT_PARAMETERS or CONTEXT_WORDING.search(message):
        return None
    return named


def read_refusal(failure: RequestFailed, error: ErrorBody | None, raw: bytes) -> RequestFailed:
    """Mark `failure` (a profile's reading of an HTTP error) as permanent where it is: the
    prompt alone over the window (`context_overflow` keeps its kind), or a 400 naming an
    invalid parameter. Also fills the window and prompt length a context refusal names."""
    if failure.http_status not in CONTEXT_STATUSES:
        return failure
    if failure.kind == "context_overflow":
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            body = None
        refusal = context_refusal(failure.message, body)
        if refusal is not None:
            failure.window = refusal.window
            failure.prompt_tokens = refusal.prompt_tokens or failure.prompt_tokens
            if refusal.prompt_alone:
                failure.refused = "prompt_over_window"
        return failure
    if (
        failure.http_status == 400
        and error is not None
        and invalid_parameter(error.message, error.param) is not None
    ):
        failure.refused, failure.retryable = "invalid_parameter", False
    return failure


def window_line(count: int, window: int | None, prompts: list[int]) -> str:
    """`1 sample does not fit the 2048-token window: prompt 2554 tokens`."""
    noun = "sample does" if count == 1 else "samples do"
    where = f"the {window}-token window" if window else "the context window"
    shown = ", ".join(str(p) for p in sorted(prompts)[-5:])
    tokens = f": prompt {shown} tokens" if count == 1 else f": prompts up to {shown} tokens"
    return f"{count} {noun} not fit {where}{tokens if prompts else ''}"
