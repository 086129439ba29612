"""The scoring pool: pooled kinds judged in worker processes, each reply within a time limit."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

from thinkeval.records import Verdict
from thinkeval.scoring.kinds import make_kind
from thinkeval.scoring.kinds.base import AnswerKind, Found
from thinkeval.scoring.lenient import lenient_verdict
from thinkeval.scoring.pool import ScoringPool
from thinkeval.scoring.pooled import many_verdicts, pooled_verdicts
from thinkeval.scoring.scorers import ReplyText, Scorer, TaskScoring
from thinkeval.scoring.strict import strict_verdict

MATH = make_kind("math")


@dataclass(frozen=True)
class StallingKind(AnswerKind):
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


def reply(text: str | None, finish_reason: str = "stop", reasoning: str | None = None) -> ReplyText:
    return ReplyText(text, reasoning, finish_reason)


async def pooled_pair(
    kind: Any, rule: str, reply: ReplyText, gold: str, pool: ScoringPool
) -> tuple[Verdict, Verdict]:
    """The (strict, lenient) verdicts the pool gives a reply to a task of `kind` and `rule`."""
    verdicts = await pooled_verdicts(TaskScoring("t", kind, rule), reply, gold, pool)
    assert list(verdicts) == ["strict", "lenient"]  # the registry's order
    return verdicts["strict"], verdicts["lenient"]


def verdict_pairs(jobs: list[Any], pool: ScoringPool) -> list[tuple[Verdict, Verdict]]:
    """`many_verdicts` of (kind, rule, content, reasoning, finish_reason, gold, state) jobs."""
    tasks = [
        (TaskScoring("t", kind, rule), ReplyText(content, reasoning, finish, state), gold)
        for kind, rule, content, reasoning, finish, gold, state in jobs
    ]
    return [(v["strict"], v["lenient"]) for v in many_verdicts(tasks, pool)]


def inline(kind: Any, rule: str, content: str | None, reasoning: str | None, finish: str,
           gold: str) -> tuple[Verdict, Verdict]:  # fmt: skip
    return (
        strict_verdict(kind, content, finish, gold),
        lenient_verdict(rule, content, reasoning, gold),
    )


def test_pooled_verdicts_equal_inline_ones(pool: ScoringPool) -> None:
    jobs = [
        (MATH, "math", "So $\\boxed{0.5}$.", None, "stop", "\\frac{1}{2}"),
        (MATH, "math", "So $\\boxed{4.67}$.", "R", "stop", "\\frac{14}{3}"),
        (MATH, "aime", "no answer here", None, "stop", "3"),
        (MATH, "aime", "So $\\boxed{3}$", None, "length", "3"),
        (MATH, "math", None, "so \\boxed{3}", "length", "3"),
        (make_kind("number"), "gsm8k", "The answer is 18.", None, "stop", "18"),
    ]
    pairs = verdict_pairs([(*job, None) for job in jobs], pool)
    assert pairs == [inline(*job) for job in jobs]
    assert pairs[4][1].status == "correct"  # lenient reads a cut reply's reasoning


async def test_a_hung_check_is_no_answer_its_worker_replaced_the_others_undisturbed(
    pool: ScoringPool,
) -> None:
    replaced = pool.replaced
    (hung, hung_lenient), (fine, _) = await asyncio.gather(
        pooled_pair(STALLING, "gsm8k", reply("stall"), "x", pool),
        pooled_pair(STALLING, "gsm8k", reply("x"), "x", pool),
    )
    assert fine.status == "correct"
    assert hung.status == "no_answer"
    # Lenient's gsm8k rule does not pool: it is scored here and not lost with the worker.
    assert hung_lenient == lenient_verdict("gsm8k", "stall", None, "x")
    assert hung.rule == "timeout: no result within 3 s; worker stopped"
    assert pool.replaced == replaced + 1
    # The pool goes on with a fresh worker.
    pairs = await asyncio.gather(
        *(pooled_pair(STALLING, "gsm8k", reply(str(i)), str(i), pool) for i in range(6))
    )
    assert {strict.status for strict, _ in pairs} == {"correct"}


async def test_a_worker_that_dies_costs_one_reply(pool: ScoringPool) -> None:
    replaced = pool.replaced
    died, _ = await pooled_pair(STALLING, "gsm8k", reply("die"), "x", pool)
    assert (died.status, died.rule) == ("no_answer", "timeout: the scoring worker died")
    assert pool.replaced == replaced + 1
    again, _ = await pooled_pair(STALLING, "gsm8k", reply("y"), "y", pool)
    assert again.status == "correct"


async def test_replies_that_are_not_finished_never_reach_a_worker(pool: ScoringPool) -> None:
    # "stall" would hang a worker, but a cut-off reply is judged by its state alone.
    replaced = pool.replaced
    strict, _ = await pooled_pair(STALLING, "gsm8k", reply("stall", "length"), "x", pool)
    assert strict.status == "unfinished"
    assert pool.replaced == replaced


def test_many_replies_are_scored_in_parallel_in_order(pool: ScoringPool) -> None:
    jobs: list[Any] = [
        (MATH, "aime", f"\\boxed{{{i}/{i + 1}}}", None, "stop", f"\\frac{{{i}}}{{{i + 1}}}", None)
        for i in range(1, 40)
    ]
    jobs.append((STALLING, "gsm8k", "stall", None, "stop", "x", None))
    pairs = verdict_pairs(jobs, pool)
    assert [strict.status for strict, _ in pairs[:-1]] == ["correct"] * 39
    assert pairs[-1][0].status == "no_answer"


async def test_answers_the_kind_decides_quickly_never_reach_a_worker() -> None:
    idle = ScoringPool(workers=1)
    try:
        for content, gold in [("\\boxed{25}", "025"), ("\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
                              ("\\boxed{7}", "8"), ("no box", "3")]:  # fmt: skip
            pair = await pooled_pair(MATH, "aime", reply(content), gold, idle)
            assert pair == inline(MATH, "aime", content, None, "stop", gold)
        assert idle.started == 0
        # MATH-500's lenient rule runs Math-Verify on every reply: those go to a worker.
        await pooled_pair(MATH, "math", reply("\\boxed{25}"), "25", idle)
        assert idle.started == 1
        slow, _ = await pooled_pair(MATH, "aime", reply("\\boxed{0.5}"), "\\frac12", idle)
        assert slow.status == "correct"
    finally:
        idle.close()


def _slow_echo(value: int, seconds: float) -> int:
    time.sleep(seconds)
    return value


async def test_calls_on_a_busy_pool_wait_their_turn_and_all_get_their_own_answer() -> None:
    # One worker, 40 calls at once: 39 wait for it on the event loop, not in threads.
    busy = ScoringPool(workers=1, warm=None)
    try:
        results = await asyncio.gather(*(busy.acall(_slow_echo, i, 0.001) for i in range(40)))
        assert results == list(range(40))
        assert (busy.started, busy.replaced) == (1, 0)
        assert not busy._waiters
    finally:
        busy.close()


async def test_calls_waiting_on_a_worker_that_hangs_get_a_fresh_one() -> None:
    busy = ScoringPool(workers=1, time_limit_s=1.0, warm=None)
    try:
        await busy.acall(_slow_echo, 0, 0)  # started
        hung = asyncio.create_task(busy.acall(_slow_echo, -1, 60))
        await asyncio.sleep(0.1)
        waiting = [busy.acall(_slow_echo, i, 0) for i in range(3)]
        *answers, late = await asyncio.gather(*waiting, hung)
        assert answers == [0, 1, 2]
        assert "no result within 1 s" in repr(late)
        assert (busy.started, busy.replaced) == (2, 1)
    finally:
        busy.close()


async def test_a_call_cancelled_while_it_waits_or_while_its_worker_starts_loses_no_worker() -> None:
    busy = ScoringPool(workers=1, warm=None)
    try:
        starting = asyncio.create_task(busy.acall(_slow_echo, 1, 0))
        await asyncio.sleep(0)  # the worker is starting in a thread
        starting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await starting
        first = asyncio.create_task(busy.acall(_slow_echo, 2, 0.3))
        await asyncio.sleep(0.1)  # the worker is busy with `first` (or still starting)
        waiting = asyncio.create_task(busy.acall(_slow_echo, 3, 0))
        await asyncio.sleep(0.05)
        waiting.cancel()
        assert await first == 2
        # Had either cancelled call kept the only worker, this would wait for ever.
        assert await asyncio.wait_for(busy.acall(_slow_echo, 4, 0), 30) == 4
        assert (busy.started, busy.replaced) == (1, 0)
    finally:
        busy.close()


@dataclass(frozen=True)
class WorkerPidScorer(Scorer):
    """A slow recording scorer: it declares `pooled_for`, and its verdict's rule names the
    process that gave it; "stall" hangs it."""

    name: str = "pid"
    version: str = "1"
    recording: bool = True
    time_limit_s: float = 2.0

    def score(self, spec: Any, reply: ReplyText, gold: str) -> Verdict:
        if reply.content == "stall":
            while True:
                time.sleep(1)
        status = "correct" if reply.content == gold else "wrong"
        return Verdict(status, reply.content, f"pid {os.getpid()}")

    def version_for(self, spec: Any) -> str:
        return self.version

    def pooled_for(self, task: Any) -> bool:
        return True


async def test_a_scorer_that_declares_pooled_for_is_scored_in_a_worker(pool: ScoringPool) -> None:
    from thinkeval.scoring.scorers import registered

    number = TaskScoring("t", make_kind("number"), "gsm8k")  # nothing else pools here
    with registered(WorkerPidScorer()):
        fine = await pooled_verdicts(number, reply("18"), "18", pool)
        assert list(fine) == ["strict", "lenient", "pid"]
        assert fine["pid"].status == "correct" and fine["pid"].rule != f"pid {os.getpid()}"
        assert fine["strict"] == strict_verdict(make_kind("number"), "18", "stop", "18")
        replaced = pool.replaced
        (hung,) = many_verdicts([(number, reply("stall"), "x")], pool)
        assert hung["pid"].rule == "timeout: no result within 2 s; worker stopped"
        assert hung["strict"].status == "no_answer" and hung["strict"].rule != hung["pid"].rule
        assert pool.replaced == replaced + 1
    assert list(await pooled_verdicts(number, reply("18"), "18", pool)) == ["strict", "lenient"]


def test_a_scorer_is_typed_and_its_capabilities_have_defaults(pool: ScoringPool) -> None:
    """A set takes only `Scorer`s; first_line overrides none of the pooling capabilities."""
    from thinkeval.scoring.first_line import FIRST_LINE
    from thinkeval.scoring.scorers import active_scorers, register_scorer, registered

    before = active_scorers()
    duck = SimpleNamespace(name="duck", version="1", recording=True, score=FIRST_LINE.score)
    with pytest.raises(TypeError, match=r"namespace\(name='duck'.* is no scorer: subclass "):
        register_scorer(duck)  # type: ignore[arg-type]
    math = TaskScoring("t", make_kind("math"), "math")  # strict and lenient pool here
    number = TaskScoring("t", make_kind("number"), "gsm8k")
    assert not FIRST_LINE.pooled_for(math) and FIRST_LINE.time_limit_s is None
    assert FIRST_LINE.shipped(number, reply("18")) == reply("18")
    shipped = FIRST_LINE.score_shipped(number, reply("18"), "18")
    assert shipped == FIRST_LINE.score(number, reply("18"), "18") and shipped.status == "correct"
    with registered(FIRST_LINE):
        (verdicts,) = many_verdicts([(math, reply("So $\\boxed{18}$."), "18")], pool)
        assert verdicts["first_line"] == Verdict("no_answer", rule="pooled kind")
        assert verdicts["strict"].status == "correct"  # from a worker
    assert active_scorers() == before
