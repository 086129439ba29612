"""The OpenAI API (`api: openai`): `max_completion_tokens`, no `chat_template_kwargs`.

Its reasoning models refuse `max_tokens` with a 400 `unsupported_parameter` (vllm-api.md §7.2),
and it refuses `chat_template_kwargs` as an unknown argument, so a config that sets it for an
openai model is refused before the run. Its cards say `owned_by: openai`, `system` or
`openai-internal` and state no context window (§7); it has no thinking budget (only
`reasoning_effort`), no `top_k`, no token ids and no load metrics, and names its error causes in
`error.code`.
"""

from __future__ import annotations

from typing import ClassVar

from thinkeval.client.profiles.base import ServerProfile
from thinkeval.client.replies import ErrorBody
from thinkeval.failures import FailureKind


class OpenAIProfile(ServerProfile):
    """The OpenAI API."""

    name: ClassVar[str] = "openai"
    card_owners: ClassVar[frozenset[str]] = frozenset({"openai", "system", "openai-internal"})
    budget_field: ClassVar[str] = "max_completion_tokens"
    effort_control: ClassVar[str | None] = "reasoning_effort"
    takes_top_k: ClassVar[bool] = False
    refuses_max_tokens: ClassVar[bool] = True
    states_window: ClassVar[bool] = False

    def kind_of(self, status: int, error: ErrorBody | None, message: str) -> FailureKind:
        """OpenAI names its causes in `error.code`; the shared wording covers the rest."""
        code = None if error is None else error.code
        if code == "model_not_found":
            return "model_missing"
        if code == "context_length_exceeded":
            return "context_overflow"
        return super().kind_of(status, error, message)


PROFILE = OpenAIProfile()
