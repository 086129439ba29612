"""A stdin/stdout program's output against the expected one, as LiveCodeBench's own grader
compares them (`lcb_runner/evaluation/testing_util.py`, `grade_stdio`).

The rules, in order:

1. Each text is stripped of surrounding whitespace as a whole, then split on `\\n` (only: a
   form feed or `\\u2028` inside a line does not split it), and every line is stripped of
   leading and trailing whitespace (a `\\r` of Windows line ends included).
2. The two must have the same number of lines; a missing or extra line fails.
3. Line by line: equal strings pass. Otherwise both lines are split on runs of whitespace and
   every token read as a `decimal.Decimal`; the line passes when both read and the numbers are
   equal one by one (`1` = `1.0` = `1.00` = `1e0`, `-0` = `0`), and fails when a token on
   either side is not a number or any pair differs (`1.0` against `1.00001`: no tolerance).
   So `a  b` against `a b` fails (words are not numbers), `1  2` against `1 2` passes.

One departure, where the official grader would stop with an error: comparing a signalling NaN
(`sNaN`) raises in `decimal`; here such a line simply fails. A quiet NaN equals nothing, as in
`decimal` (a line `nan` passes only against the same string).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation


def output_lines(text: str) -> list[str]:
    """Rule 1: the stripped lines of `text` (an empty text is one empty line)."""
    return [line.strip() for line in text.strip().split("\n")]


def _numbers(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(token) for token in line.split()]
    except (InvalidOperation, ValueError):
        return None


def same_line(got: str, expected: str) -> bool:
    """Rule 3 for two stripped lines: the same string, or the same numbers token by token."""
    if got == expected:
        return True
    mine, theirs = _numbers(got), _numbers(expected)
    if mine is None or theirs is None or len(mine) != len(theirs):
        return False
    try:
        return all(a == b for a, b in zip(mine, theirs, strict=True))
    except InvalidOperation:  # a signalling NaN cannot be compared
        return False


def output_mismatch(got: str, expected: str) -> str | None:
    """None when `got` passes for `expected`; otherwise which rule it failed, in a few words
    (`2 lines, want 3`, `line 2 differs`)."""
    mine, theirs = output_lines(got), output_lines(expected)
    if len(mine) != len(theirs):
        return f"{len(mine)} lines, want {len(theirs)}"
    for number, (a, b) in enumerate(zip(mine, theirs, strict=True), start=1):
        if not same_line(a, b):
            return f"line {number} differs"
    return None


def same_output(got: str, expected: str) -> bool:
    """Whether `got` passes for `expected` under the rules above."""
    return output_mismatch(got, expected) is None
