"""A letter from a fixed set of options: C-Eval's A-D, or any multiple-choice task's letters."""

from __future__ import annotations

from dataclasses import dataclass, field

from thinkeval.scoring.choice_answers import ChoiceFinder
from thinkeval.scoring.kinds.base import AnswerKind, Found
from thinkeval.scoring.text import fold_width


@dataclass(frozen=True)
class ChoiceKind(AnswerKind):
    """The last explicit choice of one option letter (`答案：C`, `The answer is (B)`, `B`)."""

    letters: str = "ABCD"
    name: str = "choice"
    version: str = "3"
    pooled: bool = False
    _finder: ChoiceFinder = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not (2 <= len(self.letters) <= 26) or not self.letters.isascii():
            raise ValueError(f"letters must be 2 to 26 ASCII capitals, got {self.letters!r}")
        if not self.letters.isupper() or len(set(self.letters)) != len(self.letters):
            raise ValueError(f"letters must be distinct capitals, got {self.letters!r}")
        object.__setattr__(self, "_finder", ChoiceFinder(self.letters, yes_no=False))

    def find(self, text: str) -> Found | None:
        found = self._finder.find(text)
        return Found(*found) if found else None

    def matches(self, answer: str, gold: str) -> bool:
        return answer == fold_width(gold).strip().upper()

    def option_letters(self) -> str:
        return self.letters

    def answer_format(self) -> str:
        return f"the letter of the option the reply chooses, one of {', '.join(self.letters)}"

    def check_gold(self, gold: str) -> str | None:
        if fold_width(gold).strip().upper() not in self.letters:
            return f"gold {gold!r} is not one of the letters {', '.join(self.letters)}"
        return None
