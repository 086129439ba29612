"""vLLM (`api: vllm`, the default): the flavour thinkeval was built against (vllm-api.md).

It gets `max_tokens`. vLLM accepts `max_completion_tokens` too (and prefers it when both are
sent, vllm-api.md §4.1), but `max_tokens` is what every era from 0.7 to 0.33 and SGLang 0.4-0.5
take, what other OpenAI-compatible servers behind `api: vllm` understand, and what AISBench
sends, so requests stay comparable with its runs. Its cards say `owned_by: vllm` and carry
`max_model_len` (§5); `/metrics` counts the requests it runs and queues, `/version` tells its
release.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from thinkeval.client.profiles.base import ServerProfile, model_len_window


class VLLMProfile(ServerProfile):
    """vLLM's OpenAI-compatible server."""

    name: ClassVar[str] = "vllm"
    card_owners: ClassVar[frozenset[str]] = frozenset({"vllm"})
    takes_template_kwargs: ClassVar[bool] = True
    returns_token_ids: ClassVar[bool] = True
    budget_control: ClassVar[str | None] = "thinking_token_budget"  # top level, not extra_body
    effort_control: ClassVar[str | None] = "reasoning_effort"
    load_path: ClassVar[str | None] = "/metrics"
    load_gauges: ClassVar[tuple[str, ...]] = (
        "vllm:num_requests_running",
        "vllm:num_requests_waiting",
    )
    version_path: ClassVar[str | None] = "/version"

    def card_hint(self, card: Mapping[str, Any]) -> str | None:
        return "max_model_len as vLLM sends it" if "max_model_len" in card else None

    def stated_window(self, card: Mapping[str, Any]) -> tuple[int, str] | None:
        return model_len_window(card)

    def documented_reasoning_field(self, version: str | None) -> str | None:
        """`reasoning_content` before 0.11.1, both fields until 0.16, then `reasoning` (§0.1).

        >>> PROFILE.documented_reasoning_field("0.10.2"), PROFILE.documented_reasoning_field("0.33")
        ('reasoning_content', 'reasoning')
        """
        numbers = re.findall(r"\d+", version or "")
        if len(numbers) < 2:
            return None
        release = tuple(int(n) for n in numbers[:3])
        if release < (0, 11, 1):
            return "reasoning_content"
        return "reasoning+reasoning_content" if release < (0, 16) else "reasoning"


PROFILE = VLLMProfile()
