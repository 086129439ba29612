"""The `score` entry point: argument checks, purity and speed on hostile input."""

from __future__ import annotations

import time

import pytest

from thinkeval.records import STATUSES
from thinkeval.scoring import SCORERS, TASKS, score

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
