"""Where a mathematical reply states its final answer: the last `\\boxed{}`, else an explicit
final-answer statement. Plain string scanning, no parsing: the math answer kind and the lenient
`math` rule locate answers here, and Math-Verify then reads what was located.
"""

from __future__ import annotations

import re

from thinkeval.scoring.text import ascii_lower

_BOX_COMMANDS = ("\\boxed", "\\fbox")
# Statements of a final answer, searched in the ASCII-lower-cased text.
_STATEMENT = re.compile(
    r"final\s+answer(?:\s+is)?|the\s+answer\s+is|answer\s*\**\s*:|答案\s*(?:是|为|:)"
)
# What may sit between a statement and its value: markdown, colons, "is".
_LEAD = re.compile(r"(?:[\s*_:]|is\b)*")
_MATH_SPANS = (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$"))
# Markdown, quotes and closing punctuation around a stated value.
_TRAILING = " \t*_.,;。"
_LEADING = " \t*_"


def brace_group(text: str, start: int) -> tuple[str, int] | None:
    """The content of the `{...}` group opening at `text[start]`, and the index after it.

    Nested braces are counted and `\\{` / `\\}` are skipped; None when the group never closes.

    >>> brace_group("\\\\frac{a}{b}", 5)
    ('a', 8)
    >>> brace_group("{x^{2} + \\\\{1\\\\}}", 0)
    ('x^{2} + \\\\{1\\\\}', 15)
    """
    depth = 0
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1 : index], index + 1
        index += 1
    return None


def last_boxed(text: str) -> str | None:
    """The content of the last complete, non-empty `\\boxed{...}` (or `\\fbox{...}`).

    >>> last_boxed("so \\\\boxed{2} ... finally $\\\\boxed{\\\\frac{14}{3}}$.")
    '\\\\frac{14}{3}'
    >>> last_boxed("\\\\boxed{5}, then an unclosed \\\\boxed{")
    '5'
    """
    end = len(text)
    while True:
        start = max(text.rfind(command, 0, end) for command in _BOX_COMMANDS)
        if start < 0:
            return None
        command = next(c for c in _BOX_COMMANDS if text.startswith(c, start))
        brace = start + len(command)
        while brace < len(text) and text[brace] == " ":
            brace += 1
        if brace < len(text) and text[brace] == "{":
            group = brace_group(text, brace)
            if group is not None and group[0].strip():
                return group[0].strip()
        end = start


def stated_answer(text: str) -> str | None:
    """The value of the last explicit final-answer statement (`The final answer is $x$`,
    `**Answer:** 42`, `答案是 5`): a math span right after it, else the rest of its line.

    >>> stated_answer("Thus x = 2.\\n\\n**Final Answer:** $\\\\dfrac{1}{2}$.")
    '\\\\dfrac{1}{2}'
    >>> stated_answer("The answer is 18 apples.")
    '18 apples'
    """
    lowered = ascii_lower(text)
    for match in reversed(list(_STATEMENT.finditer(lowered))):
        lead = _LEAD.match(text, match.end())
        value = _value_at(text, lead.end() if lead else match.end())
        if value:
            return value
    return None


def _value_at(text: str, start: int) -> str | None:
    for opener, closer in _MATH_SPANS:
        if text.startswith(opener, start):
            begin = start + len(opener)
            end = text.find(closer, begin)
            if end < 0 or "\n\n" in text[begin:end]:
                break
            value = text[begin:end].strip()
            return value or None
    line_end = text.find("\n", start)
    line = text[start : line_end if line_end >= 0 else len(text)]
    value = line.strip(_TRAILING).lstrip(_LEADING)
    return value or None


def final_answer(text: str) -> tuple[str, str] | None:
    """`(answer, rule)`: the last `\\boxed{}` (rule `boxed`), else the last explicit statement
    (rule `final-answer`), else None. A boxed answer wins wherever it is, because the prompt
    asks for one and statements also occur mid-reasoning ("check whether the answer is ...").

    >>> final_answer("The answer is 3, i.e. $\\\\boxed{3}$.")
    ('3', 'boxed')
    >>> final_answer("No conclusion here.") is None
    True
    """
    boxed = last_boxed(text)
    if boxed is not None:
        return boxed, "boxed"
    stated = stated_answer(text)
    if stated is not None:
        return stated, "final-answer"
    return None
