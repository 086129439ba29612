"""Lenient scoring: reproduces the AISBench/OpenCompass default postprocessors."""

from __future__ import annotations

import random
import re

import pytest

from thinkeval import score
from thinkeval.scoring.lenient import lenient_text

TRUNCATED_REASONING = "Okay, Janet has 16 eggs. She eats 3 and bakes 4, so 9 left, 9 * 2"

# (task, content, reasoning, gold, status, answer)
CASES = [
    # GSM8K: last number before the first "Question:", no comma stripping, float tolerance
    ("gsm8k", "The answer is 18.", None, "18", "correct", "18"),
    ("gsm8k", None, TRUNCATED_REASONING, "18", "wrong", "2"),
    ("gsm8k", None, TRUNCATED_REASONING + " = 18", "18", "correct", "18"),
    ("gsm8k", "<think>\nOkay, 9 * 2 = 18", None, "18", "correct", "18"),
    ("gsm8k", "#### 18", "9 * 2 = 20? no", "18", "correct", "18"),
    ("gsm8k", "The answer is 1,200.", None, "1200", "wrong", "200"),
    ("gsm8k", "The answer is 18.00", None, "18", "correct", "18.00"),
    ("gsm8k", "The answer is -3.", None, "-3", "correct", "-3"),
    ("gsm8k", "The answer is 0.5", None, "0.5", "correct", "0.5"),
    ("gsm8k", "$\\boxed{18}$", None, "18", "correct", "18"),
    (
        "gsm8k",
        "The answer is 18.\n\nQuestion: Tom has 5 apples and eats 2.",
        None,
        "18",
        "correct",
        "18",
    ),
    ("gsm8k", "Step 1 gives 12. Question: is it 20? The answer is 18.", None, "18", "wrong", "12"),
    ("gsm8k", "The answer is 18. Happy 2024!", None, "18", "wrong", "2024"),
    ("gsm8k", "The total is 20-15", None, "15", "wrong", "-15"),
    ("gsm8k", "I cannot tell.", "No numbers here", "18", "no_answer", None),
    # BoolQ: the first capital letter anywhere, reasoning included
    ("boolq", "A", None, "A", "correct", "A"),
    ("boolq", "the answer is B. Because", None, "B", "correct", "B"),
    ("boolq", "Yes", None, "A", "wrong", "Y"),
    # AISBench strips everything up to </think>: a finished reply is scored on its content.
    ("boolq", "A", "Okay, the passage says yes.", "A", "correct", "A"),
    ("boolq", "\n\nNo, it is not.", "Okay, the passage says yes.", "B", "wrong", "N"),
    ("boolq", None, "hmm, Based on the passage", "B", "correct", "B"),
    ("boolq", "no capitals at all.", None, "B", "no_answer", None),
    # C-Eval: the last standalone letter A-D anywhere
    ("ceval", "答案：B", None, "B", "correct", "B"),
    ("ceval", "答案是B选项", None, "B", "correct", "B"),
    ("ceval", "答案：B", "选项A错误，选项C正确吗？不，D也不对。", "B", "correct", "B"),
    ("ceval", None, "Option A is wrong. Option B fits. So the answer is", "B", "correct", "B"),
    ("ceval", "A company must register.", None, "B", "wrong", "A"),
    ("ceval", "Because ABCD are all options.", None, "B", "wrong", "D"),
    # ... inside words too: AISBench's last_option_postprocess is re.findall("([ABCD])")
    ("ceval", "The answer is B. Done", None, "B", "wrong", "D"),
    ("ceval", "no letters here", None, "B", "no_answer", None),
    ("ceval", "答案：Ｂ", None, "B", "no_answer", None),
    # empty: nothing in either field
    ("gsm8k", None, None, "18", "empty", None),
    ("boolq", "  ", "", "A", "empty", None),
    # content of blanks is content for AISBench: it scores "" and never reads the reasoning
    ("gsm8k", "  \n", "so the answer is 18", "18", "empty", None),
    # <think>...</think> pairs are removed and the text around them kept
    ("gsm8k", "12 <think>no, 20</think> so 18", None, "18", "correct", "18"),
    ("gsm8k", "<think>R</think>18</think>20", None, "18", "wrong", "20"),
    ("ceval", "", None, "B", "empty", None),
]


@pytest.mark.parametrize(("task", "content", "reasoning", "gold", "status", "answer"), CASES)
def test_lenient(
    task: str,
    content: str | None,
    reasoning: str | None,
    gold: str,
    status: str,
    answer: str | None,
) -> None:
    verdict = score(task, content, "length", gold, reasoning=reasoning, scorer="lenient")
    assert (verdict.status, verdict.answer) == (status, answer)


@pytest.mark.parametrize(
    ("task", "content", "gold"),
    [
        ("gsm8k", "The answer is 18", "18"),
        ("gsm8k", "<think>\nOkay, 16 - 3 - 4 = 9 and 9 * 2 = 18", "18"),
        ("ceval", "<think>\n好的，答案：B", "B"),
        ("boolq", "<think>\nA river flows north", "A"),
    ],
)
def test_truncated_lenient_correct_strict_unfinished(task: str, content: str, gold: str) -> None:
    assert score(task, content, "length", gold, scorer="lenient").status == "correct"
    assert score(task, content, "length", gold, scorer="strict").status == "unfinished"


@pytest.mark.parametrize("finish", ["stop", "length", None])
def test_lenient_ignores_finish_reason(finish: str | None) -> None:
    verdict = score("gsm8k", "so 9 * 2 = 18", finish, "18", scorer="lenient")
    assert (verdict.status, verdict.answer, verdict.rule) == ("correct", "18", "last-number")


def test_lenient_text_is_what_aisbench_keeps_after_think() -> None:
    assert lenient_text("18", "R") == "18"
    assert lenient_text("\n\nThe answer is 18.\n", "R") == "The answer is 18."
    assert lenient_text("  ", "R 12") == ""
    assert lenient_text("x<think>R</think>y", None) == "xy"
    assert lenient_text("<think>R", None) == "<think>R"
    assert lenient_text(None, "R") == "R"
    assert lenient_text("", "R") == "R"
    assert lenient_text("18", None) == "18"
    assert lenient_text("18", "") == "18"
    assert lenient_text(None, None) == ""


# OpenCompass gsm8k_postprocess as published, the oracle for the faster scan.
_OPENCOMPASS_NUMBER = re.compile(r"\-?\d+\.\d+|\-?\d+")


def test_gsm8k_extraction_matches_opencompass_on_random_text() -> None:
    rng = random.Random(1234)
    alphabet = "-.,0123456789 xQ５\n"
    for i in range(3000):
        size = rng.randint(0, 3000) if i % 20 == 0 else rng.randint(0, 40)
        text = "".join(rng.choice(alphabet) for _ in range(size)) or " "
        numbers = _OPENCOMPASS_NUMBER.findall(text.split("Question:")[0])
        verdict = score("gsm8k", text, "stop", "7", scorer="lenient")
        if not text.strip():
            assert verdict.status == "empty"
        else:
            assert verdict.answer == (numbers[-1] if numbers else None), text
