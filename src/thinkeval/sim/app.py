"""The simulated server as an aiohttp application: its routes, and serving it in a running loop."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

from aiohttp import web

from thinkeval.sim.behaviour import AnswerEntry
from thinkeval.sim.completions import completions
from thinkeval.sim.config import SimConfig
from thinkeval.sim.server import Simulator

SIMULATOR_KEY = web.AppKey("thinkeval_simulator", Simulator)


def build_app(
    config: SimConfig, answer_key: Mapping[str, AnswerEntry] | None = None
) -> web.Application:
    """The aiohttp application of a simulated server; `app[SIMULATOR_KEY]` is its `Simulator`.

    >>> app = build_app(SimConfig(profile="sglang"))
    >>> app[SIMULATOR_KEY].profile.name
    'sglang'
    """
    sim = Simulator(config, answer_key)
    app = web.Application(client_max_size=64 * 1024 * 1024)
    app[SIMULATOR_KEY] = sim
    app.router.add_post("/v1/chat/completions", sim.chat)
    app.router.add_post("/v1/completions", functools.partial(completions, sim))
    app.router.add_get("/v1/models", sim.models)
    app.router.add_get("/health", sim.health)
    app.router.add_get("/version", sim.version)
    app.router.add_get("/metrics", sim.metrics)
    app.router.add_get("/sim/stats", sim.sim_stats)
    app.on_startup.append(sim.on_startup)
    app.on_shutdown.append(sim.on_shutdown)
    return app


def make_runner(app: web.Application) -> web.AppRunner:
    """A runner that cancels a handler when its client disconnects and stops promptly."""
    return web.AppRunner(app, handler_cancellation=True, shutdown_timeout=0.5, access_log=None)


@asynccontextmanager
async def serve(
    config: SimConfig,
    answer_key: Mapping[str, AnswerEntry] | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
) -> AsyncIterator[str]:
    """Serve a simulator in the running loop; yields its base URL, e.g. `http://127.0.0.1:PORT/v1`.

    Example::

        async with serve(SimConfig(seed=1)) as base_url:
            async with aiohttp.ClientSession() as session:
                await session.get(f"{base_url}/models")
    """
    runner = make_runner(build_app(config, answer_key))
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=4096)
    await site.start()
    bound_port = runner.addresses[0][1]
    try:
        yield f"http://{host}:{bound_port}/v1"
    finally:
        await runner.cleanup()
