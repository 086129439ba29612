"""Letter extraction for GPQA Diamond (A-D) and MMLU-Pro (A-J) on realistic thinking-model
replies, and the Chinese yes/no phrasings of the choice and boolean kinds: every reply of the
corpus must be read as the careful grader's answer (100% agreement).

The replies are made up in the forms models write: LaTeX options (`\\Delta E`), bold, `Answer:
(C)`, the option text instead of the letter, Chinese, a letter inside a word, hedges.
"""

from __future__ import annotations

import pytest

from thinkeval.records import Verdict
from thinkeval.scoring.kinds.boolean import BooleanKind
from thinkeval.scoring.kinds.choice import ChoiceKind
from thinkeval.scoring.strict import strict_verdict

ABCD = ChoiceKind("ABCD")
A_TO_J = ChoiceKind("ABCDEFGHIJ")

# (reply content after the reasoning, the letter a careful grader reads; None: no answer)
GPQA: list[tuple[str, str | None]] = [
    ("The photon energy follows from $\\Delta E = h\\nu$.\n\nAnswer: B", "B"),
    ("Since $\\Delta E < 0$ the process is exothermic.\n\nAnswer: C", "C"),
    ("So the transition energy is $\\Delta E$, which matches option A.\n\nAnswer: A", "A"),
    ("**Answer: C**", "C"),
    ("Answer: (C)", "C"),
    ("Answer: **D**", "D"),
    ("The answer is $\\boxed{D}$.", "D"),
    ("Answer: $\\boxed{\\text{B}}$", "B"),
    ("Answer seems to be A", "A"),
    ("At first the answer seems to be A, but the sign is wrong.\n\nAnswer: C", "C"),
    ("I considered A and B.\n\nAnswer: B) 2.5 eV", "B"),
    ("Answer: DNA polymerase", None),  # option text, no letter
    ("The correct choice is the newton, the SI unit of force.", None),
    ("Answer: Because the enthalpy rises, the reaction is endothermic.", None),
    ("Answer: A or B", None),  # a hedge is no choice
    ("Options C and D are ruled out. Best answer is B.\n\nAnswer: B", "B"),
    ("**Final Answer**\n\nD", "D"),
    ("Final answer: (A)", "A"),
    ("综上所述，正确答案是 C。", "C"),
    ("答案：（B）", "B"),
    ("因此选D。\n\nAnswer: D", "D"),
    ("Thus the Entropy term dominates.\n\nAnswer: A", "A"),  # E inside a word is no E
    ("Answer:\nC", "C"),
]
MMLU_PRO: list[tuple[str, str | None]] = [
    ("Adding the two rates gives 38/400. the answer is (D)", "D"),
    ("The answer is (J).", "J"),
    ("Comparing all ten options, the answer is (H)", "H"),
    ("So the answer is I.", "I"),
    ("I think the answer is (I) because nothing else fits.", "I"),
    ("The answer is (G).\n\nQuestion: What is 2+2? The answer is (A).", "G"),
    ("**The answer is (F)**", "F"),
    ("$\\Delta G = \\Delta H - T\\Delta S$, so the answer is (E).", "E"),
    ("Answer: (J)", "J"),
    ("答案是（H）", "H"),
    ("The answer is either (B) or (J).", None),
]


def _letter(kind: ChoiceKind | BooleanKind, reply: str) -> Verdict:
    return strict_verdict(kind, f"<think>\nLet me think. Maybe A? Or E?\n</think>\n\n{reply}",
                          "stop", "A")  # fmt: skip


@pytest.mark.parametrize(("reply", "expected"), GPQA, ids=[f"gpqa-{i}" for i in range(len(GPQA))])
def test_gpqa_letters(reply: str, expected: str | None) -> None:
    assert _letter(ABCD, reply).answer == expected


@pytest.mark.parametrize(
    ("reply", "expected"), MMLU_PRO, ids=[f"mmlu_pro-{i}" for i in range(len(MMLU_PRO))]
)
def test_mmlu_pro_letters(reply: str, expected: str | None) -> None:
    assert _letter(A_TO_J, reply).answer == expected


def test_the_reasoning_never_counts() -> None:
    verdict = strict_verdict(ABCD, "<think>Answer: D</think>\n\nNo idea.", "stop", "D")
    assert verdict == Verdict("no_answer")


# Chinese yes/no questions offered as letters (A 是/正确, B 否/错误), with full-width brackets.
YES_NO: list[tuple[str, str | None]] = [
    ("答案：是（A）", "A"),
    ("答案是：否（B）", "B"),
    ("综上所述，答案为 不是（B）。", "B"),
    ("分析完毕。\n\n是（A）。", "A"),
    ("所以这个说法是错误的。\n\n答案：错误（B）", "B"),
    ("正确答案：正确（A）", "A"),
    ("答案：否", "B"),
]


@pytest.mark.parametrize(("reply", "expected"), YES_NO, ids=[f"yesno-{i}" for i in range(7)])
def test_chinese_yes_no_as_letters(reply: str, expected: str | None) -> None:
    assert _letter(BooleanKind(), reply).answer == expected
    # The choice kind reads the bracketed letter after the option's wording too.
    if reply != "答案：否":
        assert _letter(ABCD, reply).answer == expected


def test_lenient_rules_of_the_field() -> None:
    from thinkeval.scoring.lenient import lenient_verdict

    # simple-evals' GPQA regex: the first `Answer: X`, compared case-sensitively.
    assert lenient_verdict("simple-evals-ABCD", "Answer: B\n\nAnswer: C", None, "B").status == (
        "correct"
    )
    assert lenient_verdict("simple-evals-ABCD", "answer: c", None, "C").answer == "c"
    assert lenient_verdict("simple-evals-ABCD", "The answer is C", None, "C").status == (
        "no_answer"
    )
    # MMLU-Pro's lenient rule: the last of A-J anywhere (inside words too, as AISBench's).
    assert lenient_verdict("last-option-A-J", "the answer is (J)", None, "J").status == "correct"
    assert lenient_verdict("last-option-A-J", "(B) by Jove", None, "B").answer == "J"
