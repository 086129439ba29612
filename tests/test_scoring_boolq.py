"""Strict BoolQ scoring: A (yes) or B (no), as a letter or a plain Yes/No."""

from __future__ import annotations

import pytest

from thinkeval import score

PASSAGE_TALK = (
    "The passage says the Nile flows north into the Mediterranean Sea. A river that flows north "
    "can still be the longest river in Africa."
)

# (content, finish_reason, gold, status, answer, rule)
CASES = [
    # yes / no replies
    ("Yes", "stop", "A", "correct", "A", "bare-answer"),
    ("yes.", "stop", "A", "correct", "A", "bare-answer"),
    ("**Yes**", "stop", "A", "correct", "A", "bare-answer"),
    ("No", "stop", "B", "correct", "B", "bare-answer"),
    ("NO.", "stop", "B", "correct", "B", "bare-answer"),
    ("No", "stop", "A", "wrong", "B", "bare-answer"),
    (PASSAGE_TALK + "\n\n**No**", "stop", "B", "correct", "B", "bare-answer"),
    ("answer: Yes", "stop", "A", "correct", "A", "answer:"),
    # answer first: the first line opens with the answer, the rest explains it
    ("Yes, the passage says the river flows north.", "stop", "A", "correct", "A", "option-text"),
    (
        "A. Yes\n\nExplanation: B is incorrect because the passage says so.",
        "stop",
        "A",
        "correct",
        "A",
        "answer-first",
    ),
    ("Yes and no: it depends on the season.", "stop", "A", "no_answer", None, None),
    ("Answer: No.", "stop", "B", "correct", "B", "answer:"),
    (PASSAGE_TALK + "\n\n**Answer:** True", "stop", "A", "correct", "A", "answer:"),
    ("The answer is yes.", "stop", "A", "correct", "A", "the answer is"),
    ("The answer is no, the passage contradicts it.", "stop", "A", "wrong", "B", "the answer is"),
    ("\\boxed{\\text{No}}", "stop", "B", "correct", "B", "boxed"),
    # letters
    ("A", "stop", "A", "correct", "A", "bare-answer"),
    ("(B)", "stop", "B", "correct", "B", "bare-answer"),
    ("A. Yes", "stop", "A", "correct", "A", "option-text"),
    ("B. No", "stop", "A", "wrong", "B", "option-text"),
    ("answer: B", "stop", "B", "correct", "B", "answer:"),
    (PASSAGE_TALK + "\n\nAnswer: A", "stop", "A", "correct", "A", "answer:"),
    ("答案：A", "stop", "A", "correct", "A", "答案"),
    ("The answer is B.", "stop", "A", "wrong", "B", "the answer is"),
    ("\\boxed{A}", "stop", "A", "correct", "A", "boxed"),
    # last statement wins
    (
        "The answer is No.\n\nOn second reading, the passage says so. The answer is Yes.",
        "stop",
        "A",
        "correct",
        "A",
        "the answer is",
    ),
    (
        "Answer: A\n\nHmm, actually the dates do not match.\n\nAnswer: B",
        "stop",
        "A",
        "wrong",
        "B",
        "answer:",
    ),
    # no legal answer: letters outside A/B, hedges, first capitals, yes/no inside prose
    ("Answer: C", "stop", "A", "no_answer", None, None),
    ("The answer is D.", "stop", "B", "no_answer", None, None),
    ("The answer is A or B.", "stop", "A", "no_answer", None, None),
    ("A river can flow north, so it is possible.", "stop", "A", "no_answer", None, None),
    ("The answer is not clear from the passage.", "stop", "B", "no_answer", None, None),
    ("answer: None of the above", "stop", "B", "no_answer", None, None),
    (PASSAGE_TALK, "stop", "A", "no_answer", None, None),
    # reply states
    ("Yes", "length", "A", "unfinished", None, "finish-length"),
    ("<think>\nThe passage says yes", "length", "A", "unfinished", None, "finish-length"),
    ("<think>\nThe passage says yes", None, "A", "unfinished", None, "unclosed-think"),
    ("<think>\nIt says no.\n</think>\n\nYes", "stop", "A", "correct", "A", "bare-answer"),
    ("The river flows north.\n</think>\n\nAnswer: Yes", "stop", "A", "correct", "A", "answer:"),
    (None, "stop", "A", "empty", None, "no-content"),
    (" ", "length", "A", "empty", None, "no-content"),
]


@pytest.mark.parametrize(("content", "finish", "gold", "status", "answer", "rule"), CASES)
def test_strict_boolq(
    content: str | None,
    finish: str | None,
    gold: str,
    status: str,
    answer: str | None,
    rule: str | None,
) -> None:
    verdict = score("boolq", content, finish, gold)
    assert (verdict.status, verdict.answer, verdict.rule) == (status, answer, rule)
