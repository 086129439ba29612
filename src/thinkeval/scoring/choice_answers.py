"""Final-answer statements of multiple-choice replies: C-Eval letters, BoolQ letters or yes/no."""

from __future__ import annotations

import re
from dataclasses import dataclass

from thinkeval.scoring.text import ascii_lower

_YES_NO = {"yes": "A", "true": "A", "no": "B", "false": "B"}

# Markers, searched in the ASCII-lower-cased text; each has a literal that must occur for it
# to match, so absent markers cost one substring test.
_MARKERS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("final answer", "answer", re.compile(r"final\s+answer")),
    ("the answer is", "answer", re.compile(r"answer\s+is")),
    ("answer:", "answer", re.compile(r"answer[\s*]{0,4}:")),
    ("correct option is", "correct", re.compile(r"correct\s+(?:option|choice)\s+is")),
    ("答案", "答案", re.compile(r"答案[\s*]{0,4}(?:应?[为是选]|:)")),
    ("选", "选", re.compile(r"(?:故|因此|所以|综上|应)[,，]?选(?:择|项)?")),
    (
        "boxed",
        "\\boxed",
        re.compile(r"\\boxed\s*\{[\s(]*(?:\\(?:text(?:bf)?|math(?:rm|bf))\s*\{)?"),
    ),
)
# Markdown, brackets and LaTeX allowed between a marker and its letter: "**Answer:** (B)".
_GAP = r"[\s*_:(\[{\"'“‘【$\\]{0,16}"


@dataclass(frozen=True)
class _Patterns:
    stated: re.Pattern[str]
    bare_line: re.Pattern[str]
    option_reply: re.Pattern[str]


def _compile(letters: str, yes_no: bool) -> _Patterns:
    # A standalone capital: "answer: B" yes, "answer: Because" no; "A or B" is no statement.
    letter = rf"[{letters}](?![A-Za-z0-9_])(?!\s*(?:or|and|/|或|和)\s*\(?[A-H](?![A-Za-z0-9_]))"
    slot = f"(?:{letter}|(?i:yes|no|true|false)(?![A-Za-z]))" if yes_no else letter
    stated = re.compile(f"{_GAP}(?P<x>{slot})")
    # A last line that is only the answer: "B", "**B**", "(B)", "[B]", "B.", "No."
    bare_line = re.compile(rf"[*_#\s\"'“(\[【]*(?P<x>{slot})[*_\s\"'”)\]】.!]*")
    # A one-line reply that is a letter with its option text: "B. 宪法", "(B) Paris", "B：宪法".
    option_reply = re.compile(
        rf"[*_\s]*(?:[(\[【]\s*(?P<x>[{letters}])\s*[)\]】]|(?P<y>[{letters}])\s*[.:、)])"
        r"[*_\s]*\S.*"
    )
    return _Patterns(stated, bare_line, option_reply)


_SHORT_REPLY = 200


class ChoiceFinder:
    """Finds the last explicit choice of one of `letters` in a reply.

    With `yes_no`, the words yes/true and no/false also count, as the first and second letter.

    >>> ChoiceFinder("ABCD").find("选项A错误。答案:C")
    ('C', '答案')
    >>> ChoiceFinder("AB", yes_no=True).find("The passage says so.\\n\\n**Answer: Yes**")
    ('A', 'answer:')
    """

    def __init__(self, letters: str, yes_no: bool = False) -> None:
        self.letters = letters
        self._patterns = _compile(letters, yes_no)

    def find(self, text: str) -> tuple[str, str] | None:
        """`(letter, rule)` of the last explicit answer in `text`, or None."""
        return _find(text, self._patterns)


def _find(text: str, patterns: _Patterns) -> tuple[str, str] | None:
    lowered = ascii_lower(text)
    best: tuple[int, int, str, str] | None = None  # (position, -priority, answer, rule)
    for priority, (rule, needle, marker) in enumerate(_MARKERS):
        if needle not in lowered:
            continue
        for found in marker.finditer(lowered):
            match = patterns.stated.match(text, found.end())
            if match:
                candidate = (match.start("x"), -priority, _letter(match.group("x")), rule)
                best = candidate if best is None or candidate[:2] > best[:2] else best
    if best is not None:
        return best[2], best[3]
    stripped = text.strip()
    bare = patterns.bare_line.fullmatch(stripped.rsplit("\n", 1)[-1].strip())
    if bare:
        return _letter(bare.group("x")), "bare-answer"
    if "\n" not in stripped and len(stripped) <= _SHORT_REPLY:
        option = patterns.option_reply.fullmatch(stripped)
        if option:
            return option.group("x") or option.group("y"), "option-text"
    return None


def _letter(word: str) -> str:
    return _YES_NO.get(word.lower(), word)
