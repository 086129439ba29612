"""Scoring that must not run on the event loop: answer kinds marked `pooled` (symbolic maths)
are judged in a worker process, with a time limit per reply.

A reply whose check outlives the limit is `no_answer`, its rule saying so; the worker is
replaced, so one pathological reply never hangs a run.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from thinkeval.records import Verdict
from thinkeval.scoring.kinds import AnswerKind
from thinkeval.scoring.scorers import ReplyText
from thinkeval.scoring.strict import strict_verdict

TIME_LIMIT_S = 10.0
_executor: ProcessPoolExecutor | None = None


def _pool() -> ProcessPoolExecutor:
    global _executor
    if _executor is None:
        # Fork-free workers: the parent runs an event loop and threads.
        _executor = ProcessPoolExecutor(
            max_workers=2, mp_context=multiprocessing.get_context("forkserver")
        )
        atexit.register(_shutdown)
    return _executor


def _shutdown() -> None:
    global _executor
    if _executor is not None:
        _executor.shutdown(wait=False, cancel_futures=True)
        _executor = None


def _restart() -> None:
    global _executor
    if _executor is not None:
        # A worker stuck in a C extension never returns: end the pool's processes.
        for process in list(getattr(_executor, "_processes", {}).values()):
            process.kill()
        _executor.shutdown(wait=False, cancel_futures=True)
        _executor = None


async def pooled_strict_verdict(
    kind: AnswerKind, reply: ReplyText, gold: str, time_limit_s: float = TIME_LIMIT_S
) -> Verdict:
    """The strict verdict of `reply`, computed in a worker process within `time_limit_s`."""
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(
        _pool(), strict_verdict, kind, reply.content, reply.finish_reason, gold, reply.state
    )
    try:
        return await asyncio.wait_for(future, time_limit_s)
    except (TimeoutError, concurrent.futures.process.BrokenProcessPool):
        _restart()
        return Verdict("no_answer", rule=f"timeout: no verdict within {time_limit_s:g} s")
