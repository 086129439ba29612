"""A number: GSM8K-style final answers (`The answer is 18`, `#### 18`, `\\boxed{18}`, ...)."""

from __future__ import annotations

from dataclasses import dataclass

from thinkeval.scoring.kinds.base import AnswerKind, Found
from thinkeval.scoring.math_answers import find_number_answer
from thinkeval.scoring.numbers import canonical_number


@dataclass(frozen=True)
class NumberKind(AnswerKind):
    """Answers compared as exact decimal numbers: `$1,200.00` equals `1200`."""

    name: str = "number"
    version: str = "2"
    pooled: bool = False

    def find(self, text: str) -> Found | None:
        found = find_number_answer(text)
        return Found(*found) if found else None

    def matches(self, answer: str, gold: str) -> bool:
        expected = canonical_number(gold)
        return expected is not None and canonical_number(answer) == expected

    def check_gold(self, gold: str) -> str | None:
        if canonical_number(gold) is None:
            return f"gold {gold!r} is not a number"
        return None
