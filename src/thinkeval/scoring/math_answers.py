"""Final-answer statements of GSM8K replies: `#### 18`, `The answer is 18`, `\\boxed{18}`, ..."""

from __future__ import annotations

import re

from thinkeval.scoring.numbers import NUMBER, canonical, last_number
from thinkeval.scoring.text import ascii_lower

# Markers, searched in the ASCII-lower-cased text. Earlier entries win when two statements name
# the same number ("Final answer: 18" is also an "answer:" statement); otherwise the statement
# that comes last in the reply wins.
_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("####", re.compile(r"####")),
    ("final answer", re.compile(r"final\s+answer")),
    ("the answer is", re.compile(r"answer\s+(?:is|=)")),
    ("answer:", re.compile(r"answer[\s*]{0,4}:")),
    ("答案", re.compile(r"答案[\s*]{0,4}(?:[为是]|:)")),
)
_BOXED_PRIORITY = len(_MARKERS)
# A number follows a marker after markdown, LaTeX and punctuation ("**Final Answer:** $\\$18$",
# "答案: (18)"), the gap bounded so matching stays linear. A number followed by an operator starts
# an expression ("5 * 3 = 15"), not an answer.
_NOT_EXPRESSION = r"(?!\s{0,3}(?:[-+*/×÷^=xX]|\\times|\\cdot|\\div)\s{0,3}[\d(\\$])"
_STATED_NUMBER = re.compile(r"[\s*_:#(\[{$\\]{0,24}" + NUMBER + _NOT_EXPRESSION)
# Up to two levels of nested braces: \boxed{1200 \text{ dollars}}, \boxed{\text{\$18}}.
_BOXED = re.compile(r"\\boxed\s*\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")
_BOXED_NUMBER = re.compile(
    r"[\s$\\]*(?:(?:text|textbf|mathrm|mathbf)\s*\{[\s$\\]*)?" + NUMBER + _NOT_EXPRESSION
)
# LaTeX thousands separators: 1{,}200 and 1\,200.
_LATEX_THOUSANDS = re.compile(r"(?<=\d)(?:\{,\}|\\,|\\!)(?=\d{3}(?!\d))")

# A whole last line that is only a number: "18", "**18**", "$18$", "\(18\)".
_BARE_NUMBER_LINE = re.compile(r"[*_#\s$\\(\[]*" + NUMBER + r"[\s*_$\\)\].%]*")
_SENTENCE_END = ".!?。！？"
# Closers that may follow the full stop of a final sentence: **, ), quotes, LaTeX $.
_CLOSERS = "*_)]}\"'”’$ \t"
_SENTENCE_BREAK = re.compile(r"[.!?](?=\s)|[。！？]")


def find_number_answer(text: str) -> tuple[str, str] | None:
    """The last explicit final-answer number in `text` as `(canonical number, rule)`, or None.

    Falls back to the last number of the final sentence when that sentence is complete.

    >>> find_number_answer("So she pays 5*3=15 dollars.\\nThe answer is $1,200.00.")
    ('1200', 'the answer is')
    """
    if "{,}" in text or "\\," in text or "\\!" in text:
        text = _LATEX_THOUSANDS.sub(",", text)
    lowered = ascii_lower(text)
    best: tuple[int, int, str, str] | None = None  # (position, -priority, answer, rule)
    for priority, (rule, marker) in enumerate(_MARKERS):
        for found in marker.finditer(lowered):
            match = _STATED_NUMBER.match(text, found.end())
            if match:
                candidate = (match.start("int"), -priority, canonical(match), rule)
                best = candidate if best is None or candidate[:2] > best[:2] else best
    for found in _BOXED.finditer(text):
        answer = _boxed_number(found.group(1))
        if answer is not None:
            candidate = (found.start(1), -_BOXED_PRIORITY, answer, "boxed")
            best = candidate if best is None or candidate[:2] > best[:2] else best
    if best is not None:
        return best[2], best[3]
    return _final_sentence_number(text)


def _boxed_number(content: str) -> str | None:
    # "\boxed{5 \times 3 = 15}" states its result after the last "=".
    match = _BOXED_NUMBER.match(content.rsplit("=", 1)[-1])
    return canonical(match) if match else None


def _final_sentence_number(text: str) -> tuple[str, str] | None:
    last_line = text.rstrip().rsplit("\n", 1)[-1].strip()
    bare = _BARE_NUMBER_LINE.fullmatch(last_line)
    if bare:
        return canonical(bare), "last-line-number"
    body = last_line.rstrip(_CLOSERS)
    if not body or body[-1] not in _SENTENCE_END:
        return None  # the reply stops mid-sentence: nothing was concluded
    body = body[:-1]
    start = 0
    for sentence_break in _SENTENCE_BREAK.finditer(body):
        start = sentence_break.end()
    answer = last_number(body[start:])
    return (answer, "last-sentence-number") if answer is not None else None
