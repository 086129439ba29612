"""What a task's or a model's request settings may say: budgets that increase, and generation
settings (`thinkeval.generation`) that leave the protocol's own fields alone. Shared by run
configs and task files."""

from __future__ import annotations

from collections.abc import Iterator

from thinkeval.errors import ConfigError
from thinkeval.generation import RESERVED_GENERATION_KEYS, generation_problems

__all__ = ["RESERVED_GENERATION_KEYS", "budget_problems", "generation_problems", "parse_budgets"]


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
