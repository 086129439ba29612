"""Reasoning controls per server flavour: one config key, each server's own field.

A model's `reasoning: {budget: N, effort: low}` is translated per `api`:

| api      | budget (thinking tokens)          | effort              |
|----------|-----------------------------------|---------------------|
| vllm     | `thinking_token_budget` (top level) | `reasoning_effort` |
| sglang   | `thinking_budget`                 | `reasoning_effort`  |
| openai   | refused: no such control          | `reasoning_effort`  |
| llamacpp | `reasoning_budget_tokens`         | `reasoning_effort`  |

A control a flavour lacks is refused when the config is read. Servers are known to accept such
fields and silently drop them, so a run checks afterwards whether the recorded reasoning
lengths kept to the budget (`budget_kept`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Literal

import msgspec

from thinkeval.sections import Problem, Section

Effort = Literal["none", "minimal", "low", "medium", "high"]
# Per flavour: (the budget's field, the effort's field); None: the server has no such control.
FIELDS: dict[str, tuple[str | None, str | None]] = {
    "vllm": ("thinking_token_budget", "reasoning_effort"),
    "sglang": ("thinking_budget", "reasoning_effort"),
    "openai": (None, "reasoning_effort"),
    "llamacpp": ("reasoning_budget_tokens", "reasoning_effort"),
}
# Tokens past the budget still counted as keeping it: the closing tag, a token of slack.
SLACK_TOKENS = 8


class ReasoningControls(Section, kw_only=True, frozen=True):
    """A model's `reasoning` key: a thinking budget in tokens, and a reasoning effort."""

    budget: Annotated[int, msgspec.Meta(gt=0)] | None = None
    effort: Effort | None = None

    def problems_for(self, api: str) -> Iterator[Problem]:
        """What `api` cannot honour."""
        budget_field, effort_field = FIELDS.get(api, (None, None))
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
        budget_field, effort_field = FIELDS.get(api, (None, None))
        out: dict[str, Any] = {}
        if self.budget is not None and budget_field is not None:
            out[budget_field] = self.budget
        if self.effort is not None and effort_field is not None:
            out[effort_field] = self.effort
        return out


def budget_kept(budget: int, reasoning_tokens: Iterable[int | None]) -> tuple[int, int]:
    """(replies over the budget, replies whose reasoning length is known)."""
    known = [n for n in reasoning_tokens if n is not None]
    return sum(1 for n in known if n > budget + SLACK_TOKENS), len(known)
