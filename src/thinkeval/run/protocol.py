"""The two-phase protocol for one model: fixed budget for all, one adaptive retry for the cut-off.

1. Fixed phase: every (sample, repeat) exactly once at its task's first budget.
2. Those whose fixed reply is `empty` or `unfinished` (the reply state, `scoring.state`) are
   asked exactly once more at the task's second budget; `wrong` and `no_answer` never are, and
   there is no third round. With `retry: continue` the retry carries the cut-off reply on
   from its token ids instead of asking again (`run/continuation.py`).

One pool of workers serves all tasks of a model, so the server stays saturated across task
boundaries; a retry is queued as soon as its fixed reply is recorded, ahead of fixed work, so
the longest requests start first and the tail of the run stays short. Fixed work streams from
the run's samples files as workers take it, in the tail-aware order of `run/ordering.py`, so
memory does not grow with the number of samples.
Resuming reads the journal and asks only what is not recorded yet (transport errors included).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thinkeval.client.dispatch import Dispatcher
from thinkeval.client.profiles import get_profile
from thinkeval.client.replicas import prompt_affinity
from thinkeval.config import ModelConfig, ResolvedTask
from thinkeval.records import Attempt, Sample
from thinkeval.run.attempts import Unit, attempt_from
from thinkeval.run.continuation import continue_attempt, retry_mode
from thinkeval.run.identity import model_refused, no_tool_parser
from thinkeval.run.ordering import FixedWork, TaskEstimate, WorkItem
from thinkeval.run.requests import clamp_budget, request_body, unit_generation
from thinkeval.scoring.state import RETRY_STATES
from thinkeval.store.counted import (
    RETRY_CANDIDATE,
    UNJUDGED,
    CountedAttempts,
    IdIndex,
    Journals,
    recorded,
)
from thinkeval.store.journal import Journal
from thinkeval.store.protocol_rules import retry_due
from thinkeval.store.rundir import SamplesFile
from thinkeval.store.shard import Shard
from thinkeval.tasks.spec import TaskSpec


@dataclass
class Plan:
    """What a model still needs per task: requests to make, and attempts already recorded."""

    queued: dict[str, int] = field(default_factory=dict)
    recorded: dict[str, int] = field(default_factory=dict)


# Called after each recorded attempt.
Observer = Callable[[Attempt], None]


class ModelRun:
    """Runs both phases of the protocol for one model over its tasks' samples and repeats.

    What `counted` holds (the journal's, `counted.count_journal`) is not asked again;
    `estimates` (per task, fed with what the journal holds) order the fixed work."""

    def __init__(
        self,
        model: ModelConfig,
        run_dir: Path,
        tasks: list[ResolvedTask],
        journal: Journal,
        journals: Journals,
        indexes: dict[str, IdIndex],
        counted: dict[tuple[str, str], CountedAttempts],
        *,
        max_model_len: int | None = None,
        shard: Shard | None = None,
        observer: Observer | None = None,
        stop: asyncio.Event | None = None,
        unlisted: list[str] | None = None,
        estimates: dict[str, TaskEstimate] | None = None,
        admitted: Mapping[str, bytes] | None = None,
    ) -> None:
        self.model = model
        self.admitted = admitted  # `decide:`'s batch: a flag per sample of each task (None: all)
        # The ids /v1/models listed when it did not list the model (--allow-model-mismatch).
        self.unlisted = unlisted
        self.run_dir = run_dir
        self.tasks = {task.name: task for task in tasks}
        self.journal = journal
        self.journals = journals
        self.indexes = indexes
        self.counted = counted
        self.max_model_len = max_model_len
        self.shard = shard
        self.observer = observer or (lambda attempt: None)
        self.stop = stop or asyncio.Event()
        self._halt = asyncio.Event()  # this model alone stops (its server failed)
        # Retries go first: the longest requests start early and the run's tail stays short.
        self._retries: deque[WorkItem] = deque()
        self.estimates = estimates or default_estimates(tasks)
        self._fixed = FixedWork(
            {task.name: self._fixed_work(task) for task in tasks},  # lazy: read as asked
            self.estimates,
            model.concurrency,
            {task.name: indexes[task.name].units for task in tasks},
        )
        self._prompts: dict[str, SamplesFile] = {}
        self._busy = 0  # items taken and not finished: they may still add a retry
        self._wake = asyncio.Event()
        self._fatal: BaseException | None = None
        self.in_flight = 0
        self.last_error: str | None = None

    def _units(
        self, task: ResolvedTask, messages: bool = True
    ) -> Iterator[tuple[int, Sample, int]]:
        """`(offset, sample, repeat)` of every unit this process asks, repeat by repeat."""
        flags = self.admitted[task.name] if self.admitted is not None else None
        for repeat in range(task.repeats):
            with SamplesFile(self.run_dir, task.name, messages=messages) as samples:
                for position, (offset, sample) in enumerate(samples):
                    if flags is not None and not flags[position]:
                        continue
                    if self.shard is None or self.shard.owns(sample.id, repeat):
                        yield offset, sample, repeat

    def _refs(self, task: str, unit: int | None) -> tuple[int, int]:
        """References to the recorded fixed and retry attempts of a unit (0 when none)."""
        entry = self.counted.get((self.model.name, task))
        if entry is None or unit is None:
            return 0, 0
        return entry.fixed[unit], entry.retry_ref(unit)

    def _move_up_repeats(self, task: str, sample: Sample, offset: int) -> None:
        """A reply to `sample` was cut off: its other repeats not asked yet go first."""
        index, budget = self.indexes[task], self.tasks[task].budgets[0]
        for repeat in range(index.repeats if index.repeats > 1 else 0):
            unit = index.unit(sample.id, repeat)
            if (
                unit is not None
                and not recorded(self._refs(task, unit)[0])
                and (self.shard is None or self.shard.owns(sample.id, repeat))
            ):
                self._fixed.move_up(task, unit, WorkItem(task, "fixed", budget, offset, repeat))

    def _retry_due(self, ref: int, spec: TaskSpec, gold: str) -> Attempt | None:
        """The recorded fixed attempt at `ref` when it calls for the retry, else None."""
        if not ref & (RETRY_CANDIDATE | UNJUDGED):
            return None
        attempt = self.journals.read(ref)
        if ref & UNJUDGED and not retry_due(attempt, spec, gold):
            return None  # a version-1 journal line, judged now: not empty or cut off
        return attempt

    def plan(self) -> Plan:
        """Count the work not yet recorded and queue the retries the journal already calls for.

        Fixed work is not queued: it streams from the samples files while the run goes on.
        """
        plan = Plan()
        for task in self.tasks.values():
            queued = done = 0
            retry_budget = task.budgets[1]
            index = self.indexes[task.name]
            for offset, sample, repeat in self._units(task, messages=False):
                fixed, retry = self._refs(task.name, index.unit(sample.id, repeat))
                done += recorded(fixed) + recorded(retry)
                if not recorded(fixed):
                    queued += 1
                    continue
                if fixed & RETRY_CANDIDATE:
                    self._move_up_repeats(task.name, sample, offset)
                due = None if recorded(retry) else self._retry_due(fixed, task.spec, sample.gold)
                if due is not None:
                    tokens = due.usage.prompt_tokens
                    self._retries.append(
                        WorkItem(
                            task.name,
                            "retry",
                            retry_budget,
                            offset,
                            repeat,
                            None,
                            tokens,
                            due if self._continues(task.name) else None,
                        )
                    )
                    queued += 1
            plan.queued[task.name] = queued
            plan.recorded[task.name] = done
        return plan

    def _fixed_work(self, task: ResolvedTask) -> Iterator[WorkItem]:
        """The task's fixed units not recorded yet, in samples-file order, repeat by repeat."""
        budget = task.budgets[0]
        index = self.indexes[task.name]
        for offset, sample, repeat in self._units(task):
            unit = index.unit(sample.id, repeat)
            if unit is not None and self._fixed.taken_early(task.name, unit):
                continue
            if not recorded(self._refs(task.name, unit)[0]):
                yield WorkItem(task.name, "fixed", budget, offset, repeat, sample)

    def _max_tokens(
        self, budget: int, prompt_tokens: int | None, window: int | None = None
    ) -> tuple[int, int | None]:
        return clamp_budget(budget, prompt_tokens, self.max_model_len or window)

    def _sample(self, item: WorkItem) -> Sample:
        if item.sample is None:
            item.sample = self._prompts[item.task].at(item.offset)
        return item.sample

    def _continues(self, task: str) -> bool:
        """Whether `task`'s cut-off replies are continued (`retry: continue`), not asked again."""
        resolved = self.tasks[task]
        # A tool-calling task's retries are asked again: a completion carries no `tools`.
        tools = resolved.spec.answer.judges_tool_calls
        return not tools and retry_mode(self.model, resolved) == "continue"

    def _body(self, item: WorkItem, max_tokens: int) -> dict[str, Any]:
        token_ids = item.phase == "fixed" and self._continues(item.task)
        sample, task = self._sample(item), self.tasks[item.task]
        asked = (sample.messages, item.repeat, max_tokens, token_ids, sample.tools)
        return request_body(self.model, task, *asked)

    async def _ask(self, item: WorkItem, dispatcher: Dispatcher) -> Attempt:
        if item.fixed is not None:
            return await self._continue(item, item.fixed, dispatcher)
        max_tokens, clamped_from = self._max_tokens(item.budget, item.prompt_tokens)
        body = self._body(item, max_tokens)
        # Every repeat and the retry of a prompt go to one replica: its prefix cache serves them.
        affinity = prompt_affinity(item.task, self._sample(item).id)
        outcome = await dispatcher.chat(body, affinity=affinity)
        failure = outcome.failure
        if (
            failure is not None
            and failure.kind == "context_overflow"
            and failure.refused is None  # the prompt alone over the window: no budget fits
            and (self.max_model_len or failure.window) is not None
        ):
            # Older vLLM (and SGLang, OpenAI) reject prompt + max_tokens over the window; newer
            # ones clamp. Clamp here too, with the window the card or the refusal names, so
            # every flavour gives the sample the same room.
            # A refusal that names no prompt length (vLLM 0.32+: "max_tokens=N cannot be
            # greater than max_model_len=M") gets the whole window less one token: the server
            # clamps the rest, and the attempt records what was sent.
            prompt = failure.prompt_tokens if failure.prompt_tokens is not None else 1
            clamped, was = self._max_tokens(item.budget, prompt, failure.window)
            if was is not None:
                max_tokens, clamped_from = clamped, was
                get_profile(self.model.api).set_budget(body, max_tokens)
                retried = await dispatcher.chat(body, affinity=affinity)
                retried.tries += outcome.tries
                retried.abandoned[:0] = outcome.abandoned
                outcome = retried
        sample = self._sample(item)
        unit = Unit(sample, item.repeat, item.phase, item.budget)
        shard = self.shard.writer if self.shard else None
        return await attempt_from(
            self.model.name,
            self.tasks[item.task].spec,
            unit,
            body,
            max_tokens,
            clamped_from,
            outcome,
            shard,
        )

    async def _continue(self, item: WorkItem, fixed: Attempt, dispatcher: Dispatcher) -> Attempt:
        # The fixed request's seed (`run/requests.py`).
        generation = unit_generation(self.model, self.tasks[item.task], item.repeat)
        unit = Unit(self._sample(item), item.repeat, item.phase, item.budget)
        return await continue_attempt(
            self.model,
            self.tasks[item.task].spec,
            unit,
            fixed,
            generation,
            dispatcher,
            self.max_model_len,
            self.shard.writer if self.shard else None,
        )

    async def _next_item(self) -> WorkItem | None:
        """The next request to make, or None when the model is done (or the run stops)."""
        while not self.stop.is_set() and not self._halt.is_set():
            item = self._retries.popleft() if self._retries else self._fixed.next()
            if item is not None:
                self._busy += 1
                return item
            if self._busy == 0:
                return None  # nothing left, and nothing in flight can add a retry
            self._wake.clear()
            await self._wake.wait()
        return None

    def _record(self, item: WorkItem, attempt: Attempt) -> None:
        if _model_gone(attempt):
            raise model_refused(
                attempt.endpoint or "", self.model.served_model, attempt.error, self.unlisted
            )
        if attempt.error_kind == "no_tool_parser":
            raise no_tool_parser(attempt.endpoint or "", attempt.error)
        self.journal.append(attempt)
        if attempt.error is not None:
            self.last_error = f"{attempt.sample_id}: {attempt.error}"
        self.estimates[item.task].observe(attempt)
        self.observer(attempt)
        if attempt.phase == "fixed" and attempt.state in RETRY_STATES:
            self._move_up_repeats(item.task, self._sample(item), item.offset)
            retry_budget = self.tasks[item.task].budgets[1]
            self._retries.append(
                WorkItem(
                    item.task,
                    "retry",
                    retry_budget,
                    item.offset,
                    item.repeat,
                    item.sample,
                    attempt.usage.prompt_tokens,
                    attempt if self._continues(item.task) else None,
                )
            )

    async def _worker(self, dispatcher: Dispatcher) -> None:
        while (item := await self._next_item()) is not None:
            try:
                self.in_flight += 1
                try:
                    attempt = await self._ask(item, dispatcher)
                finally:
                    self.in_flight -= 1
                self._record(item, attempt)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # a broken journal or a redeployed server ends the model
                self.fail(exc)
            finally:
                self._busy -= 1
                self._wake.set()

    def fail(self, exc: BaseException) -> None:
        """Stop this model (not the others): abandon what is in flight; `run` raises `exc`."""
        if self._fatal is None:
            self._fatal = exc
        self._halt.set()

    async def run(self, dispatcher: Dispatcher) -> None:
        """Work until every planned request is recorded, until `stop` is set, or until `fail`."""
        # Opened now, so offsets always refer to the samples files this run planned with.
        self._prompts = {task: SamplesFile(self.run_dir, task) for task in self.tasks}
        workers = [
            asyncio.create_task(self._worker(dispatcher)) for _ in range(self.model.concurrency)
        ]
        finished = asyncio.gather(*workers)
        # Cancelled workers leave `finished` holding a CancelledError nobody awaits; retrieve it,
        # or asyncio prints "exception was never retrieved" with a traceback on every stop.
        finished.add_done_callback(_retrieve)
        stopped = asyncio.create_task(self.stop.wait())
        halted = asyncio.create_task(self._halt.wait())
        try:
            waiting: set[asyncio.Future[Any]] = {finished, stopped, halted}
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            # Cancelling abandons requests in flight; only finished attempts were recorded.
            for task in [*workers, stopped, halted]:
                task.cancel()
            await asyncio.gather(*workers, stopped, halted, return_exceptions=True)
            finished.cancel()
            self._close()
        if self._fatal is not None:
            raise self._fatal

    def _close(self) -> None:
        self._fixed.close()
        for prompts in self._prompts.values():
            prompts.close()
        self._prompts.clear()


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def default_estimates(tasks: list[ResolvedTask]) -> dict[str, TaskEstimate]:
    """Each task's reply estimate before any reply is seen (`run/ordering.py`)."""
    return {t.name: TaskEstimate.prior(t.budgets, t.spec.reply_tokens) for t in tasks}


def _model_gone(attempt: Attempt) -> bool:
    return attempt.error_kind == "model_missing"
