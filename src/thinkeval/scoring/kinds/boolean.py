"""Yes or no, offered as options A (yes) and B (no): BoolQ's form in AISBench's prompt."""

from __future__ import annotations

from dataclasses import dataclass

from thinkeval.scoring.choice_answers import ChoiceFinder
from thinkeval.scoring.kinds.base import AnswerKind, Found
from thinkeval.scoring.text import fold_width

_FINDER = ChoiceFinder("AB", yes_no=True)


@dataclass(frozen=True)
class BooleanKind(AnswerKind):
    """`Yes`/`True`/`A` is A, `No`/`False`/`B` is B; the gold is the letter."""

    name: str = "boolean"
    version: str = "3"
    pooled: bool = False

    def find(self, text: str) -> Found | None:
        found = _FINDER.find(text)
        return Found(*found) if found else None

    def matches(self, answer: str, gold: str) -> bool:
        return answer == fold_width(gold).strip().upper()

    def answer_format(self) -> str:
        return (
            "A when the reply's final answer is yes, B when it is no (the options were "
            '"A. Yes" and "B. No")'
        )

    def check_gold(self, gold: str) -> str | None:
        if fold_width(gold).strip().upper() not in ("A", "B"):
            return f"gold {gold!r} is not A (yes) or B (no)"
        return None
