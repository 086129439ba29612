"""Scoring that must not run on the event loop: answer kinds marked `pooled` (symbolic maths)
are judged in worker processes, each call with a time limit.

Processes, not threads: Math-Verify stops a runaway check with a timer signal, which works only
in a process's main thread, and a check stuck inside a C extension can only be ended by killing
its process. Each worker does one call at a time. A call that outlives the limit gets `TIMED_OUT`
(a reply then counts as `no_answer`, its rule saying so); its worker is killed and a fresh one
takes its place, while the other workers go on undisturbed.

The event loop only hands calls to a small thread pool (`acall`), which sends them to a worker
and waits; sending a reply and receiving a verdict are a pickle of a few kilobytes. Summaries
scoring many replies after a run use `map`, which keeps every worker busy.

Why not a library pool: `concurrent.futures.ProcessPoolExecutor` cannot stop one call (a hung
worker breaks the whole pool), and pools built on `multiprocessing` (pebble's, with per-task
timeouts) start workers that import the parent's `__main__` again: a user's script that calls
`thinkeval.evaluate` without an `if __name__ == "__main__":` guard would run again in every
worker. The workers here are fresh interpreters (`scoring/worker.py`) that import only thinkeval,
talking over `multiprocessing.connection`.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from typing import Any

from thinkeval.records import ReplyState, Verdict
from thinkeval.scoring.kinds import KINDS, AnswerKind
from thinkeval.scoring.lenient import lenient_text, lenient_text_verdict, lenient_verdict
from thinkeval.scoring.scorers import ReplyText
from thinkeval.scoring.state import reply_state
from thinkeval.scoring.strict import strict_verdict
from thinkeval.scoring.text import fold_width
from thinkeval.scoring.worker import READY

TIME_LIMIT_S = 10.0
_START_LIMIT_S = 120.0  # importing sympy on a loaded machine


class _Missing:
    """What a call returns when its worker gave no result; `why` says what happened."""

    def __init__(self, why: str) -> None:
        self.why = why

    def __repr__(self) -> str:
        return f"<no result: {self.why}>"


def default_workers() -> int:
    """Worker processes: half the cores, between 1 and 4 (the run itself needs a core)."""
    return max(1, min(4, (os.cpu_count() or 2) // 2))


def warm_up_kinds() -> None:
    """Load what every registered pooled kind needs (`warm_up`), before the first real call."""
    for factory in KINDS.values():
        try:
            kind = factory()
        except (TypeError, ValueError):
            continue  # a kind that needs options (regex) is never pooled by default
        warm = getattr(kind, "warm_up", None)
        if kind.pooled and callable(warm):
            warm()


class _Worker:
    """One worker process and its end of a socket pair."""

    def __init__(self, warm: str | None) -> None:
        ours, theirs = socket.socketpair()
        # Workers find thinkeval, and the modules of pickled calls, where this process does.
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        command = [sys.executable, "-m", "thinkeval.scoring.worker", str(theirs.fileno())]
        self.process = subprocess.Popen(
            [*command, warm] if warm else command,
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        theirs.close()
        self.conn = Connection(ours.detach())
        self.ready = False

    def wait_ready(self) -> bool:
        if not self.ready:
            try:
                self.ready = self.conn.poll(_START_LIMIT_S) and self.conn.recv() == READY
            except (EOFError, OSError):
                self.ready = False
        return self.ready

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(5)
        self.conn.close()


class ScoringPool:
    """Up to `workers` processes running picklable calls, each within `time_limit_s`.

    Thread-safe; workers start on first use and run `warm` (`module:function`) before their
    first call. `call` blocks the calling thread, `acall` awaits it from the event loop, `map`
    runs many calls in parallel.
    """

    def __init__(
        self,
        workers: int | None = None,
        time_limit_s: float = TIME_LIMIT_S,
        warm: str | None = "thinkeval.scoring.pool:warm_up_kinds",
    ) -> None:
        self.size = workers or default_workers()
        self.time_limit_s = time_limit_s
        self._warm = warm
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self._workers: set[_Worker] = set()
        self._lock = threading.Lock()
        self._threads = ThreadPoolExecutor(self.size, thread_name_prefix="thinkeval-scoring")
        self.started = 0  # worker processes started
        self.replaced = 0  # workers killed: a timeout, a crash, or a call abandoned midway

    def _take(self) -> _Worker:
        while True:
            with self._lock:
                start = self._idle.empty() and len(self._workers) < self.size
                if start:
                    worker = _Worker(self._warm)
                    self._workers.add(worker)
                    self.started += 1
            if not start:
                worker = self._idle.get()
            if worker.wait_ready():
                return worker
            self._discard(worker)
            raise RuntimeError("a scoring worker process failed to start")

    def _discard(self, worker: _Worker) -> None:
        worker.kill()
        self._forget(worker)

    def _abandon(self, worker: _Worker) -> None:
        """`_discard` without waiting for the process to end (from the event loop)."""
        worker.process.kill()
        worker.conn.close()
        self._forget(worker)

    def _forget(self, worker: _Worker) -> None:
        with self._lock:
            self._workers.discard(worker)
            self.replaced += 1

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` in a worker; a `_Missing` (see `missing`) when it timed out, crashed
        its worker or raised."""
        worker = self._take()
        try:
            worker.conn.send((fn, args))
            if not worker.conn.poll(self.time_limit_s):
                self._discard(worker)
                return _Missing(f"no result within {self.time_limit_s:g} s; worker stopped")
            ok, result = worker.conn.recv()
        except (EOFError, OSError):
            self._discard(worker)
            return _Missing("the scoring worker died")
        self._idle.put(worker)
        return result if ok else _Missing(f"scoring failed: {result}")

    async def acall(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`call` from the event loop, which only sends the call and waits for the answer.

        With an idle worker the loop talks to it directly (a pickle of a few kilobytes each
        way, a reader callback, a timer); otherwise a thread takes the call, since starting a
        worker or waiting for a free one would block."""
        loop = asyncio.get_running_loop()
        try:
            worker = self._idle.get_nowait()
        except queue.Empty:
            return await loop.run_in_executor(self._threads, self.call, fn, *args)
        answered: asyncio.Future[None] = loop.create_future()
        fd = worker.conn.fileno()

        def readable() -> None:
            loop.remove_reader(fd)
            if not answered.done():
                answered.set_result(None)

        def late() -> None:
            if not answered.done():
                answered.set_exception(TimeoutError())

        # A timer rather than asyncio.wait_for, which costs a task per call.
        timer = loop.call_later(self.time_limit_s, late)
        try:
            worker.conn.send((fn, args))
            loop.add_reader(fd, readable)
            await answered
            ok, result = worker.conn.recv()
        except TimeoutError:
            loop.remove_reader(fd)
            await loop.run_in_executor(self._threads, self._discard, worker)
            return _Missing(f"no result within {self.time_limit_s:g} s; worker stopped")
        except (EOFError, OSError):
            loop.remove_reader(fd)
            await loop.run_in_executor(self._threads, self._discard, worker)
            return _Missing("the scoring worker died")
        except BaseException:
            # Cancelled while the worker computes: its late answer must not reach another call.
            loop.remove_reader(fd)
            self._abandon(worker)
            raise
        finally:
            timer.cancel()
        self._idle.put(worker)
        return result if ok else _Missing(f"scoring failed: {result}")

    def map(self, fn: Callable[..., Any], argses: Iterable[Sequence[Any]]) -> list[Any]:
        """`call(fn, *args)` for each `args`, in parallel over the workers, results in order."""
        return list(self._threads.map(lambda args: self.call(fn, *args), argses))

    def close(self) -> None:
        self._threads.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            workers, self._workers = list(self._workers), set()
        for worker in workers:
            worker.kill()


def missing(result: Any) -> str | None:
    """Why a pool call gave no result, or None when `result` is a result."""
    return result.why if isinstance(result, _Missing) else None


_shared: ScoringPool | None = None
_shared_lock = threading.Lock()


def shared_pool() -> ScoringPool:
    """The process's scoring pool, started on first use and ended at exit."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = ScoringPool()
            atexit.register(_shared.close)
        return _shared


# Scoring calls ------------------------------------------------------------------------------

# Lenient rules that run Math-Verify on the whole reply (MATH-500's, as AISBench scores it).
SLOW_LENIENT_RULES = frozenset({"math"})
# (answer kind, lenient rule, content, reasoning, finish_reason, gold, recorded reply state)
VerdictsJob = tuple[AnswerKind, str, str | None, str | None, str | None, str, ReplyState | None]
Verdicts = tuple[Verdict, Verdict]  # (strict, lenient)


def both_verdicts(
    kind: AnswerKind,
    rule: str,
    content: str | None,
    reasoning: str | None,
    finish_reason: str | None,
    gold: str,
    state: ReplyState | None,
) -> Verdicts:
    """The strict and the lenient verdict of one reply."""
    return (
        strict_verdict(kind, content, finish_reason, gold, state),
        lenient_verdict(rule, content, reasoning, gold),
    )


def _worker_verdicts(
    kind: AnswerKind,
    rule: str,
    content: str | None,
    text: str,
    finish_reason: str | None,
    gold: str,
    state: ReplyState | None,
) -> Verdicts:
    """`both_verdicts` in a worker, from the text the lenient scorer reads (`lenient_text`)
    instead of the reasoning: a long reasoning is not pickled unless that text is it."""
    return (
        strict_verdict(kind, content, finish_reason, gold, state),
        lenient_text_verdict(rule, text, gold),
    )


def _for_worker(job: VerdictsJob) -> tuple[Any, ...]:
    kind, rule, content, reasoning, finish_reason, gold, state = job
    return (kind, rule, content, lenient_text(content, reasoning), finish_reason, gold, state)


def _timed_out(why: str) -> Verdicts:
    verdict = Verdict("no_answer", rule=f"timeout: {why}")
    return verdict, verdict


def _needs_pool(job: VerdictsJob) -> bool:
    """Whether the reply's verdicts need a worker: a pooled kind's finished reply, unless the
    kind's `quick_matches` decides its answer (then it is judged here, in microseconds), and
    any reply of a task whose lenient rule runs Math-Verify. Empty and cut-off replies are never
    parsed by the strict scorer: their verdict is the reply state's."""
    kind, rule, content, _, finish_reason, gold, _ = job
    if not kind.pooled:
        return False
    if rule in SLOW_LENIENT_RULES:
        return True
    read = reply_state(content, finish_reason)
    if read.state != "finished":
        return False
    quick = getattr(kind, "quick_matches", None)
    if quick is None:
        return True
    found = kind.find(fold_width(read.visible))
    return found is not None and quick(found.answer, gold) is None


async def pooled_verdicts(
    kind: AnswerKind, rule: str, reply: ReplyText, gold: str, pool: ScoringPool | None = None
) -> Verdicts:
    """The strict and lenient verdicts of `reply`, computed in a worker process within the time
    limit when they need one (`_needs_pool`)."""
    job: VerdictsJob = (
        kind, rule, reply.content, reply.reasoning, reply.finish_reason, gold, reply.state
    )  # fmt: skip
    if not _needs_pool(job):
        return both_verdicts(*job)
    result = await (pool or shared_pool()).acall(_worker_verdicts, *_for_worker(job))
    why = missing(result)
    return _timed_out(why) if why is not None else result


def verdict_pairs(jobs: Sequence[VerdictsJob], pool: ScoringPool | None = None) -> list[Verdicts]:
    """The verdicts of many replies, scored in parallel (in the workers where they need one)."""
    pooled = [i for i, job in enumerate(jobs) if _needs_pool(job)]
    pairs: dict[int, Verdicts] = {}
    if pooled:
        shipped = [_for_worker(jobs[i]) for i in pooled]
        results = (pool or shared_pool()).map(_worker_verdicts, shipped)
        for i, result in zip(pooled, results, strict=True):
            why = missing(result)
            pairs[i] = _timed_out(why) if why is not None else result
    return [pairs[i] if i in pairs else both_verdicts(*job) for i, job in enumerate(jobs)]
