"""Stdout against the expected output as LiveCodeBench's grader compares them: stripped lines,
equal strings or equal numbers token by token; cases that a line-by-line comparison rejects
pass, and the ones the official grader rejects still fail."""

from __future__ import annotations

import pytest

from thinkeval.execution import grading
from thinkeval.execution.grading import grade_uncached
from thinkeval.execution.outputs import output_lines, output_mismatch, same_line, same_output


def _line_equal(got: str, expected: str) -> bool:
    """The comparison of the code kind's version 1: stripped lines, trailing blanks ignored."""

    def lines(text: str) -> list[str]:
        return [line.rstrip() for line in text.strip().splitlines()]

    return lines(got) == lines(expected)


# (got, expected): line-equal fails, LiveCodeBench's rules pass.
NUMERICALLY_EQUAL = [
    ("1.0\n", "1\n"),
    ("1.00 2.50\n", "1 2.5\n"),
    ("3\n", "3.000\n"),
    ("1e3\n", "1000\n"),
    ("+7 -0\n", "7 0\n"),
    ("1  2   3\n", "1 2 3\n"),
    ("1\t2\n", "1 2\n"),
    ("  5\n  6\n", "5\n6\n"),  # leading blanks of each line
    ("0.50\n\n2\n", "0.5\n\n2\n"),  # a blank line inside counts, and matches a blank line
]

# (got, expected): both comparisons fail.
STILL_WRONG = [
    ("1.0\n", "1.00001\n"),  # no tolerance
    ("0.333\n", "0.3333\n"),
    ("1\n2\n", "1\n2\n3\n"),  # a missing line
    ("1\n2\n3\n", "1\n2\n"),  # an extra one
    ("1 2\n", "1 2 3\n"),  # a missing token
    ("yes  no\n", "yes no\n"),  # words are not numbers, so spacing inside a line counts
    ("Yes\n", "yes\n"),
    ("1,5\n", "1.5\n"),
    ("nan\n", "NaN\n"),  # a NaN equals nothing
    ("sNaN\n", "snan\n"),  # cannot be compared: fails instead of raising
    ("1 2\n", "1\n2\n"),  # lines are not merged
]


@pytest.mark.parametrize(("got", "expected"), NUMERICALLY_EQUAL)
def test_numerically_equal_tokens_pass_where_lines_differ(got: str, expected: str) -> None:
    assert not _line_equal(got, expected)
    assert same_output(got, expected) and output_mismatch(got, expected) is None


@pytest.mark.parametrize(("got", "expected"), STILL_WRONG)
def test_what_the_official_grader_rejects_still_fails(got: str, expected: str) -> None:
    assert not same_output(got, expected)
    assert output_mismatch(got, expected) is not None


def test_lines_are_stripped_and_split_on_newlines_only() -> None:
    assert output_lines("\n\n a \r\nb\t\n\n") == ["a", "b"]
    assert output_lines("") == [""] and same_output("", "\n") and same_output("  \n", "")
    assert output_lines("a\x0cb\u2028c") == ["a\x0cb\u2028c"]  # not split: only \n is
    assert same_output("x y\r\n", "x y")
    assert same_line("same words", "same words") and not same_line("0", "")


def test_the_mismatch_says_which_rule_failed() -> None:
    assert output_mismatch("1\n2\n", "1\n2\n3\n") == "2 lines, want 3"
    assert output_mismatch("1\n2.5\n3\n", "1\n2.50001\n3\n") == "line 2 differs"


def test_a_stdio_case_is_judged_with_these_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(grading.UNSAFE_ENV, "1")  # a harmless program; the sandbox has its tests
    gold = {
        "form": "stdio",
        "cpu_s": 2,
        "cases": [{"input": "3\n", "output": "1.5\n"}, {"input": "4\n", "output": "2\n"}],
    }
    halves = "n = int(input())\nprint(f'{n / 2:.2f}')\nprint()\n"  # 1.50, 2.00, a blank line
    assert grade_uncached(halves, gold).passed
    rounded = grade_uncached("print(round(int(input()) / 2))\n", gold)
    assert rounded.reason == "failed_test"
    assert rounded.detail == "case 1/2: got '2', want '1.5' (line 1 differs)"
    extra = grade_uncached("n = int(input())\nprint(n / 2)\nprint(n)\n", gold)
    assert extra.detail == "case 1/2: got '1.5\\n3', want '1.5' (2 lines, want 1)"
