"""Scoring that must not run on the event loop: answer kinds marked `pooled` (symbolic maths)
are judged in worker processes, each call with a time limit.

Processes, not threads: Math-Verify stops a runaway check with a timer signal, which works only
in a process's main thread, and a check stuck inside a C extension can only be ended by killing
its process. Each worker does one call at a time. A call that outlives the limit gets `TIMED_OUT`
(a reply then counts as `no_answer`, its rule saying so); its worker is killed and a fresh one
takes its place, while the other workers go on undisturbed.

The event loop talks to an idle worker itself (`acall`): sending a reply and receiving a verdict
are a pickle of a few kilobytes, a reader callback and a timer. When every worker is busy the
call waits on a future that the next worker to finish is handed to, not in a thread: with 500
calls waiting on one worker a thread hop per call cost the run 0.15-0.20 ms of CPU per call,
waiting on the loop 0.11-0.12 ms. Only starting a
worker (it blocks until the worker has imported its kinds) goes to a thread. Summaries scoring
many replies after a run use `map`, which keeps every worker busy from a thread pool.

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
import collections
import os
import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from multiprocessing.connection import Connection
from typing import Any

from thinkeval.scoring.kinds import KINDS
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
        if kind.pooled:
            kind.warm_up()


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
        # `acall`s waiting for a busy pool, first come first served; each gets a worker, or
        # None when a worker was dropped (then it may start one).
        self._waiters: collections.deque[
            tuple[asyncio.AbstractEventLoop, asyncio.Future[_Worker | None]]
        ] = collections.deque()
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
        self._hand_on(None)  # a waiting call would otherwise wait for a worker that is gone

    def _release(self, worker: _Worker) -> None:
        """A worker done with its call: to the first waiting `acall`, else back to idle."""
        if not self._hand_on(worker):
            self._idle.put(worker)

    def _hand_on(self, worker: _Worker | None) -> bool:
        """Give `worker` (None: room for a new one) to the first waiting `acall`, from any
        thread; False when nobody waits."""
        try:
            here: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        with self._lock:
            while self._waiters:
                loop, waiting = self._waiters.popleft()
                if loop is here:  # from the waiter's own loop: no wake-up through its pipe
                    loop.call_soon(self._deliver, waiting, worker)
                    return True
                try:
                    loop.call_soon_threadsafe(self._deliver, waiting, worker)
                    return True
                except RuntimeError:  # that call's loop is closed: the next one
                    continue
        return False

    def _deliver(self, waiting: asyncio.Future[_Worker | None], worker: _Worker | None) -> None:
        if not waiting.done():
            waiting.set_result(worker)
        elif worker is not None:  # the call was cancelled meanwhile
            self._release(worker)
        else:
            self._hand_on(None)

    async def _acquire(self) -> _Worker:
        """An idle worker; else, when the pool is full, the next one to finish a call; else a
        new one, started in a thread."""
        loop = asyncio.get_running_loop()
        waiting: asyncio.Future[_Worker | None] | None = None
        with self._lock:
            try:
                return self._idle.get_nowait()
            except queue.Empty:
                if len(self._workers) >= self.size:
                    waiting = loop.create_future()
                    self._waiters.append((loop, waiting))
        worker = await waiting if waiting is not None else None
        if worker is not None:
            return worker
        taking = self._threads.submit(self._take)
        try:
            return await asyncio.wrap_future(taking, loop=loop)
        except asyncio.CancelledError:
            # The thread may still get a worker: it goes back, or the pool would shrink.
            taking.add_done_callback(self._release_taken)
            raise

    def _release_taken(self, taking: Future[_Worker]) -> None:
        if not taking.cancelled() and taking.exception() is None:
            self._release(taking.result())

    def call(self, fn: Callable[..., Any], *args: Any, limit_s: float | None = None) -> Any:
        """`fn(*args)` in a worker; a `_Missing` (see `missing`) when it timed out, crashed
        its worker or raised. `limit_s` replaces the pool's time limit for this call."""
        limit = limit_s or self.time_limit_s
        worker = self._take()
        try:
            worker.conn.send((fn, args))
            if not worker.conn.poll(limit):
                self._discard(worker)
                return _Missing(f"no result within {limit:g} s; worker stopped")
            ok, result = worker.conn.recv()
        except (EOFError, OSError):
            self._discard(worker)
            return _Missing("the scoring worker died")
        self._release(worker)
        return result if ok else _Missing(f"scoring failed: {result}")

    async def acall(self, fn: Callable[..., Any], *args: Any, limit_s: float | None = None) -> Any:
        """`call` from the event loop, which sends the call to a worker and waits for the
        answer without blocking (a pickle of a few kilobytes each way, a reader callback, a
        timer)."""
        loop = asyncio.get_running_loop()
        worker = await self._acquire()
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
        limit = limit_s or self.time_limit_s
        timer = loop.call_later(limit, late)
        try:
            worker.conn.send((fn, args))
            loop.add_reader(fd, readable)
            await answered
            ok, result = worker.conn.recv()
        except TimeoutError:
            loop.remove_reader(fd)
            await loop.run_in_executor(self._threads, self._discard, worker)
            return _Missing(f"no result within {limit:g} s; worker stopped")
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
        self._release(worker)
        return result if ok else _Missing(f"scoring failed: {result}")

    def map(
        self, fn: Callable[..., Any], argses: Iterable[Sequence[Any]], limit_s: float | None = None
    ) -> list[Any]:
        """`call(fn, *args)` for each `args`, in parallel over the workers, results in order."""
        return list(self._threads.map(lambda args: self.call(fn, *args, limit_s=limit_s), argses))

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
