"""The real-styles reply corpus (tests/data/replies_real_styles.jsonl, issue #33): replies in the
styles reasoning models write (long chains of thought in English and Chinese, prose after the
number, modals, cues that end their sentence, questions, closing sentences, JSON answers, text
and units in boxes, abnormal finish reasons), each with the verdict, answer and rule it must get.
One test per reply, so a rule that regresses names its replies."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from thinkeval.api import score

CORPUS = Path(__file__).parent / "data" / "replies_real_styles.jsonl"


def _replies() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]


def test_the_corpus_covers_both_kinds_both_languages_and_every_new_rule() -> None:
    replies = _replies()
    assert len(replies) >= 90
    assert {reply["task"] for reply in replies} == {"gsm8k", "math500"}
    assert sum(any("\u4e00" <= c <= "\u9fff" for c in r["content"]) for r in replies) >= 15
    rules = Counter(reply["rule"] for reply in replies)
    for rule in ("json-answer", "cue-refers-back", "last-sentence", "final-answer", "boxed"):
        assert rules[rule] >= 3, rule
    assert rules["json-answer: not a number"] and rules["json-answer: not an expression"]
    assert {"finish-abort", "finish-content_filter", "finish-length"} <= set(rules)
    statuses = Counter(reply["status"] for reply in replies)
    assert set(statuses) == {"correct", "wrong", "no_answer", "unfinished"}


@pytest.mark.parametrize(
    "reply", _replies(), ids=lambda r: f"{r['task']}-{r['class']}-{r['why'][:40]}"
)
def test_each_reply_gets_its_verdict_answer_and_rule(reply: dict[str, Any]) -> None:
    verdict = score(
        reply["task"], reply["content"], reply["finish_reason"], reply["gold"], reply["reasoning"]
    )
    expected = (reply["status"], reply["answer"], reply["rule"])
    assert (verdict.status, verdict.answer, verdict.rule) == expected, reply["why"]
