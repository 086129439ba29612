"""A simulated reply sent as SSE, each chunk released when its last token is generated.

Per request (`max_num_batched_tokens` 0) a reply holds one slot and its chunks follow a fixed
clock: `latency + ttft + prefill`, then `per_token_s` per token. In the stepped engine
(`sim/engine.py`) the chunks follow the engine's progress instead, which every other sequence
on the replica slows, checked every `stream_chunk_tokens` steps and at the end.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from aiohttp import web

from thinkeval.sim.behaviour import Generation
from thinkeval.sim.engine import Engine, timed
from thinkeval.sim.requests import ChatRequest

if TYPE_CHECKING:
    from thinkeval.sim.server import Simulator

Events = list[tuple[int, bytes]]  # (the token that releases it, 1-based; the SSE bytes)


async def stream_reply(
    sim: Simulator, request: web.Request, rid: str, created: int, chat: ChatRequest, gen: Generation
) -> web.StreamResponse:
    """`POST /v1/chat/completions` with `stream: true`: the events of `gen`, paced."""
    profile = sim.profile
    head = profile.stream_head(rid, created, chat.model)
    events = profile.stream(head, gen, chat.prompt_tokens, chat.include_usage, sim.chunk_tokens)
    response = web.StreamResponse(
        status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )
    # Like vLLM, the 200 and headers go out before generation starts.
    await response.prepare(request)
    sim.stats.by_status[200] += 1
    prefill = sim.prefill(chat)
    if sim.engine is None:
        ttft, held = await _stream_timed(sim, response, events, prefill, gen)
    else:
        ttft, held = await _stream_stepped(sim, sim.engine, response, events, prefill, gen)
    await response.write_eof()
    sim.record(gen, chat.prompt_tokens, ttft, held)
    return response


async def _stream_timed(
    sim: Simulator, response: web.StreamResponse, events: Events, prefill: int, gen: Generation
) -> tuple[float, float]:
    """One slot, a fixed clock: (time to first token, seconds the slot was held)."""
    config = sim.config
    waited = await sim.acquire_slot()
    try:
        base = config.latency_s + config.ttft_s + config.prefill_token_s * prefill
        per_token = config.per_token_s
        loop = asyncio.get_running_loop()
        start = loop.time()
        pending: list[bytes] = []
        for position, data in events:
            delay = start + base + per_token * position - loop.time()
            if delay > 0:
                if pending:
                    await response.write(b"".join(pending))
                    pending.clear()
                await asyncio.sleep(delay)
                if sim.hung.is_set():  # mid-stream: the connection stays open, silent
                    await sim.shutting_down.wait()
            pending.append(data)
        await response.write(b"".join(pending))
    finally:
        sim.release_slot()
    return waited + base, sim.service_s(prefill, gen.completion_tokens)


async def _stream_stepped(
    sim: Simulator,
    engine: Engine,
    response: web.StreamResponse,
    events: Events,
    prefill: int,
    gen: Generation,
) -> tuple[float, float]:
    """In the engine's batch: (time to first token, seconds in the batch)."""
    fixed = sim.config.latency_s + sim.config.ttft_s
    if fixed > 0:
        await asyncio.sleep(fixed)
    seq = engine.join(prefill, gen.completion_tokens)
    sent = 0
    try:
        while True:
            out = engine.progress(seq)
            done = seq.done_at is not None
            ready = sent
            while ready < len(events) and (done or events[ready][0] <= out):
                ready += 1
            if ready > sent:
                await response.write(b"".join(data for _, data in events[sent:ready]))
                sent = ready
            if done:
                return timed(seq, fixed)
            if sim.hung.is_set():  # mid-stream: the connection stays open, silent
                await sim.shutting_down.wait()
            await engine.wait(seq, sim.chunk_tokens * engine.model.current_step_s())
    finally:
        engine.abort(seq)  # a client gone mid-stream frees its place in the batch
