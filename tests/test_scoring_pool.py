"""The scoring pool: pooled kinds judged in worker processes, each reply within a time limit."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from thinkeval.scoring.kinds import make_kind
from thinkeval.scoring.kinds.base import Found
from thinkeval.scoring.pool import ScoringPool, pooled_strict_verdict, strict_verdicts
from thinkeval.scoring.scorers import ReplyText
from thinkeval.scoring.strict import strict_verdict

MATH = make_kind("math")


@dataclass(frozen=True)
class StallingKind:
    """A pooled kind whose comparison of `stall` never ends and of `die` kills its process."""

    name: str = "stalling"
    version: str = "1"
    pooled: bool = True

    def find(self, text: str) -> Found | None:
        return Found(text.strip(), "whole")

    def matches(self, answer: str, gold: str) -> bool:
        if answer == "stall":
            while True:  # a C-level hang looks the same from outside: no reply, ever
                time.sleep(1)
        if answer == "die":
            os._exit(3)
        return answer == gold

    def check_gold(self, gold: str) -> str | None:
        return None


STALLING = StallingKind()


@pytest.fixture(scope="module")
def pool() -> Iterator[ScoringPool]:
    # Warmed (Math-Verify imported) before the limit applies, which leaves it for the checks.
    started = ScoringPool(workers=2, time_limit_s=3.0)
    yield started
    started.close()


def test_pooled_verdicts_equal_inline_ones(pool: ScoringPool) -> None:
    jobs = [
        (MATH, "So $\\boxed{0.5}$.", "stop", "\\frac{1}{2}", None),
        (MATH, "So $\\boxed{4.67}$.", "stop", "\\frac{14}{3}", None),
        (MATH, "no answer here", "stop", "3", None),
        (MATH, "So $\\boxed{3}$", "length", "3", None),
        (MATH, None, "length", "3", None),
        (make_kind("number"), "The answer is 18.", "stop", "18", None),
    ]
    assert strict_verdicts(jobs, pool) == [strict_verdict(*job) for job in jobs]


async def test_a_hung_check_is_no_answer_its_worker_replaced_the_others_undisturbed(
    pool: ScoringPool,
) -> None:
    def reply(text: str) -> ReplyText:
        return ReplyText(text, None, "stop")

    replaced = pool.replaced
    hung, fine = await asyncio.gather(
        pooled_strict_verdict(STALLING, reply("stall"), "x", pool),
        pooled_strict_verdict(STALLING, reply("x"), "x", pool),
    )
    assert fine.status == "correct"
    assert hung.status == "no_answer"
    assert hung.rule == "timeout: no result within 3 s; worker stopped"
    assert pool.replaced == replaced + 1
    # The pool goes on with a fresh worker.
    verdicts = await asyncio.gather(
        *(pooled_strict_verdict(STALLING, reply(str(i)), str(i), pool) for i in range(6))
    )
    assert {v.status for v in verdicts} == {"correct"}


async def test_a_worker_that_dies_costs_one_reply(pool: ScoringPool) -> None:
    replaced = pool.replaced
    died = await pooled_strict_verdict(STALLING, ReplyText("die", None, "stop"), "x", pool)
    assert (died.status, died.rule) == ("no_answer", "timeout: the scoring worker died")
    assert pool.replaced == replaced + 1
    again = await pooled_strict_verdict(STALLING, ReplyText("y", None, "stop"), "y", pool)
    assert again.status == "correct"


async def test_replies_that_are_not_finished_never_reach_a_worker(pool: ScoringPool) -> None:
    # "stall" would hang a worker, but a cut-off reply is judged by its state alone.
    replaced = pool.replaced
    verdict = await pooled_strict_verdict(STALLING, ReplyText("stall", None, "length"), "x", pool)
    assert verdict.status == "unfinished"
    assert pool.replaced == replaced


def test_many_replies_are_scored_in_parallel_in_order(pool: ScoringPool) -> None:
    jobs = [
        (MATH, f"\\boxed{{{i}/{i + 1}}}", "stop", f"\\frac{{{i}}}{{{i + 1}}}", None)
        for i in range(1, 40)
    ]
    jobs.append((STALLING, "stall", "stop", "x", None))
    verdicts = strict_verdicts(jobs, pool)
    assert [v.status for v in verdicts[:-1]] == ["correct"] * 39
    assert verdicts[-1].status == "no_answer"


async def test_answers_the_kind_decides_quickly_never_reach_a_worker() -> None:
    idle = ScoringPool(workers=1)
    try:
        for content, gold in [("\\boxed{25}", "025"), ("\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
                              ("\\boxed{7}", "8"), ("no box", "3")]:  # fmt: skip
            verdict = await pooled_strict_verdict(
                MATH, ReplyText(content, None, "stop"), gold, idle
            )
            assert verdict == strict_verdict(MATH, content, "stop", gold)
        assert idle.started == 0
        slow = await pooled_strict_verdict(
            MATH, ReplyText("\\boxed{0.5}", None, "stop"), "\\frac12", idle
        )
        assert slow.status == "correct" and idle.started == 1
    finally:
        idle.close()
