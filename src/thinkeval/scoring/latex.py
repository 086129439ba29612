"""LaTeX groups in replies: a brace group, the last `\\boxed{}`. Plain string scanning, no
parsing; `scoring.math_statements` builds the math kind's answer rules on it.
"""

from __future__ import annotations

_BOX_COMMANDS = ("\\boxed", "\\fbox")


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
