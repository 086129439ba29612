"""Final-answer statements of GSM8K replies: `#### 18`, `The answer is 18`, `\\boxed{18}`, ...

A few-shot continuation (`\\nQuestion:` and an invented answer) and a note after the answer are
read only when nothing before them gives an answer (`text.answer_regions`). Then, in order:

1. the last explicit statement (a marker or `\\boxed{}`); an expression after it states its value
   (`The answer is 20 - 2 = 18` is 18: the last `= n`, else the expression's value); a modal or an
   adverb may follow the marker (`the answer should be 1`, `The answer is indeed 6`), a number
   written as a word is not read (`The answer is eighteen.`), a marker in a question (`Is the
   final answer 30?`) states nothing, and a cue that ends its sentence (`So Janet earns $18.
   That's the final answer.`) names the sentence before it (rule `cue-refers-back`);
2. a last line that is only a number (`**18**`, `$18$`);
3. a first line that is only a number, the rest explaining it (answer first);
4. the last number of a complete final sentence (`... so she makes $18.`);
5. the result of a closed construct on the last line holding a number: a bold result
   (`Total = 9 * 2 = **18**`) or a display equation (`\\[ 9 \\times 2 = 18 \\]`).

A reply that stops mid-sentence without any of these concluded nothing: `no_answer`.
"""

from __future__ import annotations

import re

from thinkeval.scoring.arithmetic import evaluate
from thinkeval.scoring.numbers import (
    NUMBER,
    NUMBER_ATOMIC,
    canonical,
    canonical_number,
    last_number,
)
from thinkeval.scoring.sentences import Questions, closing_sentence, refers_back, sentence_before
from thinkeval.scoring.text import answer_regions, ascii_lower

# What may stand between a marker and its number: a modal (`the answer should be 1`) and
# adverbs (`The answer is indeed 6`, `the answer is simply 22`).
# "would be", "could be" are left out: they mostly state a hypothesis ("If she sold 10, the
# answer would be 20."), which must not override the conclusion after it.
_MODAL = r"(?:should|must|will)\s+be"
_FILLERS = (
    r"(?:\s+(?:indeed|simply|just|clearly|actually|probably|likely|definitely|exactly|still"
    r"|then|now|therefore|thus))*"
)

# Markers, searched in the ASCII-lower-cased text. Earlier entries win when two statements name
# the same number ("Final answer: 18" is also an "answer:" statement); otherwise the statement
# that comes last in the reply wins.
_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("####", re.compile(r"####")),
    ("final answer", re.compile(rf"final\s+answer(?:\s+{_MODAL})?{_FILLERS}")),
    ("the answer is", re.compile(rf"answer\s+(?:is|=|{_MODAL}){_FILLERS}")),
    ("answer:", re.compile(r"answer[\s*]{0,4}:")),
    ("答案", re.compile(r"答案[\s*]{0,4}(?:(?:应该|应当|应|就|也|即|便)?[为是]|:)")),
)
_BOXED_PRIORITY = len(_MARKERS)
_BACK_PRIORITY = _BOXED_PRIORITY + 1
# An operator after a number starts an expression ("5 * 3 = 15"), not an answer.
_OPERATOR = r"\s{0,3}(?:[-+*/×÷^=xX·]|\\times|\\cdot|\\div)\s{0,3}[\d(\\$]"
# ... also with a unit between: "5 apples + 3 apples = 8 apples".
_STARTS_EXPRESSION = re.compile(r"(?:\s{1,2}[A-Za-z]{1,12})?" + _OPERATOR)
# A number follows a marker after markdown, LaTeX and punctuation ("**Final Answer:** $\\$18$",
# "答案: (18)"), the gap bounded so matching stays linear.
_STATED = re.compile(r"[\s*_:#(\[{$\\]{0,24}" + NUMBER_ATOMIC)
_RESULT = re.compile(
    r"[\s*_$\\]*(?:(?:text|textbf|mathrm|mathbf)\s*\{[\s$\\]*)?"
    + NUMBER_ATOMIC
    + f"(?!{_OPERATOR})"
)
# An expression runs to the end of its sentence or line; 160 characters bound the work.
_CLAUSE_END = re.compile(r"\n|[.!?;](?=\s|$)|[。！？；]|\\\]|\$\$")
_CLAUSE_LIMIT = 160
# Up to two levels of nested braces: \boxed{1200 \text{ dollars}}, \boxed{\text{\$18}}.
_BOXED = re.compile(r"\\boxed\s*\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")
# LaTeX thousands separators: 1{,}200 and 1\,200.
_LATEX_THOUSANDS = re.compile(r"(?<=\d)(?:\{,\}|\\,|\\!)(?=\d{3}(?!\d))")

# A whole line that is only a number: "18", "**18**", "$18$", "\(18\)".
_BARE_NUMBER_LINE = re.compile(r"[*_#\s$\\(\[]*" + NUMBER + r"[\s*_$\\)\].%]*")
# A JSON answer field: a number, then at most words ("18", "$1,200", "11.25 dollars", "12个").
_FIELD_NUMBER = re.compile(r"[\s$]*" + NUMBER_ATOMIC + r"(?![\d.,/])(?P<rest>[^\d=+*/^]*)")
_BOLD = re.compile(r"\*\*([^*\n]{1,200})\*\*")
_DISPLAY_CLOSE = ("\\]", "$$")
_DIGIT = re.compile(r"[0-9]")


