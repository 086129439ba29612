"""Hugging Face text-generation-inference (`api: tgi`): its OpenAI-compatible Messages API,
`/v1/chat/completions`.

What it is, read from TGI's own source (huggingface/text-generation-inference at db931fc, v3.3.x)
and docs:

- The request (`router/src/lib.rs`, `ChatRequest`) takes `max_tokens` (`max_completion_tokens`
  is an alias) and no `chat_template_kwargs`, `top_k`, thinking budget or reasoning effort; the
  struct does not deny unknown fields, so serde drops them unread. It has no reasoning parser:
  a thinking model's `<think>` block arrives inside `content`, and no token ids come back.
- Its `/v1/models` card (`router/src/server.rs`, `openai_get_model_info`) says `owned_by:` the
  model id itself and states no window; `/info` (`Info`) states `max_total_tokens` (prompt +
  generated tokens of one request), `max_input_tokens` and the router's `version`.
- A refusal is HTTP 422 with `{"error": ..., "error_type": "validation"}` (`InferError` to
  `StatusCode`); over the window it says "`inputs` tokens + `max_new_tokens` must be <= N" or
  "`inputs` must have less than N tokens" (`router/src/validation.rs`, read by
  `client/refusals.py`). Since #3016 (2025-02) only the first 1024 tokens of a budget are
  checked against the window, so a budget over it is taken and a prompt over it is refused.
- `/metrics` (docs/source/reference/metrics.md) has the gauges `tgi_queue_size` (queued) and
  `tgi_batch_current_size` (in the running batch): the requests it holds.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from msgspec import UNSET

from thinkeval.client.profiles.base import ServerProfile, token_count
from thinkeval.generation import GenerationSettings


class TGIProfile(ServerProfile):
    """text-generation-inference's Messages API."""

    name: ClassVar[str] = "tgi"
    takes_top_k: ClassVar[bool] = False
    load_path: ClassVar[str | None] = "/metrics"
    load_gauges: ClassVar[tuple[str, ...]] = ("tgi_queue_size", "tgi_batch_current_size")
    window_path: ClassVar[str | None] = "/info"
    budget_counts_in_window: ClassVar[bool] = False
    version_path: ClassVar[str | None] = "/info"

    def generation_problems(self, generation: GenerationSettings) -> Iterator[str]:
        if generation.chat_template_kwargs is not UNSET:
            yield (
                "chat_template_kwargs is dropped unread by TGI's Messages API (api: tgi), "
                "which has no such field; remove it"
            )

    def card_hint(self, card: Mapping[str, Any]) -> str | None:
        owner = card.get("owned_by")
        if isinstance(owner, str) and owner and owner == card.get("id"):
            return "that is the model id, as TGI's cards say"
        return None

    def read_window(self, body: Mapping[str, Any]) -> tuple[int, str] | None:
        """`/info`'s `max_total_tokens`: the prompt and the reply of one request together."""
        window = token_count(body, "max_total_tokens")
        if window is None or window <= 0:
            return None
        return window, f"/info: max_total_tokens {window}"


PROFILE = TGIProfile()
