"""Template and deployment checks: what a model's replies say about its server, as findings.

Each check reads one journalled reply (and its diagnosis) and, per model and task, counts the
replies it fires on with a few example ids:

- `reasoning_in_content`: the think block came inside `content` (the client moved it to the
  reasoning; the server runs without `--reasoning-parser`, the wrong one, or a pre-0.17 one
  on replies cut while thinking);
- `think_tags_in_content`: `<think>` or `</think>` inside `content` at all;
- `empty_stop`: content empty with `finish_reason: stop` (the model stopped, nothing to score);
- `stop_without_answer`: a `stop` before the budget, and strict scoring found no answer;
- `cut_by_window`: `length` before `max_tokens` was used, or `max_tokens` clamped below the
  budget: the server's context window (`max_model_len`) is smaller than prompt + budget;
- `thinking_without_reasoning`: thinking requested (`enable_thinking`, `thinking`,
  `reasoning_effort`) but no reasoning came back;
- `repetition_finish`: vLLM's repetition detector ended the reply (`finish_reason: repetition`).
"""

from __future__ import annotations

from typing import Any

import msgspec

from thinkeval.diagnosis.reply import Diagnosis
from thinkeval.records import Attempt

CHECKS: dict[str, str] = {
    "reasoning_in_content": "reasoning arrived in content: check --reasoning-parser",
    "think_tags_in_content": "<think> or </think> inside content: check the chat template",
    "empty_stop": "content empty with finish_reason stop",
    "stop_without_answer": "stopped before the budget without a final answer",
    "cut_by_window": "cut by the context window, not the budget: raise max_model_len",
    "thinking_without_reasoning": "thinking requested, no reasoning returned",
    "repetition_finish": "ended by vLLM's repetition detector (finish_reason repetition)",
}
EXAMPLES = 5


class Finding(msgspec.Struct, kw_only=True):
    """One check that fired: how often, and a few sample ids to look at."""

    check: str
    count: int
    detail: str
    examples: list[str]


def thinking_requested(request: dict[str, Any]) -> bool:
    """Whether the request asked the model to think (Qwen3, DeepSeek, OpenAI styles)."""
    kwargs = request.get("chat_template_kwargs")
    if isinstance(kwargs, dict) and (kwargs.get("enable_thinking") or kwargs.get("thinking")):
        return True
    effort = request.get("reasoning_effort")
    return isinstance(effort, str) and effort not in ("none", "")


def fired(attempt: Attempt, diagnosis: Diagnosis) -> list[str]:
    """The checks `attempt` fires."""
    names = []
    content = attempt.content or ""
    if diagnosis.think_in_content or attempt.reasoning_in_content:
        names.append("think_tags_in_content")
    if attempt.reasoning_in_content or (diagnosis.think_in_content and not attempt.reasoning):
        names.append("reasoning_in_content")
    if diagnosis.reply == "empty" and attempt.finish_reason == "stop":
        names.append("empty_stop")
    used = attempt.usage.completion_tokens
    before_budget = used is not None and used < attempt.max_tokens
    strict = attempt.verdicts.get("strict")
    answered_none = strict is not None and strict.status == "no_answer"
    if attempt.finish_reason == "stop" and content.strip() and answered_none and before_budget:
        names.append("stop_without_answer")
    if attempt.finish_reason == "length" and (before_budget or attempt.clamped_from is not None):
        names.append("cut_by_window")
    if thinking_requested(attempt.request) and not diagnosis.has_reasoning:
        names.append("thinking_without_reasoning")
    if attempt.finish_reason == "repetition":
        names.append("repetition_finish")
    return names


class FindingCounter:
    """Counts the checks of one model and task, keeping the first few example ids."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._examples: dict[str, list[str]] = {}

    def add(self, attempt: Attempt, diagnosis: Diagnosis) -> None:
        for name in fired(attempt, diagnosis):
            self._counts[name] = self._counts.get(name, 0) + 1
            examples = self._examples.setdefault(name, [])
            if len(examples) < EXAMPLES and attempt.sample_id not in examples:
                examples.append(attempt.sample_id)

    def findings(self) -> list[Finding]:
        return [
            Finding(
                check=name,
                count=self._counts[name],
                detail=CHECKS[name],
                examples=self._examples[name],
            )
            for name in CHECKS
            if name in self._counts
        ]
