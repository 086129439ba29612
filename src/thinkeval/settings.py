"""What a task's or a model's request settings may say: budgets that increase, and generation
settings that leave the protocol's own fields alone. Shared by run configs and task files."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Request fields the protocol owns: a config may not override them.
RESERVED_GENERATION_KEYS = frozenset(
    {"model", "messages", "max_tokens", "max_completion_tokens", "stream", "stream_options", "n"}
)


def budget_problems(budgets: tuple[int, int]) -> Iterator[str]:
    """What is wrong with a (fixed, retry) budget pair."""
    fixed, adaptive = budgets
    if fixed <= 0:
        yield "the fixed budget must be a positive number of tokens"
    elif adaptive <= fixed:
        yield (
            f"budgets must increase: the retry budget {adaptive} is not larger than the "
            f"fixed budget {fixed}"
        )


def generation_problems(generation: dict[str, Any]) -> Iterator[str]:
    """Generation settings thinkeval cannot pass on."""
    reserved = sorted(RESERVED_GENERATION_KEYS & generation.keys())
    if reserved:
        yield (
            f"{', '.join(reserved)} cannot be set in generation: thinkeval sets them "
            "(max_tokens comes from budgets)"
        )
    if generation.get("stop"):
        yield (
            "stop sequences are not sent: they cut thinking models off inside their "
            "reasoning; remove 'stop'"
        )
    seed = generation.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        yield f"seed must be an integer, got {seed!r}"
