"""The watchdogs of client/watchdog.py one by one: deadlines from the observed token rate,
restarts by start time, requests a server has lost, and a silent stream."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest

from thinkeval.client.endpoint import Endpoint, RequestFailed
from thinkeval.client.profiles import get_profile
from thinkeval.client.session import open_session
from thinkeval.client.watchdog import Identity, Watchdog, WatchSettings
from thinkeval.generation import GenerationSettings
from thinkeval.sim.app import SIMULATOR_KEY, build_app, make_runner
from thinkeval.sim.config import SimConfig


async def _never() -> Identity:
    await asyncio.sleep(3600)
    return Identity()


def _dog(**settings: float | None) -> Watchdog:
    values = {
        "probe_interval_s": None,
        "deadline_factor": 2.0,
        "deadline_min_s": 0.0,
        "lost_after_s": 0.0,
    }
    values.update(settings)
    return Watchdog(WatchSettings(**values), _never)  # type: ignore[arg-type]


async def test_a_request_past_its_deadline_is_abandoned_once() -> None:
    dog = _dog()
    assert dog.deadline_s(100) is None  # no reply seen yet: no deadline
    key, _ = dog.begin(10)
    dog.end(key, tokens=100, latency_s=1.0)  # 100 tokens/s
    assert dog.deadline_s(100) == pytest.approx(2.0)
    _, abandon = dog.begin(5)  # deadline 0.1 s
    _, again = dog.begin(5, deadline_ok=False)  # the re-ask: only the timeout
    await asyncio.sleep(0.15)
    dog.check_deadlines()
    assert abandon.done() and abandon.result() == "past_deadline"
    assert not again.done()


async def test_a_new_start_time_or_a_server_back_from_down_is_a_restart() -> None:
    renewed: list[bool] = []
    downs: list[bool] = []
    dog = _dog()
    dog.on_restart = renewed.append  # with whether the server was seen down first
    dog.on_down = lambda: downs.append(True)
    dog.observe(Identity(up=True, started=100.0))
    _, lost = dog.begin(10)
    dog.observe(Identity(up=True, started=100.0))
    assert not lost.done()
    dog.observe(Identity(up=True, started=200.0))
    assert lost.result() == "server_restarted" and renewed == [False]
    _, later = dog.begin(10)
    dog.observe(Identity(down=True))
    assert downs == [True]  # new requests go over new connections from here
    _, to_fresh = dog.begin(10)  # sent after the server was seen down: to the fresh one
    dog.observe(Identity())  # a probe that timed out says nothing
    assert not later.done()
    dog.observe(Identity(up=True))
    assert later.result() == "server_restarted" and dog.restarts == 2
    assert not to_fresh.done() and renewed == [False, True]


async def test_a_server_holding_fewer_requests_twice_lost_the_oldest() -> None:
    dog = _dog()
    _, old = dog.begin(10)
    await asyncio.sleep(0.01)
    _, new = dog.begin(10)
    dog.observe(Identity(up=True, busy=1))  # one short, once: could be a reply in transit
    assert not old.done()
    await asyncio.sleep(0.01)
    _, newest = dog.begin(10)
    dog.observe(Identity(up=True, busy=2))  # still one short
    assert old.result() == "lost_at_server"
    assert not new.done() and not newest.done()
    dog.observe(Identity(up=True, busy=5))  # other clients' load hides nothing away
    assert not new.done()


async def test_a_slow_server_s_queue_is_no_loss() -> None:
    """llama.cpp on a busy CPU keeps a request in its queue, out of any slot, for several
    probes; only a shortfall that lasts `lost_after_s` is a loss."""
    dog = _dog(lost_after_s=30.0)
    _, first = dog.begin(10)
    _, queued = dog.begin(10)
    for _ in range(5):
        dog.observe(Identity(up=True, busy=1))  # one still in the server's queue
    assert not first.done() and not queued.done()
    # A probe that could not read the load (timed out on a busy server) breaks no streak.
    lost = _dog(lost_after_s=0.0)
    _, held = lost.begin(10)
    lost.observe(Identity(up=True, busy=0))
    lost.observe(Identity(up=True))
    lost.observe(Identity(up=True, busy=0))
    assert held.result() == "lost_at_server"


async def test_a_silent_stream_is_abandoned_after_stream_idle_s() -> None:
    app = build_app(SimConfig(per_token_s=0.01, short_tokens=(400, 500), p_long=0.0))
    runner = make_runner(app)
    await runner.setup()
    site = aiohttp.web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        async with open_session(2, False) as session:
            endpoint = Endpoint(
                session, f"http://127.0.0.1:{port}/v1", None, 60, stream=True, stream_idle_s=0.5
            )
            body = get_profile("vllm").request(
                "sim-qwen3",
                [{"role": "user", "content": "What is 2+2?"}],
                2000,
                GenerationSettings(),
                True,
            )
            asking = asyncio.ensure_future(endpoint.chat(body))
            await asyncio.sleep(0.3)  # streaming now
            app[SIMULATOR_KEY].hung.set()
            started = time.monotonic()
            with pytest.raises(RequestFailed) as failed:
                await asking
            assert failed.value.kind == "abandoned" and failed.value.abandoned == "stream_idle"
            assert time.monotonic() - started < 5
    finally:
        await runner.cleanup()
