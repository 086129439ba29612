"""The two-phase protocol for one model: fixed budget for all, one adaptive retry for the cut-off.

1. Fixed phase: every sample exactly once at `budgets[0]`.
2. Samples whose fixed verdict is `empty` or `unfinished` are asked exactly once more at
   `budgets[1]`; `wrong` and `no_answer` never are, and there is no third round.

Work for all tasks of a model shares one queue, so the server stays saturated across task
boundaries; a retry is queued as soon as its fixed verdict is known, ahead of fixed work, so the
longest requests start first and the tail of the run stays short. Resuming reads the journal and
asks only what is not recorded yet (transport errors included).
"""

from __future__ import annotations

import asyncio
import itertools
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .config import ModelConfig, redact_url
from .dispatch import Dispatcher, Outcome
from .endpoint import RequestFailed
from .errors import ServerError
from .journal import Journal
from .records import RETRY_STATUSES, Attempt, Phase, Sample
from .scoring import score


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count` (1-based): a stable split of samples by id."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        try:
            i, n = (int(part) for part in text.split("/"))
        except ValueError:
            raise ValueError(f"--shard must look like I/N (e.g. 2/3), got {text!r}") from None
        if not 1 <= i <= n:
            raise ValueError(f"--shard {text}: I must be between 1 and N")
        return cls(i, n)

    @property
    def writer(self) -> str:
        return f"shard-{self.index}-of-{self.count}"

    def owns(self, sample_id: str) -> bool:
        # crc32 is stable across processes and machines (unlike hash()).
        return zlib.crc32(sample_id.encode()) % self.count == self.index - 1


@dataclass
class SampleProgress:
    """What the journal already holds for one sample of one model."""

    fixed_done: bool = False
    fixed_status: str | None = None
    prompt_tokens: int | None = None
    retry_done: bool = False


def resume_state(
    attempts: Iterable[Attempt], model: str, gold: dict[tuple[str, str], str]
) -> dict[tuple[str, str], SampleProgress]:
    """Per (task, sample id): which phases are recorded (error attempts do not count).

    The retry decision uses the verdict recorded with the fixed attempt; records without one
    (imported from other harnesses) are scored here against `gold`.
    """
    state: dict[tuple[str, str], SampleProgress] = {}
    for attempt in attempts:
        if attempt.model != model or attempt.error is not None:
            continue
        key = (attempt.task, attempt.sample_id)
        entry = state.setdefault(key, SampleProgress())
        if attempt.phase == "fixed" and not entry.fixed_done:
            entry.fixed_done = True
            entry.fixed_status = attempt.verdict or score(
                attempt.task, attempt.content, attempt.finish_reason, gold.get(key, "")
            ).status
            entry.prompt_tokens = attempt.usage.prompt_tokens
        elif attempt.phase == "retry":
            entry.retry_done = True
    return state


@dataclass(order=True)
class WorkItem:
    priority: int
    seq: int
    sample: Sample = field(compare=False)
    phase: Phase = field(compare=False)
    budget: int = field(compare=False)
    prompt_tokens: int | None = field(compare=False, default=None)


# Called after each recorded attempt: (attempt, verdict status or None for an error).
Observer = Callable[[Attempt], None]


class ModelRun:
    """Runs both phases of the protocol for one model over its tasks' samples."""

    def __init__(
        self,
        model: ModelConfig,
        samples: dict[str, list[Sample]],
        budgets: tuple[int, int],
        journal: Journal,
        state: dict[tuple[str, str], SampleProgress],
        *,
        max_model_len: int | None = None,
        shard: Shard | None = None,
        observer: Observer | None = None,
        stop: asyncio.Event | None = None,
    ) -> None:
        self.model = model
        self.samples = samples
        self.budgets = budgets
        self.journal = journal
        self.state = state
        self.max_model_len = max_model_len
        self.shard = shard
        self.observer = observer or (lambda attempt: None)
        self.stop = stop or asyncio.Event()
        self._queue: asyncio.PriorityQueue[WorkItem] = asyncio.PriorityQueue()
        self._seq = itertools.count()
        self._fatal: BaseException | None = None
        self.in_flight = 0
        self.last_error: str | None = None

    def plan(self) -> dict[tuple[str, Phase], int]:
        """Queue the work not yet recorded; return how much per (task, phase)."""
        counts: dict[tuple[str, Phase], int] = {}
        for task, samples in self.samples.items():
            for sample in samples:
                entry = self.state.get((task, sample.id))
                if entry is None or not entry.fixed_done:
                    self._put(sample, "fixed")
                    counts[task, "fixed"] = counts.get((task, "fixed"), 0) + 1
                elif entry.fixed_status in RETRY_STATUSES and not entry.retry_done:
                    self._put(sample, "retry", entry.prompt_tokens)
                    counts[task, "retry"] = counts.get((task, "retry"), 0) + 1
        return counts

    def _put(self, sample: Sample, phase: Phase, prompt_tokens: int | None = None) -> None:
        budget = self.budgets[0] if phase == "fixed" else self.budgets[1]
        priority = 0 if phase == "retry" else 1
        item = WorkItem(priority, next(self._seq), sample, phase, budget, prompt_tokens)
        self._queue.put_nowait(item)

    def _max_tokens(self, budget: int, prompt_tokens: int | None) -> tuple[int, int | None]:
        """The budget, clamped to what fits in the context; and the budget if it was clamped."""
        if self.max_model_len is None or prompt_tokens is None:
            return budget, None
        room = self.max_model_len - prompt_tokens
        if 0 < room < budget:
            return room, budget
        return budget, None

    def _body(self, sample: Sample, max_tokens: int) -> dict[str, Any]:
        body: dict[str, Any] = dict(self.model.generation)
        body["model"] = self.model.served_model
        body["messages"] = list(sample.messages)
        body["max_tokens"] = max_tokens
        if self.model.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    async def _ask(self, item: WorkItem, dispatcher: Dispatcher) -> Attempt:
        max_tokens, clamped_from = self._max_tokens(item.budget, item.prompt_tokens)
        body = self._body(item.sample, max_tokens)
        outcome = await dispatcher.chat(body)
        failure = outcome.failure
        if (
            failure is not None
            and failure.kind == "context_overflow"
            and failure.prompt_tokens is not None
            and self.max_model_len is not None
        ):
            # Older vLLM rejects prompt + max_tokens > max_model_len; newer ones clamp. Clamp
            # here too, so every era gives the sample the same room.
            clamped, was = self._max_tokens(item.budget, failure.prompt_tokens)
            if was is not None:
                max_tokens, clamped_from = clamped, was
                body["max_tokens"] = max_tokens
                retried = await dispatcher.chat(body)
                retried.tries += outcome.tries
                outcome = retried
        return self._attempt(item, body, max_tokens, clamped_from, outcome)

    def _attempt(
        self,
        item: WorkItem,
        body: dict[str, Any],
        max_tokens: int,
        clamped_from: int | None,
        outcome: Outcome,
    ) -> Attempt:
        request = {k: v for k, v in body.items() if k != "messages"}
        common: dict[str, Any] = {
            "model": self.model.name,
            "task": item.sample.task,
            "sample_id": item.sample.id,
            "phase": item.phase,
            "budget": item.budget,
            "max_tokens": max_tokens,
            "clamped_from": clamped_from,
            "request": request,
            "endpoint": outcome.endpoint,
            "tries": outcome.tries,
            "started_at": outcome.started_at,
            "shard": self.shard.writer if self.shard else None,
        }
        if outcome.timed is None:
            assert outcome.failure is not None
            return Attempt(
                **common,
                http_status=outcome.failure.http_status,
                error=outcome.failure.message,
                error_kind=outcome.failure.kind,
            )
        reply = outcome.timed.reply
        verdict = score(item.sample.task, reply.content, reply.finish_reason, item.sample.gold)
        return Attempt(
            **common,
            content=reply.content,
            reasoning=reply.reasoning,
            finish_reason=reply.finish_reason,
            usage=reply.usage,
            http_status=reply.http_status,
            latency_s=outcome.timed.latency_s,
            ttft_s=outcome.timed.ttft_s,
            verdict=verdict.status,
            answer=verdict.answer,
        )

    async def _worker(self, dispatcher: Dispatcher) -> None:
        while True:
            item = await self._queue.get()
            try:
                if self.stop.is_set():
                    continue
                self.in_flight += 1
                try:
                    attempt = await self._ask(item, dispatcher)
                finally:
                    self.in_flight -= 1
                if _model_gone(attempt):
                    raise ServerError(
                        f"{redact_url(attempt.endpoint or '')} no longer serves "
                        f"{self.model.served_model!r} ({attempt.error}); the server was "
                        "redeployed mid-run. Nothing partial was recorded: check the server "
                        "and run the same command again to resume"
                    )
                self.journal.append(attempt)
                if attempt.error is not None:
                    self.last_error = f"{attempt.sample_id}: {attempt.error}"
                self.observer(attempt)
                if (
                    attempt.phase == "fixed"
                    and attempt.error is None
                    and attempt.verdict in RETRY_STATUSES
                ):
                    self._put(item.sample, "retry", attempt.usage.prompt_tokens)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # a broken journal or a redeployed server ends the run
                if self._fatal is None:
                    self._fatal = exc
                self.stop.set()
            finally:
                self._queue.task_done()

    async def run(self, dispatcher: Dispatcher) -> None:
        """Work until every queued item is recorded, or until `stop` is set."""
        workers = [
            asyncio.create_task(self._worker(dispatcher)) for _ in range(self.model.concurrency)
        ]
        drained = asyncio.create_task(self._queue.join())
        stopped = asyncio.create_task(self.stop.wait())
        try:
            await asyncio.wait({drained, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            # Cancelling abandons requests in flight; only finished attempts were recorded.
            for task in [*workers, drained, stopped]:
                task.cancel()
            await asyncio.gather(*workers, drained, stopped, return_exceptions=True)
        if self._fatal is not None:
            raise self._fatal


def _model_gone(attempt: Attempt) -> bool:
    return (
        attempt.http_status == 404
        and attempt.error is not None
        and "does not exist" in attempt.error
    )


def identify(
    cards: list[dict[str, Any]], served_model: str
) -> tuple[dict[str, Any] | None, list[str]]:
    """The card serving `served_model`, and the ids the server offers."""
    ids = [str(card.get("id")) for card in cards]
    for card in cards:
        if card.get("id") == served_model:
            return card, ids
    return None, ids


async def check_identity(
    dispatcher: Dispatcher, served_model: str, allow_mismatch: bool
) -> dict[str, Any]:
    """Read `/v1/models` and make sure the configured model is the one served."""
    try:
        endpoint, cards = await dispatcher.models()
    except RequestFailed as exc:
        urls = ", ".join(redact_url(u) for u in dispatcher.config.base_urls)
        raise ServerError(
            f"cannot reach {urls} for model {dispatcher.config.name!r}: {exc.message}. "
            "Is the server up? (thinkeval check --base-url URL)"
        ) from None
    card, ids = identify(cards, served_model)
    if card is None and not allow_mismatch:
        raise ServerError(
            f"{redact_url(endpoint.base_url)} serves {', '.join(ids) or 'no model'}, not "
            f"{served_model!r} (the usual mistake when models are switched on one port). "
            "Fix base_url/model in the config, or pass --allow-model-mismatch"
        )
    seen = dict(card or {"served": ids})
    seen["checked_at"] = time.time()
    seen["base_url"] = redact_url(endpoint.base_url)
    return seen
