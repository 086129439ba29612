"""Strict C-Eval scoring: explicit answer letters A-D, never a stray capital."""

from __future__ import annotations

import pytest

from thinkeval import score

PROSE = "选项A错误，因为宪法没有这样规定。选项C和D与题意无关。"

# (content, finish_reason, gold, status, answer, rule)
CASES = [
    # answer statements, English and Chinese
    ("answer: B", "stop", "B", "correct", "B", "answer:"),
    ("Answer: B", "stop", "B", "correct", "B", "answer:"),
    ("answer:B", "stop", "B", "correct", "B", "answer:"),
    ("answer：C", "stop", "C", "correct", "C", "answer:"),
    ("**answer: B**", "stop", "B", "correct", "B", "answer:"),
    ("**Answer:** (B)", "stop", "B", "correct", "B", "answer:"),
    ("answer: B.", "stop", "B", "correct", "B", "answer:"),
    (PROSE + "\n\n答案：B", "stop", "B", "correct", "B", "答案"),
    ("答案：Ｂ", "stop", "B", "correct", "B", "答案"),
    ("答案是D。", "stop", "D", "correct", "D", "答案"),
    ("答案为 C", "stop", "C", "correct", "C", "答案"),
    (PROSE + "所以正确答案是B。", "stop", "B", "correct", "B", "答案"),
    ("正确答案是（Ｂ）", "stop", "B", "correct", "B", "答案"),
    ("综上所述，答案选A。", "stop", "A", "correct", "A", "答案"),
    (PROSE + "故选B。", "stop", "B", "correct", "B", "选"),
    ("因此选项B正确。", "stop", "B", "correct", "B", "assessment"),
    ("综上所述，选B。", "stop", "B", "correct", "B", "选"),
    ("正确选项为 **B**", "stop", "B", "correct", "B", "正确选项"),
    ("本题应选B项", "stop", "B", "correct", "B", "选"),
    ("不能选A，应选B。", "stop", "B", "correct", "B", "选"),
    ("A项正确，B项也正确。", "stop", "B", "no_answer", None, None),
    ("The answer is B.", "stop", "B", "correct", "B", "the answer is"),
    (
        "Option A is outdated, so the correct answer is (B).",
        "stop",
        "B",
        "correct",
        "B",
        "the answer is",
    ),
    ("The correct option is **D**.", "stop", "D", "correct", "D", "correct option is"),
    ("**Final Answer:** B. 中华人民共和国宪法", "stop", "B", "correct", "B", "final answer"),
    ("### Final Answer\n\nC", "stop", "C", "correct", "C", "final answer"),
    ("The answer is $\\boxed{B}$.", "stop", "B", "correct", "B", "boxed"),
    ("\\boxed{\\text{C}}", "stop", "C", "correct", "C", "boxed"),
    ("答案：A", "stop", "B", "wrong", "A", "答案"),
    ("The answer is D.", "stop", "B", "wrong", "D", "the answer is"),
    # several statements: the last one counts; explanations after the answer are ignored
    (
        "The answer is C.\n\nWait, option C ignores the 1982 text. The answer is B.",
        "stop",
        "B",
        "correct",
        "B",
        "the answer is",
    ),
    ("答案：B\n\n解析：A项错误，C项与题意无关，D项不完整。", "stop", "B", "correct", "B", "答案"),
    (
        "Answer: A\n\nExplanation: Option B is a common misconception.",
        "stop",
        "B",
        "wrong",
        "A",
        "answer:",
    ),
    # a reply that is only the letter, or the letter with its option text
    ("B", "stop", "B", "correct", "B", "bare-answer"),
    ("**B**", "stop", "B", "correct", "B", "bare-answer"),
    ("(B)", "stop", "B", "correct", "B", "bare-answer"),
    ("[B]", "stop", "B", "correct", "B", "bare-answer"),
    ("B.", "stop", "B", "correct", "B", "bare-answer"),
    ("  C\n", None, "C", "correct", "C", "bare-answer"),
    (PROSE + "\n\n**B**", "stop", "B", "correct", "B", "bare-answer"),
    ("B. 中华人民共和国宪法", "stop", "B", "correct", "B", "option-text"),
    ("B：全国人民代表大会", "stop", "B", "correct", "B", "option-text"),
    ("(D) 国务院", "stop", "D", "correct", "D", "option-text"),
    ("A. The Supreme Court", "stop", "B", "wrong", "A", "option-text"),
    # never a stray capital, a hedge, a word that starts with a letter, or a letter outside A-D
    ("A company must register with the local authority.", "stop", "A", "no_answer", None, None),
    (
        "A store sells 3 kinds of goods.\nBut B is not mentioned.",
        "stop",
        "B",
        "no_answer",
        None,
        None,
    ),
    ("I think the answer could be A or B.", "stop", "A", "no_answer", None, None),
    ("The answer is A or B, depending on the year.", "stop", "A", "no_answer", None, None),
    ("answer: Because the constitution says so", "stop", "B", "no_answer", None, None),
    ("Option A says X. Option B says Y. Both seem plausible", "stop", "B", "no_answer", None, None),
    ("Answer: E", "stop", "B", "no_answer", None, None),
    (PROSE, "stop", "B", "no_answer", None, None),
    # reply states
    ("答案：B", "length", "B", "unfinished", None, "finish-length"),
    ("<think>\n好的，这道题问宪法。答案：B", "length", "B", "unfinished", None, "finish-length"),
    ("<think>\n好的，答案：B", "stop", "B", "unfinished", None, "unclosed-think"),
    ("<think>\n答案应该是A吧\n</think>\n\n答案：B", "stop", "B", "correct", "B", "答案"),
    ("嗯，选项B正确。\n</think>\n\nB", "stop", "B", "correct", "B", "bare-answer"),
    (None, "length", "B", "empty", None, "no-content"),
    ("\n\n", "stop", "B", "empty", None, "no-content"),
]


@pytest.mark.parametrize(("content", "finish", "gold", "status", "answer", "rule"), CASES)
def test_strict_ceval(
    content: str | None,
    finish: str | None,
    gold: str,
    status: str,
    answer: str | None,
    rule: str | None,
) -> None:
    verdict = score("ceval", content, finish, gold)
    assert (verdict.status, verdict.answer, verdict.rule) == (status, answer, rule)


def test_full_width_gold_is_folded() -> None:
    assert score("ceval", "答案：B", "stop", "Ｂ").status == "correct"
