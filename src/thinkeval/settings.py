"""What a task's or a model's request settings may say: budgets that increase, and generation
settings that leave the protocol's own fields alone. Shared by run configs and task files."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from thinkeval.errors import ConfigError

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


def parse_budgets(text: str) -> tuple[int, int]:
    """`--budgets B1,B2` -> `(B1, B2)`: two token counts, the fixed budget positive and the retry
    budget larger. The one parser of the flag, for every command that takes it.

    >>> parse_budgets("2048, 8192")
    (2048, 8192)
    """
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != 2 or not all(part.isascii() and part.isdigit() for part in parts):
        raise ConfigError(
            f"--budgets must be two token counts B1,B2 (e.g. 2048,8192), got {text!r}"
        )
    budgets = int(parts[0]), int(parts[1])
    for problem in budget_problems(budgets):
        raise ConfigError(f"--budgets {text!r}: {problem}")
    return budgets


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
