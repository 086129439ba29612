"""Strict GSM8K scoring: explicit final-answer statements, numeric equality, reply states."""

from __future__ import annotations

import pytest

from thinkeval import score

QWEN_TAIL = (
    "Janet's ducks lay 16 eggs per day. She eats 3 and bakes 4, so 16 - 3 - 4 = 9 eggs are left.\n"
    "She sells them at $2 each: 9 * 2 = 18.\n\n"
)

# (content, finish_reason, gold, status, answer, rule)
CASES = [
    # explicit statements
    ("#### 18", "stop", "18", "correct", "18", "####"),
    ("9 * 2 = 18\n#### 18", "stop", "18", "correct", "18", "####"),
    ("The answer is 18.", "stop", "18", "correct", "18", "the answer is"),
    ("So the answer is $18.", "stop", "18", "correct", "18", "the answer is"),
    ("The answer is: **18**", "stop", "18", "correct", "18", "the answer is"),
    ("Final answer: 18", "stop", "18", "correct", "18", "final answer"),
    (QWEN_TAIL + "**Final Answer:** 18", "stop", "18", "correct", "18", "final answer"),
    (QWEN_TAIL + "### Final Answer\n\n18", "stop", "18", "correct", "18", "final answer"),
    (QWEN_TAIL + "**Final Answer**\n$18", "stop", "18", "correct", "18", "final answer"),
    ("Answer: 18 dollars", "stop", "18", "correct", "18", "answer:"),
    ("answer: 5 hours", "stop", "5", "correct", "5", "answer:"),
    ("**Answer**: 40%", "stop", "40", "correct", "40", "answer:"),
    ("所以她每天赚18美元。\n答案为18", "stop", "18", "correct", "18", "答案"),
    ("答案是18元。", "stop", "18", "correct", "18", "答案"),
    ("答案：18", "stop", "18", "correct", "18", "答案"),
    ("答案:１８", "stop", "18", "correct", "18", "答案"),
    # LaTeX boxed, as Qwen3 and DeepSeek-R1 end their replies
    (QWEN_TAIL + "**Final Answer**\n\\[\n\\boxed{18}\n\\]", "stop", "18", "correct", "18", "boxed"),
    ("So she makes $\\boxed{18}$ dollars every day.", "stop", "18", "correct", "18", "boxed"),
    ("The total is \\boxed{\\$1,200}.", "stop", "1200", "correct", "1200", "boxed"),
    ("\\boxed{1200 \\text{ dollars}}", "stop", "1200", "correct", "1200", "boxed"),
    ("\\boxed{\\text{18}}", "stop", "18", "correct", "18", "boxed"),
    ("\\boxed{1{,}200}", "stop", "1200", "correct", "1200", "boxed"),
    ("\\boxed{5 \\times 3 = 15}", "stop", "15", "correct", "15", "boxed"),
    ("The final answer is $\\boxed{-3}$.", "stop", "-3", "correct", "-3", "boxed"),
    # number forms: separators, trailing zeros, currency, signs, decimals
    ("The answer is 1,200.", "stop", "1200", "correct", "1200", "the answer is"),
    ("Final answer: $1,200.00", "stop", "1200", "correct", "1200", "final answer"),
    ("The answer is 18.0", "stop", "18", "correct", "18", "the answer is"),
    ("The answer is €25.", "stop", "25", "correct", "25", "the answer is"),
    ("The answer is ¥1,000,000.", "stop", "1000000", "correct", "1000000", "the answer is"),
    ("The answer is -3.", "stop", "-3", "correct", "-3", "the answer is"),
    ("The answer is $-3$.", "stop", "-3", "correct", "-3", "the answer is"),
    ("The answer is 0.50 dollars.", "stop", "0.5", "correct", "0.5", "the answer is"),
    ("The answer is 0.5", "stop", "0.25", "wrong", "0.5", "the answer is"),
    ("The answer is 17.", "stop", "18", "wrong", "17", "the answer is"),
    ("The answer is 180.", "stop", "18", "wrong", "180", "the answer is"),
    ("The answer is 1,2 apples.", "stop", "12", "wrong", "1", "the answer is"),
    (
        "The answer is 123456789012345678901234567890.",
        "stop",
        "123456789012345678901234567891",
        "wrong",
        "123456789012345678901234567890",
        "the answer is",
    ),
    # several statements: the last one counts
    (
        "The answer is 12.\n\nWait, add the tip. The answer is 14.",
        "stop",
        "14",
        "correct",
        "14",
        "the answer is",
    ),
    (
        "The answer is 14.\n\nHmm, recheck... no. The answer is 12.",
        "stop",
        "14",
        "wrong",
        "12",
        "the answer is",
    ),
    # a note after the answer qualifies it; a few-shot continuation is not part of the reply
    (
        "#### 18\n\nNote: the answer is 20 if tax is included.",
        "stop",
        "18",
        "correct",
        "18",
        "####",
    ),
    (
        "Note: prices include tax.\n\nThe answer is 18.",
        "stop",
        "18",
        "correct",
        "18",
        "the answer is",
    ),
    (
        "The answer is 18.\n\nQuestion: Tom has 5 apples. The answer is 7",
        "stop",
        "18",
        "correct",
        "18",
        "the answer is",
    ),
    ("The answer is \\boxed{20}. Hmm, no: \\boxed{18}", "stop", "18", "correct", "18", "boxed"),
    # fallback: last number of a complete final sentence, or a bare last line
    ("So she pays 5*3=15 dollars in total.", "stop", "15", "correct", "15", "last-sentence-number"),
    ("She has 1,200 marbles left!", "stop", "1200", "correct", "1200", "last-sentence-number"),
    (
        QWEN_TAIL + "**She makes $18 every day.**",
        "stop",
        "18",
        "correct",
        "18",
        "last-sentence-number",
    ),
    ("他一共走了１２公里。", "stop", "12", "correct", "12", "last-sentence-number"),
    ("First 4 + 5 = 9. Then 9 * 2 = 18.", "stop", "18", "correct", "18", "last-sentence-number"),
    ("The total is 20-15.", "stop", "5", "wrong", "15", "last-sentence-number"),
    # an expression after the marker states its value: the last "= n", else what it evaluates to
    ("The answer is 5 * 3 = 15.", "stop", "15", "correct", "15", "the answer is"),
    ("The answer is 20 - 2 = 18", "stop", "18", "correct", "18", "the answer is"),
    ("So the answer is $18 - $2 = $16.", "stop", "16", "correct", "16", "the answer is"),
    ("The answer is 20 - 2.", "stop", "18", "correct", "18", "the answer is"),
    ("The answer is 2 / 6.", "stop", "18", "wrong", "1/3", "the answer is"),
    # a closed bold result or display equation on the last line holding a number
    ("Total = 9 * 2 = **18**", "stop", "18", "correct", "18", "bold-result"),
    ("\\[\n9 \\times 2 = 18\n\\]", "stop", "18", "correct", "18", "display-result"),
    ("Total = 9 * 2 = 18", "stop", "18", "no_answer", None, None),
    ("Could you tell me whether the 4 muffins count?", "stop", "18", "no_answer", None, None),
    (QWEN_TAIL + "18", "stop", "18", "correct", "18", "last-line-number"),
    (QWEN_TAIL + "**18**", "stop", "18", "correct", "18", "last-line-number"),
    ("Thus:\n$18$", "stop", "18", "correct", "18", "last-line-number"),
    # no legal final answer
    ("So she pays 5*3=", "stop", "15", "no_answer", None, None),
    ("She pays 5 * 3 = 15 dollars in total", "stop", "15", "no_answer", None, None),
    (
        QWEN_TAIL + "She makes $18 a day.\n\nLet me know if you need anything else!",
        "stop",
        "18",
        "no_answer",
        None,
        None,
    ),
    ("I cannot determine this from the information given.", "stop", "18", "no_answer", None, None),
    ("The answer is eighteen.", "stop", "18", "no_answer", None, None),
    ("Step 1: 16 - 3 = 13\nStep 2: 13 - 4 = 9\nStep 3: 9 * 2", None, "18", "no_answer", None, None),
    # reply states: cut off, unclosed or closed think blocks, nothing at all
    ("The answer is 18", "length", "18", "unfinished", None, "finish-length"),
    ("#### 18\n\nLet me double-check: 16 - 3", "length", "18", "unfinished", None, "finish-length"),
    ("<think>\nOkay, 16 - 3 - 4 = 9, so", "length", "18", "unfinished", None, "finish-length"),
    ("<think>\nOkay, the answer is 18", "stop", "18", "unfinished", None, "unclosed-think"),
    ("<think>\nOkay, the answer is 18", None, "18", "unfinished", None, "unclosed-think"),
    (
        "<think>\nThe answer is 20?\n</think>\n\nThe answer is 18.",
        "stop",
        "18",
        "correct",
        "18",
        "the answer is",
    ),
    (
        "<think>\nThe answer is 18.\n</think>\n\nI could not decide",
        "stop",
        "18",
        "no_answer",
        None,
        None,
    ),
    ("Okay, 9 * 2 = 18. The answer is 18.</think>\n#### 20", "stop", "18", "wrong", "20", "####"),
    (
        "<think>a</think>b<think>The answer is 20.</think>\n#### 18",
        "stop",
        "18",
        "correct",
        "18",
        "####",
    ),
    ("<think>\nThe answer is 18.\n</think>\n\n", "stop", "18", "empty", None, "no-content"),
    ("<think>\nThe answer is 18.\n</think>", "length", "18", "empty", None, "no-content"),
    (None, "stop", "18", "empty", None, "no-content"),
    (None, "length", "18", "empty", None, "no-content"),
    ("", "stop", "18", "empty", None, "no-content"),
    ("  \n\t ", None, "18", "empty", None, "no-content"),
    ("The answer is 18.", None, "18", "correct", "18", "the answer is"),
    # "İ" lower-cases to two characters; positions must still line up
    ("İİİ The answer is 18.", "stop", "18", "correct", "18", "the answer is"),
]


@pytest.mark.parametrize(("content", "finish", "gold", "status", "answer", "rule"), CASES)
def test_strict_gsm8k(
    content: str | None,
    finish: str | None,
    gold: str,
    status: str,
    answer: str | None,
    rule: str | None,
) -> None:
    verdict = score("gsm8k", content, finish, gold)
    assert (verdict.status, verdict.answer, verdict.rule) == (status, answer, rule)


def test_strict_never_reads_reasoning() -> None:
    verdict = score("gsm8k", None, "length", "18", reasoning="So the answer is 18.")
    assert verdict.status == "empty"
    verdict = score("gsm8k", "I am not sure", "stop", "18", reasoning="#### 18")
    assert verdict.status == "no_answer"


@pytest.mark.parametrize("gold", ["1200", "1,200", "1200.00", " 1200 "])
def test_gold_compared_numerically(gold: str) -> None:
    assert score("gsm8k", "The answer is 1,200.", "stop", gold).status == "correct"


def test_unparsable_gold_is_never_correct() -> None:
    verdict = score("gsm8k", "The answer is 18.", "stop", "eighteen")
    assert (verdict.status, verdict.answer) == ("wrong", "18")
