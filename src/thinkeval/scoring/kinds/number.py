"""A number: GSM8K-style final answers (`The answer is 18`, `#### 18`, `\\boxed{18}`, a JSON
answer field, ...)."""

from __future__ import annotations

from dataclasses import dataclass

from thinkeval.scoring.json_answer import json_answer
from thinkeval.scoring.kinds.base import AnswerKind, Found
from thinkeval.scoring.math_answers import field_number, find_number_answer
from thinkeval.scoring.numbers import canonical_number


@dataclass(frozen=True)
class NumberKind(AnswerKind):
    """Answers compared as exact decimal numbers: `$1,200.00` equals `1200`."""

    name: str = "number"
    version: str = "3"
    pooled: bool = False

    def find(self, text: str) -> Found | None:
        """A reply written as JSON answers in its answer field alone (`json_answer`); any other
        reply by the statements and fallbacks of `math_answers`."""
        in_json, field = json_answer(text)
        if in_json:
            if field is None:
                return None  # `"answer": null` states nothing; the reasoning field is not read
            number = field_number(field)
            if number is None:
                return Found(field, "json-answer: not a number", readable=False)
            return Found(number, "json-answer")
        found = find_number_answer(text)
        return Found(*found) if found else None

    def matches(self, answer: str, gold: str) -> bool:
        expected = canonical_number(gold)
        return expected is not None and canonical_number(answer) == expected

    def answer_format(self) -> str:
        return (
            'the final number, digits only: no units, currency or thousands separators ("1200", '
            '"-3", "0.5")'
        )

    def check_gold(self, gold: str) -> str | None:
        if canonical_number(gold) is None:
            return f"gold {gold!r} is not a number"
        return None
