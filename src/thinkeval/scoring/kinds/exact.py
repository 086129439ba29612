"""An exact string: a name, a word, a short phrase (`Evelyn`, `Paris`, `blue`)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from thinkeval.scoring.kinds.base import AnswerKind, Found
from thinkeval.scoring.text import ascii_lower

# Statements of a final answer, searched in the ASCII-lower-cased text; the answer runs to the
# end of the line. The last statement in the reply wins.
_STATEMENT = re.compile(
    r"(?:final\s+answer|answer\s+is|answer\s*:|答案\s*(?:是|为|:))[\s*_:]*(?P<x>[^\n]+)"
)
_BOXED = re.compile(r"\\boxed\s*\{(?P<x>[^{}\n]+)\}")
# Markdown, quotes, LaTeX text wrappers and trailing punctuation around an answer.
_WRAPPERS = re.compile(r"^[\s*_\"'“‘`$(\[]+|[\s*_\"'”’`$)\].,;:!?。]+$")
_TEXT_MACRO = re.compile(r"\\(?:text|textbf|mathrm)\s*\{([^{}]*)\}")
_SHORT_LINE = 80


def normalise_text(text: str) -> str:
    """Case-, width- and wrapper-insensitive form used to compare exact answers.

    >>> normalise_text("**\\\\text{Evelyn}.**")
    'evelyn'
    """
    text = unicodedata.normalize("NFKC", _TEXT_MACRO.sub(r"\1", text))
    previous = None
    while previous != text:
        previous, text = text, _WRAPPERS.sub("", text)
    return " ".join(text.casefold().split())


@dataclass(frozen=True)
class ExactKind(AnswerKind):
    """The stated final answer (a marker, `\\boxed{...}`, or a short last line), compared as text.

    Comparison ignores case, surrounding markdown, quotes, LaTeX `\\text{}` and final punctuation.
    """

    name: str = "exact"
    version: str = "1"
    pooled: bool = False

    def find(self, text: str) -> Found | None:
        lowered = ascii_lower(text)
        best: tuple[int, str, str] | None = None
        for match in _STATEMENT.finditer(lowered):
            best = (match.start("x"), text[match.start("x") : match.end("x")], "statement")
        for match in _BOXED.finditer(text):
            if best is None or match.start("x") > best[0]:
                best = (match.start("x"), match.group("x"), "boxed")
        if best is not None and normalise_text(best[1]):
            return Found(best[1].strip(), best[2])
        last = text.strip().rsplit("\n", 1)[-1].strip()
        if last and len(last) <= _SHORT_LINE and normalise_text(last):
            return Found(last, "last-line")
        return None

    def matches(self, answer: str, gold: str) -> bool:
        return normalise_text(answer) == normalise_text(gold)

    def check_gold(self, gold: str) -> str | None:
        return None if normalise_text(gold) else f"gold {gold!r} is empty"
