"""The simulated OpenAI-compatible server: routes, validation, faults, queueing and statistics.

Request flow for `POST /v1/chat/completions`: parse and validate as the profile's server would
(404 unknown model, 400 bad body or context overflow), count the prompt, maybe inject a fault,
then plan and generate the reply, wait for one of `max_num_seqs` slots (excess requests queue,
as in vLLM's scheduler), spend the simulated latency holding the slot, and answer. With
`max_num_batched_tokens` set, the slots are one stepped batch instead (`sim/engine.py`): a
request's prefill and decode share each step's time with every other sequence on the replica.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from typing import Any

import orjson
from aiohttp import web

from thinkeval.sim.behaviour import (
    AnswerEntry,
    Generation,
    Plan,
    plan_for,
    unit,
)
from thinkeval.sim.broken import malformed_reply
from thinkeval.sim.config import SimConfig
from thinkeval.sim.engine import Engine, timed
from thinkeval.sim.eras import get_profile
from thinkeval.sim.judge import is_judge_prompt, judge_answer
from thinkeval.sim.prefix_cache import PrefixCache
from thinkeval.sim.profiles import ErrorReply
from thinkeval.sim.requests import ChatRequest, parse_chat
from thinkeval.sim.sampling import model_reply
from thinkeval.sim.stats import FAULT_KINDS, Stats, metrics_text
from thinkeval.sim.steps import StepModel
from thinkeval.sim.streaming import stream_reply
from thinkeval.sim.text import EOS, FLAVOURS, pool, tokenize
from thinkeval.sim.token_ids import add_token_ids
from thinkeval.sim.unseeded import UnseededRepeats

# Added to every /v1/models card, which runs keep: reports mark such models simulated (_context).
SIMULATED_CARD_FIELD = "thinkeval_simulated"


class Simulator:
    """One simulated server: its config, answer key, queue and statistics."""

    def __init__(
        self, config: SimConfig, answer_key: Mapping[str, AnswerEntry] | None = None
    ) -> None:
        self.config = config
        self.profile = get_profile(config.profile, config.reasoning_field)
        self.answer_key: Mapping[str, AnswerEntry] = dict(answer_key or {})
        self.stats = Stats()
        self.chat_requests = 0
        self.slots = asyncio.Semaphore(config.max_num_seqs)
        self.shutting_down = asyncio.Event()
        self.hung = asyncio.Event()  # set: every request is held unanswered (sim/faults.py)
        self.started_at = time.time()  # /metrics process_start_time_seconds: a restart's mark
        self._id_prefix = os.urandom(16).hex()
        self._id_counter = 0
        self.unseeded = UnseededRepeats()
        self.prefix_cache = PrefixCache(config.prefix_cache_tokens)
        self.engine: Engine | None = None
        if config.max_num_batched_tokens:
            steps = StepModel(
                config.per_token_s,
                config.prefill_token_s,
                config.max_num_batched_tokens,
                config.max_num_seqs,
            )
            self.engine = Engine(steps, self.stats)
        if config.stream_chunk_tokens:
            self.chunk_tokens = config.stream_chunk_tokens
        else:
            # One token per chunk when a delay separates them, as vLLM sends; batches otherwise,
            # which keeps a zero-latency stream cheap without changing what the chunks mean.
            self.chunk_tokens = 1 if config.per_token_s > 0 else 16

    # Helpers -----------------------------------------------------------------------------

    def served_model(self, index: int | None = None) -> str:
        """The model id served for the `index`-th chat request (default: the next one)."""
        after = self.config.switch_model_after
        index = self.chat_requests if index is None else index
        if after is not None and index >= after:
            return self.config.switched_model
        return self.config.model

    def plan(self, key: str, text: str, seed: int | None = None) -> Plan:
        return plan_for(self.config, key, text, self.answer_key, seed)

    def _next_id(self, request: web.Request) -> str:
        forwarded = request.headers.get("X-Request-Id")
        if forwarded:
            return forwarded
        self._id_counter += 1
        # A random prefix and a counter: unique within the run without a uuid per request.
        return f"{self._id_prefix}{self._id_counter:08x}"[-self.profile.id_hex :]

    def _reply(
        self, status: int, body: Any, headers: Mapping[str, str] | None = None
    ) -> web.Response:
        """A JSON reply to a chat request, counted in `by_status`."""
        self.stats.by_status[status] += 1
        return _json(status, body, headers)

    def _error(self, reply: ErrorReply, headers: Mapping[str, str] | None = None) -> web.Response:
        status, body = reply
        return self._reply(status, body, headers)

    def _fault(self, key: str, asked_before: int) -> str | None:
        """The fault for this ask of this prompt, or None.

        Hashing (seed, prompt, number of earlier asks) makes a run reproducible while letting the
        next ask of the same prompt draw afresh, so retries eventually get through.
        """
        config = self.config
        if config.fault_share <= 0:
            return None
        u = unit(config.seed, "fault", key, asked_before)
        for kind, share in zip(
            FAULT_KINDS,
            (
                config.fault_500,
                config.fault_429,
                config.fault_reset,
                config.fault_timeout,
                config.fault_malformed,
            ),
            strict=True,
        ):
            if u < share:
                return kind
            u -= share
        return None

    async def acquire_slot(self) -> float:
        """Queue for a running slot; returns the seconds spent waiting."""
        stats = self.stats
        if self.slots.locked():
            started = time.monotonic()
            stats.waiting += 1
            stats.max_waiting = max(stats.max_waiting, stats.waiting)
            try:
                await self.slots.acquire()
            finally:
                stats.waiting -= 1
            waited = time.monotonic() - started
            stats.queued_s += waited
        else:
            await self.slots.acquire()
            waited = 0.0
        stats.running += 1
        stats.max_running = max(stats.max_running, stats.running)
        return waited

    def release_slot(self) -> None:
        self.stats.running -= 1
        self.slots.release()

    async def hold_slot(self, seconds: float) -> float:
        """Queue for a slot, hold it `seconds`; returns the seconds spent queueing."""
        waited = await self.acquire_slot()
        try:
            if seconds > 0:
                await asyncio.sleep(seconds)
        finally:
            self.release_slot()
        return waited

    def next_id(self, request: web.Request) -> str:
        """A request id (`X-Request-Id`, or one the server makes up)."""
        return self._next_id(request)

    def reply(self, status: int, body: Any) -> web.Response:
        """A JSON reply, counted in `by_status`."""
        return self._reply(status, body)

    def service_s(self, prompt: int, generated: int) -> float:
        """Seconds a reply holds its slot: fixed costs, prefill of `prompt`, decode."""
        config = self.config
        return (
            config.latency_s
            + config.ttft_s
            + config.prefill_token_s * prompt
            + config.per_token_s * generated
        )

    async def compute(self, prefill: int, generated: int) -> tuple[float, float]:
        """Prefill `prefill` prompt tokens and generate `generated`, queueing for a slot first:
        (time to first token, seconds the slot was held)."""
        config = self.config
        fixed = config.latency_s + config.ttft_s
        if self.engine is None:
            held = self.service_s(prefill, generated)
            waited = await self.hold_slot(held)
            return waited + fixed + config.prefill_token_s * prefill, held
        if fixed > 0:  # outside the engine: the network and the server's own overhead
            await asyncio.sleep(fixed)
        return timed(await self.engine.run(prefill, generated), fixed)

    def record(self, gen: Generation, prompt: int, ttft: float, held_s: float) -> None:
        self.record_generated(gen.finish_reason, prompt, gen.completion_tokens, ttft, held_s)

    def record_generated(
        self, finish: str, prompt: int, generated: int, ttft: float, held_s: float
    ) -> None:
        """Count one reply sent: its prompt and decode tokens, its TTFT and slot time."""
        stats = self.stats
        stats.completed += 1
        stats.prompt_tokens += prompt
        stats.generation_tokens += generated
        stats.finished[finish] += 1
        stats.observe_ttft(ttft)
        stats.service_s += held_s

    # Routes ------------------------------------------------------------------------------

    async def chat(self, request: web.Request) -> web.StreamResponse:
        """`POST /v1/chat/completions`."""
        stats = self.stats
        stats.requests += 1
        stats.in_flight += 1
        stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
        try:
            reply = None if self.hung.is_set() else await self._chat(request)
            if reply is None or (self.hung.is_set() and not reply.prepared):  # hung: held
                await self.shutting_down.wait()
                return self._drop(request)
            return reply
        finally:
            stats.in_flight -= 1

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        config = self.config
        index = self.chat_requests
        self.chat_requests += 1
        chat = parse_chat(self.profile, self.served_model(index), await request.read(), config)
        if isinstance(chat, tuple):
            return self._error(chat)

        asked = self.stats.prompts_asked.get(chat.key, 0)
        self.stats.prompts_asked[chat.key] = asked + 1
        fault = self._fault(chat.key, asked)
        if fault is not None:
            self.stats.faults[fault] += 1
        if fault == "500":
            return self._error(self.profile.server_error())
        if fault == "429":
            headers = {"Retry-After": f"{config.retry_after_s:g}"}
            return self._error(self.profile.rate_limited(config.retry_after_s), headers)
        if fault == "reset":
            return self._drop(request)
        if fault == "timeout":
            await self._stall()
            return self._drop(request)

        gen = self._generate(chat)
        rid = self.profile.response_id(self._next_id(request))
        created = int(time.time())
        if fault == "malformed":
            self.stats.by_status[200] += 1
            return malformed_reply(self.profile, rid, created, chat, gen, self.chunk_tokens)
        if chat.stream:
            return await stream_reply(self, request, rid, created, chat, gen)
        ttft, held = await self.compute(self.prefill(chat), gen.completion_tokens)
        body = self.profile.completion(rid, created, chat.model, gen, chat.prompt_tokens)
        if chat.token_ids:
            plan = self.plan(chat.key, chat.text, chat.seed)
            add_token_ids(body, plan.flavour, chat.key, chat.thinking, chat.prompt_tokens, gen)
        reply = self._reply(200, body)
        self.record(gen, chat.prompt_tokens, ttft, held)
        return reply

    def prefill(self, chat: ChatRequest) -> int:
        """The prompt tokens this request must prefill: those its prefix cache lacks."""
        key = f"{chat.key}\x1f{chat.thinking}"
        return chat.prompt_tokens - self.prefix_cache.lookup(key, chat.prompt_tokens)

    def _generate(self, chat: ChatRequest) -> Generation:
        if not is_judge_prompt(chat.text):
            self.unseeded.saw(chat.key, chat.limit, chat.seed)
            others = self.stats.in_flight > 1
            return model_reply(self.config, self.plan, chat, others)
        # A judge request: the JSON answer as content, no reasoning.
        disagree = unit(self.config.seed, "judge", chat.key) < self.config.p_judge_disagree
        tokens = [*tokenize(judge_answer(chat.text, disagree)), EOS]
        kept = tokens[: chat.limit]
        finish = "length" if len(tokens) > chat.limit else "stop"
        return Generation(False, [], kept, False, len(kept), finish)

    async def _stall(self) -> None:
        """Hold the request without answering, until `stall_s` passes or the server stops."""
        self.stats.stalled += 1
        try:
            await asyncio.wait_for(self.shutting_down.wait(), timeout=self.config.stall_s)
        except TimeoutError:
            pass
        finally:
            self.stats.stalled -= 1

    def _drop(self, request: web.Request) -> web.Response:
        """Close the connection without a response, as a crashed proxy or server would."""
        transport = request.transport
        if transport is not None:
            transport.abort()
        # aiohttp cannot write this to the aborted transport; the client sees a disconnect.
        return web.Response(status=503)

    async def models(self, request: web.Request) -> web.Response:
        """`GET /v1/models`: the profile's card, plus a field no real server sends saying that
        the model is simulated (runs keep the card, so reports can say so)."""
        body = self.profile.model_list(
            self.served_model(),
            self.config.served_root,
            self.config.card_max_model_len or self.config.max_model_len,
            int(time.time()),
        )
        for card in body["data"]:
            card[SIMULATED_CARD_FIELD] = True
        return _json(200, body)

    async def health(self, request: web.Request) -> web.Response:
        """`GET /health`: 200 with an empty body while the engine is alive."""
        return web.Response(status=200)

    async def version(self, request: web.Request) -> web.Response:
        """`GET /version`."""
        return _json(200, {"version": self.profile.version})

    async def metrics(self, request: web.Request) -> web.Response:
        """`GET /metrics`: the vLLM engine metrics an eval client reads (§6)."""
        return web.Response(
            body=self.metrics_text().encode(),
            headers={"Content-Type": "text/plain; version=0.0.4; charset=utf-8"},
        )

    def metrics_text(self) -> str:
        """The Prometheus exposition of the current counters."""
        text = metrics_text(
            self.stats, self.served_model(), self.config.max_num_seqs, self.prefix_cache
        )
        # As prometheus_client's process collector adds to vLLM's and SGLang's /metrics.
        return f"{text}process_start_time_seconds {self.started_at}\n"

    async def sim_stats(self, request: web.Request) -> web.Response:
        """`GET /sim/stats[?detail=1]`: what the simulator saw, for tests and benchmarks."""
        detail = request.query.get("detail", "") not in ("", "0", "false")
        body = self.stats.as_json(detail)
        body["served_model"] = self.served_model()
        body["prefix_cache_queries"] = self.prefix_cache.queries
        body["prefix_cache_hits"] = self.prefix_cache.hits
        return _json(200, body)

    async def on_startup(self, app: web.Application) -> None:
        # Build the reasoning pools now so the first requests are not ~0.1 s slower than the rest.
        for flavour in FLAVOURS:
            pool(flavour)

    async def on_shutdown(self, app: web.Application) -> None:
        # Release stalled requests so that a stall never holds the server's shutdown hostage.
        self.shutting_down.set()


def _json(status: int, body: Any, headers: Mapping[str, str] | None = None) -> web.Response:
    return web.Response(
        status=status, body=orjson.dumps(body), content_type="application/json", headers=headers
    )
