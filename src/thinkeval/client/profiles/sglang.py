"""SGLang (`api: sglang`): asked as vLLM is (`max_tokens`, `chat_template_kwargs`); its thinking
budget is `thinking_budget`, it returns no token ids, its cards say `owned_by: sglang` with
`max_model_len`, its `/metrics` counts `sglang:num_running_reqs` and `sglang:num_queue_reqs`, and
the reasoning arrives in `reasoning_content`. Its replies differ from vLLM's only in shapes the
shared reader knows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thinkeval.client.profiles.base import ServerProfile, model_len_window


class SGLangProfile(ServerProfile):
    """SGLang's OpenAI-compatible server."""

    name: ClassVar[str] = "sglang"
    card_owners: ClassVar[frozenset[str]] = frozenset({"sglang"})
    takes_template_kwargs: ClassVar[bool] = True
    budget_control: ClassVar[str | None] = "thinking_budget"
    effort_control: ClassVar[str | None] = "reasoning_effort"
    load_path: ClassVar[str | None] = "/metrics"
    load_gauges: ClassVar[tuple[str, ...]] = ("sglang:num_running_reqs", "sglang:num_queue_reqs")
    version_path: ClassVar[str | None] = "/version"

    def stated_window(self, card: Mapping[str, Any]) -> tuple[int, str] | None:
        return model_len_window(card)

    def documented_reasoning_field(self, version: str | None) -> str | None:
        return "reasoning_content"


PROFILE = SGLangProfile()
