"""`retry: continue` on the wire: the `/v1/completions` request that carries a cut-off generation
on from its token ids, its `text_completion` reply, and joining the two halves.

The fixed-phase chat request asks for `return_token_ids` (vLLM 0.10.2+), so its reply carries the
prompt's ids and the ids it generated. The continuation sends both, concatenated, as the prompt
of a plain completion, with `max_tokens` the rest of the second budget and the same sampling
settings and seed; no chat template is needed. That route runs no reasoning parser: its text is
the raw decoded tokens, `</think>` included, so the joined reply is split at the end-of-thinking
marker as the server's parser would have split a reply generated in one go.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from thinkeval.client.replies import RequestFailed, error_message, parse_usage, token_ids
from thinkeval.generation import GenerationSettings
from thinkeval.records import Reply

THINK_END = "</think>"
# Chat-only settings: /v1/completions refuses or ignores them (there is no template to apply).
_CHAT_ONLY = frozenset(
    {"chat_template_kwargs", "include_reasoning", "reasoning_effort", "messages", "stream_options"}
)


def ask_token_ids(body: dict[str, Any]) -> None:
    """Make a chat request body ask for the prompt and completion token ids."""
    body["return_token_ids"] = True


def continuation_body(
    model: str,
    prompt_ids: Sequence[int],
    generated_ids: Sequence[int],
    max_tokens: int,
    generation: GenerationSettings,
) -> dict[str, Any]:
    """The `/v1/completions` body continuing `generated_ids` after `prompt_ids`."""
    sent = generation.as_dict()
    body = {key: value for key, value in sent.items() if key not in _CHAT_ONLY}
    body["model"] = model
    body["prompt"] = [*prompt_ids, *generated_ids]
    body["max_tokens"] = max_tokens
    body.pop("max_completion_tokens", None)
    body.pop("stream", None)
    return body


def parse_text_completion(body: Any) -> Reply:
    """A `text_completion` body as a `Reply` whose `content` is the raw text; raises
    `RequestFailed` when it is unusable."""
    message = error_message(body)
    if message is not None:
        raise RequestFailed(
            kind="server_error", message=f"error body with HTTP 200: {message}", retryable=True
        )
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise RequestFailed(
            kind="malformed", message="completion reply has no 'choices'", retryable=True
        )
    choice = choices[0]
    text = choice.get("text")
    if not isinstance(text, str):
        raise RequestFailed(
            kind="malformed",
            message="completion reply's choices[0].text is not a string",
            retryable=True,
        )
    finish = choice.get("finish_reason")
    return Reply(
        content=text,
        finish_reason=finish if isinstance(finish, str) else None,
        usage=parse_usage(body.get("usage")),
        http_status=200,
        served_model=body.get("model") if isinstance(body.get("model"), str) else None,
        token_ids=token_ids(choice.get("token_ids")),
    )


def join(
    reasoning: str | None, content: str | None, more: str, thinking: bool = True
) -> tuple[str | None, str | None]:
    """`(reasoning, content)` of a fixed reply carried on by the raw text `more`.

    A reply cut off inside its thinking (no content yet) continues its reasoning up to the
    first `</think>` in `more`; the rest is content. A reply that had reached its answer, or
    one without thinking, continues its content.
    """
    if content or not thinking:
        return reasoning, (content or "") + more or None
    head, marker, tail = more.partition(THINK_END)
    return (reasoning or "") + head or None, (tail if marker else None) or None
