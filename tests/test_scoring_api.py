"""The `score` entry point: argument checks, purity and speed on hostile input."""

from __future__ import annotations

import hashlib
import json
import time

import pytest

from thinkeval import score
from thinkeval.records import STATUSES
from thinkeval.scoring import SCORERS
from thinkeval.scoring.scorers import LENIENT, STRICT

TASKS = ("gsm8k", "boolq", "ceval")

ADVERSARIAL = [
    "1," * 100_000,
    "answer: " * 20_000,
    "The answer is " * 15_000,
    "答案：" * 60_000,
    "\\boxed{" * 30_000,
    "\\boxed{" + "{a" * 50_000,
    "1" * 200_000,
    "1." * 100_000,
    "-$" * 100_000,
    "A or " * 40_000,
    "<think>" * 25_000,
    "</think>" * 25_000,
    ("x" * 999 + "\n") * 200,
    "**" * 100_000,
    "选" * 60_000,
    "A项正确，" * 20_000,
    "= **1**\n" * 20_000,
    "\n" * 200_000,
    "The answer is " + "1 - " * 50_000,
    "answer: " + "A、" * 50_000,
    "\\[\n1 = 2\n" * 20_000,
    "Note: x\n" * 30_000,
    "Yes, " * 40_000,
    "1 = " * 50_000,
    "The answer is " + "(1+" * 30_000,
    # issue #33's rules: questions, back-referring cues, JSON nested past the stack, modals
    "Is the final answer 5? " * 20_000,
    "So 5. That's the final answer. " * 20_000,
    "{\n" * 50_000,
    '{"answer": ' * 20_000,
    "the answer should be indeed " * 20_000,
    "答案是 12 吗？" * 20_000,
]


def test_unknown_task_is_named() -> None:
    with pytest.raises(ValueError, match="'mmlu'"):
        score("mmlu", "The answer is 18.", "stop", "18")


def test_unknown_scorer_is_named() -> None:
    with pytest.raises(ValueError, match="'fuzzy'"):
        score("gsm8k", "The answer is 18.", "stop", "18", scorer="fuzzy")


def test_unknown_task_raises_even_for_empty_reply() -> None:
    with pytest.raises(ValueError, match="unknown task"):
        score("GSM8K", None, None, "18")


@pytest.mark.timeout(5)
@pytest.mark.parametrize("text", ADVERSARIAL, ids=range(len(ADVERSARIAL)))
def test_adversarial_input_is_fast(text: str) -> None:
    started = time.perf_counter()
    for task in TASKS:
        for scorer in SCORERS:
            verdict = score(task, text, "stop", "A", reasoning=text, scorer=scorer)
            assert verdict.status in STATUSES
    assert time.perf_counter() - started < 3


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("scorer", SCORERS)
@pytest.mark.parametrize(
    "text", ["\x00", "}}}{{{", "\\boxed{}", "答案", "####", "$", "-", "..", "\u2212\u2212", "Ｚ"]
)
def test_odd_input_never_raises(task: str, scorer: str, text: str) -> None:
    assert score(task, text, "stop", "18", reasoning=text, scorer=scorer).status in STATUSES


def test_score_is_pure() -> None:
    first = score("gsm8k", "The answer is 18.", "stop", "18")
    assert score("gsm8k", "The answer is 18.", "stop", "18") == first


# Replies that reach every rule of both scorers. Changing what any of them scores to changes the
# digest below; that is the moment to bump the scorer's version (or the answer kind's), because
# summaries reuse the verdicts recorded under the current version instead of scoring again.
VERSION_CORPUS = [
    "#### 18",
    "The answer is 18.",
    "So the answer is $1,200.",
    "The answer is: **18**",
    "Final answer: 18",
    "**Final Answer**\n$18",
    "Answer: 18 dollars",
    "答案是18元。",
    "$\\boxed{18}$",
    "\\boxed{\\frac{1}{2}}",
    "She pays 5*3=15 dollars.",
    "9 * 2 = 18\n\n18",
    "Let me compute 16 - 3",
    "The answer is 18.\n\nQuestion: Tom has 5 apples.",
    "-3",
    "0.5",
    "Yes",
    "**No**",
    "answer: Yes",
    "The answer is A",
    "A. Yes",
    "B",
    "I think no.",
    "answer: B",
    "**Answer:** (C)",
    "答案：D",
    "选项A错误，所以选C。",
    "综上，答案为B。",
    "A or B",
    "<think>\nOkay, 9 * 2 = 18",
    "<think>unclosed",
    "</think>The answer is 7",
    "",
    "   ",
    None,
    "The answer is 20 - 2 = 18",
    "The answer is 20 - 2.",
    "Total = 9 * 2 = **18**",
    "\\[\n9 \\times 2 = 18\n\\]",
    "18\n\nShe has 9 eggs left.",
    "#### 18\n\nNote: the answer is 20.",
    "综上所述，选B。",
    "选项 B 是正确的",
    "Yes, it is. The passage says so.",
    "A. Yes\n\nB is wrong.",
    "Option C is correct.",
    "答案：否",
    "The answer is A.\nQuestion: next? The answer is C.",
    "The answer is B. Done",
    "\n\n",
    "<think>a</think>b<think>c</think>d",
    '```json\n{"reasoning": "The answer is 20.", "answer": "18"}\n```',
    '{"answer": "cannot be determined"}',
    "So the final answer should be 18.\n\nHope this helps!",
    "So she earns $18. That's the final answer. Unless tax applies.",
    "Is the final answer 20? No: 9 * 2 = 18.",
]
PINNED_DIGEST = "bd01de0fc22dc6ec"
PINNED_VERSIONS = [
    ["3/number-3", "3/gsm8k"],
    ["3/boolean-3", "3/first-capital"],
    ["3/choice-3", "3/last-option-ABCD"],
]


def test_scorer_version_guards_the_recorded_verdicts() -> None:
    from thinkeval.tasks import get_task

    versions = [
        [scorer.version_for(get_task(task)) for scorer in (STRICT, LENIENT)] for task in TASKS
    ]
    seen = []
    for text in VERSION_CORPUS:
        for task, gold in (("gsm8k", "18"), ("boolq", "A"), ("ceval", "C")):
            for finish in ("stop", "length", "abort", None):
                for reasoning in (None, "Okay, 16 - 3 - 4 = 9, 9 * 2 = 18. So A or C"):
                    for scorer in SCORERS:
                        verdict = score(task, text, finish, gold, reasoning, scorer)
                        seen.append([verdict.status, verdict.answer, verdict.rule])
    digest = hashlib.sha256(json.dumps(seen).encode()).hexdigest()[:16]
    assert (versions, digest) == (PINNED_VERSIONS, PINNED_DIGEST), (
        "the scorers now judge some reply differently: bump the scorer's (or the answer "
        "kind's) version and pin the new versions and digest"
    )
