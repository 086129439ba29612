"""Reasoning controls per server flavour: one config key, each server's own field.

A model's `reasoning: {budget: N, effort: low}` is translated per `api`: each flavour's profile
names its fields (`budget_control`, `effort_control` in `client/profiles/`; vLLM's
`thinking_token_budget`, SGLang's `thinking_budget`, llama.cpp's `reasoning_budget_tokens`, none
at OpenAI, Ollama and TGI; `reasoning_effort` where the server has it, not at TGI).

A control a flavour lacks is refused when the config is read. Servers are known to accept such
fields and silently drop them, so a run checks afterwards whether the recorded reasoning
lengths kept to the budget (`budget_kept`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Literal

import msgspec

from thinkeval.client.profiles import profile_named
from thinkeval.sections import Problem, Section

Effort = Literal["none", "minimal", "low", "medium", "high"]
# Tokens past the budget still counted as keeping it: the closing tag, a token of slack.
SLACK_TOKENS = 8


class ReasoningControls(Section, kw_only=True, frozen=True):
    """A model's `reasoning` key: a thinking budget in tokens, and a reasoning effort."""

    budget: Annotated[int, msgspec.Meta(gt=0)] | None = None
    effort: Effort | None = None

    def problems_for(self, api: str) -> Iterator[Problem]:
        """What `api` cannot honour."""
        budget_field, effort_field = control_fields(api)
        if self.budget is not None and budget_field is None:
            yield (
                "budget",
                (
                    f"the {api} API has no thinking-budget control (api: {api}); set "
                    "reasoning.effort instead, or remove reasoning.budget"
                ),
            )
        if self.effort is not None and effort_field is None:
            yield "effort", f"the {api} API has no reasoning-effort control (api: {api})"

    def fields(self, api: str) -> dict[str, Any]:
        """The request fields that carry these controls to an `api` server."""
        budget_field, effort_field = control_fields(api)
        out: dict[str, Any] = {}
        if self.budget is not None and budget_field is not None:
            out[budget_field] = self.budget
        if self.effort is not None and effort_field is not None:
            out[effort_field] = self.effort
        return out


def control_fields(api: str) -> tuple[str | None, str | None]:
    """(the budget's field, the effort's field) at an `api` server; None: no such control."""
    profile = profile_named(api)
    return (None, None) if profile is None else (profile.budget_control, profile.effort_control)


def budget_kept(budget: int, reasoning_tokens: Iterable[int | None]) -> tuple[int, int]:
    """(replies over the budget, replies whose reasoning length is known)."""
    known = [n for n in reasoning_tokens if n is not None]
    return sum(1 for n in known if n > budget + SLACK_TOKENS), len(known)
