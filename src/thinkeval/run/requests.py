"""The chat request one unit becomes: its generation settings (the repeat's seed), the model's
prompt variant and reasoning controls, and the budget clamped to the context window."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from thinkeval.client.profiles import get_profile
from thinkeval.config import ModelConfig, ResolvedTask
from thinkeval.generation import GenerationSettings
from thinkeval.run.continuation import ask_token_ids


def clamp_budget(
    budget: int, prompt_tokens: int | None, window: int | None
) -> tuple[int, int | None]:
    """The budget, clamped to what fits in the context; and the budget if it was clamped."""
    if window is None or prompt_tokens is None:
        return budget, None
    room = window - prompt_tokens
    if 0 < room < budget:
        return room, budget
    return budget, None


def unit_generation(
    model: ModelConfig, task: ResolvedTask, repeat: int, controls: bool = False
) -> GenerationSettings:
    """The generation settings of one unit: repeat r samples with seed + r, and its retry with
    the same seed, so where the server honours seeds the retry regenerates the cut-off reply and
    carries it further; with `controls`, the model's reasoning controls over them (a chat
    request's, not a continuation's)."""
    merged = model.control_settings if controls else None
    return task.request_generation(model.generation_settings, merged).seeded(repeat)


def request_body(
    model: ModelConfig,
    task: ResolvedTask,
    messages: Sequence[Mapping[str, Any]],
    repeat: int,
    max_tokens: int,
    token_ids: bool,
    tools: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The chat request body in the model's server flavour; `token_ids` asks the server for the
    prompt's and the reply's token ids (a fixed request whose retry may continue it); `tools`
    are the sample's functions (a tool-calling task)."""
    generation = unit_generation(model, task, repeat, controls=True)
    if model.prompt is not None:  # a prompt variant (config/prompts.py)
        messages = model.prompt.apply(messages)
    body = get_profile(model.api).request(
        model.served_model, messages, max_tokens, generation, model.stream, tools
    )
    if token_ids:
        ask_token_ids(body)
    return body
