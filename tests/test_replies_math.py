"""The math reply corpus (tests/data/replies_math.jsonl): realistic thinking-model replies to
MATH-500 and AIME problems, each with the strict verdict and answer it must get."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from thinkeval.api import score

CORPUS = Path(__file__).parent / "data" / "replies_math.jsonl"
KEYS = {"task", "class", "content", "finish_reason", "reasoning", "gold", "status", "answer", "why"}


def _replies() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]


def test_the_corpus_has_the_shared_format_and_covers_every_case() -> None:
    replies = _replies()
    assert len(replies) >= 80
    assert all(set(reply) == KEYS for reply in replies)
    assert {reply["task"] for reply in replies} == {"math500", "aime24", "aime25"}
    statuses = Counter(reply["status"] for reply in replies)
    assert set(statuses) == {"correct", "wrong", "no_answer", "empty", "unfinished"}
    assert len({reply["class"] for reply in replies}) >= 10


@pytest.mark.parametrize("reply", _replies(), ids=lambda r: f"{r['class']}-{r['gold']}")
def test_each_reply_gets_its_verdict(reply: dict[str, Any]) -> None:
    verdict = score(
        reply["task"], reply["content"], reply["finish_reason"], reply["gold"], reply["reasoning"]
    )
    assert (verdict.status, verdict.answer) == (reply["status"], reply["answer"]), reply["why"]
