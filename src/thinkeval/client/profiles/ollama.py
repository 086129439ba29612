"""Ollama's OpenAI-compatible `/v1` (`api: ollama`): `max_tokens`, `reasoning_effort` for
thinking models (`none` turns thinking off), the reasoning in the message's `reasoning` field.

Its cards say `owned_by: library` and state no window (a prompt over its `num_ctx` is cut, not
refused); it has no thinking budget, token ids or load metrics, and drops fields it does not
know. A model it does not have is a 404 "not found, try pulling it first".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from msgspec import UNSET

from thinkeval.client.profiles.base import ServerProfile
from thinkeval.client.replies import ErrorBody
from thinkeval.failures import FailureKind
from thinkeval.generation import GenerationSettings


class OllamaProfile(ServerProfile):
    """Ollama's `/v1`."""

    name: ClassVar[str] = "ollama"
    card_owners: ClassVar[frozenset[str]] = frozenset({"library"})
    effort_control: ClassVar[str | None] = "reasoning_effort"
    states_window: ClassVar[bool] = False

    def generation_problems(self, generation: GenerationSettings) -> Iterator[str]:
        if generation.chat_template_kwargs is not UNSET:
            yield (
                "chat_template_kwargs is dropped unread by Ollama's OpenAI API (api: ollama); "
                "set reasoning.effort instead (none turns thinking off), or remove it"
            )

    def kind_of(self, status: int, error: ErrorBody | None, message: str) -> FailureKind:
        """Ollama says a model it does not have is "not found, try pulling it first"."""
        if status == 404 and "try pulling it" in message:
            return "model_missing"
        return super().kind_of(status, error, message)


PROFILE = OllamaProfile()