def find_number_answer(text: str) -> tuple[str, str] | None:
    """The final-answer number in `text` as `(canonical number, rule)`, or None (module doc).

    >>> find_number_answer("So she pays 5*3=15 dollars.\\nThe answer is $1,200.00.")
    ('1200', 'the answer is')
    >>> find_number_answer("The answer is 20 - 2 = 18")
    ('18', 'the answer is')
    """
    if "{,}" in text or "\\," in text or "\\!" in text:
        text = _LATEX_THOUSANDS.sub(",", text)
    for region in answer_regions(text):
        found = _find(region)
        if found is not None:
            return found
    return None


def _find(text: str) -> tuple[str, str] | None:
    return _statement(text) or _fallback(text)


def _statement(text: str) -> tuple[str, str] | None:
    lowered = ascii_lower(text)
    best: tuple[int, int, str, str] | None = None  # (position, -priority, answer, rule)
    questions = Questions(text)
    for priority, (rule, marker) in enumerate(_MARKERS):
        for found in marker.finditer(lowered):
            stated = _stated_at(text, found.end())
            # "Is the final answer 30? Let me check" asks, it does not state.
            if stated is not None and not questions.asks(found.end()):
                candidate = (stated[0], -priority, stated[1], rule)
                best = candidate if best is None or candidate[:2] > best[:2] else best
    for found in _BOXED.finditer(text):
        answer = _value(found.group(1))
        if answer is not None:
            candidate = (found.start(1), -_BOXED_PRIORITY, answer, "boxed")
            best = candidate if best is None or candidate[:2] > best[:2] else best
    # The last back-referring cue with a number is the only one that can win: newest first.
    for found in reversed(refers_back(lowered)):
        if best is not None and found.start() < best[0]:
            break
        sentence = sentence_before(text, found.start())
        inner = _statement(sentence) if sentence else None
        back = inner[0] if inner else last_number(sentence or "")
        if back is not None:
            best = (found.start(), -_BACK_PRIORITY, back, "cue-refers-back")
            break
    return (best[2], best[3]) if best is not None else None


def _stated_at(text: str, position: int) -> tuple[int, str] | None:
    """`(where, answer)` of what a marker ending at `position` states, or None."""
    match = _STATED.match(text, position)
    if match is None:
        return None
    start = match.start("int")
    if not _STARTS_EXPRESSION.match(text, match.end()):
        return start, canonical(match)
    clause = text[match.start() : match.start() + _CLAUSE_LIMIT]
    end = _CLAUSE_END.search(clause)
    answer = _value(clause[: end.start()] if end else clause)
    return (start, answer) if answer is not None else None


def _value(expression: str) -> str | None:
    """What `expression` states: the number after its last `=`, else its arithmetic value, else
    its leading number when nothing follows it ("1200 \\text{ dollars}")."""
    if "=" in expression:
        result = _RESULT.match(expression.rsplit("=", 1)[1])
        return canonical(result) if result else None
    lead = _RESULT.match(expression)
    if lead is not None:
        return canonical(lead)
    return evaluate(expression.replace("$", " "))


def _fallback(text: str) -> tuple[str, str] | None:
    lines = [line.strip() for line in text.strip().split("\n")]
    bare = _BARE_NUMBER_LINE.fullmatch(lines[-1])
    if bare:
        return canonical(bare), "last-line-number"
    first = _BARE_NUMBER_LINE.fullmatch(lines[0])
    if first and len(lines) > 1:
        return canonical(first), "first-line-number"
    return _final_sentence_number(lines[-1]) or _closed_result(lines)


def _final_sentence_number(last_line: str) -> tuple[str, str] | None:
    sentence = closing_sentence(last_line)
    if sentence is None:
        return None  # the reply stops mid-sentence (or asks): nothing was concluded
    answer = last_number(sentence)
    return (answer, "last-sentence-number") if answer is not None else None


def field_number(value: str) -> str | None:
    """The number a JSON answer field holds (`"$1,200"`, `"11.25 dollars"`, `"12个"`), or None
    when it holds no single number written in digits (`"cannot be determined"`, `"3 or 4"`,
    `"20 - 2"`, `"eighteen"`).

    >>> field_number("$1,200"), field_number("12个"), field_number("3 or 4")
    ('1200', '12', None)
    """
    number = canonical_number(value)
    if number is not None:
        return number
    match = _FIELD_NUMBER.fullmatch(value)
    return canonical(match) if match is not None else None


def _closed_result(lines: list[str]) -> tuple[str, str] | None:
    """The result on the last line holding a digit, when a closed construct shows the model
    finished writing it: a bold result, or a display equation whose closer follows."""
    index = next((i for i in range(len(lines) - 1, -1, -1) if _has_digit(lines[i])), None)
    if index is None:
        return None
    line = lines[index]
    bolds = list(_BOLD.finditer(line))
    if bolds:
        last = bolds[-1]
        inner = last.group(1)
        if "=" in inner or line[: last.start()].rstrip().endswith("="):
            answer = _value(inner if "=" in inner else "=" + inner)
            return (answer, "bold-result") if answer is not None else None
    closed = line.endswith(_DISPLAY_CLOSE) or (
        index + 1 < len(lines) and lines[index + 1] in _DISPLAY_CLOSE
    )
    if closed and "=" in line:
        answer = _value(line.removesuffix("\\]").removesuffix("$$"))
        return (answer, "display-result") if answer is not None else None
    return None


def _has_digit(line: str) -> bool:
    # `str.isdigit`'s meaning (superscripts count too), with the regex's C scan for the usual
    # ASCII line: the character loop was a third of a 30,000-row report's scoring time.
    if _DIGIT.search(line):
        return True
    return not line.isascii() and any(char.isdigit() for char in line)
