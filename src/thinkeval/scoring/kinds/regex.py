"""A task's own pattern: the last match of a regular expression is the answer."""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from thinkeval.scoring.kinds.base import AnswerKind, Found


@dataclass(frozen=True)
class RegexKind(AnswerKind):
    """The last match of `pattern` (its group `answer`, else its first group, else the whole
    match) is the answer; it equals the gold after stripping, ignoring case when asked.

    >>> RegexKind(r"ANSWER:\\s*(\\w+)").find("ANSWER: cat ... ANSWER: dog")
    Found(answer='dog', rule='regex', readable=True)
    """

    pattern: str
    ignore_case: bool = True
    name: str = "regex"
    version: str = "1"
    pooled: bool = False
    _compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            compiled = re.compile(self.pattern)
        except re.error as exc:
            raise ValueError(
                f"pattern {self.pattern!r} is not a valid regular expression: {exc}"
            ) from None
        object.__setattr__(self, "_compiled", compiled)

    def find(self, text: str) -> Found | None:
        last = deque(self._compiled.finditer(text), maxlen=1)
        if not last:
            return None
        match = last[0]
        if "answer" in self._compiled.groupindex:
            value = match.group("answer")
        elif self._compiled.groups:
            value = match.group(1)
        else:
            value = match.group(0)
        return Found(value.strip(), "regex") if value and value.strip() else None

    def matches(self, answer: str, gold: str) -> bool:
        if self.ignore_case:
            return answer.strip().casefold() == gold.strip().casefold()
        return answer.strip() == gold.strip()

    def check_gold(self, gold: str) -> str | None:
        return None if gold.strip() else f"gold {gold!r} is empty"
