"""Final-answer statements of GSM8K replies: `#### 18`, `The answer is 18`, `\\boxed{18}`, ...

A few-shot continuation (`\\nQuestion:` and an invented answer) and a note after the answer are
read only when nothing before them gives an answer (`text.answer_regions`). Then, in order:

1. the last explicit statement (a marker or `\\boxed{}`); an expression after it states its value
   (`The answer is 20 - 2 = 18` is 18: the last `= n`, else the expression's value);
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
from thinkeval.scoring.numbers import NUMBER, NUMBER_ATOMIC, canonical, last_number
from thinkeval.scoring.text import answer_regions, ascii_lower

# Markers, searched in the ASCII-lower-cased text. Earlier entries win when two statements name
# the same number ("Final answer: 18" is also an "answer:" statement); otherwise the statement
# that comes last in the reply wins.
_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("####", re.compile(r"####")),
    ("final answer", re.compile(r"final\s+answer")),
    ("the answer is", re.compile(r"answer\s+(?:is|=)")),
    ("answer:", re.compile(r"answer[\s*]{0,4}:")),
    ("答案", re.compile(r"答案[\s*]{0,4}(?:应?[为是]|:)")),
)
_BOXED_PRIORITY = len(_MARKERS)
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
# A question is not a conclusion: only . and ! (and their Chinese forms) end a final sentence.
_SENTENCE_END = ".!。！"
# Closers that may follow the full stop of a final sentence: **, ), quotes, LaTeX $.
_CLOSERS = "*_)]}\"'”’$ \t"
_SENTENCE_BREAK = re.compile(r"[.!?](?=\s)|[。！？]")
_BOLD = re.compile(r"\*\*([^*\n]{1,200})\*\*")
_DISPLAY_CLOSE = ("\\]", "$$")


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
    for priority, (rule, marker) in enumerate(_MARKERS):
        for found in marker.finditer(lowered):
            stated = _stated_at(text, found.end())
            if stated is not None:
                candidate = (stated[0], -priority, stated[1], rule)
                best = candidate if best is None or candidate[:2] > best[:2] else best
    for found in _BOXED.finditer(text):
        answer = _value(found.group(1))
        if answer is not None:
            candidate = (found.start(1), -_BOXED_PRIORITY, answer, "boxed")
            best = candidate if best is None or candidate[:2] > best[:2] else best
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
    body = last_line.rstrip(_CLOSERS)
    if not body or body[-1] not in _SENTENCE_END:
        return None  # the reply stops mid-sentence: nothing was concluded
    body = body[:-1]
    start = 0
    for sentence_break in _SENTENCE_BREAK.finditer(body):
        start = sentence_break.end()
    answer = last_number(body[start:])
    return (answer, "last-sentence-number") if answer is not None else None


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
    return any(char.isdigit() for char in line)
